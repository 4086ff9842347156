//! A backend: one kind of place a root can live, opened from its address,
//! and what it hands the loader and the writer.
//!
//! A backend crate (a bucket, a NATS JetStream server, the test kit's
//! memory) implements [`BackendKind`] (the URL schemes it takes and how it
//! opens a root from one) and [`Backend`] (one opened root, as the seam's
//! parts). The crate that resolves addresses (`nenjim-journal-root`) lists
//! each kind once; the loader and the writer see only the parts, never the
//! backend. A directory is the backend of this crate ([`LocalKind`]).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::error::{self, ErrorKind, JournalError};

use crate::lease::Lease;
use crate::ledger::{Ledger, LedgerFollow, LedgerReader};
use crate::{FileSystem, RealFileSystem, Store};

/// What the loader reads a root through.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Reading {
    /// The root's files (and a signed root's checkpoint and tiles); on a
    /// root whose backend keeps its own ledger, no revision (those come
    /// through `ledger`).
    pub file_system: Arc<dyn FileSystem>,
    /// A backend's own ledger; `None`: the loader reads the ledger the
    /// root keeps in its files (format section 9), or lists the root.
    pub ledger: Option<Arc<dyn LedgerReader>>,
    /// A backend that can notify: live followers of what is committed.
    pub follow: Option<Arc<dyn LedgerFollow>>,
}

impl Reading {
    /// A root read as files: its ledger, if any, is in them.
    pub fn files(file_system: Arc<dyn FileSystem>) -> Reading {
        Reading {
            file_system,
            ledger: None,
            follow: None,
        }
    }

    /// A root whose ledger the backend keeps itself, followed or not.
    pub fn with_ledger(
        file_system: Arc<dyn FileSystem>,
        ledger: Arc<dyn LedgerReader>,
        follow: Option<Arc<dyn LedgerFollow>>,
    ) -> Reading {
        Reading {
            file_system,
            ledger: Some(ledger),
            follow,
        }
    }
}

/// What the writer writes a root through (matched exhaustively: a new way
/// of writing is a change of the writer's).
pub enum Writing {
    /// Files in a store: the writer keeps the ledger (`log/`, `segments/`)
    /// and the lease file in it, as format section 9 lays them out.
    Files(Arc<dyn Store>),
    /// A backend with its own ledger and lease, which keeps revisions in
    /// its entries; blobs and a signed root's checkpoint and tiles are put
    /// through `store`.
    Native {
        /// Where blobs and tiles are put.
        store: Arc<dyn Store>,
        /// The root's ledger.
        ledger: Box<dyn Ledger>,
        /// The root's lease.
        lease: Box<dyn Lease>,
    },
}

impl fmt::Debug for Writing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Writing::Files(store) => f.debug_tuple("Files").field(store).finish(),
            Writing::Native { store, .. } => f
                .debug_struct("Native")
                .field("store", store)
                .finish_non_exhaustive(),
        }
    }
}

/// One opened root on a backend: the seam's parts over it.
pub trait Backend: Send + Sync + fmt::Debug {
    /// The root's name as every error names it: its path for a directory,
    /// the path inside a bucket, `nats://host:port/<name>` for NATS.
    fn root_path(&self) -> &Path;

    /// The address as the user wrote it (`s3://bucket/prefix`, a path).
    fn address(&self) -> String {
        self.root_path().display().to_string()
    }

    /// Whether there is a root: a directory, a bucket prefix holding
    /// anything, a stream. Opening a root never creates one.
    fn exists(&self) -> Result<bool, JournalError>;

    /// What the loader reads (connects lazily: nothing is contacted here).
    fn reading(&self) -> Reading;

    /// What the writer writes through (a network backend connects here).
    fn writing(&self) -> Result<Writing, JournalError>;

    /// What a backend does under a writer's lease once the writer has
    /// opened (an older NATS stream is given atomic batches). None here.
    fn writer_opened(&self) -> Result<(), JournalError> {
        Ok(())
    }

    /// Creates the root where there is none (a directory, a bucket's
    /// prefix, a stream and its buckets, with `creating.replicas` copies
    /// where the backend keeps copies: a backend that cannot refuses a
    /// number with `Usage`). `Ok(true)` when it created it; a root that is
    /// there is left as it is (`Ok(false)`); a file in its place is
    /// `RootNotDirectory`.
    fn create(&self, creating: &Creating) -> Result<bool, JournalError>;

    /// The root's directory when it is one of the local file system.
    fn local_path(&self) -> Option<&Path> {
        None
    }

    /// How a replicated backend keeps the root (`None`: it keeps no copies
    /// of its own). Asks the server.
    fn replication(&self) -> Result<Option<Replication>, JournalError> {
        Ok(None)
    }

    /// Whether the root's files are read over a network, one request each
    /// (a bucket): a reader may keep a local cache of them. No by default.
    fn has_remote_files(&self) -> bool {
        false
    }

    /// Whether a root that records no content store keeps its blobs in
    /// itself (a NATS root's own bucket); by default it has none.
    fn keeps_own_blobs(&self) -> bool {
        false
    }

    /// The backend as a content store: a store and the root's path in it,
    /// blobs at `<path>/blobs/sha256/<hex>` (format section 9).
    fn content_store(&self) -> Result<(Arc<dyn Store>, PathBuf), JournalError>;
}

/// How a replicated backend keeps a root ([`Backend::replication`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Replication {
    /// How many copies it keeps.
    pub replicas: usize,
    /// The server that leads it, if one does.
    pub leader: Option<String>,
    /// How many followers are current.
    pub current_followers: usize,
    /// Whether the server is part of a cluster.
    pub clustered: bool,
    /// How many servers the cluster has.
    pub cluster_size: usize,
}

impl Replication {
    /// A replication state.
    pub fn new(
        replicas: usize,
        leader: Option<String>,
        current_followers: usize,
        clustered: bool,
        cluster_size: usize,
    ) -> Replication {
        Replication {
            replicas,
            leader,
            current_followers,
            clustered,
            cluster_size,
        }
    }
}

/// How a root is created ([`Backend::create`]).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Creating {
    /// How many copies a replicated backend keeps (`None`: its default).
    pub replicas: Option<usize>,
}

impl Creating {
    /// The defaults.
    pub fn new() -> Creating {
        Creating::default()
    }

    /// `replicas` copies (a backend that keeps no copies refuses it).
    #[must_use]
    pub fn replicas(mut self, replicas: Option<usize>) -> Creating {
        self.replicas = replicas;
        self
    }
}

/// [`Backend::create`] of `backend`, whose root is a directory of `fs`
/// made by `make_dir`: the root is a directory there, or is made one. A
/// number of replicas is refused (a directory or a bucket keeps its own
/// copies). Every error names the root by its address, as it was given.
pub fn create_in(
    backend: &dyn Backend,
    fs: &dyn FileSystem,
    creating: &Creating,
    make_dir: impl FnOnce() -> io::Result<()>,
) -> Result<bool, JournalError> {
    let address = backend.address();
    if let Some(replicas) = creating.replicas {
        return Err(error::error(
            ErrorKind::Usage,
            format!(
                "found --replicas {replicas} for {address}, expected it only for a NATS root (nats://…): a directory or a bucket keeps its own copies"
            ),
        ));
    }
    match fs.metadata(backend.root_path()) {
        Ok(meta) if meta.kind() == crate::EntryKind::Directory => Ok(false),
        Ok(_) => Err(error::error(
            ErrorKind::RootNotDirectory,
            format!(
                "found a file at {address}, expected a directory (or nothing) for the Journal root"
            ),
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            make_dir()
                .map_err(|e| error::io_error(address.as_str(), "cannot create the root", e))?;
            Ok(true)
        }
        Err(e) => Err(error::io_error(address.as_str(), "cannot read the root", e)),
    }
}

/// How a root is opened: what every backend is asked to honour (a backend
/// without connections ignores what is about them).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Opening {
    /// Never give up on a server lost while the root is open (a follower
    /// that must ride out restarts); by default a backend's own limit.
    pub reconnect_without_limit: bool,
}

impl Opening {
    /// The defaults: each backend's own limits.
    pub fn new() -> Opening {
        Opening::default()
    }

    /// Reconnects to a lost server without limit.
    #[must_use]
    pub fn reconnect_without_limit(mut self, yes: bool) -> Opening {
        self.reconnect_without_limit = yes;
        self
    }
}

/// One kind of backend: the URL schemes it takes, and how it opens a root
/// from an address with one of them. Opening contacts nothing.
pub trait BackendKind: Sync + fmt::Debug {
    /// The URL schemes of this kind, without `://` (`"s3"`, `"nats"`).
    fn schemes(&self) -> &'static [&'static str];

    /// The root at `address` (a URL with one of [`schemes`](Self::schemes)).
    fn open(&self, address: &str, opening: &Opening) -> Result<Arc<dyn Backend>, JournalError>;
}

/// A root in a directory of the local file system (`file://` or a path).
#[derive(Debug)]
pub struct LocalKind;

impl BackendKind for LocalKind {
    fn schemes(&self) -> &'static [&'static str] {
        &["file"]
    }

    fn open(&self, address: &str, _: &Opening) -> Result<Arc<dyn Backend>, JournalError> {
        let path = address.strip_prefix("file://").unwrap_or(address);
        if path.is_empty() {
            return Err(error::error(
                ErrorKind::Usage,
                format!("`{address}` names no directory"),
            ));
        }
        Ok(Arc::new(LocalRoot::new(path)))
    }
}

/// A root in a directory: read and written through [`RealFileSystem`].
#[derive(Debug, Clone)]
pub struct LocalRoot {
    path: PathBuf,
}

impl LocalRoot {
    /// The root at `path` (taken as it is; nothing is read).
    pub fn new(path: impl Into<PathBuf>) -> LocalRoot {
        LocalRoot { path: path.into() }
    }
}

impl Backend for LocalRoot {
    fn root_path(&self) -> &Path {
        &self.path
    }

    fn local_path(&self) -> Option<&Path> {
        Some(&self.path)
    }

    fn exists(&self) -> Result<bool, JournalError> {
        match std::fs::metadata(&self.path) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(error::io_error(&self.path, "cannot read the root", e)),
        }
    }

    fn reading(&self) -> Reading {
        Reading::files(Arc::new(RealFileSystem))
    }

    fn writing(&self) -> Result<Writing, JournalError> {
        Ok(Writing::Files(Arc::new(RealFileSystem)))
    }

    fn create(&self, creating: &Creating) -> Result<bool, JournalError> {
        create_in(self, &RealFileSystem, creating, || {
            std::fs::create_dir_all(&self.path)
        })
    }

    fn content_store(&self) -> Result<(Arc<dyn Store>, PathBuf), JournalError> {
        Ok((Arc::new(RealFileSystem), self.path.clone()))
    }
}
