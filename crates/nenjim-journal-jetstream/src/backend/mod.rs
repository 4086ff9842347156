//! A NATS root through the storage seam: one [`NatsBackend`] is the
//! root's [`Ledger`] (and [`LedgerReader`]), over one [`NatsLedger`], and
//! its [`BlobStore`] (with the read-only [`FileSystem`] beside it) for
//! what a NATS root keeps in buckets: blobs, a signed root's checkpoint
//! and tiles, the store record. So the writer
//! (`FsJournalWriter::open_with`) and the loader
//! (`nenjim_journal_fs::load_recorded`, `refresh_recorded`) work on a NATS
//! root unchanged. [`NatsBackend::writing`] is the seam's [`Writing`] of a
//! root: this backend, its ledger and its lease.
//!
//! The root's path is its address, `nats://host:port/<name>`
//! ([`NatsBackend::root_path`]), so that every path an error names is of
//! the root: `nats://…/<coordinate>/<version>.journal`,
//! `nats://…/blobs/sha256/<hex>`, `nats://…/ledger/<sequence>`.
//!
//! # Revisions travel through the ledger
//!
//! A NATS root keeps no revision file: a revision's bytes are in its
//! ledger message (or in the blob the message points at), and they go
//! through the seam's ledger both ways, never through its files:
//!
//! - **writing**: the writer commits a revision with its bytes (a seam
//!   [`Commit`]), and
//!   [`Ledger::commit`] publishes record and bytes at once
//!   ([`NatsLedger::commit_at`]: inline, or as a blob first above the
//!   inline limit); a batch ([`Ledger::commit_batch`]) is committed by
//!   atomic batch publishes ([`NatsLedger::commit_batch_at`]). Nothing is
//!   staged: what is not committed was never sent.
//! - **reading**: [`LedgerReader::read_after_with_bytes`] hands the loader
//!   each entry with its revision's bytes (their size checked against the
//!   record; their SHA-256 is the loader's, which compares the digest its
//!   parse computes with the record's), and [`LedgerReader::read_revision`]
//!   reads one again by its entry's sequence ([`NatsLedger::read_entry`]:
//!   the loader reads a revision again when it did not parse, or when a
//!   large load dropped the bytes carried; size and SHA-256 checked, the
//!   SHA-256 left to the caller when it reads `again`, to hash it itself).
//!   The backend keeps nothing of its reads.
//!
//! # The rest of the root
//!
//! - `metadata(<root>)` is a directory and `read_dir(<root>)` is empty: a
//!   NATS root holds no files. A root whose stream does not exist is a
//!   root without a ledger ([`LedgerReader::exists`] is false), so its
//!   first writer loads it as an empty root (the one listing it makes);
//!   [`Ledger::create`] (of no entries) creates its stream and buckets.
//! - `<root>/blobs/sha256/<hex>` is the object `blobs/sha256/<hex>` of the
//!   root's blob bucket: with `WriterOptions::content_store_in(backend,
//!   root_path)` the root's own bucket is the writer's content store
//!   (`put_by_digest` holds a blob in memory to hash it before the put).
//! - `<root>/.ledger/tlog/<path>` (a signed root's checkpoint and tiles,
//!   format section 10) is the key `<path>` of the key-value bucket
//!   `NENJIM_<name>_tlog`: a create is a KV create, a replacement a KV
//!   update at the revision read (the version), so the checkpoint is a
//!   compare-and-set as on a directory.
//! - `<root>/.ledger/store` (the store record: the content store the
//!   command's `init` records, as on a directory) is the key `store` of
//!   the key-value bucket `NENJIM_<name>_meta`, created by its first write
//!   (create and replacement as for the transparency log). A root without
//!   that bucket or key records no content store.
//! - Anything else is absent to a reader and refused (`Unsupported`) to a
//!   writer: a revision file, a ledger entry file, a segment, a lease file
//!   have no place on a NATS root (its revisions and its ledger are the
//!   stream, its lease [`crate::NatsLease`]).

use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use async_nats::jetstream::kv;
use async_nats::jetstream::stream::StorageType;
use bytes::Bytes;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
#[cfg(doc)]
use nenjim_journal_store::BlobStore;
use nenjim_journal_store::FileSystem;
use nenjim_journal_store::backend::Writing;
use nenjim_journal_store::ledger::{
    self as seam, BatchCommit, Commit, Entry, EntryBytes, Ledger, LedgerReader, Record,
    RevisionPointer,
};

use crate::ledger::{Check, CommitError, NatsLedger};
use crate::{JetStreamRoot, NatsLease};

mod store;

/// The prefix of a content blob's path under the root: `blobs/sha256/`.
const CONTENT_DIR: &str = "blobs/sha256";
/// The prefix of the transparency log's paths under the root.
const TLOG_DIR: &str = ".ledger/tlog/";
/// The key of the store record (`<root>/.ledger/store`, the content store
/// the command's `init` records) in the metadata bucket.
const STORE_RECORD_KEY: &str = seam::STORE_RECORD;

/// A NATS root as a seam `Ledger` and `Store` (see the [module docs](self)).
/// Share it as an `Arc<NatsBackend>`: every call blocks on the ledger's
/// runtime, from plain threads.
pub struct NatsBackend {
    ledger: NatsLedger,
    root: PathBuf,
    /// The transparency log's key-value bucket, once opened.
    tlog: Mutex<Option<kv::Store>>,
    /// The ledger metadata's key-value bucket (the store record), once opened.
    meta: Mutex<Option<kv::Store>>,
}

/// The root (never a byte it holds).
impl std::fmt::Debug for NatsBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NatsBackend")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What a path under a NATS root names.
enum Place {
    /// The root itself.
    Root,
    /// A content blob: its object key, `blobs/sha256/<hex>`.
    Blob(String),
    /// A file kept in a key-value bucket: the transparency log's (its key
    /// in the tlog bucket) or the store record (in the metadata bucket).
    Kv(Kv, String),
    /// Anything else.
    Other,
}

/// The key-value buckets of a root that hold files of its `.ledger/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kv {
    /// `NENJIM_<name>_tlog`: a signed root's checkpoint and tiles.
    Tlog,
    /// `NENJIM_<name>_meta`: the store record.
    Meta,
}

impl NatsBackend {
    /// Connects to `root`'s server (see [`NatsLedger::connect`]).
    pub fn connect(root: &JetStreamRoot) -> Result<Arc<NatsBackend>, JournalError> {
        NatsLedger::connect(root).map(NatsBackend::new)
    }

    /// The backend over `ledger`.
    pub fn new(ledger: NatsLedger) -> Arc<NatsBackend> {
        let root = PathBuf::from(ledger.root().to_string());
        Arc::new(NatsBackend {
            ledger,
            root,
            tlog: Mutex::new(None),
            meta: Mutex::new(None),
        })
    }

    /// The root's path for the seam: `nats://host:port/<name>`.
    pub fn root_path(&self) -> &Path {
        &self.root
    }

    /// The ledger this backend is over (to follow it, to read its tip).
    pub fn ledger(&self) -> &NatsLedger {
        &self.ledger
    }

    /// This backend as a boxed seam `Ledger` (what
    /// `FsJournalWriter::open_with` takes), sharing it.
    pub fn shared_ledger(self: &Arc<Self>) -> Box<dyn Ledger> {
        Box::new(SharedLedger(self.clone()))
    }

    /// The root's lease (its bucket must exist: [`Ledger::create`] makes it).
    pub fn lease(&self) -> Result<NatsLease, JournalError> {
        self.ledger.lease()
    }

    /// What a writer writes this root through (the seam's
    /// [`Writing::Native`]): this backend as the ledger
    /// ([`shared_ledger`](Self::shared_ledger): revisions committed inside
    /// their entries), as the store (blobs, the transparency log, the
    /// store record), and the root's lease. First the lease's bucket is made where absent, since the
    /// lease is taken before the root is loaded (the stream is created by
    /// the writer's `Ledger::create`, when the root has none); and every
    /// bucket is read from its leader, since what decides a refusal (the
    /// lease, a blob's presence) must never come from a lagging replica.
    pub fn writing(self: &Arc<Self>) -> Result<Writing, JournalError> {
        self.ledger.lease_bucket(true)?;
        self.ledger.ensure_leader_reads()?;
        Ok(Writing::Native {
            store: self.clone(),
            ledger: self.shared_ledger(),
            lease: Box::new(self.lease()?),
        })
    }

    /// What is done once a writer has opened the root through
    /// [`writing`](Self::writing), under its lease: a stream made by an
    /// older version is given atomic batch publishes (until then its
    /// batches were committed entry by entry).
    pub fn writer_opened(&self) -> Result<(), JournalError> {
        self.ledger.ensure_atomic_batches().map(|_| ())
    }

    /// The `/`-joined path of `path` under the root, if it is under it.
    fn relative(&self, path: &Path) -> Option<String> {
        let rest = path.strip_prefix(&self.root).ok()?;
        let mut parts = Vec::new();
        for component in rest.components() {
            match component {
                Component::Normal(part) => parts.push(part.to_str()?),
                _ => return None,
            }
        }
        Some(parts.join("/"))
    }

    fn place(&self, path: &Path) -> Place {
        let Some(relative) = self.relative(path) else {
            return Place::Other;
        };
        if relative.is_empty() {
            return Place::Root;
        }
        if let Some(key) = relative.strip_prefix(TLOG_DIR) {
            return Place::Kv(Kv::Tlog, key.to_owned());
        }
        if relative
            .strip_prefix(seam::LEDGER_DIR)
            .and_then(|rest| rest.strip_prefix('/'))
            == Some(seam::STORE_RECORD)
        {
            return Place::Kv(Kv::Meta, STORE_RECORD_KEY.to_owned());
        }
        let parts: Vec<&str> = relative.split('/').collect();
        match parts[..] {
            ["blobs", "sha256", hex] if hex.len() == 64 => Place::Blob(relative.clone()),
            _ => Place::Other,
        }
    }

    /// A request's failure as the io error the seam's calls return: one
    /// line, `TimedOut` for an outage (see [`io_of`]).
    pub(crate) fn request_io<E>(&self, what: &str, error: E) -> io::Error
    where
        E: std::fmt::Display + crate::outage::Outage,
    {
        io_of(self.ledger.conn().request_error(what, error))
    }

    /// The key-value bucket `bucket` (created if `create`); `None` when it
    /// does not exist.
    fn kv(&self, bucket: Kv, create: bool) -> io::Result<Option<kv::Store>> {
        let slot = match bucket {
            Kv::Tlog => &self.tlog,
            Kv::Meta => &self.meta,
        };
        if let Some(store) = lock(slot).as_ref() {
            return Ok(Some(store.clone()));
        }
        let conn = self.ledger.conn();
        let names = self.ledger.names();
        let (name, what) = match bucket {
            Kv::Tlog => (names.tlog_bucket.clone(), "the transparency log"),
            Kv::Meta => (names.meta_bucket.clone(), "the ledger metadata"),
        };
        let store = if create {
            let config = kv::Config {
                bucket: name.clone(),
                history: 1,
                storage: StorageType::File,
                num_replicas: self.ledger.stream_replicas(),
                description: format!("{what} of {}", conn.address),
                ..Default::default()
            };
            // An existing bucket is opened as it is (its description may
            // name another spelling of the server's address).
            conn.block_on(conn.js.create_key_value(config))
                .or_else(|e| {
                    conn.block_on(conn.js.get_key_value(name.clone()))
                        .map_err(|_| e)
                })
                .map_err(|e| self.request_io(&format!("cannot create the bucket {name}"), e))?;
            // Its reads go to its leader, as the other buckets' (then the
            // handle is opened again, without direct gets), and it has one
            // before its first write.
            self.ledger.ensure_leader_reads().map_err(io_of)?;
            self.ledger.await_bucket_leaders().map_err(io_of)?;
            conn.block_on(conn.js.get_key_value(name.clone()))
                .map_err(|e| self.request_io(&format!("cannot open the bucket {name}"), e))?
        } else {
            match conn.block_on(conn.js.get_key_value(name.clone())) {
                Ok(store) => store,
                Err(e) => {
                    // Absent only when its stream is (else the open's error).
                    let stream = format!("KV_{name}");
                    let missing = self
                        .ledger
                        .find_stream(&stream, "cannot look up the bucket's stream");
                    return match missing {
                        Ok(None) => Ok(None),
                        _ => Err(self.request_io(&format!("cannot open the bucket {name}"), e)),
                    };
                }
            }
        };
        *lock(slot) = Some(store.clone());
        Ok(Some(store))
    }

    /// The value of `key` of the key-value bucket `bucket` and its revision.
    fn kv_get(&self, bucket: Kv, key: &str) -> io::Result<Option<(Bytes, u64)>> {
        let Some(store) = self.kv(bucket, false)? else {
            return Ok(None);
        };
        let conn = self.ledger.conn();
        let entry = conn
            .block_on(store.entry(key))
            .map_err(|e| self.request_io(&format!("cannot read the key {key}"), e))?;
        Ok(entry
            .filter(|e| e.operation == kv::Operation::Put)
            .map(|e| (e.value, e.revision)))
    }
}

/// A seam commit error of the ledger's.
fn seam_error(error: CommitError) -> seam::CommitError {
    match error {
        CommitError::TipMoved { found, .. } => seam::CommitError::TipMoved { found },
        CommitError::Failed(e) => seam::CommitError::Failed(e),
    }
}

/// The stream itself: its entries, each with its revision's bytes (see
/// the [module docs](self)); the backend keeps nothing of them.
impl LedgerReader for NatsBackend {
    fn exists(&self) -> Result<bool, JournalError> {
        self.ledger.exists()
    }

    fn read_after(&self, after: u64, max: usize) -> Result<Vec<Entry>, JournalError> {
        LedgerReader::read_after(&self.ledger, after, max)
    }

    fn entry_path(&self, sequence: u64) -> PathBuf {
        self.ledger.entry_path(sequence)
    }

    fn read_after_with_bytes(
        &self,
        after: u64,
        max: usize,
    ) -> Result<Vec<EntryBytes>, JournalError> {
        self.ledger.read_after_with_bytes(after, max)
    }

    fn read_revision(
        &self,
        fs: &dyn FileSystem,
        root: &Path,
        sequence: u64,
        pointer: &RevisionPointer,
        again: bool,
    ) -> io::Result<Option<Vec<u8>>> {
        self.ledger
            .read_revision(fs, root, sequence, pointer, again)
    }
}

/// Commits through [`NatsLedger::commit_at`], each revision with its bytes
/// in one publish. A seam [`Commit`]'s bytes are those its pointer was
/// computed from (the writer's pointer is the digest its parse computed of
/// them), so their size is checked and their SHA-256 not computed a second
/// time; [`NatsLedger::commit_at`] itself, which takes bytes from anyone,
/// checks both.
impl Ledger for NatsBackend {
    fn create(&self, entries: &[Entry]) -> Result<(), JournalError> {
        if let Some(first) = entries.first() {
            return Err(error::error(
                ErrorKind::Usage,
                format!(
                    "found {} revisions to record from files of a NATS root (the first `{first}`), expected none: a NATS root keeps no files outside its ledger",
                    entries.len()
                ),
            )
            .with_path(&self.root));
        }
        self.ledger.create()
    }

    fn commit(&self, tip: u64, commit: Commit<'_>) -> Result<Entry, seam::CommitError> {
        let (record, bytes) = commit.into_parts();
        if let (Record::Revision(pointer), None) = (&record, bytes) {
            return Err(seam::CommitError::Failed(seam::without_bytes(
                &self.root, pointer,
            )));
        }
        // A seam commit's bytes are the ones its pointer was computed from
        // (`Commit`: the writer's pointer is its parse's digest of them):
        // their size is checked, their SHA-256 is not computed again.
        self.ledger
            .commit_checked(tip, record, bytes, Check::Size)
            .map_err(seam_error)
    }

    /// The records with their bytes, up to the first revision without
    /// them, committed in order by [`NatsLedger::commit_batch_at`]: atomic
    /// publishes of many entries each, whole or not at all.
    fn commit_batch(&self, tip: u64, commits: Vec<Commit<'_>>) -> BatchCommit {
        let mut batch: Vec<(Record, Option<&[u8]>)> = Vec::with_capacity(commits.len());
        let mut missing = None;
        for commit in commits {
            let (record, bytes) = commit.into_parts();
            if let (Record::Revision(pointer), None) = (&record, bytes) {
                // What follows it is not committed either.
                missing = Some(seam::CommitError::Failed(seam::without_bytes(
                    &self.root, pointer,
                )));
                break;
            }
            batch.push((record, bytes));
        }
        // Sized, not hashed again (see `commit`).
        let (entries, stopped) = self.ledger.commit_batch_checked(tip, batch, Check::Size);
        BatchCommit {
            entries,
            stopped: stopped.map(seam_error).or(missing),
        }
    }
}

/// A shared backend as the seam's `Ledger` ([`NatsBackend::shared_ledger`]).
#[derive(Debug)]
struct SharedLedger(Arc<NatsBackend>);

impl LedgerReader for SharedLedger {
    fn exists(&self) -> Result<bool, JournalError> {
        self.0.exists()
    }
    fn read_after(&self, after: u64, max: usize) -> Result<Vec<Entry>, JournalError> {
        LedgerReader::read_after(&*self.0, after, max)
    }
    fn entry_path(&self, sequence: u64) -> PathBuf {
        LedgerReader::entry_path(&*self.0, sequence)
    }
    fn read_after_with_bytes(
        &self,
        after: u64,
        max: usize,
    ) -> Result<Vec<EntryBytes>, JournalError> {
        self.0.read_after_with_bytes(after, max)
    }
    fn read_revision(
        &self,
        fs: &dyn FileSystem,
        root: &Path,
        sequence: u64,
        pointer: &RevisionPointer,
        again: bool,
    ) -> io::Result<Option<Vec<u8>>> {
        self.0.read_revision(fs, root, sequence, pointer, again)
    }
}

impl Ledger for SharedLedger {
    fn create(&self, entries: &[Entry]) -> Result<(), JournalError> {
        self.0.create(entries)
    }
    fn commit(&self, tip: u64, commit: Commit<'_>) -> Result<Entry, seam::CommitError> {
        self.0.commit(tip, commit)
    }
    fn commit_batch(&self, tip: u64, commits: Vec<Commit<'_>>) -> BatchCommit {
        self.0.commit_batch(tip, commits)
    }
}

/// A Journal error as the io error the seam's file-system calls return: an
/// outage (`Unavailable`) as `TimedOut`, which the loader and the command
/// turn back into `Unavailable` ("retry later"); anything else as `Other`.
/// The error itself is kept as the io error's inner error.
pub(crate) fn io_of(error: JournalError) -> io::Error {
    let kind = if error.kind() == ErrorKind::Unavailable {
        io::ErrorKind::TimedOut
    } else {
        io::ErrorKind::Other
    };
    io::Error::new(kind, error)
}
