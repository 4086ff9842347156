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
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::fmt;
use std::io::{self, Read, Seek as _, SeekFrom};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use futures::TryStreamExt as _;
use futures::stream::BoxStream;
use nenjim_journal_api::valuetypes::ContentPointer;
use nenjim_journal_store::{BlobStore, Created, EntryKind, EntryMetadata, FileSystem, Version};
use object_store::path::{Path as Key, PathPart};
use object_store::{
    ObjectStore, ObjectStoreExt as _, PutMode, PutOptions, PutPayload, UpdateVersion,
    WriteMultipart,
};

pub mod address;

pub use address::{Address, parse_address, parse_address_with_env};

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
    runtime: Arc<tokio::runtime::Runtime>,
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

/// The name of the empty object that makes a directory exist.
pub const KEEP: &str = ".keep";

/// The largest blob [`BlobStore::put_by_digest`] sends in one conditional
/// put (`If-None-Match: *`) by default; a larger one goes in a multipart
/// upload of [`PART_BYTES`] parts (see [`ObjectFs::with_single_put_max`]).
pub const SINGLE_PUT_MAX: u64 = 64 * 1024 * 1024;

/// The part size of a multipart upload (S3 takes parts of 5 MiB and more).
pub const PART_BYTES: usize = 16 * 1024 * 1024;

/// How much of a blob being put stays in memory before the rest is spooled
/// to a temporary file.
const SPOOL_IN_MEMORY: usize = 8 * 1024 * 1024;

/// How many parts of a multipart upload are in flight at once.
const PARTS_IN_FLIGHT: usize = 2;

/// The io error of an `object_store` error, with the local file system's kinds.
fn io_error(error: object_store::Error) -> io::Error {
    let kind =
        match &error {
            object_store::Error::NotFound { .. } => io::ErrorKind::NotFound,
            object_store::Error::AlreadyExists { .. }
            | object_store::Error::Precondition { .. } => io::ErrorKind::AlreadyExists,
            object_store::Error::InvalidPath { .. } => io::ErrorKind::InvalidInput,
            object_store::Error::NotSupported { .. }
            | object_store::Error::NotImplemented { .. } => io::ErrorKind::Unsupported,
            _ => io::ErrorKind::Other,
        };
    io::Error::new(kind, error)
}

/// The version of an object: its ETag and its version, as `If-Match`
/// compares them.
fn version_of(e_tag: &Option<String>, version: &Option<String>) -> Version {
    Version::new(format!(
        "{}\n{}",
        e_tag.as_deref().unwrap_or_default(),
        version.as_deref().unwrap_or_default()
    ))
}

/// The refusal of an object over a read's limit.
fn too_large(size: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("the object holds {size} bytes"),
    )
}

/// Whether a put was refused because the object exists or changed.
fn refused(error: &object_store::Error) -> bool {
    matches!(
        error,
        object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }
    )
}

/// The key of a root path: its normal components joined with `/`.
fn key(path: &Path) -> io::Result<Key> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::RootDir | Component::CurDir => {}
            Component::Normal(name) => match name.to_str() {
                Some(name) => parts.push(PathPart::from(name.to_owned())),
                None => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!(
                            "{} is not valid UTF-8, expected an object key",
                            path.display()
                        ),
                    ));
                }
            },
            Component::ParentDir | Component::Prefix(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{} has a `..` or a drive, expected a path inside the store",
                        path.display()
                    ),
                ));
            }
        }
    }
    Ok(Key::from_iter(parts))
}

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
            runtime: Arc::new(runtime),
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
        use futures::StreamExt as _;
        bump(&self.counters.get);
        self.runtime.block_on(async {
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
                    // More than the answer said: stop reading (the rest of
                    // the body is dropped with the stream).
                    break;
                }
            }
            Ok(Ok((bytes, meta)))
        })
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

    /// Puts everything `reader` yields at `key` in a multipart upload of
    /// [`PART_BYTES`] parts, at most [`PARTS_IN_FLIGHT`] at once (so at
    /// most that many parts are in memory); aborted on an error.
    fn upload(&self, key: &Key, reader: &mut dyn Read) -> io::Result<()> {
        let parts = AtomicU64::new(0);
        let result = self.runtime.block_on(async {
            let upload = self.store.put_multipart(key).await.map_err(io_error)?;
            let mut writer = WriteMultipart::new_with_chunk_size(upload, PART_BYTES);
            let mut buffer = vec![0u8; nenjim_journal_store::BUFFER_BYTES];
            loop {
                let n = match reader.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        let _ = writer.abort().await;
                        return Err(e);
                    }
                };
                if let Err(e) = writer.wait_for_capacity(PARTS_IN_FLIGHT).await {
                    let _ = writer.abort().await;
                    return Err(io_error(e));
                }
                writer.write(buffer.get(..n).unwrap_or_default());
                parts.fetch_add(n as u64, Ordering::Relaxed);
            }
            writer.finish().await.map(|_| ()).map_err(io_error)
        });
        // The initiation, each part, the completion.
        let bytes = parts.load(Ordering::Relaxed);
        self.counters.put.fetch_add(
            bytes.div_ceil(PART_BYTES as u64).max(1) + 2,
            Ordering::Relaxed,
        );
        result
    }

    /// Creates `key` with `bytes` if absent; a refusal or a lost answer is
    /// settled by reading the object back: `Ok(true)` if it now holds
    /// exactly `bytes` (this call's object, whose answer was lost, or the
    /// same bytes put before), `Ok(false)` if it holds others.
    fn create_settled(&self, key: &Key, bytes: &[u8]) -> io::Result<bool> {
        match self.put(key, bytes, PutMode::Create) {
            Ok(()) => Ok(true),
            Err(error) => match self.get_if_exists(key)? {
                Some(found) => Ok(found == bytes),
                // Nothing there: the create failed (a refusal without an
                // object is a store that lies: report it as it came).
                None => Err(io_error(error)),
            },
        }
    }

    /// Reads ahead the listings of the sub-directories `dirs` of `path`
    /// (key `prefix`) with one recursive, paged listing instead of one
    /// listing each: a walk of a root (the loader's second level) then costs
    /// a LIST per thousand objects, not one per artifact. The listing
    /// starts after the names `.` to `.z` (the ledger's `.ledger/`, whose
    /// entries a walk never lists): those sub-directories are listed when
    /// asked for. Each read-ahead listing is handed out once, and a later
    /// listing of `path` reads them again.
    fn prefetch(&self, path: &Path, prefix: &Key, dirs: &[String]) -> io::Result<()> {
        let depth = prefix.parts().count();
        let offset = prefix.clone().join(".z");
        let mut children: BTreeMap<String, BTreeSet<(String, bool)>> = dirs
            .iter()
            .filter(|d| d.as_str() > ".z")
            .map(|d| (d.clone(), BTreeSet::new()))
            .collect();
        let objects: Vec<object_store::ObjectMeta> = self
            .runtime
            .block_on(async {
                let mut stream = self.store.list_with_offset(Some(prefix), &offset);
                let mut objects = Vec::new();
                while let Some(object) = stream.try_next().await? {
                    objects.push(object);
                }
                Ok::<_, object_store::Error>(objects)
            })
            .map_err(io_error)?;
        // A listing page holds at most 1 000 keys (S3's, GCS's and Azure's limit).
        self.counters.list.fetch_add(
            (objects.len() as u64).div_ceil(1000).max(1),
            Ordering::Relaxed,
        );
        for object in objects {
            let parts: Vec<PathPart<'_>> = object.location.parts().skip(depth).collect();
            if let (Some(dir), Some(name)) = (parts.first(), parts.get(1))
                && let Some(entries) = children.get_mut(dir.as_ref())
            {
                entries.insert((name.as_ref().to_owned(), parts.len() > 2));
            }
        }
        let mut listings = self
            .listings
            .lock()
            .map_err(|_| io::Error::other("a listing thread panicked"))?;
        for (dir, entries) in children {
            let listing = entries
                .into_iter()
                .map(|(name, is_dir)| {
                    let kind = if is_dir {
                        EntryKind::Directory
                    } else {
                        EntryKind::File
                    };
                    (OsString::from(name), Some(kind))
                })
                .collect();
            listings.insert(path.join(dir), listing);
        }
        Ok(())
    }

    /// Makes the directory `dir` exist: puts an empty [`KEEP`] object in
    /// it unless this store knows it has one (an empty root then exists).
    pub fn ensure_dir(&self, dir: &Path) -> io::Result<()> {
        if self.dirs.lock().is_ok_and(|d| d.contains(dir)) {
            return Ok(());
        }
        let keep = key(&dir.join(KEEP))?;
        match self.put(&keep, b"", PutMode::Create) {
            Ok(()) => {}
            Err(e) if refused(&e) => {}
            Err(e) => return Err(io_error(e)),
        }
        if let Ok(mut dirs) = self.dirs.lock() {
            dirs.insert(dir.to_path_buf());
        }
        Ok(())
    }

    fn list_dir(&self, prefix: &Key) -> io::Result<object_store::ListResult> {
        bump(&self.counters.list);
        let prefix = (!prefix.as_ref().is_empty()).then_some(prefix);
        self.runtime
            .block_on(self.store.list_with_delimiter(prefix))
            .map_err(io_error)
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
        // Listed already by the prefetch of its parent's listing: used once.
        if let Some(listing) = self.listings.lock().ok().and_then(|mut l| l.remove(path)) {
            return Ok(listing);
        }
        let prefix = key(path)?;
        let listed = self.list_dir(&prefix)?;
        let dirs: Vec<String> = listed
            .common_prefixes
            .iter()
            .filter_map(|p| p.filename().map(str::to_owned))
            .collect();
        let files = listed.objects.iter().filter_map(|o| {
            o.location
                .filename()
                .map(|n| (OsString::from(n), Some(EntryKind::File)))
        });
        let listing: Listing = dirs
            .iter()
            .map(|n| (OsString::from(n), Some(EntryKind::Directory)))
            .chain(files)
            .collect();
        if dirs.len() > 1 {
            self.prefetch(path, &prefix, &dirs)?;
        }
        Ok(listing)
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        self.get_bounded(&key(path)?, limit)
            .map_err(io_error)?
            .map(|(bytes, _)| bytes)
    }

    fn read_record(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.get(&key(path)?)
            .map(|(bytes, _)| bytes)
            .map_err(io_error)
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
        let listed = self.list_dir(&key(dir)?)?;
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
                None if refused(&error) => Err(io::Error::other(format!(
                    "the store refused to create {key} but holds no such object: {error}"
                ))),
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
        let mut spool = tempfile::SpooledTempFile::new(SPOOL_IN_MEMORY);
        let pointer = nenjim_journal_store::measure(reader, &mut spool)?;
        spool.seek(SeekFrom::Start(0))?;
        let path = dir.join(pointer.digest().to_hex());
        if pointer.size() <= self.single_put_max {
            let mut bytes = Vec::with_capacity(usize::try_from(pointer.size()).unwrap_or(0));
            spool.read_to_end(&mut bytes)?;
            return Ok((self.put_if_absent(&path, &bytes)?, pointer));
        }
        let key = key(&path)?;
        if self.exists(&key)? {
            return Ok((Created::Exists, pointer));
        }
        self.upload(&key, &mut spool)?;
        Ok((Created::New, pointer))
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
                    Ok(Some(version_of(&meta.e_tag, &meta.version)))
                }
                Ok(_) => Ok(None),
                Err(object_store::Error::NotFound { .. }) if refused(&error) => Ok(None),
                Err(object_store::Error::NotFound { .. }) => Err(io_error(error)),
                Err(e) => Err(io_error(e)),
            },
        }
    }

    fn open(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        let key = key(path)?;
        bump(&self.counters.get);
        let result = self
            .runtime
            .block_on(self.store.get(&key))
            .map_err(io_error)?;
        Ok(Box::new(ObjectReader {
            runtime: self.runtime.clone(),
            stream: futures::StreamExt::boxed(result.into_stream().map_ok(|chunk| chunk.to_vec())),
            chunk: Vec::new(),
            at: 0,
        }))
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

/// An object's bytes as they arrive ([`BlobStore::open`]): one chunk of the
/// answer in memory at a time.
struct ObjectReader {
    runtime: Arc<tokio::runtime::Runtime>,
    stream: BoxStream<'static, object_store::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    /// How much of `chunk` was read.
    at: usize,
}

impl Read for ObjectReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use futures::StreamExt as _;
        while self.at == self.chunk.len() {
            match self.runtime.block_on(self.stream.next()) {
                None => return Ok(0),
                Some(Ok(chunk)) => {
                    self.chunk = chunk;
                    self.at = 0;
                }
                Some(Err(e)) => return Err(io_error(e)),
            }
        }
        let rest = self.chunk.get(self.at..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        if let (Some(to), Some(from)) = (buf.get_mut(..n), rest.get(..n)) {
            to.copy_from_slice(from);
        }
        self.at += n;
        Ok(n)
    }
}
