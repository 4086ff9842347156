//! The ledger of a root (format section 9): which revisions the Journal
//! holds, and their sequences; the one home of its names and records.
//!
//! # The seam
//!
//! A ledger is read through [`LedgerReader`] (its records after a sequence,
//! in batches, so that a backend over a network can fetch a batch with
//! concurrent requests, and the bytes of the revisions they record) and
//! written through [`Ledger`] (the next record committed at an expected
//! tip with its revision's bytes, a [`Commit`]: [`CommitError::TipMoved`]
//! carries what was found there). A revision's bytes travel through the
//! ledger both ways: where they are kept is the ledger's business. Today's
//! implementation is [`SegmentedLedger`] (and [`SegmentedReader`] for the
//! loader, which writes nothing): the layout below over any
//! [`Store`](crate::Store), a directory or a bucket, where a revision is
//! the file its record points at, put before the record (blobs before
//! pointers). A backend whose primitive is "publish at an expected
//! sequence" (a NATS JetStream stream) implements the two traits directly
//! and carries a revision inside its entry.
//!
//! # On disk (and in a bucket)
//!
//! ```text
//! <root>/.ledger/LEDGER                          "nenjim-ledger/1": the root has a ledger
//! <root>/.ledger/log/<sequence>                  one entry (20-digit, zero-padded name)
//! <root>/.ledger/segments/<sequence>.segment     the entries up to <sequence>, one a line
//! <root>/.ledger/lease, lease.lock               the writer's lease (crate::lease) and its local lock
//! <root>/.ledger/probe                           a bucket's proof that it refuses a second create
//! <root>/.ledger/store, store.lock               the root's content store, recorded by the command's `init`
//! <root>/.ledger/tlog/checkpoint, checkpoint.lock   a signed root's C2SP checkpoint (format section 10)
//! <root>/.ledger/tlog/tile/<L>/<N>[.p/<W>]       its C2SP hash tiles (height 8)
//! <root>/.ledger/tlog/tile/entries/<N>[.p/<W>]   its C2SP entry bundles (the records)
//! ```
//!
//! `store` is metadata for the command (`nenjim-store/1`, then `store
//! <store>`); no reader of the ledger reads it.
//!
//! An entry is one *record*, a line of text ([`Entry`]):
//!
//! ```text
//! <sequence> REVISION <coordinate> <journal-version> <size> sha256:<hex>
//! <sequence> FENCE <epoch>
//! ```
//!
//! A `REVISION` record points at the revision file
//! `<root>/<coordinate>/<journal-version>.journal` by the size and SHA-256 of
//! its exact bytes. A `FENCE` record holds no revision: a writer that took
//! over an expired lease of epoch `e - 1` writes it at the tip, so that the
//! previous holder's next entry (at the same sequence) cannot be created.
//!
//! Entries are only ever created, each by a create-if-absent of
//! `log/<sequence>` at the tip (the compare-and-set of the append path),
//! never rewritten. On a local file system an entry is a symbolic link whose
//! target text is the record: `symlink(2)` is an atomic create-if-absent
//! that carries its content, so an entry is never torn and costs one
//! directory sync (on an object store it is an object created by a
//! conditional put). A *segment* is a checkpoint: a regular file holding the
//! records of the contiguous entries after the previous segment, up to the
//! sequence in its name, so that a reader opens one file per segment instead
//! of one per entry. Segments are written (create-if-absent, never
//! rewritten) once [`SEGMENT_SPAN`] entries have no segment, and, that many
//! entries each, for the revisions a root held when its ledger was created.
//!
//! A reader lists `segments/`, reads them in order (each must start where
//! the one before ended), then reads `log/<n>` for the sequences after the
//! last segment until one is absent. `LEDGER` is written last when a ledger
//! is created, so a root whose ledger creation was interrupted still loads
//! as a root without one. Other objects a later format adds (a transparency
//! log's `tlog/`) live beside these, written by an [`AfterCommit`] hook.

mod follow;
mod record;
mod segmented;

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion};

use crate::{FileSystem, MAX_FILE_LEN};

pub use follow::{FollowEntries, Followed, LedgerFollow};
use record::Seen;
pub use record::{Entry, Record, RecordError, RevisionPointer};
pub use segmented::{SegmentedLedger, SegmentedReader, mismatch};

/// The ledger's directory under the root (a dot-entry: the layout rules of
/// section 7 ignore it).
pub const LEDGER_DIR: &str = ".ledger";
/// A name that sorts after every key under [`LEDGER_DIR`] (`.ledger`
/// followed by `0`, the byte after `/`): a listing of a root that starts
/// after it never lists the ledger's objects (its entries are many).
pub const AFTER_LEDGER_DIR: &str = ".ledger0";
/// The marker file whose presence makes a root a root with a ledger.
pub const MARKER: &str = "LEDGER";
/// The marker's exact content: the ledger format and its version.
pub const MARKER_TEXT: &str = "nenjim-ledger/1\n";
/// The entries' directory.
pub const LOG_DIR: &str = "log";
/// The segments' (checkpoints') directory.
pub const SEGMENTS_DIR: &str = "segments";
/// The suffix of a segment file.
pub const SEGMENT_SUFFIX: &str = ".segment";
/// How many entries may go without a segment before the writer writes one.
pub const SEGMENT_SPAN: u64 = 1000;
/// The default [`LedgerReader::read_batch`]: whole segments' worth.
pub const READ_BATCH: usize = 4 * SEGMENT_SPAN as usize;
/// The writer's lease file (see [`crate::lease`]).
pub const LEASE: &str = "lease";
/// The command's record of the root's content store (`init --store`):
/// metadata no reader of the ledger reads.
pub const STORE_RECORD: &str = "store";
/// The object a writer puts twice to prove that a store refuses a create
/// over an existing name ([`BlobStore::check_conditional_writes`](crate::BlobStore::check_conditional_writes)).
pub const PROBE: &str = "probe";
/// The suffix of a runtime revision file (format section 7).
pub const REVISION_SUFFIX: &str = ".journal";
/// The largest ledger file (a segment, the marker) a reader reads.
pub const LEDGER_FILE_MAX: u64 = 64 * 1024 * 1024;
/// The transparency log's directory under the ledger's (format section 10):
/// the checkpoint and the tiles of a signed root.
pub const TLOG_DIR: &str = "tlog";
/// The signed checkpoint's name under [`TLOG_DIR`].
pub const CHECKPOINT: &str = "checkpoint";
/// The largest checkpoint note a reader reads.
pub const CHECKPOINT_MAX: u64 = 1024 * 1024;
/// The largest tile (an entry bundle of 256 records) a reader reads.
pub const TILE_MAX: u64 = 256 * (2 + 65_535);

/// The transparency log's directory of `root`: `<root>/.ledger/tlog`.
pub fn tlog_dir(root: &Path) -> PathBuf {
    ledger_dir(root).join(TLOG_DIR)
}

/// The signed checkpoint of `root`: `<root>/.ledger/tlog/checkpoint`.
pub fn checkpoint_path(root: &Path) -> PathBuf {
    tlog_dir(root).join(CHECKPOINT)
}

/// The tile at the C2SP path `tile` (`tile/0/000.p/5`, `tile/entries/001`)
/// of `root`'s transparency log.
pub fn tile_path(root: &Path, tile: &str) -> PathBuf {
    tlog_dir(root).join(tile)
}

/// The ledger directory of `root`.
pub fn ledger_dir(root: &Path) -> PathBuf {
    root.join(LEDGER_DIR)
}

/// The file name of the entry with `sequence` (20 digits, so names sort as numbers).
pub fn entry_name(sequence: u64) -> String {
    format!("{sequence:020}")
}

/// The path of the entry with `sequence`.
pub fn entry_path(root: &Path, sequence: u64) -> PathBuf {
    ledger_dir(root).join(LOG_DIR).join(entry_name(sequence))
}

/// The path of the segment ending at `last`.
pub fn segment_path(root: &Path, last: u64) -> PathBuf {
    ledger_dir(root)
        .join(SEGMENTS_DIR)
        .join(format!("{}{SEGMENT_SUFFIX}", entry_name(last)))
}

/// The path of the lease of `root`.
pub fn lease_path(root: &Path) -> PathBuf {
    ledger_dir(root).join(LEASE)
}

/// The path of the revision file a record points at.
pub fn revision_path(
    root: &Path,
    coordinate: &ArtifactCoordinate,
    version: JournalVersion,
) -> PathBuf {
    // One allocation of the final size (a start from a ledger builds one
    // path per revision).
    let name = format!("{version}{REVISION_SUFFIX}");
    let mut path =
        PathBuf::with_capacity(root.as_os_str().len() + coordinate.as_str().len() + name.len() + 2);
    path.push(root);
    path.push(coordinate.as_str());
    path.push(name);
    path
}

/// The read side of a ledger: what the loader uses.
pub trait LedgerReader: Send + Sync + fmt::Debug {
    /// Whether the root has a ledger.
    fn exists(&self) -> Result<bool, JournalError>;

    /// The entries after sequence `after`, ascending and contiguous from
    /// `after + 1`, at most `max` of them (at least one if there is one):
    /// empty when `after` is the tip. A malformed ledger is `LedgerMismatch`.
    fn read_after(&self, after: u64, max: usize) -> Result<Vec<Entry>, JournalError>;

    /// The path of the entry `sequence`, for messages.
    fn entry_path(&self, sequence: u64) -> PathBuf;

    /// How many entries a reader of the whole ledger asks
    /// [`read_after_with_bytes`](Self::read_after_with_bytes) for at once.
    /// The default, [`READ_BATCH`], bounds what one request to a backend
    /// over a network brings back; a ledger whose every read lists and
    /// reads its segments ([`SegmentedReader`]) is read in one batch.
    fn read_batch(&self) -> usize {
        READ_BATCH
    }

    /// [`read_after`](Self::read_after), each entry with the exact bytes
    /// of the revision it records where the backend reads them with the
    /// entry (a NATS message carries them); `None` where it does not: the
    /// caller reads them with [`read_revision`](Self::read_revision). The
    /// default carries none. The backend checks the bytes' size against the
    /// record; their SHA-256 is the caller's to compare with the record's
    /// (the loader compares the digest its parse computes: `LedgerMismatch`
    /// when they differ), so that a revision is hashed once.
    fn read_after_with_bytes(
        &self,
        after: u64,
        max: usize,
    ) -> Result<Vec<EntryBytes>, JournalError> {
        Ok(self
            .read_after(after, max)?
            .into_iter()
            .map(|entry| (entry, None))
            .collect())
    }

    /// The exact bytes of the revision `pointer` that entry `sequence`
    /// records, at most [`MAX_FILE_LEN`] + 1 of them (more means over the
    /// limit, as [`FileSystem::read`] says it); `Ok(None)` when there is no
    /// such revision. `again`: read from the backend itself, never from a
    /// copy (the loader reads a revision again to tell one changed since
    /// it was recorded from one that never parsed).
    ///
    /// The default reads the revision file `pointer` points at,
    /// [`revision_path`]`(root, …)`, through `fs` (format section 9): with
    /// [`FileSystem::read_recorded`] (a cache may answer it) or, `again`,
    /// [`FileSystem::read`]; a read that fails where `fs` has no file at
    /// that path is `Ok(None)`. A backend that keeps a revision in its
    /// entry (NATS) reads it from there and never looks at `fs`.
    fn read_revision(
        &self,
        fs: &dyn FileSystem,
        root: &Path,
        sequence: u64,
        pointer: &RevisionPointer,
        again: bool,
    ) -> io::Result<Option<Vec<u8>>> {
        let _ = sequence;
        let path = revision_path(root, pointer.coordinate(), pointer.version());
        if again {
            return fs.read(&path, MAX_FILE_LEN).map(Some);
        }
        match fs.read_recorded(&path, MAX_FILE_LEN, pointer.digest()) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e)
                if e.kind() != io::ErrorKind::FileTooLarge
                    && fs
                        .symlink_metadata(&path)
                        .is_err_and(|m| m.kind() == io::ErrorKind::NotFound) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

/// An entry as read, with the exact bytes of the revision it records
/// where the backend carries them in its entries
/// ([`LedgerReader::read_after_with_bytes`]).
pub type EntryBytes = (Entry, Option<Vec<u8>>);

/// One entry to commit ([`Ledger::commit`]): its record and, for a
/// `REVISION` record, the exact bytes of the revision it points at (its
/// size and SHA-256 are the pointer's). The ledger keeps the bytes where
/// its backend keeps revisions: a revision file put before the record
/// ([`SegmentedLedger`]), or inside the entry (NATS).
#[derive(Clone)]
pub struct Commit<'a> {
    record: Record,
    revision: Option<&'a [u8]>,
}

impl<'a> Commit<'a> {
    /// The revision `pointer` points at, whose exact bytes are `bytes`.
    pub fn revision(pointer: RevisionPointer, bytes: &'a [u8]) -> Commit<'a> {
        Commit {
            record: Record::Revision(pointer),
            revision: Some(bytes),
        }
    }

    /// The record.
    pub fn record(&self) -> &Record {
        &self.record
    }

    /// The revision's bytes (`None` for a record that holds no revision).
    pub fn bytes(&self) -> Option<&'a [u8]> {
        self.revision
    }

    /// The record and the revision's bytes.
    pub fn into_parts(self) -> (Record, Option<&'a [u8]>) {
        (self.record, self.revision)
    }
}

/// A record alone: a `FENCE`. (A `REVISION` record committed without its
/// bytes is refused by every ledger, `Failed`, and nothing is committed.)
impl From<Record> for Commit<'static> {
    fn from(record: Record) -> Commit<'static> {
        Commit {
            record,
            revision: None,
        }
    }
}

/// The record and the size of the bytes (never the bytes).
impl fmt::Debug for Commit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Commit")
            .field("record", &self.record)
            .field("bytes", &self.revision.map(<[u8]>::len))
            .finish()
    }
}

/// The refusal of a `REVISION` record committed without its revision's
/// bytes (`Io` at the revision's path): nothing is committed.
pub fn without_bytes(root: &Path, pointer: &RevisionPointer) -> JournalError {
    error::error(
        ErrorKind::Io,
        "found a revision record without the revision's bytes, expected them with it; nothing of it or after it was committed",
    )
    .with_path(revision_path(root, pointer.coordinate(), pointer.version()))
}

/// Why a [`Ledger::commit`] did not commit.
#[derive(Debug)]
pub enum CommitError {
    /// The ledger's tip is past the expected one: another writer committed
    /// the entry first. `found` is that entry, as far as it could be read.
    TipMoved {
        /// The entry found at the sequence this commit wanted.
        found: Option<Entry>,
    },
    /// Anything else (nothing was committed; the error says why).
    Failed(JournalError),
}

/// The write side of a ledger: what the writer uses.
pub trait Ledger: LedgerReader {
    /// Records what a root without a ledger holds (entries `1..=n`, in
    /// order), atomically: a reader sees either no ledger or all of them.
    /// Leftovers of an interrupted creation are the implementation's.
    fn create(&self, entries: &[Entry]) -> Result<(), JournalError>;

    /// Commits `commit` as the entry after `tip` (the compare-and-set of
    /// the append path), its revision's bytes kept durably before its
    /// record (blobs before pointers), and returns it; `TipMoved` if that
    /// entry exists. A revision already kept with the same bytes (a file
    /// placed by hand) is recorded as it is; other bytes there are a
    /// `Conflict` (`Failed`), and nothing is committed.
    fn commit(&self, tip: u64, commit: Commit<'_>) -> Result<Entry, CommitError>;

    /// Commits `commits` as the entries after `tip`, in order (group
    /// commit): the entries committed are a prefix of them, durable when
    /// this returns, and a crash at any instant leaves a prefix committed,
    /// never a gap. Stops at the first that cannot be committed
    /// ([`BatchCommit::stopped`]: `TipMoved` if another writer created that
    /// entry, `Failed` with the `Conflict` of other bytes kept for a
    /// revision). The default commits them one by one; [`SegmentedLedger`]
    /// puts every revision file with one durability barrier, creates the
    /// entries, makes them durable once, then runs its [`AfterCommit`]
    /// hooks once for the batch.
    fn commit_batch(&self, tip: u64, commits: Vec<Commit<'_>>) -> BatchCommit {
        let mut entries = Vec::with_capacity(commits.len());
        let mut tip = tip;
        for record in commits {
            match self.commit(tip, record) {
                Ok(entry) => {
                    tip = entry.sequence();
                    entries.push(entry);
                }
                Err(stopped) => {
                    return BatchCommit {
                        entries,
                        stopped: Some(stopped),
                    };
                }
            }
        }
        BatchCommit {
            entries,
            stopped: None,
        }
    }
}

/// What a [`Ledger::commit_batch`] committed.
#[derive(Debug)]
pub struct BatchCommit {
    /// The entries committed, in order: the first records of the batch.
    pub entries: Vec<Entry>,
    /// Why the rest were not committed (`None`: every record was).
    pub stopped: Option<CommitError>,
}

/// Work done after each commit (a checkpoint of a transparency log, say),
/// never part of the commit: a failure is reported but the entry stands.
pub trait AfterCommit: Send + Sync + fmt::Debug {
    /// Called with each committed entry, in order.
    fn committed(&self, entry: &Entry) -> Result<(), JournalError>;

    /// Called once with the entries of a batch
    /// ([`Ledger::commit_batch`]), in order, after all of them are durable:
    /// a hook that signs writes one checkpoint per batch here. The default
    /// calls [`committed`](Self::committed) for each, stopping at the first
    /// failure.
    fn committed_batch(&self, entries: &[Entry]) -> Result<(), JournalError> {
        entries.iter().try_for_each(|entry| self.committed(entry))
    }
}
