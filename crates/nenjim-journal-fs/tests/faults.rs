//! Faults injected through the `FileSystem` seam: what the real disk does
//! rarely (or not at all when the tests run as root).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::HashMap;
use std::error::Error as _;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use common::{Root, genesis, successor, ts};
use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::{
    EntryKind, EntryMetadata, FileSystem, LoadOptions, RealFileSystem, load_with, refresh_with,
};
use rstest::rstest;

/// What goes wrong, and at which call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// `metadata`/`symlink_metadata` of the path is denied.
    MetadataDenied,
    /// `read_dir` of the path is denied.
    ListingDenied,
    /// `read` of the path is denied.
    ReadDenied,
    /// The file disappears between listing and reading.
    VanishesBeforeRead,
    /// The file is replaced by a directory between listing and reading
    /// (really, on disk, so the real reader's own check is exercised).
    BecomesDirectoryBeforeRead,
    /// The file grows past the limit between listing and reading.
    LiesAboutItsSize,
    /// The file is replaced, really, on disk, by a symbolic link to a copy
    /// of itself between listing and reading: a reader that followed the
    /// link would load it.
    BecomesSymlinkBeforeRead,
    /// The file is replaced, really, on disk, by a FIFO between listing and
    /// reading: a reader that blocked on it would wait forever for a writer.
    BecomesFifoBeforeRead,
}

#[derive(Debug, Default)]
struct FaultyFileSystem {
    faults: Mutex<HashMap<PathBuf, Fault>>,
}

impl FaultyFileSystem {
    fn with(path: PathBuf, fault: Fault) -> FaultyFileSystem {
        let fs = FaultyFileSystem::default();
        fs.faults.lock().unwrap().insert(path, fault);
        fs
    }

    fn fault(&self, path: &Path) -> Option<Fault> {
        self.faults.lock().unwrap().get(path).copied()
    }
}

fn denied() -> io::Error {
    io::Error::from(io::ErrorKind::PermissionDenied)
}

impl FileSystem for FaultyFileSystem {
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        match self.fault(path) {
            Some(Fault::MetadataDenied) => Err(denied()),
            _ => RealFileSystem.metadata(path),
        }
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        match self.fault(path) {
            Some(Fault::MetadataDenied) => Err(denied()),
            Some(Fault::LiesAboutItsSize) => Ok(EntryMetadata::new(EntryKind::File, 10)),
            _ => RealFileSystem.symlink_metadata(path),
        }
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        match self.fault(path) {
            Some(Fault::ListingDenied) => Err(denied()),
            _ => RealFileSystem.read_dir(path),
        }
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        match self.fault(path) {
            Some(Fault::ReadDenied) => Err(denied()),
            Some(Fault::VanishesBeforeRead) => Err(io::Error::from(io::ErrorKind::NotFound)),
            Some(Fault::BecomesDirectoryBeforeRead) => {
                std::fs::remove_file(path)?;
                std::fs::create_dir(path)?;
                RealFileSystem.read(path, limit)
            }
            Some(Fault::BecomesSymlinkBeforeRead) => {
                // The copy is hidden in the root (ignored by the walk).
                let root = path.parent().and_then(Path::parent).unwrap();
                let copy = root.join(".swapped");
                std::fs::rename(path, &copy)?;
                std::os::unix::fs::symlink(&copy, path)?;
                RealFileSystem.read(path, limit)
            }
            Some(Fault::BecomesFifoBeforeRead) => {
                std::fs::remove_file(path)?;
                let made = std::process::Command::new("mkfifo").arg(path).status()?;
                assert!(made.success(), "mkfifo {}: {made}", path.display());
                RealFileSystem.read(path, limit)
            }
            Some(Fault::LiesAboutItsSize) => {
                let size = usize::try_from(limit)
                    .unwrap_or(usize::MAX)
                    .saturating_add(1);
                Ok(vec![b'#'; size])
            }
            _ => RealFileSystem.read(path, limit),
        }
    }
}

fn populated() -> (Root, PathBuf) {
    let root = Root::new();
    let first = genesis("serde", &ts(1), &["1.0.0"]);
    root.put("serde", &ts(1), &first);
    let file = root.put(
        "serde",
        &ts(2),
        &successor(&first, "serde", &ts(2), &["1.0.0"]),
    );
    (root, file)
}

fn os_error(error: &JournalError) -> Option<i32> {
    error
        .source()
        .and_then(|s| s.downcast_ref::<io::Error>())
        .and_then(io::Error::raw_os_error)
}

fn io_kind(error: &JournalError) -> Option<io::ErrorKind> {
    error
        .source()
        .and_then(|s| s.downcast_ref::<io::Error>())
        .map(io::Error::kind)
}

#[rstest]
#[case::root_metadata_denied(
    "",
    Fault::MetadataDenied,
    ErrorKind::RootUnreadable,
    Some(io::ErrorKind::PermissionDenied)
)]
#[case::root_listing_denied(
    "",
    Fault::ListingDenied,
    ErrorKind::RootUnreadable,
    Some(io::ErrorKind::PermissionDenied)
)]
#[case::artifact_metadata_denied(
    "serde",
    Fault::MetadataDenied,
    ErrorKind::Io,
    Some(io::ErrorKind::PermissionDenied)
)]
#[case::artifact_listing_denied(
    "serde",
    Fault::ListingDenied,
    ErrorKind::Io,
    Some(io::ErrorKind::PermissionDenied)
)]
#[case::file_metadata_denied(
    "serde/20260101T000002Z.journal",
    Fault::MetadataDenied,
    ErrorKind::Io,
    Some(io::ErrorKind::PermissionDenied)
)]
#[case::file_read_denied(
    "serde/20260101T000002Z.journal",
    Fault::ReadDenied,
    ErrorKind::Io,
    Some(io::ErrorKind::PermissionDenied)
)]
#[case::file_vanished(
    "serde/20260101T000002Z.journal",
    Fault::VanishesBeforeRead,
    ErrorKind::Io,
    Some(io::ErrorKind::NotFound)
)]
#[case::file_became_a_directory(
    "serde/20260101T000002Z.journal",
    Fault::BecomesDirectoryBeforeRead,
    ErrorKind::Io,
    Some(io::ErrorKind::IsADirectory)
)]
#[case::file_grew_past_the_limit(
    "serde/20260101T000002Z.journal",
    Fault::LiesAboutItsSize,
    ErrorKind::TooLarge,
    None
)]
fn faults_are_typed_and_located(
    #[case] relative: &str,
    #[case] fault: Fault,
    #[case] kind: ErrorKind,
    #[case] os: Option<io::ErrorKind>,
) {
    let (root, _) = populated();
    let path = if relative.is_empty() {
        root.path().to_path_buf()
    } else {
        root.join(relative)
    };
    let fs = FaultyFileSystem::with(path.clone(), fault);
    let error = load_with(&fs, root.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), kind, "{error}");
    assert_eq!(error.path(), Some(path.as_path()), "{error}");
    assert_eq!(io_kind(&error), os, "{error:?}");
}

#[test]
fn a_file_swapped_for_a_symbolic_link_after_the_listing_is_refused_at_open() {
    let (root, file) = populated();
    let fs = FaultyFileSystem::with(file.clone(), Fault::BecomesSymlinkBeforeRead);
    let error = load_with(&fs, root.path(), LoadOptions::new()).unwrap_err();
    assert!(
        std::fs::symlink_metadata(&file).unwrap().is_symlink(),
        "the fault really swapped the file"
    );
    // Following the link would have loaded the copy: the real file system
    // refuses the link itself (`O_NOFOLLOW`).
    assert_eq!(error.kind(), ErrorKind::Io, "{error}");
    assert_eq!(error.path(), Some(file.as_path()), "{error}");
    assert_eq!(os_error(&error), Some(libc::ELOOP), "{error:?}");
    // Through the real file system alone, the listing already refuses it.
    let listed = load_with(&RealFileSystem, root.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(listed.kind(), ErrorKind::UnexpectedEntry, "{listed}");
}

#[test]
fn a_file_swapped_for_a_fifo_after_the_listing_is_refused_without_blocking() {
    let (root, file) = populated();
    let fs = FaultyFileSystem::with(file.clone(), Fault::BecomesFifoBeforeRead);
    let (sender, receiver) = std::sync::mpsc::channel();
    let load_root = root.path().to_path_buf();
    let loader = std::thread::spawn(move || {
        let _ = sender.send(load_with(&fs, &load_root, LoadOptions::new()));
    });
    // A reader that blocked on the FIFO would wait for a writer forever: the
    // bound only turns such a hang into a failure, it never decides a pass.
    let result = receiver.recv_timeout(std::time::Duration::from_secs(120));
    let Ok(result) = result else {
        // Unblock the reader (it is waiting for a writer), then fail.
        let _ = std::fs::OpenOptions::new().write(true).open(&file);
        panic!("the load blocked on the FIFO");
    };
    loader.join().unwrap();
    let error = result.unwrap_err();
    assert!(
        std::os::unix::fs::FileTypeExt::is_fifo(
            &std::fs::symlink_metadata(&file).unwrap().file_type()
        ),
        "the fault really made a FIFO"
    );
    assert_eq!(error.kind(), ErrorKind::Io, "{error}");
    assert_eq!(error.path(), Some(file.as_path()), "{error}");
    assert_eq!(
        io_kind(&error),
        Some(io::ErrorKind::InvalidInput),
        "{error:?}"
    );
}

#[test]
fn a_fault_during_refresh_keeps_what_was_published_before() {
    let root = Root::new();
    let a = genesis("aaa", &ts(1), &[]);
    root.put("aaa", &ts(1), &a);
    let state = load_with(&RealFileSystem, root.path(), LoadOptions::new()).unwrap();
    root.put("aaa", &ts(2), &successor(&a, "aaa", &ts(2), &[]));
    let broken = root.put("bbb", &ts(1), &genesis("bbb", &ts(1), &[]));
    let fs = FaultyFileSystem::with(broken.clone(), Fault::ReadDenied);
    let mut published: Vec<ChainState> = Vec::new();
    let error = refresh_with(&fs, root.path(), LoadOptions::new(), &state, &mut |s| {
        published.push(s);
    })
    .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Io);
    assert_eq!(error.path(), Some(broken.as_path()));
    assert_eq!(published.len(), 1);
    assert_eq!(published[0].len(), 2);
    assert_eq!(state.len(), 1, "the given state is never changed");
}
