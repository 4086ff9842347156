//! A read-through cache of a bucket root's revision files and ledger
//! segments (`--cache <dir>`; by default `$XDG_CACHE_HOME/nenjim-journal`,
//! else `$HOME/.cache/nenjim-journal`).
//!
//! A revision file a ledger records never changes and is named by its
//! record's SHA-256, so its copy is kept at `<dir>/sha256/<hex>` (shared by
//! every root: the same digest is the same bytes) and, once its SHA-256 is
//! checked again, used instead of a GET. A ledger segment is created once
//! and never rewritten, and covers the entries up to the sequence in its
//! name, so its copy is kept at `<dir>/segments/<origin>/<name>`, where
//! `<origin>` is the SHA-256 of the store's URL, the endpoints the
//! environment names (`*ENDPOINT*` variables) and the root's path. A copy
//! is used only if it is what a segment of that name can be: UTF-8
//! records, one a line, of consecutive sequences from the one after the
//! previous listed segment's name to its own name's (its record count and
//! range), each record a valid one (the reader then checks them again, as
//! for any segment, and every revision file by its record's SHA-256). On every read the greatest listed segment that has a copy
//! is fetched again and compared with it (one GET): if they differ, the
//! root was replaced at its URL and every copy of its segments is dropped.
//! So a second `check` of an unchanged bucket root makes O(1) GETs
//! whatever its size: the marker, that one segment, the absent entry after
//! the last segment (and the entries after it), and no revision file.
//!
//! A copy whose bytes are not what its name says is removed and fetched
//! again; a copy that cannot be written only costs the next run a GET. The
//! trade: a read through the cache does not notice a recorded revision
//! file changed or deleted in the store after it was cached (it has the
//! recorded bytes), nor a segment other than the compared one rewritten in
//! place (the format never rewrites one); `--no-cache` reads every file
//! from the store.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_store::ledger::{
    Entry, LEDGER_DIR, LEDGER_FILE_MAX, SEGMENT_SUFFIX, SEGMENTS_DIR,
};
use nenjim_journal_store::{BlobStore as _, EntryKind, EntryMetadata, FileSystem, RealFileSystem};
use sha2::{Digest as _, Sha256};

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
    /// What names the store (its URL and the endpoints the environment
    /// gives), hashed with a root's path into its segments' directory.
    origin: String,
    /// The range (first and last sequence) of each segment listed this
    /// run, by path: a segment starts where the one before it ends.
    ranges: Mutex<HashMap<PathBuf, (u64, u64)>>,
}

impl Cached {
    /// `inner` read through the cache at `dir`; `origin` names the store
    /// (see [`origin`]).
    pub fn new(inner: Arc<dyn FileSystem>, dir: PathBuf, origin: String) -> Cached {
        Cached {
            inner,
            dir,
            origin,
            ranges: Mutex::new(HashMap::new()),
        }
    }

    fn copy_path(&self, digest: &RevisionDigest) -> PathBuf {
        let text = digest.to_string();
        let hex = text.strip_prefix("sha256:").unwrap_or(&text);
        self.dir.join("sha256").join(hex)
    }

    /// The directory of the copies of the segments of the root whose
    /// `segments/` directory is `segments`.
    fn segments_dir(&self, segments: &Path) -> PathBuf {
        let root = segments.parent().and_then(Path::parent).unwrap_or(segments);
        let mut hash = Sha256::new();
        hash.update(self.origin.as_bytes());
        hash.update(b"\n");
        hash.update(root.as_os_str().as_encoded_bytes());
        let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join("segments").join(hex)
    }

    /// The copy of the segment at `path`, if `path` is one's, and its
    /// range (its first sequence unknown unless its directory was listed).
    fn segment_copy(&self, path: &Path) -> Option<(PathBuf, (Option<u64>, u64))> {
        let segments = path.parent().filter(|p| is_segments_dir(p))?;
        let name = path.file_name()?;
        let last = segment_last(name.to_str()?)?;
        let first = self
            .ranges
            .lock()
            .ok()
            .and_then(|r| r.get(path).map(|(first, _)| *first));
        Some((self.segments_dir(segments).join(name), (first, last)))
    }

    /// The segment at `path` from the store, its copy written if it is
    /// what a segment of `range` can be.
    fn fetch_segment(
        &self,
        path: &Path,
        copy: &Path,
        range: (Option<u64>, u64),
        limit: u64,
    ) -> io::Result<Vec<u8>> {
        let bytes = self.inner.read(path, limit)?;
        if is_segment(&bytes, range) {
            if let Some(dir) = copy.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = std::fs::remove_file(copy);
            let _ = RealFileSystem.put_if_absent(copy, &bytes);
        }
        Ok(bytes)
    }

    /// After a listing of a root's segments: the greatest listed one that
    /// has a copy is fetched and compared with it; if they differ, every
    /// copy of the root's segments is dropped.
    fn compare_newest_copy(&self, segments: &Path, names: &[OsString]) {
        let mut listed: Vec<(u64, &OsString)> = names
            .iter()
            .filter_map(|n| Some((segment_last(n.to_str()?)?, n)))
            .collect();
        listed.sort_unstable();
        let mut first = 1;
        let mut ranges = Vec::with_capacity(listed.len());
        for (last, name) in &listed {
            ranges.push((segments.join(name), (first, *last)));
            first = last.saturating_add(1);
        }
        if let Ok(mut known) = self.ranges.lock() {
            known.extend(ranges.iter().cloned());
        }
        let dir = self.segments_dir(segments);
        let newest = ranges
            .iter()
            .rev()
            .find(|(path, _)| path.file_name().is_some_and(|n| dir.join(n).is_file()));
        let Some((path, (first, last))) = newest else {
            return;
        };
        let Some(copy) = path.file_name().map(|n| dir.join(n)) else {
            return;
        };
        let Ok(kept) = RealFileSystem.read(&copy, LEDGER_FILE_MAX) else {
            return;
        };
        match self.fetch_segment(path, &copy, (Some(*first), *last), LEDGER_FILE_MAX) {
            Ok(bytes) if bytes == kept => {}
            // Not the segment the copy was made of (or not one any more):
            // the root was replaced; nothing of it is kept.
            _ => {
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
    }
}

/// The name of the environment's endpoints and the store's URL: what
/// [`Cached`] keeps the copies of a store's segments apart by.
pub fn origin(location: &str) -> String {
    let mut endpoints: Vec<(String, String)> = std::env::vars()
        .filter(|(name, _)| name.contains("ENDPOINT"))
        .collect();
    endpoints.sort();
    let mut origin = location.to_owned();
    for (name, value) in endpoints {
        origin.push_str(&format!("\n{name}={value}"));
    }
    origin
}

/// Whether `dir` is a root's `.ledger/segments`.
fn is_segments_dir(dir: &Path) -> bool {
    dir.file_name().is_some_and(|n| n == SEGMENTS_DIR)
        && dir
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == LEDGER_DIR)
}

/// The last sequence a segment named `name` covers.
fn segment_last(name: &str) -> Option<u64> {
    name.strip_suffix(SEGMENT_SUFFIX)
        .filter(|n| n.len() == 20 && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse().ok())
}

/// Whether `bytes` can be the segment of `(first, last)`: UTF-8 records,
/// one a line, of consecutive sequences from `first` (when known) to
/// `last`.
fn is_segment(bytes: &[u8], (first, last): (Option<u64>, u64)) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    if !text.ends_with('\n') {
        return false;
    }
    let mut previous: Option<u64> = None;
    for line in text.lines() {
        let Ok(entry) = Entry::parse(line) else {
            return false;
        };
        let expected = match previous {
            Some(p) => p.checked_add(1),
            None => first,
        };
        if expected.is_some_and(|e| e != entry.sequence()) {
            return false;
        }
        previous = Some(entry.sequence());
    }
    previous == Some(last)
}

impl FileSystem for Cached {
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.inner.metadata(path)
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.inner.symlink_metadata(path)
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        let names = self.inner.read_dir(path)?;
        if is_segments_dir(path) {
            self.compare_newest_copy(path, &names);
        }
        Ok(names)
    }

    fn read_dir_with_kinds(&self, path: &Path) -> io::Result<Vec<(OsString, Option<EntryKind>)>> {
        let listed = self.inner.read_dir_with_kinds(path)?;
        if is_segments_dir(path) {
            let names: Vec<OsString> = listed.iter().map(|(n, _)| n.clone()).collect();
            self.compare_newest_copy(path, &names);
        }
        Ok(listed)
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        let Some((copy, range)) = self.segment_copy(path) else {
            return self.inner.read(path, limit);
        };
        if let Ok(bytes) = RealFileSystem.read(&copy, limit) {
            if bytes.len() as u64 <= limit && is_segment(&bytes, range) {
                return Ok(bytes);
            }
            // Not what a segment of its name can be: never trusted.
            let _ = std::fs::remove_file(&copy);
        }
        self.fetch_segment(path, &copy, range, limit)
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
        gets_of_two_starts_of(revisions, "a", dir)
    }

    /// [`gets_of_two_starts`], the artifacts named `<prefix><n>`.
    fn gets_of_two_starts_of(revisions: usize, prefix: &str, dir: &Path) -> (u64, u64) {
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
            let text = bare_genesis(&format!("{prefix}{i:05}"), "20260101T000000Z");
            writer.append(&text).unwrap();
        }
        writer.close().unwrap();
        let mut gets = Vec::new();
        for _ in 0..2 {
            let reader =
                Arc::new(ObjectFs::new(bucket.object_store().clone(), "memory://").unwrap());
            let cached = Arc::new(Cached::new(
                reader.clone(),
                dir.to_path_buf(),
                "memory://".to_owned(),
            ));
            let assembly = JournalAssembly::with_file_system(root, LoadOptions::new(), cached);
            assembly.process().start().unwrap();
            let coordinates = assembly.service().coordinates().unwrap();
            assert_eq!(coordinates.len(), revisions);
            assert!(
                coordinates.iter().all(|c| c.as_str().starts_with(prefix)),
                "{coordinates:?}"
            );
            gets.push(reader.requests().get);
        }
        (gets[0], gets[1])
    }

    /// A second start of an unchanged bucket root reads no revision file
    /// and one segment: the same few GETs (the marker, the compared
    /// segment, the absent entry after the last one) for 200 revisions in
    /// 2 segments as for 2 000 in 20.
    #[test]
    fn a_second_start_of_an_unchanged_bucket_root_costs_gets_independent_of_its_size() {
        let mut seconds = Vec::new();
        for revisions in [200, 2000] {
            let dir = tempfile::tempdir().unwrap();
            let (first, second) = gets_of_two_starts(revisions, dir.path());
            let segments = revisions as u64 / 100;
            // The first start: the marker, every segment, the absent entry,
            // every revision file.
            assert_eq!(first, 1 + segments + 1 + revisions as u64, "{revisions}");
            assert_eq!(second, 3, "{revisions}: {first} then {second}");
            seconds.push(second);
        }
        assert_eq!(seconds[0], seconds[1]);
    }

    /// A copy of a segment that is not what a segment of its name can be
    /// (here: a record missing) is never used: it is fetched again.
    #[test]
    fn a_damaged_segment_copy_is_fetched_again() {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = gets_of_two_starts(300, dir.path());
        assert_eq!(second, 3);
        let copies: Vec<_> = std::fs::read_dir(dir.path().join("segments"))
            .unwrap()
            .flat_map(|e| std::fs::read_dir(e.unwrap().path()).unwrap())
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(copies.len(), 3, "{copies:?}");
        let damaged: Vec<_> = copies
            .iter()
            .filter(|c| c.ends_with("00000000000000000100.segment"))
            .collect();
        assert_eq!(damaged.len(), 1, "{copies:?}");
        let text = std::fs::read_to_string(damaged[0]).unwrap();
        let (_, rest) = text.split_once('\n').unwrap();
        std::fs::write(damaged[0], rest).unwrap();
        // A new bucket with the same texts, every revision file cached: its
        // first start reads the marker, the compared newest segment (the
        // same), the damaged one again, and the absent entry.
        let (again, _) = gets_of_two_starts(300, dir.path());
        assert_eq!(again, 4, "{first}");
        assert_eq!(std::fs::read_to_string(damaged[0]).unwrap(), text);
    }

    /// A root replaced at its URL by another with as many segments (the
    /// same names) is noticed by the compared newest segment: every copy
    /// of its segments is dropped, and the new root is what loads.
    #[test]
    fn a_replaced_root_drops_its_segment_copies() {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = gets_of_two_starts_of(300, "a", dir.path());
        assert_eq!(second, 3);
        // Each start asserts every artifact is a `b…` one, none of the
        // cached `a…` ones.
        let (replaced, again) = gets_of_two_starts_of(300, "b", dir.path());
        // The marker, the compared segment, then every segment and
        // revision file of the new root, and the absent entry.
        assert_eq!(replaced, first + 1, "{first}");
        assert_eq!(again, 3);
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
