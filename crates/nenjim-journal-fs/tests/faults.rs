//! Faults injected through the `FileSystem` seam: what the real disk does
//! rarely (or not at all when the tests run as root).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::error::Error as _;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::{LoadOptions, RealFileSystem, load_with, refresh_with};
use nenjim_journal_testkit::faults::{Fault, Op, Recording, Swap, io_kind};
use nenjim_journal_testkit::texts::{Root, genesis, successor, ts};
use rstest::rstest;

/// The real file system, failing `op` on `path` with `fault`.
fn faulty(op: Op, path: PathBuf, fault: Fault) -> Recording<RealFileSystem> {
    let fs = Recording::new(Arc::new(RealFileSystem));
    fs.fail((op, path), fault);
    fs
}

fn denied() -> Fault {
    Fault::Os(io::ErrorKind::PermissionDenied)
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

#[rstest]
#[case::root_metadata_denied(
    "",
    Op::Metadata,
    denied(),
    ErrorKind::RootUnreadable,
    Some(io::ErrorKind::PermissionDenied)
)]
#[case::root_listing_denied(
    "",
    Op::ReadDir,
    denied(),
    ErrorKind::RootUnreadable,
    Some(io::ErrorKind::PermissionDenied)
)]
#[case::artifact_metadata_denied(
    "serde",
    Op::SymlinkMetadata,
    denied(),
    ErrorKind::Io,
    Some(io::ErrorKind::PermissionDenied)
)]
#[case::artifact_listing_denied(
    "serde",
    Op::ReadDir,
    denied(),
    ErrorKind::Io,
    Some(io::ErrorKind::PermissionDenied)
)]
#[case::file_metadata_denied(
    "serde/20260101T000002Z.journal",
    Op::SymlinkMetadata,
    denied(),
    ErrorKind::Io,
    Some(io::ErrorKind::PermissionDenied)
)]
#[case::file_read_denied(
    "serde/20260101T000002Z.journal",
    Op::Read,
    denied(),
    ErrorKind::Io,
    Some(io::ErrorKind::PermissionDenied)
)]
#[case::file_vanished(
    "serde/20260101T000002Z.journal",
    Op::Read,
    Fault::Os(io::ErrorKind::NotFound),
    ErrorKind::Io,
    Some(io::ErrorKind::NotFound)
)]
#[case::file_became_a_directory(
    "serde/20260101T000002Z.journal",
    Op::Read,
    Fault::Swapped(Swap::Directory),
    ErrorKind::Io,
    Some(io::ErrorKind::IsADirectory)
)]
#[case::file_grew_past_the_limit(
    "serde/20260101T000002Z.journal",
    Op::Read,
    Fault::Grew,
    ErrorKind::TooLarge,
    None
)]
fn faults_are_typed_and_located(
    #[case] relative: &str,
    #[case] op: Op,
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
    let fs = faulty(op, path.clone(), fault);
    let error = load_with(&fs, root.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), kind, "{error}");
    assert_eq!(error.path(), Some(path.as_path()), "{error}");
    assert_eq!(io_kind(&error), os, "{error:?}");
}

#[test]
fn a_file_swapped_for_a_symbolic_link_after_the_listing_is_refused_at_open() {
    let (root, file) = populated();
    let fs = faulty(Op::Read, file.clone(), Fault::Swapped(Swap::Symlink));
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
    let fs = faulty(Op::Read, file.clone(), Fault::Swapped(Swap::Fifo));
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
    let fs = faulty(Op::Read, broken.clone(), denied());
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

/// The real file system with its opened directories (`open_dir`), failing
/// the opening of `dir`, or a read by name in an opened directory after
/// swapping or with an OS error: the start's own path on the real disk.
#[derive(Debug)]
struct OpenedFaults {
    dir: Option<PathBuf>,
    read: Option<(std::ffi::OsString, Fault)>,
}

#[derive(Debug)]
struct FaultyDirectory {
    inner: Box<dyn nenjim_journal_fs::Directory>,
    path: PathBuf,
    read: Option<(std::ffi::OsString, Fault)>,
}

impl nenjim_journal_fs::Directory for FaultyDirectory {
    fn entries_with_kinds(
        &mut self,
    ) -> io::Result<Vec<(std::ffi::OsString, Option<nenjim_journal_fs::EntryKind>)>> {
        self.inner.entries_with_kinds()
    }

    fn read_into(&self, name: &std::ffi::OsStr, limit: u64, buf: &mut Vec<u8>) -> io::Result<()> {
        match &self.read {
            Some((failing, Fault::Os(kind))) if failing == name => Err(io::Error::from(*kind)),
            Some((failing, Fault::Swapped(swap))) if failing == name => {
                swap.apply(&self.path.join(name))?;
                self.inner.read_into(name, limit, buf)
            }
            _ => self.inner.read_into(name, limit, buf),
        }
    }
}

impl nenjim_journal_fs::FileSystem for OpenedFaults {
    fn metadata(&self, path: &std::path::Path) -> io::Result<nenjim_journal_fs::EntryMetadata> {
        RealFileSystem.metadata(path)
    }
    fn symlink_metadata(
        &self,
        path: &std::path::Path,
    ) -> io::Result<nenjim_journal_fs::EntryMetadata> {
        RealFileSystem.symlink_metadata(path)
    }
    fn read_dir(&self, path: &std::path::Path) -> io::Result<Vec<std::ffi::OsString>> {
        RealFileSystem.read_dir(path)
    }
    fn read(&self, path: &std::path::Path, _limit: u64) -> io::Result<Vec<u8>> {
        panic!("read by path {} with directories opened", path.display())
    }
    fn open_dir(
        &self,
        path: &std::path::Path,
    ) -> io::Result<Option<Box<dyn nenjim_journal_fs::Directory>>> {
        if self.dir.as_deref() == Some(path) {
            return Err(io::Error::from(io::ErrorKind::PermissionDenied));
        }
        let inner = RealFileSystem
            .open_dir(path)?
            .expect("the real file system opens directories on Linux");
        Ok(Some(Box::new(FaultyDirectory {
            inner,
            path: path.to_path_buf(),
            read: self.read.clone(),
        })))
    }
}

#[test]
fn faults_of_opened_directories_are_typed_and_located() {
    let (root, file) = populated();
    let name = file.file_name().unwrap().to_owned();
    let clean = OpenedFaults {
        dir: None,
        read: None,
    };
    let opened = load_with(&clean, root.path(), LoadOptions::new()).unwrap();
    let by_path = load_with(&RealFileSystem, root.path(), LoadOptions::new()).unwrap();
    let serde = "serde".parse().unwrap();
    assert_eq!(opened.len(), 2);
    assert_eq!(opened.revisions(&serde), by_path.revisions(&serde));
    let dir = root.join("serde");
    let cases = [
        (Some(dir.clone()), None, dir.clone(), None),
        (None, Some((name.clone(), denied())), file.clone(), None),
        (
            None,
            Some((name.clone(), Fault::Swapped(Swap::Symlink))),
            file.clone(),
            Some(libc::ELOOP),
        ),
    ];
    for (failing_dir, read, path, os) in cases {
        let fs = OpenedFaults {
            dir: failing_dir,
            read,
        };
        let error = load_with(&fs, root.path(), LoadOptions::new()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Io, "{error}");
        assert_eq!(error.path(), Some(path.as_path()), "{error}");
        if let Some(os) = os {
            assert_eq!(os_error(&error), Some(os), "{error:?}");
        } else {
            assert_eq!(io_kind(&error), Some(io::ErrorKind::PermissionDenied));
        }
    }
    // A FIFO swapped in after the listing: refused, not waited on.
    let (root, file) = populated();
    let fs = OpenedFaults {
        dir: None,
        read: Some((
            file.file_name().unwrap().to_owned(),
            Fault::Swapped(Swap::Fifo),
        )),
    };
    let error = load_with(&fs, root.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.path(), Some(file.as_path()), "{error}");
    assert_eq!(
        io_kind(&error),
        Some(io::ErrorKind::InvalidInput),
        "{error:?}"
    );
}
