//! Hostile roots, through the `FileSystem` trait: a file over the size
//! limit (refused without being read whole), a 10 MiB line, 100 000
//! releases in one revision, and a million artifact directories.
//!
//! Sizes are chosen to run in seconds in a debug build. The full-size
//! variants that are slower in debug run when `NENJIM_HARDENING_FULL=1` is
//! set (see `fuzz/README.md`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::valuetypes::ContentDigest;
use nenjim_journal_fs::{
    EntryKind, EntryMetadata, FileSystem, LoadOptions, MAX_FILE_LEN, RealFileSystem, load_with,
};
use nenjim_journal_testkit::memory_fs::MemoryFs;
use nenjim_journal_testkit::texts::{genesis, ts};

fn full() -> bool {
    std::env::var_os("NENJIM_HARDENING_FULL").is_some_and(|v| v == "1")
}

fn root() -> PathBuf {
    PathBuf::from("/hostile")
}

fn revision_path(coordinate: &str, k: u32) -> PathBuf {
    root().join(coordinate).join(format!("{}.journal", ts(k)))
}

#[test]
fn a_file_one_byte_over_64_mib_is_too_large_and_never_read() {
    let fs = MemoryFs::with_root(&root());
    let path = revision_path("big", 1);
    fs.put(
        &path,
        vec![b'#'; usize::try_from(MAX_FILE_LEN).unwrap() + 1],
    );
    let error = load_with(&fs, &root(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TooLarge, "{error}");
    assert_eq!(error.path(), Some(path.as_path()));
    assert!(error.message().contains("67108865"), "{}", error.message());
    assert_eq!(fs.bytes_returned(), 0, "the listed size alone refuses it");
}

/// A file system whose listing says a file is small while it holds more
/// than the limit (it grew after the listing): the read limit is the guard.
#[derive(Debug)]
struct Grows(MemoryFs);

impl FileSystem for Grows {
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.0.metadata(path)
    }
    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        let real = self.0.symlink_metadata(path)?;
        Ok(match real.kind() {
            EntryKind::File => EntryMetadata::new(EntryKind::File, 10),
            _ => real,
        })
    }
    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        self.0.read_dir(path)
    }
    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        self.0.read(path, limit)
    }
}

#[test]
fn a_file_that_grew_past_the_limit_is_read_only_up_to_the_limit() {
    let fs = Grows(MemoryFs::with_root(&root()));
    let path = revision_path("big", 1);
    let size = usize::try_from(MAX_FILE_LEN).unwrap() + 4096;
    fs.0.put(&path, vec![b'#'; size]);
    let error = load_with(&fs, &root(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TooLarge, "{error}");
    assert_eq!(error.path(), Some(path.as_path()));
    assert_eq!(
        fs.0.max_limit(),
        MAX_FILE_LEN,
        "the loader asks for at most the limit"
    );
    assert_eq!(
        fs.0.bytes_returned(),
        MAX_FILE_LEN + 1,
        "limit + 1 bytes, not the whole file"
    );
}

#[test]
fn the_real_file_system_refuses_a_file_over_the_limit_before_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    let artifact = dir.path().join("big");
    std::fs::create_dir(&artifact).unwrap();
    let path = artifact.join(format!("{}.journal", ts(1)));
    // Sparse: 64 MiB + 1 byte of apparent size, nothing written.
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_FILE_LEN + 1).unwrap();
    drop(file);
    // Its metadata says it is over the limit: refused without reading.
    let refused = RealFileSystem.read(&path, 1000).unwrap_err();
    assert_eq!(
        refused.kind(),
        std::io::ErrorKind::FileTooLarge,
        "{refused}"
    );
    assert_eq!(
        RealFileSystem.read(&path, MAX_FILE_LEN + 1).unwrap().len() as u64,
        MAX_FILE_LEN + 1
    );
    let error = nenjim_journal_fs::load(dir.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TooLarge, "{error}");
    assert_eq!(error.path(), Some(path.as_path()));
}

#[test]
fn a_file_of_one_ten_mib_line_is_a_clear_error() {
    let fs = MemoryFs::with_root(&root());
    let path = revision_path("long", 1);
    fs.put(&path, vec![b'x'; 10 * 1024 * 1024]);
    let error = load_with(&fs, &root(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Syntax, "{error}");
    assert_eq!(error.path(), Some(path.as_path()));
    assert_eq!((error.line(), error.column()), (Some(1), Some(1)));
    assert!(
        error.to_string().len() < 1024,
        "the message quotes the line"
    );
}

/// A revision with `n` releases 0.0.1, 0.0.2 … (ascending).
fn many_releases(coordinate: &str, n: usize) -> String {
    let mut text = genesis(coordinate, &ts(1), &[]);
    for i in 1..=n {
        let content = ContentDigest::of_bytes(&i.to_le_bytes());
        let _ = writeln!(
            text,
            "RELEASE {}.{}.{}\n  LICENSE MIT\n  CONTENT {content} {i}",
            i / 1_000_000,
            (i / 1000) % 1000,
            i % 1000
        );
    }
    text
}

#[test]
fn a_revision_with_100k_releases_loads() {
    let n = if full() { 100_000 } else { 30_000 };
    let fs = MemoryFs::with_root(&root());
    fs.put(&revision_path("wide", 1), many_releases("wide", n));
    let state = load_with(&fs, &root(), LoadOptions::new()).unwrap();
    let latest = state.latest(&"wide".parse().unwrap()).unwrap();
    assert_eq!(latest.releases().len(), n);
    let last = latest.releases().last().unwrap();
    assert_eq!(last.content().size(), n as u64);
    assert!(
        latest
            .releases()
            .windows(2)
            .all(|w| w[0].version() < w[1].version())
    );
}

/// A synthetic root of `n` artifact directories `a0000000`, `a0000001` …,
/// each empty or holding one genesis revision; nothing is stored per
/// artifact, so memory stays bounded by the listing itself.
#[derive(Debug)]
struct ManyArtifacts {
    n: usize,
    with_file: bool,
    reads: AtomicU64,
}

impl ManyArtifacts {
    fn name(i: usize) -> String {
        format!("a{i:07}")
    }

    /// The artifact a path below the root concerns, and whether it is its file.
    fn locate(&self, path: &Path) -> io::Result<(String, bool)> {
        let relative = path.strip_prefix(root()).map_err(|_| not_found())?;
        let mut parts = relative.iter();
        let artifact = parts
            .next()
            .ok_or_else(not_found)?
            .to_string_lossy()
            .into_owned();
        let file = parts.next();
        let index: usize = artifact
            .get(1..)
            .and_then(|s| s.parse().ok())
            .ok_or_else(not_found)?;
        if index >= self.n || parts.next().is_some() {
            return Err(not_found());
        }
        match file {
            None => Ok((artifact, false)),
            Some(name)
                if self.with_file
                    && name == OsString::from(format!("{}.journal", ts(1))).as_os_str() =>
            {
                Ok((artifact, true))
            }
            Some(_) => Err(not_found()),
        }
    }
}

fn not_found() -> io::Error {
    io::Error::from(io::ErrorKind::NotFound)
}

impl FileSystem for ManyArtifacts {
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.symlink_metadata(path)
    }
    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        if path == root() {
            return Ok(EntryMetadata::new(EntryKind::Directory, 0));
        }
        match self.locate(path)? {
            (_, false) => Ok(EntryMetadata::new(EntryKind::Directory, 0)),
            (artifact, true) => Ok(EntryMetadata::new(
                EntryKind::File,
                genesis(&artifact, &ts(1), &[]).len() as u64,
            )),
        }
    }
    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        if path == root() {
            return Ok((0..self.n).map(|i| Self::name(i).into()).collect());
        }
        match self.locate(path)? {
            (_, false) if self.with_file => Ok(vec![format!("{}.journal", ts(1)).into()]),
            (_, false) => Ok(Vec::new()),
            (_, true) => Err(io::Error::from(io::ErrorKind::NotADirectory)),
        }
    }
    fn read(&self, path: &Path, _limit: u64) -> io::Result<Vec<u8>> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        match self.locate(path)? {
            (artifact, true) => Ok(genesis(&artifact, &ts(1), &[]).into_bytes()),
            (_, false) => Err(io::Error::from(io::ErrorKind::IsADirectory)),
        }
    }
}

#[test]
fn a_million_empty_artifact_directories_load_as_empty() {
    let n = if full() { 1_000_000 } else { 200_000 };
    let fs = ManyArtifacts {
        n,
        with_file: false,
        reads: AtomicU64::new(0),
    };
    let state = load_with(&fs, &root(), LoadOptions::new()).unwrap();
    assert!(state.is_empty());
    assert_eq!(fs.reads.load(Ordering::SeqCst), 0);
}

#[test]
fn many_artifact_directories_with_one_revision_each_load() {
    let n = if full() { 100_000 } else { 10_000 };
    let fs = ManyArtifacts {
        n,
        with_file: true,
        reads: AtomicU64::new(0),
    };
    let state = load_with(&fs, &root(), LoadOptions::new()).unwrap();
    assert_eq!(state.len(), n as u64);
    assert_eq!(state.coordinates().len(), n);
    assert_eq!(fs.reads.load(Ordering::SeqCst), n as u64);
    let last = ManyArtifacts::name(n - 1).parse().unwrap();
    assert_eq!(state.latest(&last).unwrap().sequence(), n as u64);
}
