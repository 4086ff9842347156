//! C2SP tlog-tiles: hash tiles `tile/<L>/<N>[.p/<W>]` and entry bundles
//! `tile/entries/<N>[.p/<W>]`, tile height 8 (256 hashes a full tile).
//!
//! The `n`-th tile at level `l` holds the hashes of the subtrees of
//! `256^l` leaves numbered `n·256 … n·256 + 255` (level 0: the leaf
//! hashes), so a reader with only the tiles of a tree can compute any
//! subtree hash ([`TileHashes`]) and so any proof. The rightmost tile of
//! each level is *partial* (1 to 255 hashes) until it fills; full tiles
//! never change.

use std::collections::HashMap;
use std::fmt;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};

use crate::hash::{HASH_SIZE, Hash, perfect_root};
use crate::tree::HashSource;

/// The tile height: a tile spans 8 levels of the tree.
pub const TILE_HEIGHT: u8 = 8;

/// Hashes (or entries) in a full tile.
pub const TILE_WIDTH: u16 = 1 << TILE_HEIGHT;

/// The largest hash-tile level a path may name (C2SP: 0 to 63).
pub const MAX_LEVEL: u8 = 63;

/// What a tile holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TileKind {
    /// Hashes at a tile level (`tile/<L>/…`).
    Hashes {
        /// The tile level, 0 for leaf hashes.
        level: u8,
    },
    /// An entry bundle (`tile/entries/…`): the records of a level-0 tile.
    Entries,
}

/// One tile of a tree: its kind, index within its level and width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile {
    /// Hashes of a level, or entries.
    pub kind: TileKind,
    /// The tile's index within its level (`<N>`).
    pub index: u64,
    /// The number of hashes or entries, 1 to 256 (256: a full tile).
    pub width: u16,
}

/// `256^level`, the leaves under one hash of a tile at `level`; `None`
/// past `u64`.
fn span(level: u8) -> Option<u64> {
    1u64.checked_shl(u32::from(level) * u32::from(TILE_HEIGHT))
}

/// The number of hashes at tile level `level` in a tree of `size` leaves
/// (`floor(size / 256^level)`).
pub fn level_count(size: u64, level: u8) -> u64 {
    span(level).map_or(0, |span| size / span)
}

impl Tile {
    /// The hash tile `index` of `level` as it is in a tree of `size`
    /// leaves; `None` if the tree has no hash of that tile yet.
    pub fn hashes(level: u8, index: u64, size: u64) -> Option<Tile> {
        let width = Self::width_in(level_count(size, level), index)?;
        Some(Tile {
            kind: TileKind::Hashes { level },
            index,
            width,
        })
    }

    /// The entry bundle `index` as it is in a tree of `size` leaves.
    pub fn entries(index: u64, size: u64) -> Option<Tile> {
        let width = Self::width_in(size, index)?;
        Some(Tile {
            kind: TileKind::Entries,
            index,
            width,
        })
    }

    fn width_in(count: u64, index: u64) -> Option<u16> {
        let start = index.checked_mul(u64::from(TILE_WIDTH))?;
        let width = count.checked_sub(start).filter(|w| *w > 0)?;
        Some(width.min(u64::from(TILE_WIDTH)) as u16)
    }

    /// Whether the tile is full (256 wide) and so immutable.
    pub fn is_full(&self) -> bool {
        self.width == TILE_WIDTH
    }

    /// The tile's level: 0 for an entry bundle (it matches the level-0 tile).
    pub fn level(&self) -> u8 {
        match self.kind {
            TileKind::Hashes { level } => level,
            TileKind::Entries => 0,
        }
    }

    /// The tile's path below the log's prefix: `tile/0/x001/x234/067`,
    /// `tile/1/000.p/17`, `tile/entries/003`.
    pub fn path(&self) -> String {
        let mut out = String::from("tile/");
        match self.kind {
            TileKind::Hashes { level } => out.push_str(&level.to_string()),
            TileKind::Entries => out.push_str("entries"),
        }
        out.push('/');
        out.push_str(&index_path(self.index));
        if !self.is_full() {
            out.push_str(".p/");
            out.push_str(&self.width.to_string());
        }
        out
    }

    /// Reads a tile path (the inverse of [`Tile::path`]), refusing any
    /// other spelling of it: a level or width with a leading zero, a width
    /// of 0 or 256 and more, an index element that is not three digits or
    /// lacks (or has) its `x`.
    pub fn parse_path(path: &str) -> Result<Tile, JournalError> {
        let bad = |what: &str| {
            error::error(
                ErrorKind::CheckpointInvalid,
                format!(
                    "found tile path {}, expected `tile/<L>/<N>[.p/<W>]` or \
                     `tile/entries/<N>[.p/<W>]`: {what}",
                    error::shown(path)
                ),
            )
        };
        let rest = path
            .strip_prefix("tile/")
            .ok_or_else(|| bad("no `tile/`"))?;
        let (level, rest) = rest.split_once('/').ok_or_else(|| bad("no index"))?;
        let kind = if level == "entries" {
            TileKind::Entries
        } else {
            let level = decimal(level)
                .and_then(|l| u8::try_from(l).ok())
                .filter(|l| *l <= MAX_LEVEL)
                .ok_or_else(|| bad("the level is not a number 0 to 63"))?;
            TileKind::Hashes { level }
        };
        let (index, width) = match rest.split_once(".p/") {
            Some((index, width)) => {
                let width = decimal(width)
                    .filter(|w| (1..u64::from(TILE_WIDTH)).contains(w))
                    .ok_or_else(|| bad("the partial width is not a number 1 to 255"))?;
                (index, width as u16)
            }
            None => (rest, TILE_WIDTH),
        };
        let index = parse_index(index).ok_or_else(|| {
            bad("the index is not 3-digit elements, all but the last starting with `x`")
        })?;
        Ok(Tile { kind, index, width })
    }

    /// The tiles (hash tiles of every level, then entry bundles) whose
    /// content differs between the trees of `old` and `new` leaves, each
    /// as it is in the tree of `new`: what a writer writes when the tree
    /// grows (full ones create-if-absent, partial ones replaced). Empty
    /// unless `old < new`.
    pub fn changed(old: u64, new: u64) -> Vec<Tile> {
        let mut out = Vec::new();
        if old >= new {
            return out;
        }
        for level in 0..=MAX_LEVEL {
            let (was, is) = (level_count(old, level), level_count(new, level));
            if was == is {
                break;
            }
            for index in was / u64::from(TILE_WIDTH)..=(is - 1) / u64::from(TILE_WIDTH) {
                out.extend(Tile::hashes(level, index, new));
            }
        }
        for index in old / u64::from(TILE_WIDTH)..=(new - 1) / u64::from(TILE_WIDTH) {
            out.extend(Tile::entries(index, new));
        }
        out
    }

    /// The partial hash tiles of a tree of `size` leaves, level 0 first
    /// (the rightmost tile of each level that is not full), then its
    /// partial entry bundle: what a writer reads to resume the tree.
    pub fn partials(size: u64) -> Vec<Tile> {
        let mut out = Vec::new();
        for level in 0..=MAX_LEVEL {
            let count = level_count(size, level);
            if count == 0 {
                break;
            }
            let width = count % u64::from(TILE_WIDTH);
            if width > 0 {
                out.extend(Tile::hashes(level, count / u64::from(TILE_WIDTH), size));
            }
        }
        if !size.is_multiple_of(u64::from(TILE_WIDTH)) {
            out.extend(Tile::entries(size / u64::from(TILE_WIDTH), size));
        }
        out
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path())
    }
}

/// `1234067` → `x001/x234/067`.
fn index_path(mut index: u64) -> String {
    let mut parts = vec![format!("{:03}", index % 1000)];
    while index >= 1000 {
        index /= 1000;
        parts.push(format!("x{:03}", index % 1000));
    }
    parts.reverse();
    parts.join("/")
}

fn parse_index(text: &str) -> Option<u64> {
    let parts: Vec<&str> = text.split('/').collect();
    let (last, rest) = parts.split_last()?;
    let mut index: u64 = 0;
    for (i, part) in rest.iter().chain(std::iter::once(last)).enumerate() {
        let digits = if i + 1 < parts.len() {
            part.strip_prefix('x')?
        } else {
            part
        };
        if digits.len() != 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let value: u64 = digits.parse().ok()?;
        index = index.checked_mul(1000)?.checked_add(value)?;
    }
    // The canonical form has no leading `x000/` element.
    (index_path(index) == text).then_some(index)
}

/// A decimal number without leading zeroes (`0` alone is allowed).
fn decimal(text: &str) -> Option<u64> {
    if text.is_empty()
        || !text.bytes().all(|b| b.is_ascii_digit())
        || (text.len() > 1 && text.starts_with('0'))
    {
        return None;
    }
    text.parse().ok()
}

/// The bytes of an entry bundle: each record as a big-endian `uint16`
/// length and its bytes.
pub fn bundle(records: &[impl AsRef<[u8]>]) -> Result<Vec<u8>, JournalError> {
    let mut out = Vec::new();
    for record in records {
        let record = record.as_ref();
        let len = u16::try_from(record.len()).map_err(|_| {
            error::error(
                ErrorKind::CheckpointMismatch,
                format!(
                    "found a record of {} bytes, expected at most 65535 in an entry bundle",
                    record.len()
                ),
            )
        })?;
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(record);
    }
    Ok(out)
}

/// The records of an entry bundle, refusing a truncated one.
pub fn unbundle(data: &[u8]) -> Result<Vec<&[u8]>, JournalError> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let malformed = || {
            error::error(
                ErrorKind::CheckpointMismatch,
                format!(
                    "found an entry bundle cut at byte {}, expected a uint16 length and that many bytes",
                    data.len() - rest.len()
                ),
            )
        };
        let (len, tail) = rest.split_first_chunk::<2>().ok_or_else(malformed)?;
        let len = usize::from(u16::from_be_bytes(*len));
        let record = tail.get(..len).ok_or_else(malformed)?;
        out.push(record);
        rest = &tail[len..];
    }
    Ok(out)
}

/// Where a reader gets tiles: a directory, a bucket, a map in memory.
pub trait TileReader {
    /// The bytes of `tile` (its path is [`Tile::path`]); a missing tile is
    /// an error of the reader's own kind (`Io` for a file).
    fn read_tile(&mut self, tile: &Tile) -> Result<Vec<u8>, JournalError>;
}

impl<F> TileReader for F
where
    F: FnMut(&Tile) -> Result<Vec<u8>, JournalError>,
{
    fn read_tile(&mut self, tile: &Tile) -> Result<Vec<u8>, JournalError> {
        self(tile)
    }
}

/// The subtree hashes of a tree of `size` leaves, read from its hash
/// tiles (each tile read once; a partial tile that is gone is read from
/// its full tile): a [`HashSource`] for the proofs of a verifier that has
/// only the tiles, possibly of a later tree. The hashes are taken as they are;
/// a proof built from them is checked against a signed root, which is
/// what makes them trustworthy.
#[derive(Debug)]
pub struct TileHashes<R> {
    size: u64,
    reader: R,
    tiles: HashMap<(u8, u64), Vec<u8>>,
}

impl<R: TileReader> TileHashes<R> {
    /// The hashes of the tree of `size` leaves that `reader` holds.
    pub fn new(size: u64, reader: R) -> TileHashes<R> {
        TileHashes {
            size,
            reader,
            tiles: HashMap::new(),
        }
    }

    /// The tree size the tiles are read for.
    pub fn size(&self) -> u64 {
        self.size
    }

    fn tile(&mut self, tile: Tile) -> Result<&[u8], JournalError> {
        let key = (tile.level(), tile.index);
        if !self.tiles.contains_key(&key) {
            let data = match self.read_checked(tile) {
                Ok(data) => data,
                // A partial tile may be gone once its full tile exists
                // (C2SP): its first hashes are the partial tile's.
                Err(partial) if !tile.is_full() => {
                    let full = Tile {
                        width: TILE_WIDTH,
                        ..tile
                    };
                    let mut data = self.read_checked(full).map_err(|_| partial)?;
                    data.truncate(usize::from(tile.width) * HASH_SIZE);
                    data
                }
                Err(e) => return Err(e),
            };
            self.tiles.insert(key, data);
        }
        Ok(self.tiles.get(&key).map_or(&[][..], Vec::as_slice))
    }

    /// Reads `tile`, refusing bytes that are not `width` hashes.
    fn read_checked(&mut self, tile: Tile) -> Result<Vec<u8>, JournalError> {
        let data = self
            .reader
            .read_tile(&tile)
            .map_err(|e| e.with_path(tile.path()))?;
        let expected = usize::from(tile.width) * HASH_SIZE;
        if data.len() != expected {
            return Err(error::error(
                ErrorKind::CheckpointMismatch,
                format!(
                    "found a hash tile of {} bytes, expected {expected} ({} hashes)",
                    data.len(),
                    tile.width
                ),
            )
            .with_path(tile.path()));
        }
        Ok(data)
    }
}

impl<R: TileReader> HashSource for TileHashes<R> {
    fn subtree(&mut self, height: u8, index: u64) -> Result<Hash, JournalError> {
        let level = height / TILE_HEIGHT;
        let below = height % TILE_HEIGHT;
        let size = self.size;
        let missing = || {
            error::error(
                ErrorKind::CheckpointMismatch,
                format!(
                    "asked for subtree {index} of height {height}, which a tree of {size} leaves does not have"
                ),
            )
        };
        let first = index.checked_shl(u32::from(below)).ok_or_else(missing)?;
        let count = 1usize << below;
        let tile_index = first / u64::from(TILE_WIDTH);
        let offset = (first % u64::from(TILE_WIDTH)) as usize;
        let tile = Tile::hashes(level, tile_index, self.size)
            .filter(|t| usize::from(t.width) >= offset + count)
            .ok_or_else(missing)?;
        let data = self.tile(tile)?;
        let hashes: Vec<Hash> = (offset..offset + count)
            .filter_map(|i| Hash::from_tile(data, i))
            .collect();
        perfect_root(&hashes).ok_or_else(missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_paths_are_groups_of_three() {
        assert_eq!(index_path(0), "000");
        assert_eq!(index_path(999), "999");
        assert_eq!(index_path(1000), "x001/000");
        assert_eq!(index_path(1_234_067), "x001/x234/067");
        assert_eq!(parse_index("x001/x234/067"), Some(1_234_067));
        assert_eq!(parse_index("x000/067"), None);
        assert_eq!(parse_index("001/067"), None);
        assert_eq!(parse_index("x067"), None);
        assert_eq!(parse_index("67"), None);
    }

    #[test]
    fn the_spec_example_of_70000_leaves() {
        // 273 full level-0 tiles, one partial of width 112, one full level-1
        // tile, one partial level-1 tile of width 17, one level-2 tile of 1.
        let size = 70_000;
        assert_eq!(level_count(size, 0) / 256, 273);
        assert_eq!(Tile::hashes(0, 273, size).map(|t| t.width), Some(112));
        assert_eq!(Tile::hashes(1, 0, size).map(|t| t.width), Some(256));
        assert_eq!(Tile::hashes(1, 1, size).map(|t| t.width), Some(17));
        assert_eq!(Tile::hashes(2, 0, size).map(|t| t.width), Some(1));
        assert_eq!(Tile::hashes(3, 0, size), None);
        let partial: Vec<String> = Tile::partials(size).iter().map(Tile::path).collect();
        assert_eq!(
            partial,
            [
                "tile/0/273.p/112",
                "tile/1/001.p/17",
                "tile/2/000.p/1",
                "tile/entries/273.p/112"
            ]
        );
    }

    #[test]
    fn paths_round_trip_and_refuse_other_spellings() {
        for (path, kind, index, width) in [
            ("tile/0/000", TileKind::Hashes { level: 0 }, 0, 256),
            (
                "tile/1/x001/x234/067.p/5",
                TileKind::Hashes { level: 1 },
                1_234_067,
                5,
            ),
            ("tile/entries/003.p/255", TileKind::Entries, 3, 255),
            ("tile/63/999", TileKind::Hashes { level: 63 }, 999, 256),
        ] {
            let tile = Tile { kind, index, width };
            assert_eq!(tile.path(), path);
            assert_eq!(Tile::parse_path(path).ok(), Some(tile), "{path}");
        }
        for bad in [
            "tile/00/000",
            "tile/64/000",
            "tile/0/000.p/0",
            "tile/0/000.p/256",
            "tile/0/000.p/05",
            "tile/0/0000",
            "tile/0/x000/001",
            "tile/0/",
            "tile/data/000",
            "tiles/0/000",
            "tile/0/000/",
            "tile/-1/000",
        ] {
            let error = Tile::parse_path(bad).err();
            assert_eq!(
                error.map(|e| e.kind()),
                Some(ErrorKind::CheckpointInvalid),
                "{bad}"
            );
        }
    }

    #[test]
    fn changed_tiles_of_a_growth() {
        let paths =
            |old, new| -> Vec<String> { Tile::changed(old, new).iter().map(Tile::path).collect() };
        assert_eq!(paths(0, 1), ["tile/0/000.p/1", "tile/entries/000.p/1"]);
        assert_eq!(
            paths(255, 256),
            ["tile/0/000", "tile/1/000.p/1", "tile/entries/000"]
        );
        assert_eq!(
            paths(200, 600),
            [
                "tile/0/000",
                "tile/0/001",
                "tile/0/002.p/88",
                "tile/1/000.p/2",
                "tile/entries/000",
                "tile/entries/001",
                "tile/entries/002.p/88"
            ]
        );
        assert!(Tile::changed(5, 5).is_empty());
        assert!(Tile::changed(6, 5).is_empty());
    }

    #[test]
    fn bundles_round_trip_and_refuse_truncation() {
        let records = [&b"1 FENCE 1"[..], b"", b"2 REVISION a 1 3 sha256:00"];
        let data = bundle(&records).ok().unwrap_or_default();
        assert_eq!(&data[..2], &[0, 9]);
        assert_eq!(unbundle(&data).ok(), Some(records.to_vec()));
        assert!(unbundle(&data[..data.len() - 1]).is_err());
        assert!(unbundle(&[0]).is_err());
        assert!(bundle(&[vec![0u8; 65536]]).is_err());
    }
}
