//! Loading a signed root with a verifier key (format section 10): the
//! checkpoint's signature, its size against the ledger's entries (at most
//! them), and its root hash against the tree of the records it covers, all
//! checked before anything is published; exactly those entries are
//! published, the ones after them wait for a checkpoint that covers them
//! (a writer at a checkpoint interval). A refresh accepts only a
//! checkpoint consistent with the last one verified, and reports how many
//! entries still wait.
//!
//! The records are hashed on a thread of their own while the revision
//! files are read and checked against them (the loader reads every record
//! anyway), so a verified start costs about what an unverified one does.

use std::fmt::Write as _;
use std::path::Path;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::model::RefreshReport;
use nenjim_journal_api::model::build;
use nenjim_journal_chain::ChainState;
use nenjim_journal_store::FileSystem;
use nenjim_journal_store::ledger::{self as store_ledger, Entry, EntryBytes, LedgerReader};
use nenjim_journal_tlog::checkpoint::Checkpoint;
use nenjim_journal_tlog::hash::TreeHasher;
use nenjim_journal_tlog::note::VerifierKey;
use nenjim_journal_tlog::tile::{Tile, TileHashes};
use nenjim_journal_tlog::tree::prove_consistency;

use crate::{LoadOptions, ledger, recorded};

/// The last checkpoint a Journal verified, and the tree of the records it
/// covers (its right edge: a few hashes), from which a refresh checks the
/// next one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    checkpoint: Checkpoint,
    tree: TreeHasher,
    /// The ledger entries read after the checkpoint's.
    uncovered: u64,
}

impl Verified {
    /// The checkpoint verified.
    pub fn checkpoint(&self) -> &Checkpoint {
        &self.checkpoint
    }
    /// How many ledger entries the load or refresh that verified it found
    /// after the ones it covers: not published, they wait for a checkpoint
    /// that covers them (format section 10, "Reading").
    pub fn uncovered(&self) -> u64 {
        self.uncovered
    }
}

fn invalid(message: impl Into<String>) -> JournalError {
    error::error(ErrorKind::CheckpointInvalid, message)
}

fn mismatch(message: impl Into<String>) -> JournalError {
    error::error(ErrorKind::CheckpointMismatch, message)
}

/// The verifier key of `options`, read (`CheckpointInvalid` if malformed).
fn key(text: &str) -> Result<VerifierKey, JournalError> {
    VerifierKey::parse(text.trim_end_matches(['\r', '\n']))
        .map_err(|e| e.context("the verifier key (LoadOptions::verifier)"))
}

/// Reads and opens the checkpoint of `root`: `CheckpointInvalid` when it
/// is missing, malformed or not validly signed by `key`.
fn read_checkpoint(
    fs: &dyn FileSystem,
    root: &Path,
    key: &VerifierKey,
) -> Result<Checkpoint, JournalError> {
    let path = store_ledger::checkpoint_path(root);
    let bytes = match fs.read(&path, store_ledger::CHECKPOINT_MAX) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(invalid(format!(
                "found no checkpoint, expected a signed root (a checkpoint signed by {})",
                key.name()
            ))
            .with_path(path));
        }
        Err(e) => return Err(error::io_error(path, "cannot read the checkpoint", e)),
    };
    Checkpoint::open(&bytes, key)
        .map(|(checkpoint, _)| checkpoint)
        .map_err(|e| e.with_path(path))
}

/// The tree of `base` grown by the records of `entries`.
fn grow(mut tree: TreeHasher, entries: &[Entry]) -> TreeHasher {
    let mut record = String::with_capacity(128);
    for entry in entries {
        record.clear();
        let _ = write!(record, "{entry}");
        tree.push_record(record.as_bytes());
    }
    tree
}

/// [`crate::load_with`] with the verification of `options`' verifier
/// key, if any: the state, and the checkpoint verified (`None` without a
/// verifier). Nothing is returned unless every check passed.
pub fn load_verified(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
) -> Result<(ChainState, Option<Verified>), JournalError> {
    load_verified_from(fs, &ledger::SegmentedReader::new(fs, root), root, options)
}

/// [`load_verified`] by the ledger `reader` (any backend), reading the
/// revision files and the checkpoint through `fs`.
pub fn load_verified_from(
    fs: &dyn FileSystem,
    reader: &dyn LedgerReader,
    root: &Path,
    options: LoadOptions,
) -> Result<(ChainState, Option<Verified>), JournalError> {
    let Some(text) = options.verifier else {
        return Ok((crate::load_from(fs, reader, root, options)?, None));
    };
    let key = key(text)?;
    crate::check_root(fs, root)?;
    if !reader.exists()? {
        return Err(invalid(format!(
            "found a root without a ledger, expected a signed root (a checkpoint signed by {})",
            key.name()
        ))
        .with_path(store_ledger::checkpoint_path(root)));
    }
    // The checkpoint first, then the ledger: a writer makes the entries a
    // checkpoint covers durable before it writes it, so the ledger read
    // after it holds at least them.
    let checkpoint = read_checkpoint(fs, root, &key)?;
    let mut read = ledger::read_ledger_after(reader, 0)?;
    let path = store_ledger::checkpoint_path(root);
    let held = read.entries().len() as u64;
    checkpoint
        .check_within(held)
        .map_err(|e| e.with_path(&path))?;
    // The entries after it wait for a checkpoint that covers them.
    let uncovered = held - checkpoint.size();
    read.truncate(usize::try_from(checkpoint.size()).unwrap_or(usize::MAX));
    let carried = read.take_carried();
    // The records are hashed while the revisions are read.
    let (tree, loaded) = std::thread::scope(|scope| {
        let hashing = scope.spawn(|| grow(TreeHasher::new(), read.entries()));
        let source = recorded::Source { fs, reader, root };
        let loaded = recorded::load(source, &read, carried);
        (hashing.join(), loaded)
    });
    let tree = tree.map_err(|_| mismatch("the hashing of the records failed"))?;
    checkpoint
        .check_tree(tree.size(), &tree.root())
        .map_err(|e| e.with_path(&path))?;
    Ok((
        loaded?,
        Some(Verified {
            checkpoint,
            tree,
            uncovered,
        }),
    ))
}

/// [`crate::refresh_with`] with the verification of `options`' verifier
/// key, if any, against `verified`, the last checkpoint verified (`None`:
/// none yet, the whole ledger is hashed). The new checkpoint must verify,
/// be consistent with `verified` (a consistency proof from the tiles:
/// `Rollback` otherwise), and be the tree of the records (`CheckpointMismatch`);
/// only then are the revisions it covers ingested, and published at once
/// (one state handed to `publish`). A refusal publishes nothing and
/// leaves `verified` as it was.
pub fn refresh_verified(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
    state: &ChainState,
    verified: &mut Option<Verified>,
    publish: &mut dyn FnMut(ChainState),
) -> Result<RefreshReport, JournalError> {
    let reader = ledger::SegmentedReader::new(fs, root);
    refresh_verified_from(fs, &reader, root, options, state, verified, publish)
}

/// [`refresh_verified`] by the ledger `reader` (any backend), reading the
/// revision files, the checkpoint and the tiles through `fs`.
pub fn refresh_verified_from(
    fs: &dyn FileSystem,
    reader: &dyn LedgerReader,
    root: &Path,
    options: LoadOptions,
    state: &ChainState,
    verified: &mut Option<Verified>,
    publish: &mut dyn FnMut(ChainState),
) -> Result<RefreshReport, JournalError> {
    let Some(text) = options.verifier else {
        return crate::refresh_from(fs, reader, root, options, state, publish);
    };
    let key = key(text)?;
    let path = store_ledger::checkpoint_path(root);
    let checkpoint = read_checkpoint(fs, root, &key)?;
    let unchanged = usize::try_from(state.len()).unwrap_or(usize::MAX);
    let (from, tree) = match verified.as_ref() {
        Some(last) => {
            check_consistent(fs, root, &last.checkpoint, &checkpoint)
                .map_err(|e| e.with_path(&path))?;
            (last.checkpoint.size(), last.tree.clone())
        }
        None => (0, TreeHasher::new()),
    };
    if checkpoint.size() < state.last_sequence() {
        return Err(error::error(
            ErrorKind::Rollback,
            format!(
                "found a checkpoint of {} entries, expected at least the {} this Journal holds",
                checkpoint.size(),
                state.last_sequence()
            ),
        )
        .with_path(path));
    }
    let read = ledger::read_ledger_after(reader, from)?;
    let mut carried: Vec<EntryBytes> = read.into_carried();
    let held = from + carried.len() as u64;
    checkpoint
        .check_within(held)
        .map_err(|e| e.with_path(&path))?;
    let uncovered = held - checkpoint.size();
    if checkpoint.size() == from {
        *verified = Some(Verified {
            checkpoint,
            tree,
            uncovered,
        });
        return Ok(build::with_uncovered(
            build::refresh_report(0, unchanged, 0),
            uncovered,
        ));
    }
    // Entries after the checkpoint are not covered yet: the next refresh.
    carried.truncate(usize::try_from(checkpoint.size() - from).unwrap_or(usize::MAX));
    let entries: Vec<Entry> = carried.iter().map(|(e, _)| e.clone()).collect();
    let tree = grow(tree, &entries);
    checkpoint
        .check_tree(tree.size(), &tree.root())
        .map_err(|e| e.with_path(&path))?;
    let new = ledger::Ledger::carrying(
        carried
            .into_iter()
            .filter(|(e, _)| e.sequence() > state.last_sequence())
            .collect(),
    );
    let ingested = new.revisions().count();
    let next = recorded::ingest(recorded::Source { fs, reader, root }, new, state)?;
    if ingested > 0 {
        publish(next);
    }
    *verified = Some(Verified {
        checkpoint,
        tree,
        uncovered,
    });
    Ok(build::with_uncovered(
        build::refresh_report(ingested, unchanged, 0),
        uncovered,
    ))
}

/// Checks that `newer` extends `older` (a consistency proof read from the
/// root's tiles): `Rollback` otherwise.
fn check_consistent(
    fs: &dyn FileSystem,
    root: &Path,
    older: &Checkpoint,
    newer: &Checkpoint,
) -> Result<(), JournalError> {
    if newer.size() <= older.size() {
        // Equal sizes need equal roots; a smaller one is a rollback.
        return older.check_extension(newer, &[]);
    }
    let reader = |tile: &Tile| -> Result<Vec<u8>, JournalError> {
        let path = store_ledger::tile_path(root, &tile.path());
        fs.read(&path, store_ledger::TILE_MAX)
            .map_err(|e| error::io_error(path, "cannot read a tile", e))
    };
    let mut hashes = TileHashes::new(newer.size(), reader);
    let proof = prove_consistency(&mut hashes, older.size(), newer.size())?;
    older.check_extension(newer, &proof)
}
