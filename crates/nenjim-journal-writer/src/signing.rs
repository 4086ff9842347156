//! A signed root (format section 10): the RFC 6962 tree over the ledger's
//! records, its C2SP tiles and its signed checkpoint, published at the
//! writer's checkpoint interval (`WriterOptions::checkpoint_interval`,
//! default zero: after every commit).
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
//! writer brings forward when it opens the root (a checkpoint that is not
//! a note at all, torn, it writes again).
//!
//! The cadence (Tessera's, Rekor v2's): at interval zero each commit (one
//! append, or one batch) publishes before it returns. At an interval, a
//! commit only grows the tree; a timer thread publishes whatever is
//! uncovered once the interval has passed since the last publication, and
//! the close (or the drop) of the writer publishes the rest. The entries a
//! publication covers were committed, durable, before it began.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_store::ledger::{self, AfterCommit, Entry};
use nenjim_journal_store::{Created, Store, Version};
use nenjim_journal_tlog::checkpoint::Checkpoint;
use nenjim_journal_tlog::hash::Hash;
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

/// The checkpoint a writer finds at its open.
#[derive(Debug)]
pub(crate) enum Found {
    /// None: the root is not signed yet.
    Nothing,
    /// A checkpoint this writer's key signed, and its version.
    Signed(Checkpoint, Version),
    /// Bytes that are not a checkpoint note at all (a write torn by a
    /// crash, or damage): the key holder writes the checkpoint again.
    Torn(Version),
}

/// Checks that a writer holding `key` (or none) may write `root`: an
/// unsigned root takes any writer (one with a key signs it); a signed one
/// only a writer with the key that signed its checkpoint
/// (`CheckpointInvalid` otherwise, before anything is written). A
/// checkpoint that is not a note, or not a checkpoint, at all is torn: a
/// writer with a key writes it again from the ledger (a writer without
/// one is refused). Returns what was found.
pub(crate) fn check_open(
    store: &dyn Store,
    root: &Path,
    key: Option<&SignerKey>,
) -> Result<Found, JournalError> {
    let path = ledger::checkpoint_path(root);
    let Some((bytes, version)) = read_checkpoint(store, root)? else {
        return Ok(Found::Nothing);
    };
    let parsed = Note::parse(&bytes).and_then(|note| Checkpoint::parse_text(note.text()));
    let Some(key) = key else {
        let signer = parsed.map_or_else(
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
    if let Err(torn) = parsed {
        tracing::warn!(
            target: "nenjim_journal_writer",
            path = %path.display(),
            error = %torn,
            "the checkpoint is not a checkpoint note (torn by a crash?): this writer writes it again from the ledger"
        );
        return Ok(Found::Torn(version));
    }
    let (checkpoint, _) = Checkpoint::open(&bytes, &key.verifier()).map_err(|e| {
        e.note(format_args!(
            "this writer's key {} does not sign this root; nothing was written",
            key.name()
        ))
        .with_path(&path)
    })?;
    Ok(Found::Signed(checkpoint, version))
}

/// The tree, tiles and checkpoint of a signed root, kept by its writer,
/// and the cadence of its publications (format section 10, "Writing").
///
/// The tree grows under a short lock at each commit; a publication takes
/// the tiles that changed and the tree's root under that lock, then writes
/// them outside it (so a commit never waits for a publication's writes),
/// one publication at a time. At interval zero the commit publishes
/// itself; otherwise a timer thread publishes once the interval has passed
/// since the last publication and something is uncovered, and the close
/// publishes what is left.
#[derive(Debug)]
pub(crate) struct Checkpointer {
    shared: Arc<Shared>,
    timer: Option<JoinHandle<()>>,
}

/// Locks are taken in one order: `publisher`, then `state` (never the
/// other way round).
#[derive(Debug)]
struct Shared {
    /// The root (for the errors' paths).
    root: PathBuf,
    interval: Duration,
    state: Mutex<State>,
    /// Notified when entries are appended, a publication ends, or the
    /// writer closes.
    changed: Condvar,
    /// Held for the whole of a publication: one at a time.
    publisher: Mutex<Publisher>,
}

struct State {
    tree: TreeState,
    /// The entries the stored checkpoint covers, as this writer last
    /// wrote or read it.
    covered: u64,
    /// When the last publication started (or the writer opened).
    last: Instant,
    /// Publications attempted, and the last one's failure (cleared by a
    /// success): what a waiter for a checkpoint reports.
    attempts: u64,
    failed: Option<JournalError>,
    closing: bool,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State")
            .field("size", &self.tree.size())
            .field("covered", &self.covered)
            .field("attempts", &self.attempts)
            .field("closing", &self.closing)
            .finish_non_exhaustive()
    }
}

struct Publisher {
    store: Arc<dyn Store>,
    root: PathBuf,
    key: SignerKey,
    /// Tiles taken from the tree and not stored yet (a write failed).
    unwritten: Vec<TileData>,
    /// The version of the checkpoint as stored, as last written or read.
    version: Option<Version>,
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publisher")
            .field("root", &self.root)
            .field("key", &self.key.name())
            .field("unwritten", &self.unwritten.len())
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Checkpointer {
    /// The tree of `root`'s ledger `entries` (all of them, from 1), checked
    /// against the checkpoint `found` there (it must be the tree of the
    /// first entries: `CheckpointMismatch` otherwise), with the tiles and
    /// checkpoint after it written before this returns: a root signed for
    /// the first time gets the tiles of every entry, a checkpoint behind
    /// the ledger (a writer died between a commit and its publication) is
    /// brought forward, a torn one written again. With a non-zero
    /// `interval`, a timer thread publishes from then on.
    pub(crate) fn open(
        store: Arc<dyn Store>,
        root: &Path,
        key: SignerKey,
        found: Found,
        entries: &[Entry],
        interval: Duration,
    ) -> Result<Checkpointer, JournalError> {
        let (published, version) = match found {
            Found::Nothing => (None, None),
            Found::Signed(checkpoint, version) => (Some(checkpoint), Some(version)),
            Found::Torn(version) => (None, Some(version)),
        };
        let covered = published.as_ref().map_or(0, Checkpoint::size);
        let path = ledger::checkpoint_path(root);
        let count = entries.len() as u64;
        if let Some(checkpoint) = &published {
            checkpoint
                .check_within(count)
                .map_err(|e| e.with_path(&path))?;
        }
        let prefix = usize::try_from(covered)
            .ok()
            .and_then(|n| entries.get(..n))
            .unwrap_or(entries);
        let mut tree = TreeState::replay(prefix.iter().map(|e| e.to_string()), covered)?;
        if let Some(checkpoint) = &published {
            checkpoint
                .check_tree(covered, &tree.root())
                .map_err(|e| e.with_path(&path))?;
        }
        for entry in &entries[prefix.len()..] {
            tree.append(entry.to_string().as_bytes())?;
        }
        let stale = published.is_none() || covered < count;
        if stale && covered < count {
            tracing::info!(
                target: "nenjim_journal_writer",
                root = %root.display(),
                covered,
                entries = count,
                "the checkpoint lags the ledger: covering the rest before the first commit"
            );
        }
        let shared = Arc::new(Shared {
            root: root.to_path_buf(),
            interval,
            state: Mutex::new(State {
                tree,
                covered,
                last: Instant::now(),
                attempts: 0,
                failed: None,
                closing: false,
            }),
            changed: Condvar::new(),
            publisher: Mutex::new(Publisher {
                store,
                root: root.to_path_buf(),
                key,
                unwritten: Vec::new(),
                version,
            }),
        });
        if stale {
            shared.publish(true)?;
        }
        let timer = if interval.is_zero() {
            None
        } else {
            let timed = shared.clone();
            let thread = std::thread::Builder::new()
                .name("nenjim-checkpoint".to_owned())
                .spawn(move || timed.run_timer())
                .map_err(|e| {
                    error::io_error(path.clone(), "cannot start the checkpoint timer", e)
                })?;
            Some(thread)
        };
        Ok(Checkpointer { shared, timer })
    }

    /// Adds entries another writer committed (read after `TipMoved`) to the
    /// tree, without publishing (the next commit, or the timer, does).
    pub(crate) fn learn(&self, entries: &[Entry]) -> Result<(), JournalError> {
        self.shared.append(entries)
    }

    /// At interval zero, publishes the checkpoint of the whole tree unless
    /// it is published (an earlier publication failed): what an idempotent
    /// append checks before it reports success. At an interval, the timer
    /// covers it.
    pub(crate) fn ensure_published(&self) -> Result<(), JournalError> {
        if self.shared.interval.is_zero() {
            self.shared.publish(false)?;
        }
        Ok(())
    }

    /// The entries the stored checkpoint covers, as this writer knows it.
    pub(crate) fn covered(&self) -> u64 {
        lock(&self.shared.state).covered
    }

    /// Waits until a checkpoint covering entry `sequence` is published
    /// (at interval zero, publishes it now): the size it covers, or the
    /// failure of the publication that should have covered it.
    pub(crate) fn wait_covered(&self, sequence: u64) -> Result<u64, JournalError> {
        let shared = &*self.shared;
        let mut state = lock(&shared.state);
        if sequence > state.tree.size() {
            return Err(error::error(
                ErrorKind::Usage,
                format!(
                    "found entry {sequence} asked for, expected one this writer knows (its ledger has {} entries)",
                    state.tree.size()
                ),
            ));
        }
        let attempts = state.attempts;
        loop {
            if state.covered >= sequence {
                return Ok(state.covered);
            }
            if self.timer.is_none() || state.closing {
                drop(state);
                shared.publish(false)?;
                state = lock(&shared.state);
                continue;
            }
            if state.attempts > attempts
                && let Some(failed) = &state.failed
            {
                return Err(failed.clone());
            }
            state = shared
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Stops the timer and publishes what is uncovered: what a writer
    /// does when it closes.
    pub(crate) fn close(&mut self) -> Result<(), JournalError> {
        self.stop_timer();
        self.shared.publish(false)
    }

    fn stop_timer(&mut self) {
        if let Some(timer) = self.timer.take() {
            lock(&self.shared.state).closing = true;
            self.shared.changed.notify_all();
            let _ = timer.join();
        }
    }
}

impl Drop for Checkpointer {
    /// A writer dropped without [`close`](Checkpointer::close) stops its
    /// timer and covers what it committed, as a close would (a failure is
    /// only traced: the next writer covers it).
    fn drop(&mut self) {
        if self.timer.is_some() {
            self.stop_timer();
            if let Err(error) = self.shared.publish(false) {
                tracing::warn!(
                    target: "nenjim_journal_writer",
                    error = %error,
                    "the checkpoint of a dropped writer is not written: the next writer writes it"
                );
            }
        }
    }
}

impl AfterCommit for Checkpointer {
    fn committed(&self, entry: &Entry) -> Result<(), JournalError> {
        self.committed_batch(std::slice::from_ref(entry))
    }

    /// One checkpoint for the whole batch at interval zero; at an
    /// interval, the timer is told (it publishes at once if the interval
    /// has passed since the last publication).
    fn committed_batch(&self, entries: &[Entry]) -> Result<(), JournalError> {
        self.shared.append(entries)?;
        if self.timer.is_none() {
            self.shared.publish(false)
        } else {
            self.shared.changed.notify_all();
            Ok(())
        }
    }
}

impl Shared {
    /// Appends the next entries' records to the tree.
    fn append(&self, entries: &[Entry]) -> Result<(), JournalError> {
        let mut state = lock(&self.state);
        for entry in entries {
            let expected = state.tree.size() + 1;
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
            state.tree.append(entry.to_string().as_bytes())?;
        }
        Ok(())
    }

    /// The timer: publishes once the interval has passed since the last
    /// publication while something is uncovered, until the writer closes.
    fn run_timer(&self) {
        loop {
            let mut state = lock(&self.state);
            loop {
                if state.closing {
                    return;
                }
                if state.tree.size() > state.covered {
                    let due = state.last + self.interval;
                    let now = Instant::now();
                    if now >= due {
                        break;
                    }
                    state = self
                        .changed
                        .wait_timeout(state, due - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                } else {
                    state = self
                        .changed
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner);
                }
            }
            drop(state);
            if let Err(error) = self.publish(false) {
                tracing::warn!(
                    target: "nenjim_journal_writer",
                    error = %error,
                    "a checkpoint publication failed: the next one writes it"
                );
            }
        }
    }

    /// Stores the tiles that changed, then the checkpoint of the tree as
    /// it is now, unless it is covered already (or `always`).
    fn publish(&self, always: bool) -> Result<(), JournalError> {
        let mut publisher = lock(&self.publisher);
        let (tiles, size, root) = {
            let mut state = lock(&self.state);
            if !always && state.covered >= state.tree.size() && publisher.unwritten.is_empty() {
                return Ok(());
            }
            state.last = Instant::now();
            (
                state.tree.take_tiles(),
                state.tree.size(),
                state.tree.root(),
            )
        };
        publisher.unwritten.extend(tiles);
        let result = publisher.publish(size, root);
        {
            let mut state = lock(&self.state);
            state.attempts += 1;
            match &result {
                Ok(()) => {
                    state.covered = state.covered.max(size);
                    state.failed = None;
                }
                Err(error) => state.failed = Some(error.clone()),
            }
        }
        self.changed.notify_all();
        if result.is_ok() {
            tracing::debug!(
                target: "nenjim_journal_writer",
                root = %publisher.root.display(),
                size,
                "checkpoint published"
            );
        }
        result
    }
}

impl Publisher {
    /// Stores the tiles not stored yet, then the checkpoint of `size`
    /// entries with root hash `root`.
    fn publish(&mut self, size: u64, root: Hash) -> Result<(), JournalError> {
        // The tiles are independent of each other: their durable writes
        // (a sync each) run at once; the checkpoint waits for all of them.
        let results: Vec<Result<(), JournalError>> = if self.unwritten.len() > 1 {
            std::thread::scope(|scope| {
                let this = &*self;
                let writes: Vec<_> = this
                    .unwritten
                    .iter()
                    .map(|tile| scope.spawn(move || this.put_tile(tile)))
                    .collect();
                writes
                    .into_iter()
                    .map(|w| {
                        w.join().unwrap_or_else(|_| {
                            Err(error::error(ErrorKind::Io, "a tile write panicked"))
                        })
                    })
                    .collect()
            })
        } else {
            self.unwritten.iter().map(|t| self.put_tile(t)).collect()
        };
        let mut first_error = None;
        let mut kept = Vec::new();
        for (tile, result) in std::mem::take(&mut self.unwritten).into_iter().zip(results) {
            if let Err(e) = result {
                first_error.get_or_insert(e);
                kept.push(tile);
            }
        }
        self.unwritten = kept;
        if let Some(error) = first_error {
            return Err(error);
        }
        self.put_checkpoint(size, root)
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

    /// Replaces the checkpoint with the one of `size` entries and root
    /// hash `root`, if it is still the one this writer knows, or one that
    /// this one extends.
    fn put_checkpoint(&mut self, size: u64, root: Hash) -> Result<(), JournalError> {
        let path = ledger::checkpoint_path(&self.root);
        let checkpoint = Checkpoint::new(self.key.name(), size, root)?;
        let bytes = checkpoint.sign(&self.key)?.to_string();
        let mut expected = self.version.clone();
        // Each round reads what another writer stored meanwhile.
        for _ in 0..4 {
            match self
                .store
                .replace_if_unchanged(&path, bytes.as_bytes(), expected.as_ref())
                .map_err(io_error(&path, "cannot write the checkpoint"))?
            {
                Some(version) => {
                    self.version = Some(version);
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
