//! The append path of a Journal root (format section 9): the one writer,
//! its lease, the ledger and the content store.
//!
//! # Brief overview
//!
//! [`FsJournalWriter::open`] takes the root's lease, loads the root exactly
//! as `start()` does, and, on a root without a ledger, records what the
//! root holds (keeping the sequences a start gives it). From then on each
//! [`append`](nenjim_journal_api::append::JournalWriter::append) of a revision text:
//!
//! 1. checks the lease (and renews it once half of it has run out);
//! 2. parses and validates the text exactly as ingestion does (the same
//!    error kinds, in the same order), against the writer's state: an
//!    already recorded text is an idempotent success that writes nothing;
//! 3. with a content store, requires the blob of every new release's
//!    `CONTENT` at `<store>/blobs/sha256/<hex>` with its exact size and
//!    SHA-256 (`BlobMissing`, `BlobMismatch`);
//! 4. commits the revision with its bytes through the ledger
//!    ([`Ledger::commit`]), which keeps the bytes durably before the
//!    record: a directory's or a bucket's ledger writes the revision file
//!    (temporary file, sync, link to `<root>/<coordinate>/<version>.journal`
//!    without replacing anything, sync of the directory; a file already
//!    there with the same bytes, placed by hand, is recorded as it is,
//!    other bytes are a `Conflict`), NATS publishes them with the record;
//! 5. the commit creates the next ledger entry and returns its sequence:
//!    `LeaseLost` if a newer holder fenced it (every later append is then
//!    refused), `TipMoved` if another writer created it (the writer then
//!    reads the ledger again, so the same append can be retried at the new
//!    tip).
//!
//! A refusal at any step writes nothing that a Journal would load (a
//! revision file without its ledger entry is never loaded), and a crash at
//! any instant leaves a root that loads, with every append that returned.
//! The writer takes the storage seam (`nenjim-journal-store`): a ledger
//! ([`Ledger`], through which revisions are committed and read), a lease
//! ([`Lease`]) and a store (blobs, a signed root's tiles and checkpoint),
//! never a backend; [`FsJournalWriter::open`] and
//! [`open_store`](FsJournalWriter::open_store) give it the ledger of
//! `log/` entries and `segments/` and the lease file of a directory or a
//! bucket, [`open_with`](FsJournalWriter::open_with) any others. The
//! ledger's layout is documented in [`nenjim_journal_store::ledger`].
//!
//! The crate's files, one job each: `options.rs` (how a writer is opened),
//! `lib.rs` (opening: the root, the lease, the ledger created or read),
//! `create.rs` (recording a root without a ledger), `append.rs` (the
//! append: validation, blobs, the revision file, the commit), `batch.rs`
//! ([`FsJournalWriter::append_batch`]: many texts with one durability
//! barrier, group commit), `blob.rs` (the content store), `signing.rs` (a
//! signed root, format section 10: with [`WriterOptions::signing_key`], the
//! tiles and the signed checkpoint at `<root>/.ledger/tlog/` after every
//! commit, one per batch, or at the
//! [`checkpoint_interval`](WriterOptions::checkpoint_interval) and on
//! close; a signed root refuses a writer without its key with
//! `CheckpointInvalid`, before anything is written). The lease protocol is the seam's
//! (`nenjim_journal_store::lease`), segments the ledger's.
//!
//! # The lease
//!
//! `<root>/.ledger/lease` names its holder, an epoch and an expiry. A live
//! lease of another holder is `LeaseHeld`. A lease that was released (by
//! [`FsJournalWriter::close`]) is taken as it is; an expired, unreleased
//! one, or a live one whose holder is a process of this host that is gone
//! (the holder id names host, pid, boot and process start: a killed
//! writer's lease need not be waited for), is taken over with the next epoch, and the new holder then *fences*
//! the ledger: it creates the next entry itself (a `FENCE` record), so the
//! previous holder's next commit, which must create that same entry,
//! fails, and it reports `LeaseLost` from then on.
//!
//! ```
//! use nenjim_journal_api::append::JournalWriter;
//! use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let root = tempfile::tempdir()?;
//! let mut writer = FsJournalWriter::open(root.path(), WriterOptions::new())?;
//! let appended = writer.append(
//!     "FORMAT nenjim-journal/1\nARTIFACT left-pad\nJOURNAL_VERSION 20261129T101530Z\n\
//!      PREDECESSOR GENESIS\nDESCRIPTION \"pads strings\"\n",
//! )?;
//! assert_eq!((appended.sequence(), appended.is_new()), (1, true));
//! assert!(root.path().join("left-pad/20261129T101530Z.journal").is_file());
//! writer.close()?;
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod append;
mod batch;
mod blob;
mod create;
mod options;
mod signing;

pub use batch::BatchError;
pub use blob::{PutBlob, put_blob_from};
pub use options::{BATCH_MAX, WriterOptions};

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::ContentPointer;
use nenjim_journal_chain::ChainState;
use nenjim_journal_store::lease::{FileLease, Lease};
use nenjim_journal_store::ledger::{self, Entry, Ledger, SegmentedLedger};
use nenjim_journal_store::{FileSystem, RealFileSystem, Store};

/// The one writer of a Journal root: see the [crate docs](crate).
pub struct FsJournalWriter {
    /// The root's store: its files as the loader reads them (by default a
    /// revision through the ledger is its file here), a signed root's
    /// tiles and checkpoint.
    store: Arc<dyn Store>,
    root: PathBuf,
    options: WriterOptions,
    ledger: Box<dyn Ledger>,
    lease: Box<dyn Lease>,
    state: ChainState,
    /// The ledger's tip as this writer knows it.
    tip: u64,
    /// The tree, tiles and checkpoint of a signed root (format section
    /// 10), when this writer has a signing key.
    signer: Option<signing::Checkpointer>,
    /// Set once the lease is lost (or the ledger cannot be read again
    /// after the tip moved): every later append fails so.
    poisoned: Option<JournalError>,
    /// The parse of the last text this writer appended: the next revision
    /// of the same artifact restates its release blocks byte for byte,
    /// and [`parse_after`](nenjim_journal_parser::parse_after) takes their
    /// values instead of reading them again (a successor of a 10 kB
    /// revision is parsed in a fraction of the time). The result is
    /// exactly a plain parse's; one text's worth of memory.
    last_parsed: Option<nenjim_journal_parser::ParsedText>,
}

impl fmt::Debug for FsJournalWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FsJournalWriter")
            .field("store", &self.store)
            .field("root", &self.root)
            .field("epoch", &self.lease.epoch())
            .field("tip", &self.tip)
            .field("poisoned", &self.poisoned.as_ref().map(JournalError::kind))
            .finish_non_exhaustive()
    }
}

/// Milliseconds since `started`, for the events' `elapsed_ms`.
pub(crate) fn elapsed_ms(started: std::time::Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

pub(crate) fn io_error(path: &Path, what: &str) -> impl FnOnce(io::Error) -> JournalError {
    let path = path.to_path_buf();
    let what = what.to_owned();
    move |e| error::io_error(path, &what, e)
}

impl FsJournalWriter {
    /// Opens the root `root` for appending: takes its lease (`LeaseHeld`
    /// while another writer's is live), loads it as `start()` does (with its
    /// errors), and records what it holds if it has no ledger yet.
    pub fn open(
        root: impl AsRef<Path>,
        options: WriterOptions,
    ) -> Result<FsJournalWriter, JournalError> {
        let root = nenjim_journal_fs::normalize_root(root.as_ref());
        FsJournalWriter::open_store(Arc::new(RealFileSystem), root, options)
    }

    /// [`open`](Self::open) for the root at `root` in `store` (the path
    /// names the root inside the store, taken as it is): e.g. a bucket of
    /// the `nenjim-journal-objstore` crate, whose roots have paths like
    /// `/journals/main`. Before anything else, the writer proves that the
    /// store refuses a create over an existing name
    /// ([`BlobStore::check_conditional_writes`](nenjim_journal_store::BlobStore::check_conditional_writes))
    /// and refuses a store that does not (`Io`).
    pub fn open_store(
        store: Arc<dyn Store>,
        root: impl AsRef<Path>,
        options: WriterOptions,
    ) -> Result<FsJournalWriter, JournalError> {
        let root = root.as_ref().to_path_buf();
        nenjim_journal_fs::check_root(&*store, &root)?;
        // A writer without the key of a signed root writes nothing, not
        // even the probe.
        let key = signing::parse_key(options.signing_key.as_ref())?;
        signing::check_open(&*store, &root, key.as_ref())?;
        let probe = ledger::ledger_dir(&root).join(ledger::PROBE);
        store
            .check_conditional_writes(&probe)
            .map_err(io_error(&probe, "cannot write to this store safely"))?;
        let segmented = SegmentedLedger::new(store.clone(), &root, options.segment_span);
        let lease = FileLease::new(store.clone(), &root);
        FsJournalWriter::open_with(store, root, Box::new(segmented), Box::new(lease), options)
    }

    /// The writer over any implementation of the storage seam: `ledger`
    /// and `lease` of the root at `root`, whose other files (a root
    /// without a ledger's revision files, a signed root's tlog) are in
    /// `store`. Takes the lease, loads the root by its ledger (recording
    /// what it holds first if it has none), and fences after a takeover.
    pub fn open_with(
        store: Arc<dyn Store>,
        root: PathBuf,
        ledger: Box<dyn Ledger>,
        mut lease: Box<dyn Lease>,
        options: WriterOptions,
    ) -> Result<FsJournalWriter, JournalError> {
        // Refused before the lease is taken: a malformed key, or a signed
        // root and a writer without its key.
        let key = signing::parse_key(options.signing_key.as_ref())?;
        signing::check_open(&*store, &root, key.as_ref())?;
        let span =
            tracing::info_span!(target: "nenjim_journal_writer", "open", root = %root.display());
        let _entered = span.enter();
        let started = std::time::Instant::now();
        let acquired = lease.acquire(options.lease_ttl)?;
        let mut writer = FsJournalWriter {
            store,
            root,
            options,
            ledger,
            lease,
            state: ChainState::new(),
            tip: 0,
            signer: None,
            poisoned: None,
            last_parsed: None,
        };
        // From here on the lease is ours: give it back if opening fails.
        match writer.prepare(acquired.taken_over, key) {
            Ok(()) => {
                tracing::info!(
                    target: "nenjim_journal_writer",
                    root = %writer.root.display(),
                    epoch = acquired.epoch,
                    taken_over = acquired.taken_over,
                    tip = writer.tip,
                    revisions = writer.state.len(),
                    signed = writer.signer.is_some(),
                    elapsed_ms = elapsed_ms(started),
                    "writer opened"
                );
                Ok(writer)
            }
            Err(error) => {
                let _ = writer.lease.release();
                Err(error)
            }
        }
    }

    /// Loads (or creates) the ledger, builds the tree of a signed root
    /// (bringing its checkpoint forward), fences after a takeover.
    fn prepare(
        &mut self,
        taken_over: bool,
        key: Option<nenjim_journal_tlog::note::SignerKey>,
    ) -> Result<(), JournalError> {
        let entries =
            match nenjim_journal_fs::load_recorded_ledger(self.fs(), &*self.ledger, &self.root)? {
                Some((state, read)) => {
                    self.state = state;
                    self.tip = read.tip();
                    read.entries().to_vec()
                }
                None => self.create_ledger()?,
            };
        // Under the lease now: read the checkpoint again (another writer
        // may have signed the root since the check before the lease).
        let published = signing::check_open(&*self.store, &self.root, key.as_ref())?;
        if let Some(key) = key {
            self.signer = Some(signing::Checkpointer::open(
                self.store.clone(),
                &self.root,
                key,
                published,
                &entries,
                self.options.checkpoint_interval,
            )?);
        }
        if taken_over {
            self.fence()?;
        }
        Ok(())
    }

    /// Creates a `FENCE` entry at the tip, reading the entries another
    /// writer committed in between first.
    fn fence(&mut self) -> Result<(), JournalError> {
        loop {
            match self.ledger.commit(self.tip, self.lease.fence().into()) {
                Ok(entry) => {
                    self.tip = entry.sequence();
                    tracing::info!(
                        target: "nenjim_journal_writer",
                        root = %self.root.display(),
                        sequence = entry.sequence(),
                        epoch = self.lease.epoch(),
                        "ledger fenced"
                    );
                    return self.after_commit(&[entry]);
                }
                Err(error) => {
                    let error = self.commit_error(self.tip + 1, error);
                    if error.kind() != ErrorKind::TipMoved {
                        return Err(error);
                    }
                    self.catch_up()?;
                }
            }
        }
    }

    /// Reads the entries committed after this writer's tip and ingests the
    /// revisions they record (never the whole root again).
    fn catch_up(&mut self) -> Result<(), JournalError> {
        let read = nenjim_journal_fs::ledger::read_ledger_after(&*self.ledger, self.tip)?;
        let entries: Vec<Entry> = read.entries().to_vec();
        self.state = nenjim_journal_fs::ingest_recorded(
            self.fs(),
            &*self.ledger,
            &self.root,
            read,
            &self.state,
        )?;
        if let Some(signer) = &self.signer {
            signer.learn(&entries)?;
        }
        if let Some(last) = entries.last() {
            self.tip = last.sequence();
        }
        tracing::debug!(
            target: "nenjim_journal_writer",
            root = %self.root.display(),
            entries = entries.len(),
            tip = self.tip,
            "read the entries another writer committed"
        );
        Ok(())
    }

    /// Work after each commit of `entries` (one append, or a batch): on a
    /// signed root, the tiles and the checkpoint that cover them (one
    /// checkpoint per call). The entries stand whatever happens; a failure
    /// is reported (the append is committed: retrying it is an idempotent
    /// success once the checkpoint is written).
    pub(crate) fn after_commit(&mut self, entries: &[Entry]) -> Result<(), JournalError> {
        use nenjim_journal_store::ledger::AfterCommit as _;
        match &self.signer {
            Some(signer) => signer.committed_batch(entries).map_err(|e| {
                e.note(format_args!(
                    "the ledger entries up to sequence {} are committed, but their checkpoint is not written: the next append (or the next writer) writes it",
                    self.tip
                ))
            }),
            None => Ok(()),
        }
    }

    /// On a signed root, makes sure the checkpoint covers the whole ledger
    /// (an earlier checkpoint write failed): before an idempotent success.
    pub(crate) fn ensure_signed(&self) -> Result<(), JournalError> {
        match &self.signer {
            Some(signer) => signer.ensure_published(),
            None => Ok(()),
        }
    }

    /// Puts `bytes` into the content store (`<store>/blobs/sha256/<hex>`),
    /// durably and idempotently, and returns its content pointer.
    pub fn put_blob(&mut self, bytes: &[u8]) -> Result<ContentPointer, JournalError> {
        let store = self.options.content_store.as_deref().ok_or_else(|| {
            error::error(
                ErrorKind::Usage,
                "found no content store, expected one configured (WriterOptions::content_store) to put a blob",
            )
        })?;
        blob::put_blob_from(self.options.content_fs(), store, &mut &bytes[..])
            .map(|put| put.pointer())
    }

    /// The root's store, as the loader reads it.
    fn fs(&self) -> &dyn FileSystem {
        &*self.store
    }

    /// Publishes the checkpoint of what this writer committed and left
    /// uncovered (a signed root at a checkpoint interval), then releases
    /// the lease, so that another writer may open the root at once. The
    /// lease is released even if the publication fails (its error is
    /// returned: the next writer covers those entries before it commits).
    pub fn close(mut self) -> Result<(), JournalError> {
        let published = match &mut self.signer {
            Some(signer) => signer.close(),
            None => Ok(()),
        };
        let released = self.lease.release();
        published.and(released)
    }

    /// On a signed root, how many ledger entries the checkpoint this
    /// writer last published (or found) covers; `None` on an unsigned
    /// root (a writer without a signing key). At a checkpoint interval it
    /// may be behind [`tip`](Self::tip): the entries after it wait for
    /// the next publication.
    pub fn checkpoint_covers(&self) -> Option<u64> {
        self.signer.as_ref().map(signing::Checkpointer::covered)
    }

    /// Waits until a checkpoint covering ledger entry `sequence` (e.g.
    /// that of an [`Appended`](nenjim_journal_api::append::Appended)'s
    /// revision) is published, at most one checkpoint interval, and
    /// returns the number of entries it covers: after it, the entry's
    /// inclusion proof can be read from the root's tiles. At interval
    /// zero it is covered already (or published now, if an earlier
    /// publication failed). `Usage` on an unsigned root or for an entry
    /// this writer does not know; the publication's error if it fails.
    pub fn wait_for_checkpoint(&self, sequence: u64) -> Result<u64, JournalError> {
        match &self.signer {
            Some(signer) => signer.wait_covered(sequence),
            None => Err(error::error(
                ErrorKind::Usage,
                "found an unsigned root, expected a signed one (WriterOptions::signing_key) to wait for a checkpoint",
            )
            .with_path(&self.root)),
        }
    }

    /// The ledger's last sequence as this writer knows it: that of the last
    /// revision, or of a `FENCE` entry after it.
    pub fn tip(&self) -> u64 {
        self.tip
    }

    /// The revisions this writer knows, as a start of the root would load them.
    pub fn state(&self) -> &ChainState {
        &self.state
    }

    /// The root this writer appends to (absolute for [`open`](Self::open);
    /// the path inside its store for [`open_store`](Self::open_store)).
    pub fn root(&self) -> &Path {
        &self.root
    }
}
