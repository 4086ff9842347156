//! Journal roots on object storage: S3 and compatible stores, Google Cloud
//! Storage, Azure Blob Storage, and an in-memory store for tests, through
//! the `object_store` crate.
//!
//! # Brief overview
//!
//! [`ObjectFs`] implements the loader's [`FileSystem`] and the writer's
//! [`BlobStore`] over an [`ObjectStore`], so that the reference Journal
//! (`JournalAssembly::with_file_system`) loads and refreshes a root in a
//! bucket, and `FsJournalWriter::open_store` appends to it, with the same
//! rules, errors and sequences as a root on a local disk. It is a crate of
//! its own so that a consumer who reads local roots compiles no HTTP client.
//!
//! A root in a store has a path inside it: `s3://bucket/journals/main` is
//! the bucket `bucket` and the root path `/journals/main` (what
//! `journal_root()` then reports); the object of
//! `/journals/main/left-pad/20261129T101530Z.journal` is the key
//! `journals/main/left-pad/20261129T101530Z.journal`. A "directory" is a
//! key prefix: it exists when some object has it, and the writer's
//! [`ObjectFs::ensure_dir`] puts an empty `.keep` object in it (a hidden name,
//! ignored by the loader), so that an empty root exists once created.
//!
//! | the local root | in an object store |
//! | --- | --- |
//! | a revision, a segment: temporary file, fsync, hard link | one put, created only if absent (`If-None-Match: *`) |
//! | a blob, streamed and named by its SHA-256 | spooled while hashed, then one put created only if absent (a multipart upload above [`SINGLE_PUT_MAX`], see [`BlobStore::put_by_digest`]) |
//! | a ledger entry: a symbolic link whose target is the record | an object holding the record, created only if absent |
//! | the lease, replaced under a `flock` | replaced by a put only if its ETag is unchanged (`If-Match`) |
//!
//! # Stores that lie, and answers that are lost
//!
//! Some S3 clones and emulators ignore preconditions. A writer's open calls
//! [`BlobStore::check_conditional_writes`], which puts a probe object twice and
//! requires the second create to be refused; a store that accepts it is
//! refused for writing. A create whose answer is lost (a timeout, an
//! `object_store` retry that finds its own first attempt, a `409 Conflict`
//! reported as "already exists") is settled by reading the object back and
//! comparing it with what was sent, never by a blind retry: the same bytes
//! are this writer's commit, other bytes another writer's, no object a
//! failure.
//!
//! # Threads
//!
//! [`ObjectFs`] owns a small tokio runtime and blocks on it: its calls are
//! made from plain threads (the loader's workers, the writer's caller),
//! never from inside an async runtime (tokio refuses to block there).
//!
//! # Cost
//!
//! [`ObjectFs::requests`] counts the requests made (LIST, GET, HEAD, PUT,
//! DELETE): a start with a ledger lists the ledger's segments, GETs each
//! segment, each entry after the last segment (and one more, absent), and
//! each revision once. A refresh reads the ledger the same way, no revision
//! it holds, and walks the root to count the files the ledger does not
//! record: one LIST of the root (with a delimiter) and one recursive, paged
//! listing that reads ahead every artifact's listing (a LIST per thousand
//! objects), not one LIST per artifact.
//!
//! # The crate's files, one job each
//!
//! `lib.rs` (the store, its counters, the seam's `FileSystem` and
//! `BlobStore` over it), `keys.rs` (root paths as keys), `errors.rs`
//! (`object_store` errors as the local file system's kinds; versions),
//! `listing.rs` (directories as prefixes, the read-ahead of a root's
//! listings, `.keep`), `settle.rs` (a lost or refused answer settled by
//! reading back), `multipart.rs` (blobs: the spool and the multipart
//! upload), `reader.rs` (streamed bodies), `address.rs` (URLs), `tls.rs`
//! (the one crypto provider, the CA files, certificate errors).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use futures::TryStreamExt as _;
use nenjim_journal_api::valuetypes::ContentPointer;
use nenjim_journal_store::{BlobStore, Created, EntryKind, EntryMetadata, FileSystem, Version};
use object_store::path::Path as Key;
use object_store::{
    ObjectStore, ObjectStoreExt as _, PutMode, PutOptions, PutPayload, UpdateVersion,
};

pub mod address;
pub mod backend;
mod errors;
mod keys;
mod listing;
mod multipart;
mod reader;
mod settle;
pub mod tls;

pub use address::{Address, parse_address, parse_address_with_env};
pub use backend::{ObjectKind, ObjectRoot};
pub use multipart::{PART_BYTES, SINGLE_PUT_MAX};
pub(crate) use nenjim_journal_store::blocking::Blocking;

use crate::errors::{io_error, refused, refused_without_object, too_large, version_of};
use crate::keys::key;

/// How many requests of each kind an [`ObjectFs`] made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Requests {
    /// Listings (one per page of results).
    pub list: u64,
    /// Reads of an object's bytes.
    pub get: u64,
    /// Reads of an object's metadata.
    pub head: u64,
    /// Writes (conditional or not).
    pub put: u64,
    /// Deletions.
    pub delete: u64,
}

#[derive(Debug, Default)]
struct Counters {
    list: AtomicU64,
    get: AtomicU64,
    head: AtomicU64,
    put: AtomicU64,
    delete: AtomicU64,
}

fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

/// A root's store in an [`ObjectStore`]: the loader's [`FileSystem`] and
/// the writer's [`BlobStore`] (see the [crate docs](crate)).
pub struct ObjectFs {
    store: Arc<dyn ObjectStore>,
    location: String,
    /// Shared with the readers [`BlobStore::open`] hands out.
    runtime: Arc<Blocking>,
    /// Blobs up to this size go in one conditional put, larger ones in a
    /// multipart upload (see [`BlobStore::put_by_digest`]).
    single_put_max: u64,
    counters: Counters,
    /// Directories known to exist (their `.keep` is there).
    dirs: Mutex<HashSet<PathBuf>>,
    /// Listings of directories read ahead with their parent's (see
    /// [`FileSystem::read_dir_with_kinds`]), each handed out once.
    listings: Mutex<HashMap<PathBuf, Listing>>,
}

/// A directory's entries, with their kinds.
type Listing = Vec<(OsString, Option<EntryKind>)>;

impl fmt::Debug for ObjectFs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectFs")
            .field("location", &self.location)
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

/// The largest ledger entry (one record) read.
const RECORD_MAX: u64 = 64 * 1024;

/// The name of the empty object that makes a directory exist.
pub const KEEP: &str = ".keep";

impl ObjectFs {
    /// A root store over `store`; `location` names it in messages (e.g.
    /// `s3://bucket`). Starts a small runtime of its own.
    pub fn new(store: Arc<dyn ObjectStore>, location: impl Into<String>) -> io::Result<ObjectFs> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("nenjim-objstore")
            .enable_all()
            .build()?;
        Ok(ObjectFs {
            store,
            location: location.into(),
            runtime: Arc::new(Blocking::new(runtime)),
            single_put_max: SINGLE_PUT_MAX,
            counters: Counters::default(),
            dirs: Mutex::new(HashSet::new()),
            listings: Mutex::new(HashMap::new()),
        })
    }

    /// Sends blobs of up to `bytes` in one conditional put, larger ones in
    /// a multipart upload (default [`SINGLE_PUT_MAX`]).
    #[must_use]
    pub fn with_single_put_max(self, bytes: u64) -> ObjectFs {
        ObjectFs {
            single_put_max: bytes,
            ..self
        }
    }

    /// An empty in-memory store (`memory://`), for tests.
    pub fn memory() -> io::Result<ObjectFs> {
        ObjectFs::new(Arc::new(object_store::memory::InMemory::new()), "memory://")
    }

    /// The underlying object store.
    pub fn object_store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// The requests made so far.
    pub fn requests(&self) -> Requests {
        let c = &self.counters;
        Requests {
            list: c.list.load(Ordering::Relaxed),
            get: c.get.load(Ordering::Relaxed),
            head: c.head.load(Ordering::Relaxed),
            put: c.put.load(Ordering::Relaxed),
            delete: c.delete.load(Ordering::Relaxed),
        }
    }

    /// The bytes of `key` and its metadata, never more than `limit + 1` of
    /// them read: an object whose answer says it holds more than `limit`
    /// is refused (`FileTooLarge`) before its body is read, and a body
    /// longer than its answer said is cut off after `limit + 1` bytes.
    fn get_bounded(
        &self,
        key: &Key,
        limit: u64,
    ) -> Result<io::Result<(Vec<u8>, object_store::ObjectMeta)>, object_store::Error> {
        self.runtime.block_on(self.get_bounded_async(key, limit))
    }

    /// [`get_bounded`](Self::get_bounded), on the runtime.
    async fn get_bounded_async(
        &self,
        key: &Key,
        limit: u64,
    ) -> Result<io::Result<(Vec<u8>, object_store::ObjectMeta)>, object_store::Error> {
        use futures::StreamExt as _;
        bump(&self.counters.get);
        let result = self.store.get(key).await?;
        let meta = result.meta.clone();
        if meta.size > limit {
            return Ok(Err(too_large(meta.size)));
        }
        let wanted = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
        let mut bytes = Vec::with_capacity(usize::try_from(meta.size).unwrap_or(0));
        let mut stream = result.into_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk?;
            let room = wanted - bytes.len();
            bytes.extend_from_slice(chunk.get(..room.min(chunk.len())).unwrap_or_default());
            if bytes.len() == wanted {
                // More than the answer said: stop reading (the rest of the
                // body is dropped with the stream).
                break;
            }
        }
        Ok(Ok((bytes, meta)))
    }

    fn get(&self, key: &Key) -> Result<(Vec<u8>, object_store::ObjectMeta), object_store::Error> {
        bump(&self.counters.get);
        self.runtime.block_on(async {
            let result = self.store.get(key).await?;
            let meta = result.meta.clone();
            let bytes = result.bytes().await?;
            Ok((bytes.to_vec(), meta))
        })
    }

    /// The bytes of `key`, `None` if absent.
    fn get_if_exists(&self, key: &Key) -> io::Result<Option<Vec<u8>>> {
        match self.get(key) {
            Ok((bytes, _)) => Ok(Some(bytes)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(io_error(e)),
        }
    }

    fn put(&self, key: &Key, bytes: &[u8], mode: PutMode) -> Result<(), object_store::Error> {
        self.put_versioned(key, bytes, mode).map(|_| ())
    }

    fn put_versioned(
        &self,
        key: &Key,
        bytes: &[u8],
        mode: PutMode,
    ) -> Result<object_store::PutResult, object_store::Error> {
        bump(&self.counters.put);
        let payload = PutPayload::from(bytes.to_vec());
        let options = PutOptions::from(mode);
        self.runtime
            .block_on(self.store.put_opts(key, payload, options))
    }

    /// Whether an object has the key `key` (one HEAD).
    fn exists(&self, key: &Key) -> io::Result<bool> {
        bump(&self.counters.head);
        match self.runtime.block_on(self.store.head(key)) {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(io_error(e)),
        }
    }
}

impl FileSystem for ObjectFs {
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        let key = key(path)?;
        if key.as_ref().is_empty() {
            // The bucket itself: a directory if it can be listed.
            self.list_dir(&key)?;
            return Ok(EntryMetadata::new(EntryKind::Directory, 0));
        }
        bump(&self.counters.head);
        match self.runtime.block_on(self.store.head(&key)) {
            Ok(meta) => Ok(EntryMetadata::new(EntryKind::File, meta.size)),
            Err(object_store::Error::NotFound { .. }) => {
                let listed = self.list_dir(&key)?;
                if listed.objects.is_empty() && listed.common_prefixes.is_empty() {
                    Err(io::Error::new(
                        io::ErrorKind::NotFound,
                        format!("no object and no key prefix {key} in {}", self.location),
                    ))
                } else {
                    Ok(EntryMetadata::new(EntryKind::Directory, 0))
                }
            }
            Err(e) => Err(io_error(e)),
        }
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        // An object store has no symbolic link.
        self.metadata(path)
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        Ok(self
            .read_dir_with_kinds(path)?
            .into_iter()
            .map(|(name, _)| name)
            .collect())
    }

    fn read_dir_with_kinds(&self, path: &Path) -> io::Result<Listing> {
        self.listing(path)
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        self.get_bounded(&key(path)?, limit)
            .map_err(io_error)?
            .map(|(bytes, _)| bytes)
    }

    fn read_record(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.get_bounded(&key(path)?, RECORD_MAX)
            .map_err(io_error)?
            .map(|(bytes, _)| bytes)
    }

    /// One GET per entry, all in flight at once.
    fn read_records(&self, paths: &[PathBuf]) -> Vec<io::Result<Vec<u8>>> {
        let keys: Vec<io::Result<Key>> = paths.iter().map(|p| key(p)).collect();
        self.runtime
            .block_on(futures::future::join_all(keys.into_iter().map(
                |key| async move {
                    let key = key?;
                    self.get_bounded_async(&key, RECORD_MAX)
                        .await
                        .map_err(io_error)?
                        .map(|(bytes, _)| bytes)
                },
            )))
    }
}

impl BlobStore for ObjectFs {
    fn get(&self, path: &Path, limit: u64) -> io::Result<Option<(Vec<u8>, Version)>> {
        match self.get_bounded(&key(path)?, limit) {
            // A body longer than its answer said is over the limit too.
            Ok(Ok((bytes, _))) if bytes.len() as u64 > limit => Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!("the object holds more than {limit} bytes (more than its answer said)"),
            )),
            Ok(Ok((bytes, meta))) => Ok(Some((bytes, version_of(&meta.e_tag, &meta.version)))),
            Ok(Err(e)) => Err(e),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(io_error(e)),
        }
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let listed = self.entries(&key(dir)?)?;
        let dirs = listed.common_prefixes.iter().filter_map(|p| p.filename());
        let files = listed.objects.iter().filter_map(|o| o.location.filename());
        Ok(dirs
            .chain(files)
            .filter(|n| !n.starts_with('.'))
            .map(str::to_owned)
            .collect())
    }

    fn put_if_absent(&self, path: &Path, bytes: &[u8]) -> io::Result<Created> {
        let key = key(path)?;
        match self.put(&key, bytes, PutMode::Create) {
            Ok(()) => Ok(Created::New),
            // Exists: the writer compares what is there with what it sent.
            Err(error) => match self.get_if_exists(&key)? {
                Some(_) => Ok(Created::Exists),
                None if refused(&error) => Err(refused_without_object(key.as_ref(), error)),
                None => Err(io_error(error)),
            },
        }
    }

    /// The blob is read once, hashed on the way into a spool (in memory up
    /// to 8 MiB, then a temporary file of the local system, removed when
    /// done): its key is its digest, known only at the end, and a put needs
    /// its key first. Up to [`SINGLE_PUT_MAX`] bytes it then goes in one
    /// put created only if absent (`If-None-Match: *`; a refusal or a lost
    /// answer settled as [`BlobStore::put_if_absent`] settles it), held in memory while
    /// it is sent. A larger blob goes in a multipart upload, which
    /// `object_store` 0.14 cannot make conditional: its key is checked
    /// first (HEAD; present: [`Created::Exists`]), and since the key is the
    /// digest of the bytes, a writer racing to the same key writes the same
    /// bytes.
    fn put_by_digest(
        &self,
        dir: &Path,
        reader: &mut dyn Read,
    ) -> io::Result<(Created, ContentPointer)> {
        self.put_spooled(dir, reader)
    }

    fn put_record(&self, path: &Path, record: &str) -> io::Result<()> {
        let key = key(path)?;
        if self.create_settled(&key, record.as_bytes())? {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("the ledger entry {key} exists with another record"),
            ))
        }
    }

    fn replace_if_unchanged(
        &self,
        path: &Path,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> io::Result<Option<Version>> {
        let key = key(path)?;
        let mode = match expected {
            None => PutMode::Create,
            Some(version) => {
                let (e_tag, version) = version
                    .as_str()
                    .split_once('\n')
                    .unwrap_or((version.as_str(), ""));
                let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
                PutMode::Update(UpdateVersion {
                    e_tag: some(e_tag),
                    version: some(version),
                })
            }
        };
        match self.put_versioned(&key, bytes, mode) {
            Ok(result) => Ok(Some(version_of(&result.e_tag, &result.version))),
            // Refused, or the answer lost: what is there now says whether
            // this put landed (its bytes name this writer and an expiry).
            Err(error) => match self.get(&key) {
                Ok((found, meta)) if found == bytes => {
                    self.trace_settled(&key, &error, "stored");
                    Ok(Some(version_of(&meta.e_tag, &meta.version)))
                }
                // Still at the expected version: nobody changed it, this
                // put failed (not "changed in between").
                Ok((_, meta))
                    if !refused(&error)
                        && expected == Some(&version_of(&meta.e_tag, &meta.version)) =>
                {
                    Err(io_error(error))
                }
                Ok(_) => {
                    self.trace_settled(&key, &error, "another's");
                    Ok(None)
                }
                Err(object_store::Error::NotFound { .. }) if refused(&error) => Ok(None),
                Err(object_store::Error::NotFound { .. }) => Err(io_error(error)),
                Err(e) => Err(io_error(e)),
            },
        }
    }

    fn open(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        self.open_stream(path)
    }

    fn remove_all(&self, dir: &Path) -> io::Result<()> {
        let prefix = key(dir)?;
        bump(&self.counters.list);
        let objects: Vec<object_store::ObjectMeta> = self
            .runtime
            .block_on(self.store.list(Some(&prefix)).try_collect())
            .map_err(io_error)?;
        for object in objects {
            bump(&self.counters.delete);
            match self.runtime.block_on(self.store.delete(&object.location)) {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(io_error(e)),
            }
        }
        if let Ok(mut dirs) = self.dirs.lock() {
            dirs.retain(|d| !d.starts_with(dir));
        }
        Ok(())
    }

    fn check_conditional_writes(&self, probe: &Path) -> io::Result<()> {
        let key = key(probe)?;
        match self.put(&key, b"probe 1\n", PutMode::Create) {
            Ok(()) => {}
            Err(e) if refused(&e) => {}
            Err(e) => return Err(io_error(e)),
        }
        match self.put(&key, b"probe 2\n", PutMode::Create) {
            Err(e) if refused(&e) => Ok(()),
            Err(e) => Err(io_error(e)),
            Ok(()) => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "{} accepted a create over the existing object {key}: it ignores the \
                     preconditions the ledger and the lease rely on, so no writer may write to it",
                    self.location
                ),
            )),
        }
    }

    fn location(&self) -> String {
        self.location.clone()
    }
}
