//! A signed root as the verifiable-ledger commands read it (format section
//! 10): its checkpoint, its hash tiles and its ledger's records, on a
//! directory or a bucket, at `<root>/.ledger/tlog/` (`checkpoint`,
//! `checkpoint.witnessed`, `tile/…`).
//!
//! Everything is read through the storage seam (`nenjim_journal_store`):
//! the same code reads a directory and a bucket, and writes nothing but
//! the witnessed copy ([`TlogRoot::publish_witnessed`]).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_store::ledger::{Entry, LEDGER_DIR, LedgerReader, SegmentedReader};
use nenjim_journal_store::{Store, Version};
use nenjim_journal_tlog::checkpoint::Checkpoint;
use nenjim_journal_tlog::hash::Hash;
use nenjim_journal_tlog::note::Note;
use nenjim_journal_tlog::tile::{Tile, TileHashes};
use nenjim_journal_tlog::tree::{prove_consistency, tree_root};

use crate::failure::CliError;

/// The transparency log's directory under the ledger's.
pub const TLOG_DIR: &str = "tlog";
/// The signed checkpoint note.
pub const CHECKPOINT: &str = "checkpoint";
/// The checkpoint with the witnesses' cosignatures, published beside it.
pub const WITNESSED: &str = "checkpoint.witnessed";
/// The largest checkpoint note read (a note has at most 100 signatures).
pub const NOTE_MAX: u64 = 64 * 1024;
/// The largest tile read (256 hashes; an entry bundle of 256 records).
const TILE_MAX: u64 = 256 * (2 + 65_535);

/// A root opened for its transparency log.
#[derive(Debug)]
pub struct TlogRoot {
    store: Arc<dyn Store>,
    /// The root's ledger when a backend keeps it (a NATS stream); `None`:
    /// `log/` and `segments/` in `store`.
    ledger: Option<Arc<dyn LedgerReader>>,
    root: PathBuf,
}

impl TlogRoot {
    /// Opens the root typed as `typed` (a directory or a bucket URL).
    pub fn open(typed: &Path) -> Result<TlogRoot, CliError> {
        let address = crate::address::locate(typed)?;
        // A backend's own ledger (a NATS stream: its checkpoint and tiles
        // in its key-value bucket, its records in the stream), or `log/`
        // and `segments/` in the root's store.
        let ledger = address.backend().reading().ledger;
        if ledger.is_some() && !address.exists()? {
            return Err(error::error(
                ErrorKind::RootMissing,
                "found no stream for this NATS root, expected a root a writer created (`nenjim-journal init`)",
            )
            .with_path(address.path())
            .into());
        }
        let (store, root) = crate::address::store(&address)?;
        if let Some(missing) = missing_local(typed, &*store, &root) {
            return Err(missing);
        }
        Ok(TlogRoot {
            store,
            ledger,
            root,
        })
    }

    /// The path of `name` under `<root>/.ledger/tlog/`.
    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(LEDGER_DIR).join(TLOG_DIR).join(name)
    }

    /// The path of a tile.
    pub fn tile_path(&self, tile: &Tile) -> PathBuf {
        self.path(&tile.path())
    }

    /// Reads `name` under `tlog/` with its version, `None` when absent.
    fn get(&self, name: &str) -> Result<Option<(Vec<u8>, Version)>, JournalError> {
        let path = self.path(name);
        self.store
            .get(&path, NOTE_MAX)
            .map_err(|e| error::io_error(&path, "cannot read", e))
    }

    /// The stored checkpoint note, byte for byte; `CheckpointInvalid` for
    /// a root that has none (it is not signed).
    pub fn checkpoint_bytes(&self) -> Result<Vec<u8>, JournalError> {
        match self.get(CHECKPOINT)? {
            Some((bytes, _)) => Ok(bytes),
            None => Err(error::error(
                ErrorKind::CheckpointInvalid,
                "found no checkpoint, expected the signed checkpoint of a signed root (a root becomes signed when a writing command runs with --signing-key)",
            )
            .with_path(self.path(CHECKPOINT))),
        }
    }

    /// The stored checkpoint, parsed but not verified (who signed it is the
    /// name on its first line, the origin).
    pub fn checkpoint_unverified(&self) -> Result<Checkpoint, JournalError> {
        let bytes = self.checkpoint_bytes()?;
        let located = |e: JournalError| e.with_path(self.path(CHECKPOINT));
        let note = Note::parse(&bytes).map_err(located)?;
        Checkpoint::parse_text(note.text()).map_err(located)
    }

    /// The witnessed copy and its version, `None` when there is none.
    pub fn witnessed(&self) -> Result<Option<(Vec<u8>, Version)>, JournalError> {
        self.get(WITNESSED)
    }

    /// Replaces the witnessed copy with `bytes` if it is still at
    /// `expected` (`None`: still absent); `false` when it changed.
    pub fn publish_witnessed(
        &self,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> Result<bool, JournalError> {
        let path = self.path(WITNESSED);
        self.store
            .replace_if_unchanged(&path, bytes, expected)
            .map(|v| v.is_some())
            .map_err(|e| error::io_error(&path, "cannot write the witnessed checkpoint", e))
    }

    /// Reads one tile (a missing one is `CheckpointMismatch`: the tiles
    /// of a signed root cover its checkpoint).
    pub fn read_tile(&self, tile: &Tile) -> Result<Vec<u8>, JournalError> {
        let path = self.tile_path(tile);
        match self.store.get(&path, TILE_MAX) {
            Ok(Some((bytes, _))) => Ok(bytes),
            Ok(None) => Err(error::error(
                ErrorKind::CheckpointMismatch,
                format!("found no tile {tile}, expected the tiles of the checkpoint's tree"),
            )
            .with_path(path)),
            Err(e) => Err(error::io_error(&path, "cannot read the tile", e)),
        }
    }

    /// The subtree hashes of the tree of `size` leaves, from the tiles.
    pub fn tile_hashes(
        &self,
        size: u64,
    ) -> TileHashes<impl FnMut(&Tile) -> Result<Vec<u8>, JournalError> + '_> {
        TileHashes::new(size, move |tile: &Tile| self.read_tile(tile))
    }

    /// The root hash of the tree of `size` leaves, from the tiles.
    pub fn tiles_root(&self, size: u64) -> Result<Hash, JournalError> {
        tree_root(&mut self.tile_hashes(size), size)
    }

    /// Checks that `newer` extends `older` (same origin, larger or equal
    /// size, an RFC 6962 consistency proof computed from the tiles of
    /// `newer`'s tree); `Rollback` otherwise.
    pub fn check_consistent(
        &self,
        older: &Checkpoint,
        newer: &Checkpoint,
    ) -> Result<(), JournalError> {
        if newer.size() < older.size() || newer.origin() != older.origin() {
            // Refused before any tile is read.
            return older.check_extension(newer, &[]);
        }
        let proof = prove_consistency(
            &mut self.tile_hashes(newer.size()),
            older.size(),
            newer.size(),
        )?;
        older.check_extension(newer, &proof)
    }

    /// Every entry of the root's ledger, in order (none without a ledger).
    pub fn entries(&self) -> Result<Vec<Entry>, JournalError> {
        let read = match &self.ledger {
            Some(ledger) => nenjim_journal_fs::ledger::read_from(&**ledger)?,
            None => nenjim_journal_fs::ledger::read_from(&SegmentedReader::new(
                &*self.store,
                &self.root,
            ))?,
        };
        Ok(read
            .map(|ledger| ledger.entries().to_vec())
            .unwrap_or_default())
    }

    /// The path of the revision file an entry points at.
    pub fn revision_path(
        &self,
        pointer: &nenjim_journal_store::ledger::RevisionPointer,
    ) -> PathBuf {
        nenjim_journal_store::ledger::revision_path(
            &self.root,
            pointer.coordinate(),
            pointer.version(),
        )
    }

    /// Streams the revision of ledger entry `sequence` (`NotFound` when
    /// there is none): its file in the store, streamed, or, on a backend
    /// that keeps revisions in its ledger (NATS), the bytes it reads.
    pub fn open_revision(
        &self,
        sequence: u64,
        pointer: &nenjim_journal_store::ledger::RevisionPointer,
    ) -> io::Result<Box<dyn io::Read + Send>> {
        match &self.ledger {
            Some(ledger) => {
                match ledger.read_revision(&*self.store, &self.root, sequence, pointer, true)? {
                    Some(bytes) => Ok(Box::new(io::Cursor::new(bytes))),
                    None => Err(io::Error::from(io::ErrorKind::NotFound)),
                }
            }
            None => self.store.open(&self.revision_path(pointer)),
        }
    }
}

/// The `Io` error of a local root that does not exist (a bucket root is a
/// prefix, there once it holds something: it is read as it is).
fn missing_local(typed: &Path, store: &dyn Store, root: &Path) -> Option<CliError> {
    if typed.to_str().is_some_and(|t| t.contains("://")) {
        return None;
    }
    match store.metadata(root) {
        Ok(_) => None,
        Err(e) => Some(CliError::io(root, "cannot read the root", e)),
    }
}
