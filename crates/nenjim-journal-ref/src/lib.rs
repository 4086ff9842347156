//! The reference Journal: assembly, process lifecycle and the passive manager.
//!
//! # Brief overview
//!
//! A [`JournalAssembly`] is a plain holder built over a root directory (made
//! absolute and normalized lexically, without touching the disk). It holds
//! one reference Journal object, seen through two views, and one manager:
//!
//! - [`service()`](JournalAssembly::service): the read-only
//!   [`JournalService`] that consumers query;
//! - [`process()`](JournalAssembly::process): the [`NenjimProcess`]
//!   lifecycle of the *same* object (the two `Arc`s point at one allocation);
//! - [`manager()`](JournalAssembly::manager): a distinct
//!   [`JournalServiceManager`], bound to that Journal through a
//!   crate-private administration view that no consumer can name or reach
//!   from a service reference.
//!
//! The data flow: `start()` hands the root to the loader
//! ([`nenjim_journal_fs::load`]), which walks, reads, parses and ingests
//! every revision into a private chain state; only if all of it succeeded is
//! that state published, with one pointer swap. Queries take an
//! `Arc<ChainState>` snapshot (a read lock held just long enough to clone
//! the `Arc`) and answer from it, so a query never sees a half-ingested
//! revision. The manager's `refresh()` runs the loader's
//! [`refresh`](nenjim_journal_fs::refresh), publishing each newly accepted
//! revision with one pointer swap; concurrent refreshes are serialized.
//!
//! # Other backends, and following
//!
//! [`JournalAssembly::with_ledger`] builds the same Journal over a root
//! whose ledger another backend of the storage seam keeps (a NATS
//! JetStream stream, through `nenjim_journal_nats::NatsRoot::assembly`).
//! When that backend can notify (the seam's `LedgerFollow`), `replay` and
//! `replay_events` with `ReplayRequest::follow(true)` return *follow*
//! cursors: the snapshot's backlog, then every entry committed later (by
//! any process), each ingested into the cursor's own copy of the chain
//! state exactly as a refresh would ingest it, so a refused revision is the
//! cursor's typed error and the published state never changes; `next()`
//! blocks, `next_timeout(d)` returns `Ok(None)` after `d`, and `stop()`
//! ends every follow cursor with `Stopped`. A Journal over a directory or a
//! bucket refuses `follow(true)` with `FollowUnsupported`.
//!
//! # Lifecycle
//!
//! | state | `start()` | queries | `refresh()` |
//! |---|---|---|---|
//! | created | loads; → started or failed | `NotStarted` | `NotStarted` |
//! | loading (first `start()` running) | `AlreadyStarted` | `NotStarted` | `NotStarted` |
//! | started | `AlreadyStarted` | answer | re-reads |
//! | failed | `AlreadyStarted` (loads nothing) | `NotStarted` | `NotStarted` |
//! | stopped (from any state) | `AlreadyStarted` if a start was attempted, else `Stopped` | `Stopped` | `Stopped` |
//!
//! `stop()` always succeeds and is idempotent. A `stop()` that overtakes a
//! loading `start()` wins: the loaded state is dropped and that `start()`
//! returns `Stopped`.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use nenjim_journal_api::error::ErrorKind;
//! use nenjim_journal_ref::JournalAssembly;
//!
//! let assembly = JournalAssembly::new("/nonexistent/journals/./roots/..");
//! assert_eq!(
//!     assembly.manager().journal_root(),
//!     std::path::Path::new("/nonexistent/journals")
//! );
//! let (service, process) = (assembly.service(), assembly.process());
//! assert_eq!(service.component_name(), "nenjim.journal");
//! assert!(std::ptr::eq(
//!     Arc::as_ptr(&service) as *const (),
//!     Arc::as_ptr(&process) as *const ()
//! ));
//!
//! let not_started = service.coordinates().unwrap_err();
//! assert_eq!(not_started.kind(), ErrorKind::NotStarted);
//! assert_eq!(process.start().unwrap_err().kind(), ErrorKind::RootMissing);
//! assert_eq!(process.start().unwrap_err().kind(), ErrorKind::AlreadyStarted);
//! assert_eq!(service.coordinates().unwrap_err().kind(), ErrorKind::NotStarted);
//! assert_eq!(assembly.manager().refresh().unwrap_err().kind(), ErrorKind::NotStarted);
//!
//! process.stop().unwrap();
//! assert_eq!(service.coordinates().unwrap_err().kind(), ErrorKind::Stopped);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod admin;
mod follow;
mod journal;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::component::NenjimProcess;
use nenjim_journal_api::{JournalService, JournalServiceManager};
pub use nenjim_journal_fs::LoadOptions;
use nenjim_journal_fs::{FileSystem, RealFileSystem};
use nenjim_journal_store::ledger::{LedgerFollow, LedgerReader};

use crate::admin::Manager;
use crate::journal::Journal;

/// The registration name of the reference Journal component.
pub const COMPONENT_NAME: &str = "nenjim.journal";

/// Holds one reference Journal and its manager. No lifecycle of its own.
#[derive(Debug)]
pub struct JournalAssembly {
    journal: Arc<Journal>,
    manager: Arc<Manager>,
}

impl JournalAssembly {
    /// A Journal over `root` (normalized to absolute, lexically; touches no disk).
    pub fn new(root: impl AsRef<Path>) -> JournalAssembly {
        JournalAssembly::with_options(root, LoadOptions::default())
    }
    /// Same, reading the root with `options` (e.g. examples for the CLI).
    pub fn with_options(root: impl AsRef<Path>, options: LoadOptions) -> JournalAssembly {
        JournalAssembly::with_file_system(root, options, Arc::new(RealFileSystem))
    }
    /// Same, reading the root through `fs` instead of the real file system
    /// (e.g. to inject faults in tests, or a root in a bucket through
    /// `nenjim_journal_objstore::ObjectFs`: `root` is then the root's path
    /// inside the store, such as `/journals/main`, and `journal_root()`
    /// reports that path).
    pub fn with_file_system(
        root: impl AsRef<Path>,
        options: LoadOptions,
        fs: Arc<dyn FileSystem>,
    ) -> JournalAssembly {
        JournalAssembly::of(Journal::new(
            nenjim_journal_fs::normalize_root(root.as_ref()),
            options,
            fs,
            None,
            None,
        ))
    }
    /// A Journal over a root whose ledger another backend of the storage
    /// seam keeps (a NATS JetStream stream, say): `ledger` says what the
    /// root holds, `fs` reads its revision files (and a signed root's
    /// checkpoint and tiles), and `follow`, for a backend that can
    /// notify, serves `ReplayRequest::follow(true)` (refused with
    /// `FollowUnsupported` when `None`). `root` is the backend's name for
    /// the root (e.g. `nats://host:port/<name>`), taken as it is: errors
    /// name revision files under it, and `journal_root()` reports it.
    pub fn with_ledger(
        root: impl Into<PathBuf>,
        options: LoadOptions,
        fs: Arc<dyn FileSystem>,
        ledger: Arc<dyn LedgerReader>,
        follow: Option<Arc<dyn LedgerFollow>>,
    ) -> JournalAssembly {
        JournalAssembly::of(Journal::new(root.into(), options, fs, Some(ledger), follow))
    }
    fn of(journal: Journal) -> JournalAssembly {
        let journal = Arc::new(journal);
        let manager = Arc::new(Manager::new(journal.clone()));
        JournalAssembly { journal, manager }
    }
    /// The read-only service view.
    pub fn service(&self) -> Arc<dyn JournalService> {
        self.journal.clone()
    }
    /// The lifecycle view of the same object.
    pub fn process(&self) -> Arc<dyn NenjimProcess> {
        self.journal.clone()
    }
    /// The passive manager.
    pub fn manager(&self) -> Arc<dyn JournalServiceManager> {
        self.manager.clone()
    }
}
