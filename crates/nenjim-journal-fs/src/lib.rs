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
//! 1. **List** (names and metadata only, exactly two levels: the root's
//!    entries first, then each artifact directory in the worker that reads
//!    its files): the root must
//!    exist and be a readable directory (`RootMissing`, `RootNotDirectory`,
//!    `RootUnreadable`). Names beginning with `.` are ignored at both levels,
//!    and so are `*.journal.example` files (unless
//!    [`LoadOptions::with_examples`]). Every other root entry must be a
//!    directory named by a valid coordinate, every other artifact entry a
//!    regular file named `<timestamp>.journal`; anything else is
//!    `UnexpectedEntry` (wrong kind of entry: a stray file, a sub-directory,
//!    a symbolic link, which is never followed) or `InvalidFileName` (wrong
//!    name: `x.journal.bak`, `2026-11-29.journal`, `Serde/`). This list of
//!    files, in ingestion order, is the one input of the steps below.
//! 2. **Read and parse** each file once, artifacts in parallel (a file is
//!    opened without following a symbolic link and without blocking on a
//!    FIFO, and must still be a regular file, so an entry swapped after the
//!    listing is refused; each
//!    artifact's files in order, each parsed after the file before with
//!    [`nenjim_journal_parser::parse_after`], so the release blocks it
//!    restates byte for byte are not read again and share its values, and
//!    the parse shares the equal ones written differently): over 64 MiB is
//!    `TooLarge` (checked from the metadata before reading), not UTF-8 is
//!    `InvalidUtf8`; then the parser (same results and errors as
//!    [`nenjim_journal_parser::parse`]), and the header
//!    is checked against the file's place (`CoordinateMismatch`,
//!    `VersionMismatch`). A refresh only hashes the files the state already
//!    has (never parsing them) and parses the others.
//! 3. **Ingest** the parsed revisions into the [`ChainState`],
//!    sequentially, artifacts in ascending coordinate order and each
//!    artifact's files in ascending timestamp order, on the calling thread
//!    while the workers read the artifacts after them (one concurrency
//!    model for both: worker threads take batches of artifacts in order,
//!    the calling thread consumes them in order). Nothing is parsed twice.
//!
//! Results and errors are deterministic: whatever the parallel step does,
//! the error reported is the first one in ingestion order (a misplaced
//! entry counts at its place in that order). Every error carries the path it
//! concerns; I/O errors keep the OS error as their `source()`.
//!
//! The loader never creates, writes, renames, deletes, downloads or watches
//! anything. All its disk access goes through the storage seam
//! (`nenjim-journal-store`): the read-only [`FileSystem`] trait
//! ([`RealFileSystem`] for the real disk) and, on a root with a ledger, a
//! [`LedgerReader`](ledger::LedgerReader), through which the revisions it
//! records are read (by default their files, through the `FileSystem`);
//! [`load_with`] and [`refresh_with`] take another implementation, e.g.
//! one that injects faults in tests, or a root in an object store (the
//! `nenjim-journal-objstore` crate), and [`load_recorded`] and
//! [`ingest_recorded`] take any ledger (a NATS stream's carries its
//! revisions in its entries).
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

mod layout;
pub mod ledger;
mod load;
mod pipeline;
mod read;
mod recorded;
mod refresh;
mod root;
mod scan;
mod verify;

use std::path::Path;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::RefreshReport;
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion};
use nenjim_journal_chain::ChainState;

pub use layout::{EXAMPLE_SUFFIX, RUNTIME_SUFFIX};
pub use nenjim_journal_store::{Directory, EntryKind, EntryMetadata, FileSystem, RealFileSystem};
pub use read::decode as decode_revision_text;
pub use root::normalize as normalize_root;
pub use scan::{ScannedArtifact, ScannedEntry, ScannedFile, ScannedItem, scan, scan_with};
pub use verify::{
    Verified, load_verified, load_verified_from, refresh_verified, refresh_verified_from,
};

/// The largest revision file the loader reads: 64 MiB. Larger files are
/// refused with `TooLarge` (the seam's bound, on every backend).
pub use nenjim_journal_store::MAX_FILE_LEN;

/// How a root is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Read `<timestamp>.journal.example` files as if they were runtime
    /// revisions (in memory; nothing on disk changes). Off for `start()`.
    pub include_examples: bool,
    /// The note verifier key a signed root is checked against (format
    /// section 10), as given to [`LoadOptions::verifier`]; `None`: a
    /// signed root loads as an unsigned one. (Kept as interned text so
    /// that the options stay `Copy`.)
    pub verifier: Option<&'static str>,
}

/// `text`, kept once for the life of the process (each distinct key text
/// is stored once, however many options name it).
fn intern(text: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock, PoisonError};
    static KEYS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut keys = KEYS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(key) = keys.get(text) {
        return key;
    }
    let key: &'static str = Box::leak(text.to_owned().into_boxed_str());
    keys.insert(key);
    key
}

impl LoadOptions {
    /// The options of `start()`: runtime revisions only.
    pub fn new() -> LoadOptions {
        LoadOptions::default()
    }
    /// Also read `*.journal.example` files as runtime revisions.
    #[must_use]
    pub fn with_examples(self, include_examples: bool) -> LoadOptions {
        LoadOptions {
            include_examples,
            ..self
        }
    }
    /// A note verifier key (`<name>+<hash>+<base64>`, as Go's
    /// `golang.org/x/mod/sumdb/note` and the command's `keygen` print it):
    /// start and refresh verify the root's checkpoint against it before
    /// publishing, and publish exactly the entries it covers (format
    /// section 10). A start checks the signature, that the ledger holds at
    /// least the checkpoint's size of entries, and that the tree of the
    /// first that many records (each revision file checked against its
    /// record) has its root hash; the entries after them wait for a
    /// checkpoint that covers them (a writer at a checkpoint interval
    /// publishes one later), which a refresh takes, accepting only a
    /// checkpoint consistent with the last one verified (`Rollback`
    /// otherwise; its report's `uncovered()` counts the entries still
    /// waiting). Errors: `CheckpointInvalid` (a malformed key, no
    /// checkpoint, a bad signature, another key), `CheckpointMismatch` (the
    /// records do not hash to it, or it covers more entries than the
    /// ledger holds), `Rollback`. See [`load_verified`] and
    /// [`refresh_verified`].
    #[must_use]
    pub fn verifier(self, key: &str) -> LoadOptions {
        LoadOptions {
            verifier: Some(intern(key)),
            ..self
        }
    }
}

/// Checks that `root` in `fs` exists and is a directory, as a load does
/// first (`RootMissing`, `RootNotDirectory`, `RootUnreadable`).
pub fn check_root(fs: &dyn FileSystem, root: &Path) -> Result<(), JournalError> {
    layout::check_root(fs, root)
}

/// Loads the root by the ledger `ledger` (any backend), reading the
/// revisions it records through it ([`LedgerReader::read_revision`]
/// over `fs`, or the bytes it carries): the state and the ledger's tip
/// (its last entry, a revision or a fence), or `None` for a root without
/// a ledger. The ledger is read once.
///
/// [`LedgerReader::read_revision`]: ledger::LedgerReader::read_revision
pub fn load_recorded(
    fs: &dyn FileSystem,
    ledger: &dyn ledger::LedgerReader,
    root: &Path,
) -> Result<Option<(ChainState, u64)>, JournalError> {
    Ok(load_recorded_ledger(fs, ledger, root)?.map(|(state, read)| (state, read.tip())))
}

/// [`load_recorded`], returning the ledger as read (every entry) instead
/// of its tip: what a writer of a signed root builds its tree from.
pub fn load_recorded_ledger(
    fs: &dyn FileSystem,
    ledger: &dyn ledger::LedgerReader,
    root: &Path,
) -> Result<Option<(ChainState, ledger::Ledger)>, JournalError> {
    match ledger::read_from(ledger)? {
        Some(mut read) => {
            let carried = read.take_carried();
            let state = recorded::load(source(fs, ledger, root), &read, carried)?;
            Ok(Some((state, read)))
        }
        None => Ok(None),
    }
}

/// Every independent error of the root by the ledger `ledger` (any
/// backend), reading through it the revisions it records, as
/// `check` reports them when a load fails: in ledger order, each
/// artifact's first error (its chain stops there; the other artifacts go
/// on), at most `max_errors` of them and whether there were more. `None`
/// for a root without a ledger; a ledger that cannot be read is the one
/// error returned as `Err`. Nothing is written.
pub fn diagnose_recorded(
    fs: &dyn FileSystem,
    ledger: &dyn ledger::LedgerReader,
    root: &Path,
    max_errors: usize,
) -> Result<Option<(Vec<JournalError>, bool)>, JournalError> {
    Ok(ledger::read_from(ledger)?
        .map(|read| recorded::diagnose(source(fs, ledger, root), read, max_errors)))
}

/// Refreshes `state` (loaded by [`load_recorded`] from the same ledger) by
/// the ledger `ledger` (any backend: a NATS stream as well as `log/` and
/// `segments/`), reading through it only the revisions its entries after
/// `state`'s last sequence record: each accepted revision is handed
/// to `publish` as soon as it is, at its sequence. The ledger is asked for
/// what follows `state.last_sequence()` and nothing before it; a recorded
/// file whose size or SHA-256 differs from its record is `LedgerMismatch`.
/// The first failure stops the refresh and returns its error; everything
/// published before it stays. The report's `unchanged` is the revisions
/// `state` held (none of which is read again); its unrecorded count is 0
/// (counting the files a ledger does not record is `check`'s,
/// [`unrecorded_with`]).
pub fn refresh_recorded(
    fs: &dyn FileSystem,
    ledger: &dyn ledger::LedgerReader,
    root: &Path,
    state: &ChainState,
    publish: &mut dyn FnMut(ChainState),
) -> Result<RefreshReport, JournalError> {
    recorded::refresh(source(fs, ledger, root), state, publish)
}

/// Ingests into `state` the revisions that the entries of `read` (the
/// ledger's entries after the state's, in order, as
/// [`ledger::read_ledger_after`] reads them, or a follower's with
/// [`ledger::Ledger::carrying`]) record, reading through `ledger` those
/// whose bytes they do not carry, and returns the new state: what a
/// writer that found the tip moved learns, without loading the root again.
pub fn ingest_recorded(
    fs: &dyn FileSystem,
    ledger: &dyn ledger::LedgerReader,
    root: &Path,
    read: ledger::Ledger,
    state: &ChainState,
) -> Result<ChainState, JournalError> {
    recorded::ingest(source(fs, ledger, root), read, state)
}

/// Where a load by a ledger reads its revisions.
fn source<'a>(
    fs: &'a dyn FileSystem,
    reader: &'a dyn ledger::LedgerReader,
    root: &'a Path,
) -> recorded::Source<'a> {
    recorded::Source { fs, reader, root }
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
    if options.verifier.is_some() {
        return verify::load_verified(fs, root, options).map(|(state, _)| state);
    }
    load_from(fs, &ledger::SegmentedReader::new(fs, root), root, options)
}

/// [`load_with`] by the ledger `ledger` (any backend: a NATS stream as
/// well as `log/` and `segments/`), without a verifier: with a ledger,
/// the ledger alone says which files to read (through `fs`); a root whose
/// `ledger` does not exist is walked through `fs` as a root without one.
pub fn load_from(
    fs: &dyn FileSystem,
    ledger: &dyn ledger::LedgerReader,
    root: &Path,
    options: LoadOptions,
) -> Result<ChainState, JournalError> {
    match ledger::read_from(ledger)? {
        Some(mut read) => {
            let carried = read.take_carried();
            recorded::load(source(fs, ledger, root), &read, carried)
        }
        None => load::load(fs, root, options),
    }
}

/// The revision files of a root with a ledger that the ledger does not
/// record (and that a load therefore never reads), in ingestion order;
/// empty for a root without a ledger. `held` says whether the Journal
/// loaded from the root holds the revision of an artifact at a version.
pub fn unrecorded(
    root: &Path,
    options: LoadOptions,
    held: &dyn Fn(&ArtifactCoordinate, JournalVersion) -> bool,
) -> Result<Vec<std::path::PathBuf>, JournalError> {
    unrecorded_with(&RealFileSystem, root, options, held)
}

/// [`unrecorded`] through `fs` (a root in an object store, say).
pub fn unrecorded_with(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
    held: &dyn Fn(&ArtifactCoordinate, JournalVersion) -> bool,
) -> Result<Vec<std::path::PathBuf>, JournalError> {
    if !ledger::exists(fs, root)? {
        return Ok(Vec::new());
    }
    recorded::unrecorded_files(fs, root, options, held)
}

/// The entries of a root with a ledger that the layout rules of section 7
/// refuse (a stray `README.txt`, `latest.journal`, `x.journal.bak` …), each
/// as the error a root without a ledger fails with; a load through the
/// ledger never reads them. Empty for a root without a ledger (where such
/// an entry fails the load itself).
pub fn stray_with(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
) -> Result<Vec<JournalError>, JournalError> {
    if !ledger::exists(fs, root)? {
        return Ok(Vec::new());
    }
    recorded::stray_entries(fs, root, options)
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
    if options.verifier.is_some() {
        // No checkpoint verified before: the whole ledger is hashed.
        return verify::refresh_verified(fs, root, options, state, &mut None, publish);
    }
    refresh_from(
        fs,
        &ledger::SegmentedReader::new(fs, root),
        root,
        options,
        state,
        publish,
    )
}

/// [`refresh_with`] by the ledger `ledger` (any backend), without a
/// verifier: [`refresh_recorded`] when it exists, else a walk of `fs`.
pub fn refresh_from(
    fs: &dyn FileSystem,
    ledger: &dyn ledger::LedgerReader,
    root: &Path,
    options: LoadOptions,
    state: &ChainState,
    publish: &mut dyn FnMut(ChainState),
) -> Result<RefreshReport, JournalError> {
    if ledger.exists()? {
        recorded::refresh(source(fs, ledger, root), state, publish)
    } else {
        refresh::refresh(fs, root, options, state, publish)
    }
}
