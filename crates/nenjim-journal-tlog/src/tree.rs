//! The RFC 6962 tree: subtree hashes from a [`HashSource`], inclusion and
//! consistency proofs (RFC 6962 §2.1.1, §2.1.2) and their verification,
//! and the incremental [`TreeState`] of a writer.

use nenjim_journal_api::error::{self, ErrorKind, JournalError};

use crate::hash::{Frontier, Hash, empty_root, leaf_hash, node_hash, perfect_root};
use crate::tile::{TILE_HEIGHT, TILE_WIDTH, Tile, TileKind, bundle};

/// Where proofs get the hashes of perfect subtrees: the tiles of a tree
/// ([`crate::tile::TileHashes`]), or the leaves in memory
/// ([`LeafHashes`]).
pub trait HashSource {
    /// The root of the perfect subtree of `2^height` leaves whose first
    /// leaf is `index · 2^height`.
    fn subtree(&mut self, height: u8, index: u64) -> Result<Hash, JournalError>;
}

/// Every leaf hash of a tree, in memory: subtree hashes are computed on
/// demand (for tests and small trees).
#[derive(Clone, Debug, Default)]
pub struct LeafHashes(pub Vec<Hash>);

impl HashSource for LeafHashes {
    fn subtree(&mut self, height: u8, index: u64) -> Result<Hash, JournalError> {
        let width = 1u64.checked_shl(u32::from(height));
        let range = width.and_then(|w| Some((index.checked_mul(w)?, w)));
        let hashes = range.and_then(|(start, w)| {
            let start = usize::try_from(start).ok()?;
            self.0
                .get(start..start.checked_add(usize::try_from(w).ok()?)?)
        });
        hashes.and_then(perfect_root).ok_or_else(|| {
            mismatch(format!(
                "asked for subtree {index} of height {height}, which a tree of {} leaves does not have",
                self.0.len()
            ))
        })
    }
}

fn mismatch(message: impl Into<String>) -> JournalError {
    error::error(ErrorKind::CheckpointMismatch, message)
}

/// The largest power of two smaller than `n` (`n ≥ 2`).
fn split(n: u64) -> u64 {
    1 << (63 - (n - 1).leading_zeros())
}

/// The Merkle Tree Hash of the leaves `lo..hi` (`MTH(D[lo:hi])`), from
/// the perfect subtrees it is made of.
pub fn range_hash(source: &mut impl HashSource, lo: u64, hi: u64) -> Result<Hash, JournalError> {
    let n = hi.saturating_sub(lo);
    if n == 0 {
        return Ok(empty_root());
    }
    if n.is_power_of_two() && lo.is_multiple_of(n) {
        return source.subtree(n.trailing_zeros() as u8, lo / n);
    }
    let k = split(n);
    let left = range_hash(source, lo, lo + k)?;
    let right = range_hash(source, lo + k, hi)?;
    Ok(node_hash(&left, &right))
}

/// The root hash of the tree of `size` leaves.
pub fn tree_root(source: &mut impl HashSource, size: u64) -> Result<Hash, JournalError> {
    range_hash(source, 0, size)
}

/// The inclusion proof of leaf `index` in the tree of `size` leaves
/// (RFC 6962 §2.1.1 `PATH`): sibling hashes from the leaf up.
pub fn prove_inclusion(
    source: &mut impl HashSource,
    size: u64,
    index: u64,
) -> Result<Vec<Hash>, JournalError> {
    if index >= size {
        return Err(mismatch(format!(
            "asked for the inclusion of leaf {index}, expected a leaf below the tree size {size}"
        )));
    }
    let mut proof = Vec::new();
    path(source, index, 0, size, &mut proof)?;
    Ok(proof)
}

fn path(
    source: &mut impl HashSource,
    m: u64,
    lo: u64,
    hi: u64,
    out: &mut Vec<Hash>,
) -> Result<(), JournalError> {
    let n = hi - lo;
    if n <= 1 {
        return Ok(());
    }
    let k = split(n);
    if m < k {
        path(source, m, lo, lo + k, out)?;
        out.push(range_hash(source, lo + k, hi)?);
    } else {
        path(source, m - k, lo + k, hi, out)?;
        out.push(range_hash(source, lo, lo + k)?);
    }
    Ok(())
}

/// The consistency proof between the trees of `old` and `new` leaves
/// (RFC 6962 §2.1.2 `PROOF`); empty when `old` is 0 or equals `new`.
pub fn prove_consistency(
    source: &mut impl HashSource,
    old: u64,
    new: u64,
) -> Result<Vec<Hash>, JournalError> {
    if old > new {
        return Err(error::error(
            ErrorKind::Rollback,
            format!(
                "asked for the consistency of a tree of {old} leaves with a smaller one of {new}"
            ),
        ));
    }
    let mut proof = Vec::new();
    if old > 0 && old < new {
        subproof(source, old, 0, new, true, &mut proof)?;
    }
    Ok(proof)
}

fn subproof(
    source: &mut impl HashSource,
    m: u64,
    lo: u64,
    hi: u64,
    whole: bool,
    out: &mut Vec<Hash>,
) -> Result<(), JournalError> {
    let n = hi - lo;
    if m == n {
        if !whole {
            out.push(range_hash(source, lo, hi)?);
        }
        return Ok(());
    }
    let k = split(n);
    if m <= k {
        subproof(source, m, lo, lo + k, whole, out)?;
        out.push(range_hash(source, lo + k, hi)?);
    } else {
        subproof(source, m - k, lo + k, hi, false, out)?;
        out.push(range_hash(source, lo, lo + k)?);
    }
    Ok(())
}

/// Checks that `proof` proves leaf hash `leaf` at `index` in the tree of
/// `size` leaves with root `root` (the RFC 9162 §2.1.3.2 algorithm);
/// `CheckpointMismatch` otherwise.
pub fn verify_inclusion(
    leaf: &Hash,
    index: u64,
    size: u64,
    root: &Hash,
    proof: &[Hash],
) -> Result<(), JournalError> {
    let refuse = |why: &str| {
        Err(mismatch(format!(
            "the inclusion proof of leaf {index} in the tree of {size} leaves does not verify: {why}"
        )))
    };
    if index >= size {
        return refuse("the leaf is past the tree");
    }
    let (mut fn_, mut sn) = (index, size - 1);
    let mut r = *leaf;
    for p in proof {
        if sn == 0 {
            return refuse("the proof is too long");
        }
        if fn_ & 1 == 1 || fn_ == sn {
            r = node_hash(p, &r);
            while fn_ & 1 == 0 && fn_ != 0 {
                fn_ >>= 1;
                sn >>= 1;
            }
        } else {
            r = node_hash(&r, p);
        }
        fn_ >>= 1;
        sn >>= 1;
    }
    if sn != 0 {
        return refuse("the proof is too short");
    }
    if r != *root {
        return refuse("it leads to another root hash");
    }
    Ok(())
}

/// Checks that `proof` proves the tree of `old` leaves with root
/// `old_root` a prefix of the tree of `new` leaves with root `new_root`
/// (the RFC 9162 §2.1.4.2 algorithm); `Rollback` otherwise.
pub fn verify_consistency(
    old: u64,
    new: u64,
    old_root: &Hash,
    new_root: &Hash,
    proof: &[Hash],
) -> Result<(), JournalError> {
    let refuse = |why: &str| {
        Err(error::error(
            ErrorKind::Rollback,
            format!(
                "the tree of {old} leaves is not proved a prefix of the tree of {new} leaves: {why}"
            ),
        ))
    };
    if old > new {
        return refuse("it is larger");
    }
    if old == new {
        if !proof.is_empty() {
            return refuse("a proof between equal sizes must be empty");
        }
        if old_root != new_root {
            return refuse("their root hashes differ");
        }
        return Ok(());
    }
    if old == 0 {
        if !proof.is_empty() {
            return refuse("a proof from the empty tree must be empty");
        }
        if *old_root != empty_root() {
            return refuse("the empty tree has another root hash");
        }
        return Ok(());
    }
    let mut path: Vec<Hash> = Vec::with_capacity(proof.len() + 1);
    if old.is_power_of_two() {
        path.push(*old_root);
    }
    path.extend_from_slice(proof);
    let Some((first, rest)) = path.split_first() else {
        return refuse("the proof is empty");
    };
    let (mut fn_, mut sn) = (old - 1, new - 1);
    while fn_ & 1 == 1 {
        fn_ >>= 1;
        sn >>= 1;
    }
    let (mut fr, mut sr) = (*first, *first);
    for c in rest {
        if sn == 0 {
            return refuse("the proof is too long");
        }
        if fn_ & 1 == 1 || fn_ == sn {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            while fn_ & 1 == 0 && fn_ != 0 {
                fn_ >>= 1;
                sn >>= 1;
            }
        } else {
            sr = node_hash(&sr, c);
        }
        fn_ >>= 1;
        sn >>= 1;
    }
    if sn != 0 {
        return refuse("the proof is too short");
    }
    if fr != *old_root {
        return refuse("it leads to another old root hash");
    }
    if sr != *new_root {
        return refuse("it leads to another new root hash");
    }
    Ok(())
}

/// A tile that changed, with its bytes: what a writer stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileData {
    /// The tile (its path is [`Tile::path`]).
    pub tile: Tile,
    /// Its content: `width` hashes of 32 bytes, or the entry bundle.
    pub data: Vec<u8>,
}

/// The tree of a writer, grown one record at a time: the root in
/// `O(log N)`, and the tiles each growth changes.
///
/// It holds the right edge of the tree (one perfect subtree a bit of the
/// size), the hashes of the partial tile of each level, the records of the
/// partial entry bundle, and the full tiles completed since the last
/// [`TreeState::take_tiles`]: a few kilobytes whatever the size.
#[derive(Clone, Debug)]
pub struct TreeState {
    size: u64,
    frontier: Frontier,
    /// `partial[l]`: the hashes of the partial tile of level `l` (< 256).
    partial: Vec<Vec<Hash>>,
    /// The records of the partial entry bundle (< 256).
    records: Vec<Vec<u8>>,
    /// Full tiles completed after the size `taken`.
    pending: Vec<TileData>,
    /// The size at the last [`TreeState::take_tiles`].
    taken: u64,
}

impl Default for TreeState {
    fn default() -> Self {
        TreeState::new()
    }
}

impl TreeState {
    /// The empty tree.
    pub fn new() -> TreeState {
        TreeState {
            size: 0,
            frontier: Frontier::default(),
            partial: Vec::new(),
            records: Vec::new(),
            pending: Vec::new(),
            taken: 0,
        }
    }

    /// The tree of `records`, appended in order, as a writer finds it
    /// when the tiles up to `published` leaves are already stored: the
    /// first [`TreeState::take_tiles`] gives every tile that changed after
    /// `published` (0: all of them).
    pub fn replay<R: AsRef<[u8]>>(
        records: impl IntoIterator<Item = R>,
        published: u64,
    ) -> Result<TreeState, JournalError> {
        let mut state = TreeState {
            taken: published,
            ..TreeState::new()
        };
        for record in records {
            state.append(record.as_ref())?;
        }
        if published > state.size {
            return Err(mismatch(format!(
                "found {} records, expected at least the {published} already published",
                state.size
            )));
        }
        Ok(state)
    }

    /// The tree of `size` leaves resumed from its partial tiles (as
    /// [`Tile::partials`] lists them, read back from storage: the hashes
    /// of each level's partial tile, and the records of the partial entry
    /// bundle), without reading the rest of the tree. Nothing is pending.
    pub fn resume(
        size: u64,
        partial: Vec<Vec<Hash>>,
        records: Vec<Vec<u8>>,
    ) -> Result<TreeState, JournalError> {
        let width = u64::from(TILE_WIDTH);
        let mut levels = 0;
        while crate::tile::level_count(size, levels) > 0 {
            levels += 1;
        }
        if partial.len() != usize::from(levels) {
            return Err(mismatch(format!(
                "found partial tiles of {} levels, expected {levels} for a tree of {size} leaves",
                partial.len()
            )));
        }
        for (level, hashes) in partial.iter().enumerate() {
            let expected = crate::tile::level_count(size, level as u8) % width;
            if hashes.len() as u64 != expected {
                return Err(mismatch(format!(
                    "found {} hashes in the partial tile of level {level}, expected {expected} for a tree of {size} leaves",
                    hashes.len()
                )));
            }
        }
        let leaves = partial.first().map_or(&[][..], Vec::as_slice);
        if records.len() != leaves.len()
            || records.iter().zip(leaves).any(|(r, h)| leaf_hash(r) != *h)
        {
            return Err(mismatch(format!(
                "the {} records of the partial entry bundle do not hash to the {} leaves of the partial level-0 tile",
                records.len(),
                leaves.len()
            )));
        }
        let mut frontier = Frontier::default();
        for (level, hashes) in partial.iter().enumerate().rev() {
            let mut offset = 0;
            for bit in (0..TILE_HEIGHT).rev() {
                let n = 1usize << bit;
                if hashes.len() & n != 0 {
                    let root = perfect_root(&hashes[offset..offset + n])
                        .ok_or_else(|| mismatch("a partial tile is not whole"))?;
                    frontier
                        .subtrees
                        .push((level as u8 * TILE_HEIGHT + bit, root));
                    offset += n;
                }
            }
        }
        Ok(TreeState {
            size,
            frontier,
            partial,
            records,
            pending: Vec::new(),
            taken: size,
        })
    }

    /// The number of leaves.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The root hash of the tree as it is.
    pub fn root(&self) -> Hash {
        self.frontier.root()
    }

    /// Appends one record as the next leaf; returns its leaf hash. A record
    /// longer than an entry bundle can hold (65535 bytes) is refused.
    pub fn append(&mut self, record: &[u8]) -> Result<Hash, JournalError> {
        if record.len() > usize::from(u16::MAX) {
            return Err(mismatch(format!(
                "found a record of {} bytes, expected at most 65535",
                record.len()
            )));
        }
        let leaf = leaf_hash(record);
        let index = self.size;
        self.size += 1;
        self.frontier.push(leaf);
        self.records.push(record.to_vec());
        if self.records.len() == usize::from(TILE_WIDTH) {
            let records = std::mem::take(&mut self.records);
            let end = self.size;
            if end > self.taken {
                self.pending.push(TileData {
                    tile: Tile {
                        kind: TileKind::Entries,
                        index: index / u64::from(TILE_WIDTH),
                        width: TILE_WIDTH,
                    },
                    data: bundle(&records)?,
                });
            }
        }
        let mut carry = leaf;
        let mut level = 0usize;
        loop {
            if self.partial.len() <= level {
                self.partial.push(Vec::new());
            }
            self.partial[level].push(carry);
            if self.partial[level].len() < usize::from(TILE_WIDTH) {
                break;
            }
            let hashes = std::mem::take(&mut self.partial[level]);
            let root = perfect_root(&hashes).ok_or_else(|| mismatch("a full tile is not whole"))?;
            let count = crate::tile::level_count(self.size, level as u8);
            if self.size > self.taken {
                let data = hashes.iter().flat_map(|h| h.0).collect();
                self.pending.push(TileData {
                    tile: Tile {
                        kind: TileKind::Hashes { level: level as u8 },
                        index: count / u64::from(TILE_WIDTH) - 1,
                        width: TILE_WIDTH,
                    },
                    data,
                });
            }
            carry = root;
            level += 1;
        }
        Ok(leaf)
    }

    /// Every tile that changed since the last call (or since the size a
    /// [`TreeState::replay`] was told was published), as in
    /// [`Tile::changed`]: the full tiles completed meanwhile and the
    /// current partial tiles, each with its bytes.
    pub fn take_tiles(&mut self) -> Vec<TileData> {
        let mut out = std::mem::take(&mut self.pending);
        for tile in Tile::changed(self.taken, self.size) {
            if tile.is_full() {
                continue;
            }
            let data = match tile.kind {
                TileKind::Hashes { level } => self
                    .partial
                    .get(usize::from(level))
                    .map(|hashes| hashes.iter().flat_map(|h| h.0).collect()),
                TileKind::Entries => bundle(&self.records).ok(),
            };
            if let Some(data) = data {
                out.push(TileData { tile, data });
            }
        }
        out.sort_by_key(|t| t.tile);
        self.taken = self.size;
        out
    }
}
