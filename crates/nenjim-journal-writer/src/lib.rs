//! The append path of a Journal root (format section 9): the one writer,
//! its lease, the ledger and the content store.
//!
//! # Brief overview
//!
//! [`FsJournalWriter::open`] takes the root's lease, loads the root exactly
//! as `start()` does, and, on a root without a ledger, records what the
//! root holds (keeping the sequences a start gives it). From then on each
//! [`append`](JournalWriter::append) of a revision text:
//!
//! 1. checks the lease (and renews it once half of it has run out);
//! 2. parses and validates the text exactly as ingestion does (the same
//!    error kinds, in the same order), against the writer's state: an
//!    already recorded text is an idempotent success that writes nothing;
//! 3. with a content store, requires the blob of every new release's
//!    `CONTENT` at `<store>/blobs/sha256/<hex>` with its exact size and
//!    SHA-256 (`BlobMissing`, `BlobMismatch`);
//! 4. writes the revision file durably (temporary file, sync, link to
//!    `<root>/<coordinate>/<version>.journal` without replacing anything,
//!    sync of the directory); a file already there with the same bytes
//!    (placed by hand) is recorded as it is;
//! 5. commits by creating the next ledger entry and returns its sequence:
//!    `LeaseLost` if a newer holder fenced it (every later append is then
//!    refused), `TipMoved` if another writer created it (the writer then
//!    reads the ledger again, so the same append can be retried at the new
//!    tip).
//!
//! A refusal at any step writes nothing that a Journal would load (a
//! revision file without its ledger entry is never loaded), and a crash at
//! any instant leaves a root that loads, with every append that returned.
//! Temporary leftovers are removed by the next `open`. The ledger's layout
//! is documented in [`nenjim_journal_fs::ledger`].
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

mod blob;
mod lease;

pub use blob::{PutBlob, put_blob_from};

use std::fmt;
use std::io;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use nenjim_journal_api::append::{Appended, JournalWriter};
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::model::build;
use nenjim_journal_api::valuetypes::ContentPointer;
use nenjim_journal_chain::{ChainState, Outcome};
use nenjim_journal_fs::ledger::{self, Entry, Record, RevisionPointer};
use nenjim_journal_fs::{Created, FileSystem, LoadOptions, RealFileSystem, Store};

use crate::lease::{Lease, LeaseFile};

/// How a writer is opened.
#[derive(Clone, Debug)]
pub struct WriterOptions {
    content_store: Option<PathBuf>,
    /// Where the content store lives: the local file system when `None`.
    content_store_on: Option<Arc<dyn Store>>,
    lease_ttl: Duration,
    segment_span: u64,
}

impl Default for WriterOptions {
    fn default() -> WriterOptions {
        WriterOptions {
            content_store: None,
            content_store_on: None,
            lease_ttl: Duration::from_secs(30),
            segment_span: ledger::SEGMENT_SPAN,
        }
    }
}

impl WriterOptions {
    /// No content store, a lease of 30 seconds.
    pub fn new() -> WriterOptions {
        WriterOptions::default()
    }
    /// Requires the blobs of new releases in the content store `dir`
    /// (`<dir>/blobs/sha256/<hex>`), where [`FsJournalWriter::put_blob`] puts them.
    #[must_use]
    pub fn content_store(self, dir: impl AsRef<Path>) -> WriterOptions {
        WriterOptions {
            content_store: Some(dir.as_ref().to_path_buf()),
            content_store_on: None,
            ..self
        }
    }
    /// [`content_store`](Self::content_store) at the path `dir` of `store`
    /// (e.g. a bucket of the `nenjim-journal-objstore` crate) instead of
    /// the local file system.
    #[must_use]
    pub fn content_store_in(self, store: Arc<dyn Store>, dir: impl AsRef<Path>) -> WriterOptions {
        WriterOptions {
            content_store: Some(dir.as_ref().to_path_buf()),
            content_store_on: Some(store),
            ..self
        }
    }
    /// How many ledger entries may go without a segment (a checkpoint that
    /// readers open instead of one file per entry) before the writer writes
    /// one (default [`ledger::SEGMENT_SPAN`], at least 1).
    #[must_use]
    pub fn segment_span(self, span: u64) -> WriterOptions {
        WriterOptions {
            segment_span: span.max(1),
            ..self
        }
    }
    /// How long the lease lasts without an append renewing it (default 30 s).
    #[must_use]
    pub fn lease_ttl(self, ttl: Duration) -> WriterOptions {
        WriterOptions {
            lease_ttl: ttl,
            ..self
        }
    }
}

/// The one writer of a Journal root: see the [crate docs](crate).
pub struct FsJournalWriter {
    /// Where the root lives: the local file system for [`FsJournalWriter::open`].
    store: Arc<dyn Store>,
    root: PathBuf,
    options: WriterOptions,
    lease_file: LeaseFile,
    /// This writer's lease as last written.
    lease: Lease,
    state: ChainState,
    /// The ledger's tip as this writer knows it.
    tip: u64,
    /// The entries after the last segment, in order.
    unsegmented: Vec<Entry>,
    /// Set once the lease is lost or the tip moved: every later append fails so.
    poisoned: Option<JournalError>,
}

impl fmt::Debug for FsJournalWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FsJournalWriter")
            .field("store", &self.store)
            .field("root", &self.root)
            .field("epoch", &self.lease.epoch)
            .field("tip", &self.tip)
            .field("poisoned", &self.poisoned.as_ref().map(JournalError::kind))
            .finish_non_exhaustive()
    }
}

fn io_error(path: &Path, what: &str) -> impl FnOnce(io::Error) -> JournalError {
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
        let root = std::path::absolute(root.as_ref()).map_err(io_error(
            root.as_ref(),
            "cannot make the root path absolute",
        ))?;
        FsJournalWriter::open_store(Arc::new(RealFileSystem), root, options)
    }

    /// [`open`](Self::open) for the root at `root` in `store` (the path
    /// names the root inside the store, taken as it is): e.g. a bucket of
    /// the `nenjim-journal-objstore` crate, whose roots have paths like
    /// `/journals/main`. Before anything else, the writer proves that the
    /// store refuses a create over an existing name
    /// ([`Store::check_conditional_writes`]) and refuses a store that does
    /// not (`Io`).
    pub fn open_store(
        store: Arc<dyn Store>,
        root: impl AsRef<Path>,
        options: WriterOptions,
    ) -> Result<FsJournalWriter, JournalError> {
        let root = root.as_ref().to_path_buf();
        match store.metadata(&root).map(|m| m.kind()) {
            Ok(nenjim_journal_fs::EntryKind::Directory) => {}
            Ok(_) => {
                return Err(error::error(
                    ErrorKind::RootNotDirectory,
                    "found a file, expected the Journal root directory",
                )
                .with_path(&root));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(error::error(
                    ErrorKind::RootMissing,
                    "found nothing, expected the Journal root directory",
                )
                .with_path(&root));
            }
            Err(e) => return Err(error::io_error(&root, "cannot read the root", e)),
        }
        let dir = ledger::ledger_dir(&root);
        let tmp = dir.join("tmp");
        for d in [&dir, &tmp] {
            store
                .ensure_dir(d)
                .map_err(io_error(d, "cannot create the ledger directory"))?;
        }
        let probe = dir.join("probe");
        store
            .check_conditional_writes(&probe, &tmp)
            .map_err(io_error(&probe, "cannot write to this store safely"))?;
        let lease_file = LeaseFile::new(&dir, &tmp);
        let (lease, taken_over) = take_lease(&*store, &lease_file, options.lease_ttl)?;
        let mut writer = FsJournalWriter {
            store,
            root,
            options,
            lease_file,
            lease,
            state: ChainState::new(),
            tip: 0,
            unsegmented: Vec::new(),
            poisoned: None,
        };
        // From here on the lease is ours: give it back if opening fails.
        match writer.prepare(taken_over) {
            Ok(()) => Ok(writer),
            Err(error) => {
                let _ = writer.release();
                Err(error)
            }
        }
    }

    /// Cleans leftovers, loads (or creates) the ledger, fences after a
    /// takeover.
    fn prepare(&mut self, taken_over: bool) -> Result<(), JournalError> {
        let dir = ledger::ledger_dir(&self.root);
        let tmp = dir.join("tmp");
        self.store
            .remove_temporaries(&tmp)
            .map_err(io_error(&tmp, "cannot clean the ledger's temporary files"))?;
        if let Some(store) = &self.options.content_store {
            let blobs = blob::blob_dir(store);
            self.content_fs()
                .remove_temporaries(&blobs)
                .map_err(io_error(
                    &blobs,
                    "cannot clean the content store's temporary files",
                ))?;
        }
        if !ledger::exists(self.fs(), &self.root)? {
            self.create_ledger()?;
        }
        self.reload()?;
        if taken_over {
            self.fence()?;
        }
        if self.unsegmented.len() as u64 >= self.options.segment_span {
            self.write_segment();
        }
        Ok(())
    }

    /// Loads the root through its ledger.
    fn reload(&mut self) -> Result<(), JournalError> {
        let read = ledger::read(self.fs(), &self.root)?;
        let Some(read) = read else {
            return Err(error::error(
                ErrorKind::LedgerMismatch,
                "found no ledger marker after creating it, expected a ledger",
            )
            .with_path(ledger::ledger_dir(&self.root)));
        };
        self.state = nenjim_journal_fs::load_with(self.fs(), &self.root, LoadOptions::new())?;
        self.tip = read.tip();
        self.unsegmented = read
            .entries()
            .iter()
            .filter(|e| e.sequence() > read.segmented())
            .cloned()
            .collect();
        Ok(())
    }

    /// Records what a root without a ledger holds, in the order and with
    /// the sequences a start gives it: one segment, then the marker.
    fn create_ledger(&mut self) -> Result<(), JournalError> {
        let dir = ledger::ledger_dir(&self.root);
        let tmp = dir.join("tmp");
        // Leftovers of an interrupted creation (never loaded: no marker).
        for sub in [ledger::LOG_DIR, ledger::SEGMENTS_DIR] {
            let path = dir.join(sub);
            self.store
                .remove_all(&path)
                .map_err(io_error(&path, "cannot clean an unfinished ledger"))?;
        }
        for sub in [ledger::LOG_DIR, ledger::SEGMENTS_DIR] {
            let path = dir.join(sub);
            self.store
                .ensure_dir(&path)
                .map_err(io_error(&path, "cannot create the ledger directory"))?;
        }
        let state = nenjim_journal_fs::load_with(self.fs(), &self.root, LoadOptions::new())?;
        // Segments of at most `segment_span` entries, like the ones appends
        // make (one segment for a large root would outgrow what a reader
        // accepts); the marker written after them makes the set atomic.
        let span = self.options.segment_span;
        let mut text = String::new();
        let mut in_segment = 0;
        let mut cursor = state.replay(0);
        while let Some(revision) = cursor.next()? {
            let path = ledger::revision_path(
                &self.root,
                revision.coordinate(),
                revision.journal_version(),
            );
            let size = self
                .store
                .metadata(&path)
                .map_err(io_error(&path, "cannot read the revision file's size"))?
                .len();
            let entry = Entry::new(
                revision.sequence(),
                Record::Revision(pointer(&revision, size)),
            );
            text.push_str(&entry.to_string());
            text.push('\n');
            in_segment += 1;
            if in_segment == span || revision.sequence() == state.last_sequence() {
                let path = ledger::segment_path(&self.root, revision.sequence());
                self.store
                    .create(&path, text.as_bytes(), &tmp)
                    .map_err(io_error(&path, "cannot write a segment of the new ledger"))?;
                text.clear();
                in_segment = 0;
            }
        }
        let marker = dir.join(ledger::MARKER);
        self.store
            .create(&marker, ledger::MARKER_TEXT.as_bytes(), &tmp)
            .map_err(io_error(&marker, "cannot write the ledger marker"))?;
        Ok(())
    }

    /// Creates a `FENCE` entry at the tip, reloading if the previous holder
    /// committed in the meantime.
    fn fence(&mut self) -> Result<(), JournalError> {
        loop {
            let entry = Entry::new(
                self.tip + 1,
                Record::Fence {
                    epoch: self.lease.epoch,
                },
            );
            match self.create_entry(&entry) {
                Ok(()) => {
                    self.tip = entry.sequence();
                    self.unsegmented.push(entry);
                    return Ok(());
                }
                Err(e) if e.kind() == ErrorKind::TipMoved => self.reload()?,
                Err(e) => return Err(e),
            }
        }
    }

    /// Creates the ledger entry `entry` (the compare-and-set at the tip).
    fn create_entry(&self, entry: &Entry) -> Result<(), JournalError> {
        let path = ledger::entry_path(&self.root, entry.sequence());
        match self.store.create_entry(&path, &entry.to_string()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let found = self
                    .store
                    .read_record(&path)
                    .ok()
                    .and_then(|t| String::from_utf8(t).ok())
                    .and_then(|t| Entry::parse(&t).ok());
                match found.as_ref().map(Entry::record) {
                    Some(Record::Fence { epoch }) if *epoch > self.lease.epoch => Err(error::error(
                        ErrorKind::LeaseLost,
                        format!(
                            "found the ledger fenced at sequence {} by lease epoch {epoch}, expected this writer's epoch {} to hold the root; nothing of this append was committed",
                            entry.sequence(),
                            self.lease.epoch
                        ),
                    )
                    .with_path(path)),
                    _ => Err(error::error(
                        ErrorKind::TipMoved,
                        format!(
                            "found ledger entry {} already created by another writer, expected this writer's tip to be the ledger's; nothing of this append was committed (this writer has read the ledger again: the append can be retried)",
                            entry.sequence()
                        ),
                    )
                    .with_path(path)),
                }
            }
            Err(e) => Err(error::io_error(path, "cannot create the ledger entry", e)),
        }
    }

    /// Writes a segment of the unsegmented entries. A failure only means the
    /// entries stay unsegmented (readers read them one by one) and the next
    /// append tries again, so it is not the append's failure.
    fn write_segment(&mut self) {
        let Some(last) = self.unsegmented.last().map(Entry::sequence) else {
            return;
        };
        let mut text = String::new();
        for entry in &self.unsegmented {
            text.push_str(&entry.to_string());
            text.push('\n');
        }
        let path = ledger::segment_path(&self.root, last);
        let tmp = ledger::ledger_dir(&self.root).join("tmp");
        if self.store.create(&path, text.as_bytes(), &tmp).is_ok() {
            self.unsegmented.clear();
        }
    }

    /// Checks the lease before a commit; renews it once half has run out.
    fn check_lease(&mut self) -> Result<(), JournalError> {
        let now = lease::now_millis();
        if !self.lease.is_live(now) {
            return Err(self.lose(format!(
                "found this writer's lease (epoch {}) expired, expected a live lease; another writer may have taken the root over",
                self.lease.epoch
            )));
        }
        let ttl = self.options.lease_ttl;
        let half = u64::try_from(ttl.as_millis() / 2).unwrap_or(u64::MAX);
        if self.lease.expires.saturating_sub(now) < half {
            let read = self
                .lease_file
                .read(&*self.store)
                .map_err(io_error(self.lease_file.path(), "cannot read the lease"))?;
            let (current, version) = read.unzip();
            if current.as_ref() != Some(&self.lease) {
                return Err(self.lose(format!(
                    "found the lease changed by another writer (now {}), expected this writer's (epoch {})",
                    current.map_or_else(|| "none".to_owned(), |l| format!("epoch {} of {}", l.epoch, l.holder)),
                    self.lease.epoch
                )));
            }
            let renewed = Lease {
                expires: lease::expiry(now, ttl),
                ..self.lease.clone()
            };
            let replaced = self
                .lease_file
                .replace(&*self.store, &renewed, version.as_ref())
                .map_err(io_error(self.lease_file.path(), "cannot renew the lease"))?;
            if !replaced {
                return Err(self.lose(format!(
                    "found the lease changed by another writer while renewing it, expected this writer's (epoch {})",
                    self.lease.epoch
                )));
            }
            self.lease = renewed;
        }
        Ok(())
    }

    /// Marks the lease lost and returns the error.
    fn lose(&mut self, message: String) -> JournalError {
        let error = error::error(ErrorKind::LeaseLost, message).with_path(self.lease_file.path());
        self.poisoned = Some(error.clone());
        error
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
        blob::put_blob_from(self.content_fs(), store, &mut &bytes[..]).map(|put| put.pointer())
    }

    /// The root's store, as the loader reads it.
    fn fs(&self) -> &dyn FileSystem {
        &*self.store
    }

    /// Where the content store lives.
    fn content_fs(&self) -> &dyn Store {
        match &self.options.content_store_on {
            Some(store) => &**store,
            None => &RealFileSystem,
        }
    }

    /// Releases the lease, so that another writer may open the root at once.
    pub fn close(mut self) -> Result<(), JournalError> {
        self.release()
    }

    /// Gives the lease back if it is still this writer's.
    fn release(&mut self) -> Result<(), JournalError> {
        let path = self.lease_file.path().to_path_buf();
        let read = self
            .lease_file
            .read(&*self.store)
            .map_err(io_error(&path, "cannot read the lease"))?;
        let (current, version) = read.unzip();
        if current.as_ref() == Some(&self.lease) {
            let released = Lease {
                expires: 0,
                ..self.lease.clone()
            };
            // A lease changed in between is another writer's: left as it is.
            if self
                .lease_file
                .replace(&*self.store, &released, version.as_ref())
                .map_err(io_error(&path, "cannot release the lease"))?
            {
                self.lease = released;
            }
        }
        Ok(())
    }

    /// The ledger's last sequence as this writer knows it: that of the last
    /// revision, or of a `FENCE` entry after it.
    pub fn tip(&self) -> u64 {
        self.tip
    }

    /// Creates `FENCE` entries (of this writer's epoch) at each sequence
    /// after the tip up to `tip`, so that the next append gets `tip + 1`:
    /// a copy of a root keeps the source's sequences by fencing the gaps
    /// the source's own fences left. Nothing to do at `tip`; a tip past it
    /// is `LedgerMismatch` (sequences never go back). Like an append: the
    /// lease is checked first, and another writer's entry is `TipMoved`
    /// (the ledger is then read again) or `LeaseLost`.
    pub fn fence_to(&mut self, tip: u64) -> Result<(), JournalError> {
        if let Some(poisoned) = &self.poisoned {
            return Err(poisoned.clone().with_path(&self.root));
        }
        if tip < self.tip {
            return Err(error::error(
                ErrorKind::LedgerMismatch,
                format!(
                    "found the ledger's tip at sequence {}, expected it at or before {tip} (sequences never go back)",
                    self.tip
                ),
            )
            .with_path(ledger::ledger_dir(&self.root)));
        }
        while self.tip < tip {
            self.check_lease()?;
            let entry = Entry::new(
                self.tip + 1,
                Record::Fence {
                    epoch: self.lease.epoch,
                },
            );
            if let Err(error) = self.create_entry(&entry) {
                if error.kind() == ErrorKind::TipMoved {
                    let _ = self.reload();
                }
                return Err(error);
            }
            self.tip = entry.sequence();
            self.unsegmented.push(entry);
            if self.unsegmented.len() as u64 >= self.options.segment_span {
                self.write_segment();
            }
        }
        Ok(())
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

    /// Writes the revision file of `revision` (text `text`) unless the same
    /// bytes are already there.
    fn write_revision(
        &self,
        revision: &JournalRevision,
        text: &str,
    ) -> Result<PathBuf, JournalError> {
        let path = ledger::revision_path(
            &self.root,
            revision.coordinate(),
            revision.journal_version(),
        );
        let dir = self.root.join(revision.coordinate().as_str());
        self.store
            .ensure_dir(&dir)
            .map_err(io_error(&dir, "cannot create the artifact directory"))?;
        let tmp = ledger::ledger_dir(&self.root).join("tmp");
        let created = self
            .store
            .create(&path, text.as_bytes(), &tmp)
            .map_err(io_error(&path, "cannot write the revision file"))?;
        if created == Created::Exists {
            let mut found = Vec::new();
            self.store
                .open(&path)
                .and_then(|mut file| file.read_to_end(&mut found))
                .map_err(io_error(&path, "cannot read the existing revision file"))?;
            if found != text.as_bytes() {
                return Err(error::error(
                    ErrorKind::Conflict,
                    format!(
                        "found a different file ({} bytes, digest {}) at the path of {} {}, expected none or this exact text; the ledger does not record it: move it away to append this revision",
                        found.len(),
                        nenjim_journal_api::valuetypes::RevisionDigest::of_bytes(&found),
                        revision.coordinate(),
                        revision.journal_version()
                    ),
                )
                .with_path(path));
            }
            // The same bytes, placed by hand: make sure they are durable.
            self.store
                .sync(&path)
                .map_err(io_error(&path, "cannot sync the revision file"))?;
        }
        Ok(path)
    }
}

impl JournalWriter for FsJournalWriter {
    fn append(&mut self, text: &str) -> Result<Appended, JournalError> {
        if let Some(poisoned) = &self.poisoned {
            return Err(poisoned.clone().with_path(&self.root));
        }
        self.check_lease()?;
        let revision = nenjim_journal_parser::parse(text)?;
        let sequence = self.tip + 1;
        let head = self.state.latest(revision.coordinate());
        let ingested = self.state.ingest_revision_at(revision, sequence)?;
        if ingested.outcome() == Outcome::Unchanged {
            return Ok(build::appended(ingested.revision().clone(), false));
        }
        if let Some(store) = &self.options.content_store {
            let fs = self.content_fs();
            for release in ingested.revision().releases() {
                let known = head
                    .as_ref()
                    .and_then(|h| h.release(release.version()))
                    .is_some();
                if !known {
                    blob::check(fs, store, release.content()).map_err(|e| {
                        e.context(format_args!(
                            "{} {}",
                            release.coordinate(),
                            release.version()
                        ))
                        .with_path(store)
                    })?;
                }
            }
        }
        let revision = ingested.revision().clone();
        self.write_revision(&revision, text)?;
        let entry = Entry::new(
            sequence,
            Record::Revision(pointer(&revision, text.len() as u64)),
        );
        if let Err(error) = self.create_entry(&entry) {
            match error.kind() {
                ErrorKind::LeaseLost => {
                    self.poisoned = Some(error.clone());
                }
                // Another writer committed this sequence: read the ledger
                // again, so the caller can retry against the new tip (the
                // revision file written above is then found with its bytes
                // and recorded). Only if that read fails is the writer
                // left refusing every append.
                ErrorKind::TipMoved => {
                    if let Err(reload) = self.reload() {
                        self.poisoned = Some(error.clone().note(format_args!(
                            "reading the ledger again failed: {reload}; open the writer again"
                        )));
                    }
                }
                _ => {}
            }
            return Err(error);
        }
        self.state = ingested.into_state();
        self.tip = sequence;
        self.unsegmented.push(entry);
        if self.unsegmented.len() as u64 >= self.options.segment_span {
            self.write_segment();
        }
        Ok(build::appended(revision, true))
    }
}

/// The ledger pointer to `revision`, a text of `size` bytes.
fn pointer(revision: &JournalRevision, size: u64) -> RevisionPointer {
    RevisionPointer::new(
        revision.coordinate().clone(),
        revision.journal_version(),
        size,
        *revision.digest(),
    )
}

/// Takes the lease of `file` for `ttl`: `LeaseHeld` while another holder's
/// is live. Returns the new lease and whether an unreleased lease was taken
/// over (then the caller fences the ledger).
fn take_lease(
    store: &dyn Store,
    file: &LeaseFile,
    ttl: Duration,
) -> Result<(Lease, bool), JournalError> {
    let path = file.path().to_path_buf();
    loop {
        let read = file
            .read(store)
            .map_err(io_error(&path, "cannot read the lease"))?;
        let (current, version) = read.unzip();
        let now = lease::now_millis();
        // A live lease of a process of this host that is gone (killed,
        // crashed) is taken over at once, exactly as an expired one.
        if let Some(current) = &current
            && current.is_live(now)
            && !lease::holder_is_gone(&current.holder)
        {
            return Err(error::error(
                ErrorKind::LeaseHeld,
                format!(
                    "found the root's lease held by writer {} (epoch {}) for {} ms more, expected no live lease; wait for it to close or expire",
                    current.holder,
                    current.epoch,
                    current.expires - now
                ),
            )
            .with_path(path));
        }
        let taken_over = current.as_ref().is_some_and(|c| !c.is_released());
        let lease = Lease {
            holder: lease::holder_id(),
            epoch: current.as_ref().map_or(1, |c| c.epoch + 1),
            expires: lease::expiry(now, ttl),
        };
        // Another writer changed the lease since it was read: read it again
        // (it is live now, unless that writer released it at once).
        if file
            .replace(store, &lease, version.as_ref())
            .map_err(io_error(&path, "cannot write the lease"))?
        {
            return Ok((lease, taken_over));
        }
    }
}
