//! A signed root (format section 10): the RFC 6962 tree over the ledger's
//! records, its C2SP tiles and its signed checkpoint, written after every
//! commit.
//!
//! Layout (through the root's [`Store`], a directory or a bucket alike):
//!
//! ```text
//! <root>/.ledger/tlog/checkpoint                  the signed C2SP checkpoint (origin = key name)
//! <root>/.ledger/tlog/tile/<L>/<N>[.p/<W>]        hash tiles, height 8
//! <root>/.ledger/tlog/tile/entries/<N>[.p/<W>]    entry bundles (uint16 length ‖ record)
//! ```
//!
//! Entry `n` of the ledger (fences included) is leaf `n − 1`; its record is
//! the entry's `Display`. After a commit the writer appends the new
//! records to its tree, stores every tile that changed (create-if-absent:
//! a tile's bytes follow from the ledger, so one already there is only
//! replaced if it differs, which only a damaged root shows), and only
//! then replaces the checkpoint, if it is still the one this writer wrote
//! or read (`BlobStore::replace_if_unchanged`); one that changed in
//! between is replaced only if it verifies and the new tree is consistent
//! with it (a consistency proof from the tiles). So a checkpoint never
//! covers what is not durable, and a crash between a commit and its
//! checkpoint leaves a checkpoint behind the ledger, which the next
//! writer brings forward when it opens the root.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_store::ledger::{self, AfterCommit, Entry};
use nenjim_journal_store::{Created, Store, Version};
use nenjim_journal_tlog::checkpoint::Checkpoint;
use nenjim_journal_tlog::note::{Note, SignerKey};
use nenjim_journal_tlog::tile::{Tile, TileHashes};
use nenjim_journal_tlog::tree::{TileData, TreeState, prove_consistency};

use crate::io_error;

/// A signer key as given to [`WriterOptions::signing_key`](crate::WriterOptions::signing_key):
/// kept as text until the writer opens (where a malformed one is
/// refused), never shown by `Debug`.
#[derive(Clone)]
pub(crate) struct KeyText(pub(crate) String);

impl std::fmt::Debug for KeyText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyText(<signer key>)")
    }
}

/// Reads the signer key text (`CheckpointInvalid` when malformed).
pub(crate) fn parse_key(key: Option<&KeyText>) -> Result<Option<SignerKey>, JournalError> {
    key.map(|k| {
        SignerKey::from_file_text(&k.0)
            .map_err(|e| e.context("the writer's signing key (WriterOptions::signing_key)"))
    })
    .transpose()
}

/// The checkpoint of `root` as stored: its bytes and version, or `None`.
fn read_checkpoint(
    store: &dyn Store,
    root: &Path,
) -> Result<Option<(Vec<u8>, Version)>, JournalError> {
    let path = ledger::checkpoint_path(root);
    store
        .get(&path, ledger::CHECKPOINT_MAX)
        .map_err(io_error(&path, "cannot read the checkpoint"))
}

/// Checks that a writer holding `key` (or none) may write `root`: an
/// unsigned root takes any writer (one with a key signs it); a signed one
/// only a writer with the key that signed its checkpoint
/// (`CheckpointInvalid` otherwise, before anything is written). Returns
/// the checkpoint found and its version.
pub(crate) fn check_open(
    store: &dyn Store,
    root: &Path,
    key: Option<&SignerKey>,
) -> Result<Option<(Checkpoint, Version)>, JournalError> {
    let path = ledger::checkpoint_path(root);
    let Some((bytes, version)) = read_checkpoint(store, root)? else {
        return Ok(None);
    };
    let Some(key) = key else {
        let signer = Note::parse(&bytes)
            .and_then(|note| Checkpoint::parse_text(note.text()))
            .map_or_else(
                |_| "a key (its checkpoint does not parse)".to_owned(),
                |c| format!("the key {}", c.origin()),
            );
        return Err(error::error(
            ErrorKind::CheckpointInvalid,
            format!(
                "found a signed root (signed by {signer}), expected a writer holding its signing key (WriterOptions::signing_key, the command's --signing-key); nothing was written"
            ),
        )
        .with_path(path));
    };
    let (checkpoint, _) = Checkpoint::open(&bytes, &key.verifier()).map_err(|e| {
        e.note(format_args!(
            "this writer's key {} does not sign this root; nothing was written",
            key.name()
        ))
        .with_path(&path)
    })?;
    Ok(Some((checkpoint, version)))
}

/// The tree, tiles and checkpoint of a signed root, kept by its writer.
#[derive(Debug)]
pub(crate) struct Checkpointer {
    inner: Mutex<Signing>,
}

struct Signing {
    store: Arc<dyn Store>,
    root: PathBuf,
    key: SignerKey,
    tree: TreeState,
    /// Tiles taken from the tree and not stored yet (a write failed).
    unwritten: Vec<TileData>,
    /// The checkpoint as stored, and its version, as last written or read.
    published: Option<(Checkpoint, Version)>,
}

impl std::fmt::Debug for Signing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signing")
            .field("root", &self.root)
            .field("key", &self.key.name())
            .field("size", &self.tree.size())
            .field("published", &self.published.as_ref().map(|(c, _)| c.size()))
            .finish_non_exhaustive()
    }
}

impl Checkpointer {
    /// The tree of `root`'s ledger `entries` (all of them, from 1), checked
    /// against the checkpoint `published` found there (it must be the tree
    /// of the first entries: `CheckpointMismatch` otherwise), with the
    /// tiles and checkpoint after it written: a root signed for the first
    /// time gets the tiles of every entry, a checkpoint behind the ledger
    /// (a crash after a commit) is brought forward.
    pub(crate) fn open(
        store: Arc<dyn Store>,
        root: &Path,
        key: SignerKey,
        published: Option<(Checkpoint, Version)>,
        entries: &[Entry],
    ) -> Result<Checkpointer, JournalError> {
        let covered = published.as_ref().map_or(0, |(c, _)| c.size());
        let path = ledger::checkpoint_path(root);
        let count = entries.len() as u64;
        let Some(prefix) = usize::try_from(covered).ok().and_then(|n| entries.get(..n)) else {
            return Err(error::error(
                ErrorKind::CheckpointMismatch,
                format!(
                    "found a checkpoint of {covered} entries, expected at most the {count} entries of the ledger"
                ),
            )
            .with_path(path));
        };
        let mut tree = TreeState::replay(prefix.iter().map(|e| e.to_string()), covered)?;
        if let Some((checkpoint, _)) = &published {
            checkpoint
                .check_tree(covered, &tree.root())
                .map_err(|e| e.with_path(&path))?;
        }
        for entry in &entries[prefix.len()..] {
            tree.append(entry.to_string().as_bytes())?;
        }
        let stale = published.is_none() || covered < count;
        let mut signing = Signing {
            store,
            root: root.to_path_buf(),
            key,
            tree,
            unwritten: Vec::new(),
            published,
        };
        if stale {
            signing.publish()?;
        }
        Ok(Checkpointer {
            inner: Mutex::new(signing),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Signing> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds entries another writer committed (read after `TipMoved`) to the
    /// tree, without publishing (the next commit does).
    pub(crate) fn learn(&self, entries: &[Entry]) -> Result<(), JournalError> {
        let mut signing = self.lock();
        for entry in entries {
            signing.append(entry)?;
        }
        Ok(())
    }

    /// Publishes the checkpoint of the whole tree unless it is published
    /// (an earlier publication failed): what an idempotent append checks
    /// before it reports success.
    pub(crate) fn ensure_published(&self) -> Result<(), JournalError> {
        let mut signing = self.lock();
        let size = signing.tree.size();
        if signing
            .published
            .as_ref()
            .is_some_and(|(c, _)| c.size() == size)
        {
            return Ok(());
        }
        signing.publish()
    }
}

impl AfterCommit for Checkpointer {
    fn committed(&self, entry: &Entry) -> Result<(), JournalError> {
        self.committed_batch(std::slice::from_ref(entry))
    }

    /// One checkpoint for the whole batch.
    fn committed_batch(&self, entries: &[Entry]) -> Result<(), JournalError> {
        let mut signing = self.lock();
        for entry in entries {
            signing.append(entry)?;
        }
        signing.publish()
    }
}

impl Signing {
    /// Appends the next entry's record.
    fn append(&mut self, entry: &Entry) -> Result<(), JournalError> {
        let expected = self.tree.size() + 1;
        if entry.sequence() != expected {
            return Err(error::error(
                ErrorKind::CheckpointMismatch,
                format!(
                    "found ledger entry {} for the transparency log, expected entry {expected} (entry n is leaf n - 1)",
                    entry.sequence()
                ),
            )
            .with_path(ledger::tlog_dir(&self.root)));
        }
        self.tree.append(entry.to_string().as_bytes())?;
        Ok(())
    }

    /// Stores the tiles that changed, then the checkpoint of the tree.
    fn publish(&mut self) -> Result<(), JournalError> {
        let taken = self.tree.take_tiles();
        self.unwritten.extend(taken);
        while let Some(tile) = self.unwritten.first() {
            self.put_tile(tile)?;
            self.unwritten.remove(0);
        }
        self.put_checkpoint()
    }

    /// Creates a tile unless it is there with these bytes.
    fn put_tile(&self, tile: &TileData) -> Result<(), JournalError> {
        let path = ledger::tile_path(&self.root, &tile.tile.path());
        let what = "cannot write a tile of the transparency log";
        if self
            .store
            .put_if_absent(&path, &tile.data)
            .map_err(io_error(&path, what))?
            == Created::New
        {
            return Ok(());
        }
        let found = self
            .store
            .get(&path, ledger::TILE_MAX)
            .map_err(io_error(&path, what))?;
        match found {
            Some((bytes, _)) if bytes == tile.data => Ok(()),
            // Other bytes (a damaged root): the ledger says what they are.
            found => {
                let version = found.map(|(_, v)| v);
                match self
                    .store
                    .replace_if_unchanged(&path, &tile.data, version.as_ref())
                    .map_err(io_error(&path, what))?
                {
                    Some(_) => Ok(()),
                    None => Err(error::error(
                        ErrorKind::TipMoved,
                        "found the tile changed while this writer replaced it, expected no other writer",
                    )
                    .with_path(path)),
                }
            }
        }
    }

    /// Replaces the checkpoint with the tree's, if it is still the one
    /// this writer knows, or one that the tree extends.
    fn put_checkpoint(&mut self) -> Result<(), JournalError> {
        let path = ledger::checkpoint_path(&self.root);
        let checkpoint = Checkpoint::new(self.key.name(), self.tree.size(), self.tree.root())?;
        let bytes = checkpoint.sign(&self.key)?.to_string();
        let mut expected = self.published.as_ref().map(|(_, v)| v.clone());
        // Each round reads what another writer stored meanwhile.
        for _ in 0..4 {
            match self
                .store
                .replace_if_unchanged(&path, bytes.as_bytes(), expected.as_ref())
                .map_err(io_error(&path, "cannot write the checkpoint"))?
            {
                Some(version) => {
                    self.published = Some((checkpoint, version));
                    return Ok(());
                }
                None => {
                    expected = match read_checkpoint(&*self.store, &self.root)? {
                        Some((found, version)) => {
                            self.check_extends(&found, &checkpoint)?;
                            Some(version)
                        }
                        None => None,
                    };
                }
            }
        }
        Err(error::error(
            ErrorKind::TipMoved,
            "found the checkpoint changing under this writer at every attempt, expected one writer",
        )
        .with_path(path))
    }

    /// Checks that `newer` (this writer's) extends the checkpoint `found`
    /// in storage: `Rollback` otherwise (never replaced by it).
    fn check_extends(&self, found: &[u8], newer: &Checkpoint) -> Result<(), JournalError> {
        let path = ledger::checkpoint_path(&self.root);
        let (older, _) = Checkpoint::open(found, &self.key.verifier()).map_err(|e| {
            e.with_path(&path)
                .note("the checkpoint stored by another writer does not verify")
        })?;
        if older.size() > newer.size() {
            return Err(error::error(
                ErrorKind::Rollback,
                format!(
                    "found a checkpoint of {} entries, expected at most this writer's {}: another writer is ahead (open the writer again)",
                    older.size(),
                    newer.size()
                ),
            )
            .with_path(path));
        }
        let (store, root) = (&*self.store, &self.root);
        let reader = |tile: &Tile| -> Result<Vec<u8>, JournalError> {
            let path = ledger::tile_path(root, &tile.path());
            match store.get(&path, ledger::TILE_MAX) {
                Ok(Some((bytes, _))) => Ok(bytes),
                Ok(None) => Err(error::error(
                    ErrorKind::CheckpointMismatch,
                    "found no tile, expected the tiles of the tree",
                )
                .with_path(path)),
                Err(e) => Err(error::io_error(path, "cannot read a tile", e)),
            }
        };
        let mut hashes = TileHashes::new(newer.size(), reader);
        let proof = prove_consistency(&mut hashes, older.size(), newer.size())?;
        older
            .check_extension(newer, &proof)
            .map_err(|e| e.with_path(path))
    }
}
