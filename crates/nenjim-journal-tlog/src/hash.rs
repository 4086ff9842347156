//! RFC 6962 hashes: a leaf is `SHA-256(0x00 ‖ record)`, a node
//! `SHA-256(0x01 ‖ left ‖ right)`, the empty tree `SHA-256("")`.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// The size of a [`Hash`](struct@Hash) in bytes.
pub const HASH_SIZE: usize = 32;

/// A SHA-256 hash of the tree: a leaf, a node, a subtree or a root.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Hash(pub [u8; HASH_SIZE]);

impl Hash {
    /// The standard padded base64 of the 32 bytes (a checkpoint's root line).
    pub fn to_base64(&self) -> String {
        STANDARD.encode(self.0)
    }

    /// Reads a hash from standard padded base64; `None` unless it decodes
    /// to exactly 32 bytes in its canonical form.
    pub fn from_base64(text: &str) -> Option<Hash> {
        let bytes = STANDARD.decode(text).ok()?;
        let hash = Hash(bytes.try_into().ok()?);
        (hash.to_base64() == text).then_some(hash)
    }

    /// Reads the hash at `index` of a tile's bytes (32 bytes a hash).
    pub fn from_tile(data: &[u8], index: usize) -> Option<Hash> {
        let start = index.checked_mul(HASH_SIZE)?;
        let bytes = data.get(start..start.checked_add(HASH_SIZE)?)?;
        Some(Hash(bytes.try_into().ok()?))
    }

    /// The lowercase hex of the 32 bytes.
    pub fn to_hex(&self) -> String {
        use fmt::Write as _;
        let mut out = String::with_capacity(2 * HASH_SIZE);
        for byte in self.0 {
            let _ = write!(out, "{byte:02x}");
        }
        out
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash({})", self.to_hex())
    }
}

impl fmt::Display for Hash {
    /// The base64 form, as in a checkpoint.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_base64())
    }
}

/// The leaf hash of a record: `SHA-256(0x00 ‖ record)`.
pub fn leaf_hash(record: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update([0x00]);
    h.update(record);
    Hash(h.finalize().into())
}

/// The hash of an inner node: `SHA-256(0x01 ‖ left ‖ right)`.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([0x01]);
    h.update(left.0);
    h.update(right.0);
    Hash(h.finalize().into())
}

/// The root of the empty tree: `SHA-256("")`.
pub fn empty_root() -> Hash {
    Hash(Sha256::digest([]).into())
}

/// The root of a perfect subtree whose leaves (or lower subtrees of one
/// height) are `hashes`, a power of two of them; `None` for an empty list
/// or a length that is not a power of two.
pub fn perfect_root(hashes: &[Hash]) -> Option<Hash> {
    if hashes.is_empty() || !hashes.len().is_power_of_two() {
        return None;
    }
    let mut level: Vec<Hash> = hashes.to_vec();
    while level.len() > 1 {
        level = level
            .chunks_exact(2)
            .map(|pair| node_hash(&pair[0], &pair[1]))
            .collect();
    }
    level.first().copied()
}

/// The RFC 6962 Merkle Tree Hash of a list of leaf hashes (`MTH`), in one
/// pass: the empty tree's root for no leaf.
pub fn tree_hash(leaves: &[Hash]) -> Hash {
    let mut range = Frontier::default();
    for leaf in leaves {
        range.push(*leaf);
    }
    range.root()
}

/// The root hash of a tree grown one record at a time, holding only its
/// right edge (`O(log N)` hashes): what a verifier that reads every record
/// keeps between two checkpoints (a [`crate::tree::TreeState`] also keeps
/// the tiles a writer stores).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeHasher {
    size: u64,
    frontier: Frontier,
}

impl TreeHasher {
    /// The empty tree.
    pub fn new() -> TreeHasher {
        TreeHasher::default()
    }
    /// Appends `record` as the next leaf.
    pub fn push_record(&mut self, record: &[u8]) {
        self.push_leaf(leaf_hash(record));
    }
    /// Appends a leaf hash as the next leaf.
    pub fn push_leaf(&mut self, leaf: Hash) {
        self.size += 1;
        self.frontier.push(leaf);
    }
    /// The number of leaves.
    pub fn size(&self) -> u64 {
        self.size
    }
    /// The root hash of the tree as it is.
    pub fn root(&self) -> Hash {
        self.frontier.root()
    }
}

/// The right edge of a tree: the roots of its perfect subtrees, largest
/// first (one for each bit set in the tree's size), from which the root
/// follows in `O(log N)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Frontier {
    /// `(height, root)`: heights strictly decreasing.
    pub(crate) subtrees: Vec<(u8, Hash)>,
}

impl Frontier {
    /// Adds one leaf on the right, merging equal heights.
    pub(crate) fn push(&mut self, leaf: Hash) {
        let mut carry = (0u8, leaf);
        while let Some(&(height, left)) = self.subtrees.last() {
            if height != carry.0 {
                break;
            }
            self.subtrees.pop();
            carry = (height + 1, node_hash(&left, &carry.1));
        }
        self.subtrees.push(carry);
    }

    /// The root hash: the subtrees folded from the right.
    pub(crate) fn root(&self) -> Hash {
        let mut iter = self.subtrees.iter().rev();
        let Some(&(_, mut root)) = iter.next() else {
            return empty_root();
        };
        for (_, left) in iter {
            root = node_hash(left, &root);
        }
        root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_root_is_the_sha256_of_nothing() {
        assert_eq!(
            empty_root().to_hex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(tree_hash(&[]), empty_root());
    }

    #[test]
    fn rfc6962_test_vectors() {
        // The roots of the certificate-transparency test data, whose leaves
        // are the empty string, 0x00, 0x10, …: sizes 1, 2 and 3.
        let leaves = [leaf_hash(b""), leaf_hash(&[0x00]), leaf_hash(&[0x10])];
        assert_eq!(
            tree_hash(&leaves[..1]).to_hex(),
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
        );
        assert_eq!(
            tree_hash(&leaves[..2]).to_hex(),
            "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"
        );
        assert_eq!(
            tree_hash(&leaves).to_hex(),
            "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77"
        );
    }

    #[test]
    fn base64_is_canonical_and_32_bytes() {
        let h = leaf_hash(b"x");
        assert_eq!(Hash::from_base64(&h.to_base64()), Some(h));
        assert_eq!(Hash::from_base64("AAAA"), None);
        assert_eq!(Hash::from_base64(&h.to_base64().replace('=', "")), None);
    }

    #[test]
    fn a_tree_hasher_gives_the_tree_hash() {
        let leaves: Vec<Hash> = (0u8..11).map(|i| leaf_hash(&[i])).collect();
        let mut hasher = TreeHasher::new();
        assert_eq!(hasher.root(), empty_root());
        for i in 0..leaves.len() {
            hasher.push_record(&[i as u8]);
            assert_eq!(hasher.size(), i as u64 + 1);
            assert_eq!(hasher.root(), tree_hash(&leaves[..=i]));
        }
        let mut other = TreeHasher::new();
        other.push_leaf(leaves[0]);
        assert_eq!(other.root(), leaves[0]);
    }

    #[test]
    fn perfect_root_needs_a_power_of_two() {
        let h = leaf_hash(b"a");
        assert_eq!(perfect_root(&[h]), Some(h));
        assert_eq!(perfect_root(&[h, h, h]), None);
        assert_eq!(perfect_root(&[]), None);
        assert_eq!(perfect_root(&[h, h]), Some(node_hash(&h, &h)));
    }
}
