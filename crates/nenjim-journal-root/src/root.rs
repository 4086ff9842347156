//! [`Root`]: one root, opened from its address, on whichever backend.

use std::fmt;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_ref::{JournalAssembly, LoadOptions};
use nenjim_journal_store::FileSystem;
use nenjim_journal_store::backend::{Backend, Creating, Opening, Writing};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

use crate::record::{self, RecordedStore};

/// How often a writer waiting for the lease tries again.
const LEASE_POLL: Duration = Duration::from_millis(100);

/// A Journal root: its address and its backend. Cheap to clone; opening
/// it contacted nothing.
#[derive(Clone)]
pub struct Root {
    address: String,
    backend: Arc<dyn Backend>,
}

impl fmt::Debug for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Root")
            .field("address", &self.address)
            .field("backend", &self.backend)
            .finish()
    }
}

/// The address, as it was given.
impl fmt::Display for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.address)
    }
}

impl Root {
    /// The root at `address`: a path, `file://…`, or a URL of a backend
    /// this build has (see [`crate::schemes`]); an unknown scheme is
    /// `Usage`. Contacts nothing; a backend's configuration (credentials,
    /// TLS) is read from the environment here.
    pub fn open(address: &str) -> Result<Root, JournalError> {
        Root::open_with(address, &Opening::new())
    }

    /// [`open`](Self::open) with `opening` (e.g. reconnect without limit).
    pub fn open_with(address: &str, opening: &Opening) -> Result<Root, JournalError> {
        Ok(Root {
            address: address.to_owned(),
            backend: crate::resolve::open(address, opening)?,
        })
    }

    /// A root on a backend opened by other means.
    pub fn from_backend(address: impl Into<String>, backend: Arc<dyn Backend>) -> Root {
        Root {
            address: address.into(),
            backend,
        }
    }

    /// The address, as given.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The root's name as errors name it: its path (a directory, a path in a
    /// bucket) or `nats://host:port/<name>`.
    pub fn path(&self) -> &Path {
        self.backend.root_path()
    }

    /// The backend (the storage seam's parts over the root).
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// Whether a root is there (a directory, a bucket prefix holding
    /// anything, a NATS root's stream). Nothing else creates one.
    pub fn exists(&self) -> Result<bool, JournalError> {
        self.backend.exists()
    }

    /// Refuses a root that is not there (`RootMissing`).
    pub fn require(&self) -> Result<(), JournalError> {
        if self.exists()? {
            return Ok(());
        }
        Err(error::error(
            ErrorKind::RootMissing,
            format!(
                "found nothing, expected a Journal root; create it first with `nenjim-journal init {} [--store <store>]`",
                self.address
            ),
        )
        .with_path(self.address.as_str()))
    }

    /// Creates the root where there is none (see `Backend::create`);
    /// `Ok(true)` when it did.
    pub fn create(&self, creating: &Creating) -> Result<bool, JournalError> {
        self.backend.create(creating)
    }

    /// The content store this root records, as recorded (`None`: none).
    pub fn recorded_store(&self) -> Result<Option<RecordedStore>, JournalError> {
        let reading = self.backend.reading();
        record::read(&*reading.file_system, self.path())
    }

    /// The content store this root's releases' blobs are in: the one it
    /// records, resolved; a root that records none and keeps its blobs in
    /// itself (a NATS root) is its own; otherwise `None`.
    pub fn content_store(&self) -> Result<Option<Root>, JournalError> {
        Ok(match self.recorded_store()? {
            Some(RecordedStore::Itself) => Some(self.clone()),
            Some(RecordedStore::Other(store)) => Some(Root::open(&store)?),
            None if self.backend.keeps_own_blobs() => Some(self.clone()),
            None => None,
        })
    }

    /// Records `store` as this root's content store (`init --store`). The
    /// caller holds the root's writer (`_writer`): the record is written
    /// under its lease.
    pub fn record_store(
        &self,
        _writer: &FsJournalWriter,
        store: &RecordedStore,
    ) -> Result<(), JournalError> {
        // The root's own store, where its `.ledger/` is (no new writer's
        // parts: the writer holding the lease already has them).
        let (fs, path) = self.backend.content_store()?;
        record::write(&*fs, &path, store)
    }

    /// The reference Journal over this root, loading with `options`:
    /// queries, `start`/`refresh`, and follow cursors where the backend
    /// can notify (`FollowUnsupported` otherwise). Nothing is read before
    /// `start()`.
    pub fn assembly(&self, options: LoadOptions) -> JournalAssembly {
        self.assembly_through(options, |fs| fs)
    }

    /// [`assembly`](Self::assembly), reading the root's files through what
    /// `wrap` makes of its file system (a cache, say: see
    /// [`has_remote_files`](Self::has_remote_files)).
    pub fn assembly_through(
        &self,
        options: LoadOptions,
        wrap: impl FnOnce(Arc<dyn FileSystem>) -> Arc<dyn FileSystem>,
    ) -> JournalAssembly {
        let reading = self.backend.reading();
        let fs = wrap(reading.file_system);
        match reading.ledger {
            Some(ledger) => JournalAssembly::with_ledger(
                self.path().to_path_buf(),
                options,
                fs,
                ledger,
                reading.follow,
            ),
            None => JournalAssembly::with_file_system(self.path(), options, fs),
        }
    }

    /// The root's directory when it is one of the local file system.
    pub fn local_path(&self) -> Option<&Path> {
        self.backend.local_path()
    }

    /// Whether the root's files are read over a network, one request each
    /// (a bucket): worth a local cache.
    pub fn has_remote_files(&self) -> bool {
        self.backend.has_remote_files()
    }

    /// `options` with this root as the content store (its blobs at
    /// `<root>/blobs/sha256/<hex>`).
    pub fn as_content_store_of(
        &self,
        options: WriterOptions,
    ) -> Result<WriterOptions, JournalError> {
        let (store, path) = self.backend.content_store()?;
        Ok(options.content_store_in(store, path))
    }

    /// The root's one writer: takes the lease, loads the root by its ledger,
    /// fences after a takeover. The root must exist ([`require`](Self::require)).
    /// While another writer holds the lease, the open is tried again every
    /// 100 ms as long as [`WriterOptions::lease_wait`] allows (`LeaseHeld`
    /// after it; at once without it).
    pub fn writer(&self, options: WriterOptions) -> Result<FsJournalWriter, JournalError> {
        self.writer_observed(options, |_| ControlFlow::Continue(()))
    }

    /// [`writer`](Self::writer), telling `waiting` of each `LeaseHeld` it
    /// waits through; `ControlFlow::Break` stops the wait with that error.
    pub fn writer_observed(
        &self,
        options: WriterOptions,
        mut waiting: impl FnMut(&JournalError) -> ControlFlow<()>,
    ) -> Result<FsJournalWriter, JournalError> {
        self.require()?;
        let deadline = options.lease_wait_of().map(|w| Instant::now() + w);
        loop {
            match self.open_writer(options.clone()) {
                Err(error) if error.kind() == ErrorKind::LeaseHeld => {
                    let Some(deadline) = deadline.filter(|d| Instant::now() < *d) else {
                        return Err(error);
                    };
                    tracing::info!(
                        target: "nenjim_journal_root",
                        root = %self.address,
                        reason = %error.message(),
                        "waiting for the lease"
                    );
                    if waiting(&error).is_break() {
                        return Err(error);
                    }
                    std::thread::sleep(
                        LEASE_POLL.min(deadline.saturating_duration_since(Instant::now())),
                    );
                }
                other => return other,
            }
        }
    }

    fn open_writer(&self, options: WriterOptions) -> Result<FsJournalWriter, JournalError> {
        match self.backend.writing()? {
            Writing::Files(store) => {
                let path = nenjim_journal_fs::normalize_root(self.path());
                FsJournalWriter::open_store(store, path, options)
            }
            Writing::Native {
                store,
                ledger,
                lease,
            } => {
                let writer = FsJournalWriter::open_with(
                    store,
                    self.path().to_path_buf(),
                    ledger,
                    lease,
                    options,
                )?;
                self.backend.writer_opened()?;
                Ok(writer)
            }
        }
    }
}
