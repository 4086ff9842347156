//! The writer's door to a root: the [`Store`] trait, the writable side of
//! [`FileSystem`].
//!
//! The loader reads through [`FileSystem`] alone; the writer (the
//! `nenjim-journal-writer` crate) goes through a [`Store`], which adds the
//! few writes the append path makes, each a conditional one:
//!
//! - [`create`](Store::create): a new file (a revision, a blob, a segment,
//!   the ledger marker) that is durable before it has its name, never
//!   replacing one (create-if-absent);
//! - [`create_by_digest`](Store::create_by_digest): the same for a file
//!   named by the SHA-256 of its bytes (a blob of a content store), streamed
//!   from a reader: its name is known only once it has been read;
//! - [`create_entry`](Store::create_entry): a ledger entry, created only if
//!   absent, carrying its record (read back with
//!   [`FileSystem::read_record`]);
//! - [`read_versioned`](Store::read_versioned) and
//!   [`replace_if_unchanged`](Store::replace_if_unchanged): the lease,
//!   replaced only if nobody changed it since it was read.
//!
//! [`RealFileSystem`] is the local implementation, the embedded default: a
//! file is written to a temporary file in a scratch directory, synced, and
//! hard-linked to its name (a link never replaces a name); an entry is a
//! symbolic link whose target is its record; replace-if-unchanged holds an
//! exclusive `flock` on `<path>.lock` while it compares and renames. An
//! object store (the `nenjim-journal-objstore` crate) has conditional puts
//! for all three.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

use nenjim_journal_api::valuetypes::{ContentPointer, RevisionDigest};

use crate::durable;
use crate::file_system::{FileSystem, RealFileSystem};

pub use crate::durable::Created;

/// The version of a stored object as [`Store::read_versioned`] saw it: an
/// opaque token that [`Store::replace_if_unchanged`] compares.
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

/// Read-write access to a root: everything the writer does goes through it.
///
/// Errors are [`io::Error`]s with the kinds of the local file system:
/// `NotFound`, `AlreadyExists` (a create over an existing name), and others
/// for everything that failed. `scratch` arguments name a directory on the
/// same file system for temporary copies (the local store's); a store that
/// writes atomically ignores them.
pub trait Store: FileSystem {
    /// Creates `path` holding `bytes`, durably, unless something already has
    /// that name (then nothing is written: [`Created::Exists`]).
    fn create(&self, path: &Path, bytes: &[u8], scratch: &Path) -> io::Result<Created>;

    /// Creates `<dir>/<hex>` (the 64 hex digits of the SHA-256 of everything
    /// `reader` yields), durably, unless something already has that name
    /// (then nothing is written: [`Created::Exists`]; the caller compares).
    /// The bytes are streamed, never held whole in memory by the local file
    /// system; returns their size and SHA-256.
    fn create_by_digest(
        &self,
        dir: &Path,
        reader: &mut dyn Read,
        scratch: &Path,
    ) -> io::Result<(Created, ContentPointer)>;

    /// Creates the ledger entry `path` recording `record`, durably; fails
    /// with `AlreadyExists` if the entry exists (another writer committed
    /// first), leaving it as it is.
    fn create_entry(&self, path: &Path, record: &str) -> io::Result<()>;

    /// The bytes of `path` and their version, or `None` if there is no such file.
    fn read_versioned(&self, path: &Path) -> io::Result<Option<(Vec<u8>, Version)>>;

    /// Replaces `path` with `bytes` if it is still at `expected` (`None`:
    /// if it is still absent). `Ok(false)` when it changed in between
    /// (nothing written).
    fn replace_if_unchanged(
        &self,
        path: &Path,
        bytes: &[u8],
        expected: Option<&Version>,
        scratch: &Path,
    ) -> io::Result<bool>;

    /// Streams the bytes of the file `path` (a blob, which may be large).
    fn open(&self, path: &Path) -> io::Result<Box<dyn Read + Send>>;

    /// Creates the directory `dir` if it is missing (a store without
    /// directories has nothing to do).
    fn ensure_dir(&self, dir: &Path) -> io::Result<()>;

    /// Makes the existing file `path` durable (a file placed by hand).
    fn sync(&self, path: &Path) -> io::Result<()>;

    /// Removes `dir` and everything below it; a missing `dir` is no error.
    fn remove_all(&self, dir: &Path) -> io::Result<()>;

    /// Removes the temporary files a writer left in `dir` (names beginning
    /// with `.tmp-`); a missing `dir` has none.
    fn remove_temporaries(&self, dir: &Path) -> io::Result<()>;

    /// Proves that the store refuses a create over an existing name (some
    /// object stores and emulators ignore the precondition: a writer must
    /// not trust them), using the scratch file `probe`. The local file
    /// system always refuses.
    fn check_conditional_writes(&self, probe: &Path, scratch: &Path) -> io::Result<()> {
        let _ = (probe, scratch);
        Ok(())
    }

    /// Where this store's root paths live, for messages: empty for the
    /// local file system, `s3://bucket` and the like for an object store.
    fn location(&self) -> String {
        String::new()
    }
}

impl Store for RealFileSystem {
    fn create(&self, path: &Path, bytes: &[u8], scratch: &Path) -> io::Result<Created> {
        durable::create_file(scratch, path, bytes)
    }

    fn create_by_digest(
        &self,
        dir: &Path,
        reader: &mut dyn Read,
        scratch: &Path,
    ) -> io::Result<(Created, ContentPointer)> {
        durable::create_by_digest(scratch, dir, reader)
    }

    fn create_entry(&self, path: &Path, record: &str) -> io::Result<()> {
        durable::create_entry(path, record)
    }

    fn read_versioned(&self, path: &Path) -> io::Result<Option<(Vec<u8>, Version)>> {
        Ok(durable::read_if_exists(path)?.map(|bytes| {
            let version = Version::new(RevisionDigest::of_bytes(&bytes).to_string());
            (bytes, version)
        }))
    }

    fn replace_if_unchanged(
        &self,
        path: &Path,
        bytes: &[u8],
        expected: Option<&Version>,
        scratch: &Path,
    ) -> io::Result<bool> {
        // The local file system has no conditional rename: the comparison
        // and the replacement happen under an exclusive lock on `<path>.lock`.
        let mut lock_path = path.as_os_str().to_owned();
        lock_path.push(".lock");
        let lock = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)?;
        lock.lock()?;
        let current = self.read_versioned(path)?.map(|(_, v)| v);
        if current.as_ref() != expected {
            return Ok(false);
        }
        durable::replace_file(scratch, path, bytes)?;
        Ok(true)
    }

    fn open(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        Ok(Box::new(std::fs::File::open(path)?))
    }

    fn ensure_dir(&self, dir: &Path) -> io::Result<()> {
        durable::ensure_dir(dir)
    }

    fn sync(&self, path: &Path) -> io::Result<()> {
        std::fs::File::open(path).and_then(|f| f.sync_all())
    }

    fn remove_all(&self, dir: &Path) -> io::Result<()> {
        match std::fs::remove_dir_all(dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }

    fn remove_temporaries(&self, dir: &Path) -> io::Result<()> {
        durable::remove_temporaries(dir)
    }
}
