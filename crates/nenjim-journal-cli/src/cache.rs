//! A read-through cache of a bucket root's revision files
//! (`--cache <dir>`; by default `$XDG_CACHE_HOME/nenjim-journal`, else
//! `$HOME/.cache/nenjim-journal`).
//!
//! A revision file a ledger records never changes and is named by its
//! record's SHA-256, so its copy is kept at `<dir>/sha256/<hex>` (shared by
//! every root: the same digest is the same bytes) and, once its SHA-256 is
//! checked again, used instead of a GET: a second `check` of an unchanged
//! bucket root reads its ledger and no revision file. A copy whose bytes do
//! not have its name's digest is removed and fetched again; a copy that
//! cannot be written only costs the next run a GET. The trade: a read
//! through the cache does not notice a recorded revision file changed or
//! deleted in the store after it was cached (it has the recorded bytes);
//! `--no-cache` reads every file from the store.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_store::{BlobStore as _, EntryKind, EntryMetadata, FileSystem, RealFileSystem};

/// The default cache directory, if the environment names a home for one.
pub fn default_dir() -> Option<PathBuf> {
    let from = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    from("XDG_CACHE_HOME")
        .or_else(|| from("HOME").map(|home| home.join(".cache")))
        .map(|dir| dir.join("nenjim-journal"))
}

/// A file system in front of a bucket's that answers recorded revision
/// files from the cache directory.
#[derive(Debug)]
pub struct Cached {
    inner: Arc<dyn FileSystem>,
    dir: PathBuf,
}

impl Cached {
    /// `inner` read through the cache at `dir`.
    pub fn new(inner: Arc<dyn FileSystem>, dir: PathBuf) -> Cached {
        Cached { inner, dir }
    }

    fn copy_path(&self, digest: &RevisionDigest) -> PathBuf {
        let text = digest.to_string();
        let hex = text.strip_prefix("sha256:").unwrap_or(&text);
        self.dir.join("sha256").join(hex)
    }
}

impl FileSystem for Cached {
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.inner.metadata(path)
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.inner.symlink_metadata(path)
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        self.inner.read_dir(path)
    }

    fn read_dir_with_kinds(&self, path: &Path) -> io::Result<Vec<(OsString, Option<EntryKind>)>> {
        self.inner.read_dir_with_kinds(path)
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        self.inner.read(path, limit)
    }

    fn read_record(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.inner.read_record(path)
    }

    fn read_records(&self, paths: &[PathBuf]) -> Vec<io::Result<Vec<u8>>> {
        self.inner.read_records(paths)
    }

    fn read_recorded(
        &self,
        path: &Path,
        limit: u64,
        digest: &RevisionDigest,
    ) -> io::Result<Vec<u8>> {
        let copy = self.copy_path(digest);
        if let Ok(bytes) = RealFileSystem.read(&copy, limit) {
            if RevisionDigest::of_bytes(&bytes) == *digest {
                return Ok(bytes);
            }
            // Not the bytes its name says: never trusted, fetched again.
            let _ = std::fs::remove_file(&copy);
        }
        let bytes = self.inner.read_recorded(path, limit, digest)?;
        if bytes.len() as u64 <= limit && RevisionDigest::of_bytes(&bytes) == *digest {
            let _ = RealFileSystem.put_if_absent(&copy, &bytes);
        }
        Ok(bytes)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)] // a test fails by panicking
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use nenjim_journal_api::append::JournalWriter as _;
    use nenjim_journal_objstore::ObjectFs;
    use nenjim_journal_ref::{JournalAssembly, LoadOptions};
    use nenjim_journal_testkit::texts::bare_genesis;
    use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

    use super::Cached;

    /// A bucket root of `revisions` revisions (a ledger segment every 100
    /// entries), and the GETs of a first and
    /// a second start through the cache at `dir` (a `check` loads so).
    fn gets_of_two_starts(revisions: usize, dir: &Path) -> (u64, u64) {
        let bucket = Arc::new(ObjectFs::memory().unwrap());
        let root = Path::new("/j");
        bucket.ensure_dir(root).unwrap();
        let mut writer = FsJournalWriter::open_store(
            bucket.clone(),
            root,
            WriterOptions::new().segment_span(100),
        )
        .unwrap();
        for i in 0..revisions {
            let text = bare_genesis(&format!("a{i:05}"), "20260101T000000Z");
            writer.append(&text).unwrap();
        }
        writer.close().unwrap();
        let mut gets = Vec::new();
        for _ in 0..2 {
            let reader =
                Arc::new(ObjectFs::new(bucket.object_store().clone(), "memory://").unwrap());
            let cached = Arc::new(Cached::new(reader.clone(), dir.to_path_buf()));
            let assembly = JournalAssembly::with_file_system(root, LoadOptions::new(), cached);
            assembly.process().start().unwrap();
            assert_eq!(assembly.service().coordinates().unwrap().len(), revisions);
            gets.push(reader.requests().get);
        }
        (gets[0], gets[1])
    }

    /// A second start of an unchanged bucket root reads its ledger and no
    /// revision file: exactly the first start's GETs less one per revision,
    /// which for 300 revisions in three segments is a handful (the marker,
    /// the segments, the absent next entry).
    #[test]
    fn a_second_start_of_an_unchanged_bucket_root_reads_no_revision_file() {
        for revisions in [20, 300] {
            let dir = tempfile::tempdir().unwrap();
            let (first, second) = gets_of_two_starts(revisions, dir.path());
            assert_eq!(
                second,
                first - revisions as u64,
                "{revisions}: {first} then {second}"
            );
            if revisions == 300 {
                assert!(second <= 6, "{second}");
            }
        }
    }

    /// A cached copy whose bytes are not its digest's is never used: it is
    /// fetched again, and the copy replaced.
    #[test]
    fn a_damaged_copy_is_fetched_again() {
        let dir = tempfile::tempdir().unwrap();
        let (first, _) = gets_of_two_starts(3, dir.path());
        let copies = dir.path().join("sha256");
        let names: Vec<_> = std::fs::read_dir(&copies)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(names.len(), 3);
        for name in &names {
            std::fs::write(name, b"damaged").unwrap();
        }
        // A new bucket with the same texts: every copy is refused and
        // fetched (as many GETs as the first start), then good again.
        let (again, second) = gets_of_two_starts(3, dir.path());
        assert_eq!(again, first);
        assert!(second < first, "{second} {first}");
        for name in &names {
            assert_ne!(std::fs::read(name).unwrap(), b"damaged");
        }
    }
}
