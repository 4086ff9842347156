//! The write side of a root: the [`BlobStore`] trait, the objects the append
//! path creates (revision files, segments, the ledger marker, blobs of a
//! content store, the lease), each by a conditional write.
//!
//! - [`get`](BlobStore::get): an object's bytes and version, never more
//!   than `limit + 1` bytes read from any backend;
//! - [`list`](BlobStore::list): the names under a directory (a key prefix);
//! - [`put_if_absent`](BlobStore::put_if_absent): a new object, durable
//!   before it has its name, never replacing one;
//! - [`put_by_digest`](BlobStore::put_by_digest): the same for an object
//!   named by the SHA-256 of its bytes, streamed (its name is known only
//!   once it has been read);
//! - [`put_record`](BlobStore::put_record): a ledger entry carrying its
//!   record, created only if absent (read back with
//!   [`FileSystem::read_record`]);
//! - [`put_many_if_absent`](BlobStore::put_many_if_absent) and
//!   [`put_records`](BlobStore::put_records): the same for a batch (group
//!   commit), with one durability barrier for the whole batch where the
//!   backend can (the defaults call the one-object forms in turn);
//! - [`replace_if_unchanged`](BlobStore::replace_if_unchanged): the lease,
//!   replaced only if nobody changed it since it was read, returning its
//!   new version.
//!
//! No signature names a scratch path, a directory sync or a temporary file:
//! a local implementation owns them (see [`crate::local`]: temporary files
//! beside their target, synced, hard-linked; directories created and synced
//! as needed), an object store has none.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

use nenjim_journal_api::valuetypes::ContentPointer;

use crate::file_system::FileSystem;

/// The version of a stored object as [`BlobStore::get`] saw it: an opaque
/// token that [`BlobStore::replace_if_unchanged`] compares.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Version(String);

impl Version {
    /// A version from its implementation's token (an ETag, a digest …).
    pub fn new(token: impl Into<String>) -> Version {
        Version(token.into())
    }
    /// The token.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether a create-if-absent ([`BlobStore::put_if_absent`]) created the
/// object or found one there already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Created {
    /// The object is new, with the given bytes, durably.
    New,
    /// An object already had that name; nothing was written.
    Exists,
}

/// Conditional writes to a root (or a content store): everything the
/// writer writes goes through one.
///
/// Errors are [`io::Error`]s with the kinds of the local file system:
/// `NotFound`, `AlreadyExists` (a create over an existing name),
/// `FileTooLarge` (a read over its limit), and others for everything that
/// failed. Missing parent directories are the implementation's business.
pub trait BlobStore: Send + Sync + fmt::Debug {
    /// The bytes of `path` and their version, or `None` if there is no such
    /// object. Never reads more than `limit + 1` bytes: an object over
    /// `limit` is refused with `FileTooLarge`.
    fn get(&self, path: &Path, limit: u64) -> io::Result<Option<(Vec<u8>, Version)>>;

    /// The names of the objects and sub-directories directly under `dir`,
    /// in any order, hidden names (`.keep`, temporaries) excluded; a missing
    /// `dir` has none.
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;

    /// Creates `path` holding `bytes`, durably, unless something already has
    /// that name (then nothing is written: [`Created::Exists`]).
    fn put_if_absent(&self, path: &Path, bytes: &[u8]) -> io::Result<Created>;

    /// Creates `<dir>/<hex>` (the 64 hex digits of the SHA-256 of everything
    /// `reader` yields), durably, unless something already has that name
    /// (then nothing is written: [`Created::Exists`]; the caller compares).
    /// The bytes are streamed, never held whole in memory by the local file
    /// system; returns their size and SHA-256.
    fn put_by_digest(
        &self,
        dir: &Path,
        reader: &mut dyn Read,
    ) -> io::Result<(Created, ContentPointer)>;

    /// Creates the ledger entry `path` recording `record`, durably; fails
    /// with `AlreadyExists` if the entry exists (another writer committed
    /// first), leaving it as it is.
    fn put_record(&self, path: &Path, record: &str) -> io::Result<()>;

    /// [`put_if_absent`](Self::put_if_absent) of each `(path, bytes)`, in
    /// one batch: every object is durable when this returns, and the
    /// result says, in order, which were created and which found there.
    /// A failure leaves some of them created (harmless: a revision file
    /// without its ledger entry is never loaded) and says which failed in
    /// its message. The default creates them one by one; the local file
    /// system writes them all, then syncs them all, then links them all,
    /// then syncs each directory once (one durability barrier).
    fn put_many_if_absent(&self, objects: &[(&Path, &[u8])]) -> io::Result<Vec<Created>> {
        objects
            .iter()
            .map(|(path, bytes)| self.put_if_absent(path, bytes))
            .collect()
    }

    /// [`put_record`](Self::put_record) of each `(path, record)`, in order,
    /// stopping at the first that fails: returns how many were created
    /// (a prefix, durable when this returns) and the error that stopped
    /// the batch (`AlreadyExists` if another writer created that entry).
    /// A crash at any instant leaves a prefix of them, never a gap: they
    /// are created in order. The default creates and syncs them one by
    /// one; the local file system creates them all, then syncs their
    /// directory once.
    fn put_records(&self, records: &[(&Path, &str)]) -> (usize, io::Result<()>) {
        for (done, (path, record)) in records.iter().enumerate() {
            if let Err(e) = self.put_record(path, record) {
                return (done, Err(e));
            }
        }
        (records.len(), Ok(()))
    }

    /// Replaces `path` with `bytes` if it is still at `expected` (`None`:
    /// if it is still absent), returning its new version; `Ok(None)` when
    /// it changed in between (nothing written).
    fn replace_if_unchanged(
        &self,
        path: &Path,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> io::Result<Option<Version>>;

    /// Streams the bytes of `path` (a blob, which may be large).
    fn open(&self, path: &Path) -> io::Result<Box<dyn Read + Send>>;

    /// Removes `dir` and everything below it; a missing `dir` is no error
    /// (the leftovers of an interrupted ledger creation).
    fn remove_all(&self, dir: &Path) -> io::Result<()>;

    /// Makes the directory `dir` exist, empty if it is new (a ledger's
    /// `log/` before its first entry). The default, for a store whose
    /// directories are key prefixes (there once something is in them), has
    /// nothing to do.
    fn make_dir(&self, dir: &Path) -> io::Result<()> {
        let _ = dir;
        Ok(())
    }

    /// Proves that the store refuses a create over an existing name (some
    /// object stores and emulators ignore the precondition: a writer must
    /// not trust them), with a probe object at `probe`. The local file
    /// system always refuses.
    fn check_conditional_writes(&self, probe: &Path) -> io::Result<()> {
        let _ = probe;
        Ok(())
    }

    /// Where this store's paths live, for messages: empty for the local
    /// file system, `s3://bucket` and the like for an object store.
    fn location(&self) -> String {
        String::new()
    }
}

/// A root's whole store: what the loader reads ([`FileSystem`]) and what
/// the writer writes ([`BlobStore`]) in one object (a directory, a bucket).
pub trait Store: FileSystem + BlobStore {}

impl<T: FileSystem + BlobStore + ?Sized> Store for T {}

/// The size of the buffer a stream is copied through.
pub const BUFFER_BYTES: usize = 64 * 1024;

/// The size and SHA-256 of everything `reader` yields, read through a fixed
/// buffer (never whole in memory) and copied to `copy` on the way (pass
/// [`io::sink()`] to only measure): the one streaming hash of the
/// workspace (blobs, `digest`, `verify-content`).
pub fn measure(reader: &mut dyn Read, copy: &mut dyn io::Write) -> io::Result<ContentPointer> {
    use sha2::{Digest as _, Sha256};
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; BUFFER_BYTES];
    let mut size = 0u64;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = buffer.get(..n).unwrap_or_default();
        hasher.update(chunk);
        copy.write_all(chunk)?;
        size += n as u64;
    }
    Ok(ContentPointer::new(
        nenjim_journal_api::valuetypes::ContentDigest::from_bytes(hasher.finalize().into()),
        size,
    ))
}
