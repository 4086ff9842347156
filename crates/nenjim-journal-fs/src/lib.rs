//! The read-only filesystem loader of a Journal root (section 7 of the format).
//!
//! # Brief overview
//!
//! A Journal root holds one directory per artifact, named by its coordinate,
//! and in it one file per revision, named by its Journal version:
//!
//! ```text
//! <root>/<coordinate>/<timestamp>.journal           runtime revision
//! <root>/<coordinate>/<timestamp>.journal.example   version-controlled example, never loaded
//! ```
//!
//! [`load`] turns such a root into a [`ChainState`], and [`refresh`] brings
//! an existing state up to date with it. Both go through the same steps:
//!
//! 1. **Walk** (names and metadata only, exactly two levels; a load lists
//!    each artifact directory in the worker that then parses it): the root must
//!    exist and be a readable directory (`RootMissing`, `RootNotDirectory`,
//!    `RootUnreadable`). Names beginning with `.` are ignored at both levels,
//!    and so are `*.journal.example` files (unless
//!    [`LoadOptions::with_examples`]). Every other root entry must be a
//!    directory named by a valid coordinate, every other artifact entry a
//!    regular file named `<timestamp>.journal`; anything else is
//!    `UnexpectedEntry` (wrong kind of entry: a stray file, a sub-directory,
//!    a symbolic link, which is never followed) or `InvalidFileName` (wrong
//!    name: `x.journal.bak`, `2026-11-29.journal`, `Serde/`).
//! 2. **Read and parse** each file once, artifacts in parallel (each
//!    artifact's files in order, each parsed after the file before with
//!    [`nenjim_journal_parser::parse_after`], so the release blocks it
//!    restates byte for byte are not read again and share its values;
//!    ingestion shares the rest): over 64 MiB is
//!    `TooLarge` (checked from the metadata before reading), not UTF-8 is
//!    `InvalidUtf8`; then the parser (same results and errors as
//!    [`nenjim_journal_parser::parse`]), and the header
//!    is checked against the file's place (`CoordinateMismatch`,
//!    `VersionMismatch`).
//! 3. **Ingest** the parsed revisions with
//!    [`ChainState::ingest_revision_in_place`] (a refresh:
//!    [`ChainState::ingest_revision`], one at a time), sequentially, artifacts in ascending
//!    coordinate order and each artifact's files in ascending timestamp
//!    order, on the calling thread while the workers parse the artifacts
//!    after them. Nothing is parsed twice.
//!
//! Results and errors are deterministic: whatever the parallel step does,
//! the error reported is the first one in ingestion order (a misplaced
//! entry counts at its place in that order). Every error carries the path it
//! concerns; I/O errors keep the OS error as their `source()`.
//!
//! The loader never creates, writes, renames, deletes, downloads or watches
//! anything. All its disk access goes through the [`FileSystem`] trait
//! ([`RealFileSystem`] for the real disk); [`load_with`] and
//! [`refresh_with`] take another implementation, e.g. one that injects
//! faults in tests.
//!
//! # Examples
//!
//! `--include-examples`-style reading: with [`LoadOptions::with_examples`],
//! `<timestamp>.journal.example` is read as if it were `<timestamp>.journal`
//! (in memory only). When both `X.journal` and `X.journal.example` exist,
//! both are read, the runtime file first: the example is then an idempotent
//! repeat if its text is identical (counted once) and a `Conflict` naming the
//! example's path otherwise, so a divergence is never hidden.
//!
//! ```
//! use nenjim_journal_api::error::ErrorKind;
//! use nenjim_journal_api::valuetypes::ArtifactCoordinate;
//! use nenjim_journal_fs::{LoadOptions, load};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let root = tempfile::tempdir()?;
//! std::fs::create_dir(root.path().join("left-pad"))?;
//! std::fs::write(
//!     root.path().join("left-pad/20261129T101530Z.journal"),
//!     "FORMAT nenjim-journal/1\n\
//!      ARTIFACT left-pad\n\
//!      JOURNAL_VERSION 20261129T101530Z\n\
//!      PREDECESSOR GENESIS\n\
//!      DESCRIPTION \"pads strings on the left\"\n",
//! )?;
//! // Ignored: hidden entries, and examples unless asked for.
//! std::fs::write(root.path().join(".keep"), "")?;
//! std::fs::write(root.path().join("left-pad/19990101T000000Z.journal.example"), "")?;
//!
//! let state = load(root.path(), LoadOptions::new())?;
//! let artifact: ArtifactCoordinate = "left-pad".parse()?;
//! assert_eq!(state.revisions(&artifact).len(), 1);
//!
//! let missing = load(&root.path().join("nowhere"), LoadOptions::new()).unwrap_err();
//! assert_eq!(missing.kind(), ErrorKind::RootMissing);
//! assert_eq!(missing.path(), Some(root.path().join("nowhere").as_path()));
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod file_system;
mod layout;
pub mod ledger;
mod read;
mod recorded;

use std::path::Path;

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::build::{self, ErrorContext as _};
use nenjim_journal_api::model::{JournalRevision, RefreshReport};
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_chain::{ChainState, Outcome};
use nenjim_journal_parser::{Interner, ParsedText, SharedInterner};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

pub use file_system::{EntryKind, EntryMetadata, FileSystem, RealFileSystem};
pub use read::decode as decode_revision_text;

/// The largest revision file the loader reads: 64 MiB. Larger files are
/// refused with `TooLarge`.
pub const MAX_FILE_LEN: u64 = 64 * 1024 * 1024;

/// How a root is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Read `<timestamp>.journal.example` files as if they were runtime
    /// revisions (in memory; nothing on disk changes). Off for `start()`.
    pub include_examples: bool,
}

impl LoadOptions {
    /// The options of `start()`: runtime revisions only.
    pub fn new() -> LoadOptions {
        LoadOptions::default()
    }
    /// Also read `*.journal.example` files as runtime revisions.
    #[must_use]
    pub fn with_examples(self, include_examples: bool) -> LoadOptions {
        LoadOptions { include_examples }
    }
}

/// Loads the whole root into a new state; fails on the first error, publishing nothing.
pub fn load(root: &Path, options: LoadOptions) -> Result<ChainState, JournalError> {
    load_with(&RealFileSystem, root, options)
}

/// [`load`] through `fs` instead of the real file system.
pub fn load_with(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
) -> Result<ChainState, JournalError> {
    // With a ledger, the ledger alone says which files to read.
    if let Some(ledger) = ledger::read(fs, root)? {
        return recorded::load(fs, root, &ledger);
    }
    // The root's entries are checked here; each artifact directory is
    // listed by the worker that parses it (a serial walk of 100 000 files
    // was an eighth of a start). One task per artifact: its files are
    // parsed in order, each after the one before, so the release blocks it
    // restates are not read again and share the values read before. A task
    // stops at its first error (a misplaced entry counts after the files
    // listed before it); ingestion below stops there too, so the files
    // after it would never be used.
    let artifacts = layout::artifacts(fs, root)?;
    let state = parse_and_ingest(fs, &artifacts.dirs, options)?;
    match artifacts.error {
        Some(error) => Err(error),
        None => Ok(state),
    }
}

/// What one artifact's task found: the files it listed, the revisions it
/// parsed from them, in order, and the error that stopped it, if any.
#[derive(Debug)]
struct ArtifactParsed {
    files: Vec<layout::RevisionFile>,
    revisions: Vec<JournalRevision>,
    error: Option<JournalError>,
}

/// Lists and parses one artifact directory.
fn list_and_parse(
    fs: &dyn FileSystem,
    artifact: &layout::ArtifactDir,
    options: LoadOptions,
    interner: &mut Interner,
) -> ArtifactParsed {
    let mut files = Vec::new();
    let listing = layout::files(fs, artifact, options, &mut files);
    let (revisions, error) = parse_artifact(fs, &files, interner);
    // A misplaced entry comes after the files listed before it.
    let error = error.or(listing.err());
    ArtifactParsed {
        files,
        revisions,
        error,
    }
}

/// What one batch of artifacts parsed to.
type Parsed = Vec<ArtifactParsed>;

/// Parses `groups` (one per artifact) on worker threads while this thread
/// ingests them, in order, as they arrive.
///
/// Ingestion is sequential (each state is built from the last), so it runs
/// here, overlapping the parse instead of waiting for all of it. The
/// artifacts are cut into many small batches that the workers take in
/// ascending order (one shared counter), so batches arrive nearly in order
/// and few wait. Each worker parses with its own interner, backed by one
/// store shared by the load, so a dependency target, license or requirement
/// is validated and stored once. At the first error in ingestion order the
/// workers are told to stop, and the error is returned, as if everything
/// had been parsed first.
fn parse_and_ingest(
    fs: &dyn FileSystem,
    groups: &[layout::ArtifactDir],
    options: LoadOptions,
) -> Result<ChainState, JournalError> {
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(groups.len().div_ceil(BATCH))
        .max(1);
    let batches = groups.len().div_ceil(BATCH);
    // (One worker per core: this thread mostly waits, ingesting a batch at a time.)
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let shared = SharedInterner::default();
    let (sender, receiver) = mpsc::channel::<(usize, Parsed)>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let (next, stop, shared) = (&next, &stop, &shared);
            scope.spawn(move || {
                let mut interner = Interner::backed_by(shared);
                while !stop.load(Ordering::Relaxed) {
                    let batch = next.fetch_add(1, Ordering::Relaxed);
                    let Some(artifacts) = batch_of(groups, batch) else {
                        break;
                    };
                    let parsed: Parsed = artifacts
                        .iter()
                        .map(|artifact| list_and_parse(fs, artifact, options, &mut interner))
                        .collect();
                    if sender.send((batch, parsed)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let result = ingest_in_order(batches, &receiver);
        if result.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        // Dropping the receiver ends the workers' sends; the scope joins them.
        drop(receiver);
        result
    })
}

/// Artifacts per batch of [`parse_and_ingest`]: small enough that the last
/// batches (whose ingestion cannot overlap anything) are a small part of a
/// large load, large enough that the hand-off costs nothing.
const BATCH: usize = 64;

/// The artifacts of batch `batch`, if there is one.
fn batch_of(groups: &[layout::ArtifactDir], batch: usize) -> Option<&[layout::ArtifactDir]> {
    let start = batch.checked_mul(BATCH)?;
    groups
        .get(start..start.saturating_add(BATCH).min(groups.len()))
        .filter(|b| !b.is_empty())
}

/// Ingests the batches from `receiver` in batch order, holding back the
/// ones that arrive early.
fn ingest_in_order(
    batches: usize,
    receiver: &mpsc::Receiver<(usize, Parsed)>,
) -> Result<ChainState, JournalError> {
    let mut state = ChainState::new();
    let mut early: BTreeMap<usize, Parsed> = BTreeMap::new();
    for batch in 0..batches {
        let parsed = loop {
            if let Some(parsed) = early.remove(&batch) {
                break parsed;
            }
            match receiver.recv() {
                Ok((b, parsed)) if b == batch => break parsed,
                Ok((b, parsed)) => {
                    early.insert(b, parsed);
                }
                Err(_) => {
                    return Err(build::error(
                        ErrorKind::Io,
                        "a loader worker thread stopped before parsing its files",
                    ));
                }
            }
        };
        for artifact in parsed {
            for (file, revision) in artifact.files.iter().zip(artifact.revisions) {
                state
                    .ingest_revision_in_place(revision)
                    .map_err(|e| e.with_path(file.path()))?;
            }
            if let Some(error) = artifact.error {
                return Err(error);
            }
        }
    }
    Ok(state)
}

/// Parses one artifact's files in order, each after the one before (its
/// byte-identical release blocks share that file's values; ingestion shares
/// the rest, which were written differently); stops at the first error.
fn parse_artifact(
    fs: &dyn FileSystem,
    files: &[layout::RevisionFile],
    interner: &mut Interner,
) -> (Vec<JournalRevision>, Option<JournalError>) {
    let mut revisions: Vec<JournalRevision> = Vec::with_capacity(files.len());
    // The file before, with its text: a successor restates its releases,
    // and the blocks it restates byte for byte are not read again.
    let mut previous: Option<ParsedText> = None;
    for file in files {
        match read::read_revision(fs, file, interner, previous.as_ref()) {
            Ok(parsed) => {
                revisions.push(parsed.revision().clone());
                previous = Some(parsed);
            }
            Err(error) => return (revisions, Some(error)),
        }
    }
    (revisions, None)
}

/// The revision files of a root with a ledger that the ledger does not
/// record (and that a load therefore never reads), in ingestion order;
/// empty for a root without a ledger. `state` is the root as loaded.
pub fn unrecorded(
    root: &Path,
    options: LoadOptions,
    state: &ChainState,
) -> Result<Vec<std::path::PathBuf>, JournalError> {
    let fs = RealFileSystem;
    if !ledger::exists(&fs, root)? {
        return Ok(Vec::new());
    }
    recorded::unrecorded_files(&fs, root, options, state)
}

/// Re-reads the root against `state`: unchanged files (same digest) are counted
/// without parsing; new files are parsed and ingested one at a time, each
/// handed to `publish` as soon as it is accepted. The first failure stops the
/// refresh and returns its error; everything published before it stays.
pub fn refresh(
    root: &Path,
    options: LoadOptions,
    state: &ChainState,
    publish: &mut dyn FnMut(ChainState),
) -> Result<RefreshReport, JournalError> {
    refresh_with(&RealFileSystem, root, options, state, publish)
}

/// What the parallel step of a refresh learned about one file.
enum Reread {
    /// The state already has this artifact and version: only the digests matter.
    Known {
        stored: RevisionDigest,
        found: RevisionDigest,
    },
    /// A revision the state does not have yet, parsed and checked.
    New(JournalRevision),
}

/// [`refresh`] through `fs` instead of the real file system.
///
/// A file whose artifact and version are already stored is compared by
/// digest only: equal is counted as unchanged (never parsed), different is
/// a `Conflict` (a stored revision never changes). Files that disappeared
/// change nothing: history is never erased.
pub fn refresh_with(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
    state: &ChainState,
    publish: &mut dyn FnMut(ChainState),
) -> Result<RefreshReport, JournalError> {
    if let Some(ledger) = ledger::read(fs, root)? {
        return recorded::refresh(fs, root, options, &ledger, state, publish);
    }
    let walk = layout::walk(fs, root, options)?;
    let rereads: Vec<Result<Reread, JournalError>> = walk
        .files
        .par_iter()
        .map_init(Interner::default, |interner, file| {
            let bytes = read::read_bytes(fs, file)?;
            if let Some(stored) = state.revision(&file.coordinate, file.version) {
                // The digest is the SHA-256 of the exact bytes, so bytes with
                // the stored digest are the stored (valid UTF-8) text: only
                // different bytes need decoding, for an `InvalidUtf8` first.
                let found = RevisionDigest::of_bytes(&bytes);
                if found != *stored.digest() {
                    read::decode(bytes).map_err(|e| e.with_path(file.path()))?;
                }
                Ok(Reread::Known {
                    stored: *stored.digest(),
                    found,
                })
            } else {
                let text = read::decode(bytes).map_err(|e| e.with_path(file.path()))?;
                read::parse_checked(file, &text, interner).map(Reread::New)
            }
        })
        .collect();
    let mut current = state.clone();
    let (mut ingested, mut unchanged) = (0, 0);
    for (file, reread) in walk.files.iter().zip(rereads) {
        match reread? {
            Reread::Known { stored, found } if stored == found => unchanged += 1,
            Reread::Known { stored, found } => {
                return Err(build::error(
                    ErrorKind::Conflict,
                    format!(
                        "found a text with digest {found} for {} {}, expected the stored \
                         revision's digest {stored} (a stored revision never changes)",
                        file.coordinate, file.version,
                    ),
                )
                .with_path(file.path()));
            }
            Reread::New(revision) => {
                let next = current
                    .ingest_revision(revision)
                    .map_err(|e| e.with_path(file.path()))?;
                match next.outcome() {
                    Outcome::Accepted => {
                        current = next.into_state();
                        publish(current.clone());
                        ingested += 1;
                    }
                    Outcome::Unchanged => unchanged += 1,
                }
            }
        }
    }
    match walk.error {
        Some(error) => Err(error),
        None => Ok(build::refresh_report(ingested, unchanged, 0)),
    }
}
