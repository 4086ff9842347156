//! A fault-injecting file system: [`Recording`] wraps another
//! [`FileSystem`] (a [`MemoryFs`](crate::memory_fs::MemoryFs) or the
//! [`RealFileSystem`](nenjim_journal_fs::RealFileSystem)), records every
//! call and fails one of them with a [`Fault`]: an OS error, an entry that
//! became a directory or grew past the limit, or an entry swapped really
//! on disk (for a directory, a symbolic link or a FIFO) just before the
//! inner file system is called, so the real reader's own checks are
//! exercised.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use nenjim_journal_fs::{EntryKind, EntryMetadata, FileSystem};

/// Which call of the [`FileSystem`] trait.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Metadata,
    SymlinkMetadata,
    ReadDir,
    Read,
    /// [`FileSystem::read_record`]: a ledger entry's record.
    ReadRecord,
}

/// One call: its operation and its path (unique within one start or refresh).
pub type Call = (Op, PathBuf);

/// What the injected fault does to the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The call fails with this OS error (permission denied, interrupted,
    /// the entry vanished …).
    Os(io::ErrorKind),
    /// The entry was a regular file and is now a directory: its metadata
    /// says so, and reading it fails as `RealFileSystem::read` does.
    BecameDirectory,
    /// The file grew past the limit after it was listed: a read returns one
    /// byte more than it was allowed to.
    Grew,
    /// Before the call, the entry is really replaced on disk (the inner
    /// file system must be the real one), then the call goes through.
    Swapped(Swap),
}

/// What a [`Fault::Swapped`] entry becomes, really, on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swap {
    /// A directory of the same name.
    Directory,
    /// A symbolic link to a copy of the file, hidden in the root (`.swapped`,
    /// two levels up: ignored by the walk): a reader that followed the link
    /// would read the same text.
    Symlink,
    /// A FIFO (made by `mkfifo`): a reader that blocked on it would wait
    /// for a writer forever.
    Fifo,
}

impl Swap {
    /// Replaces the regular file `path` on disk.
    pub fn apply(self, path: &Path) -> io::Result<()> {
        match self {
            Swap::Directory => {
                std::fs::remove_file(path)?;
                std::fs::create_dir(path)
            }
            Swap::Symlink => {
                let root = path
                    .parent()
                    .and_then(Path::parent)
                    .expect("a revision file two levels below its root");
                let copy = root.join(".swapped");
                std::fs::rename(path, &copy)?;
                symlink(&copy, path)
            }
            Swap::Fifo => {
                std::fs::remove_file(path)?;
                let made = std::process::Command::new("mkfifo").arg(path).status()?;
                assert!(made.success(), "mkfifo {}: {made}", path.display());
                Ok(())
            }
        }
    }
}

#[cfg(unix)]
fn symlink(original: &Path, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(original, link)
}

#[cfg(not(unix))]
fn symlink(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

impl Fault {
    /// The kinds every call is failed with.
    pub const ALL: [Fault; 4] = [
        Fault::Os(io::ErrorKind::PermissionDenied),
        Fault::Os(io::ErrorKind::Interrupted),
        Fault::Os(io::ErrorKind::NotFound),
        Fault::BecameDirectory,
    ];
}

/// Records every call to the inner file system, and fails one of them.
#[derive(Debug)]
pub struct Recording<F> {
    inner: Arc<F>,
    calls: Mutex<Vec<Call>>,
    fault: Mutex<Option<(Call, Fault)>>,
}

impl<F: FileSystem> Recording<F> {
    /// A recording of `inner` that fails nothing yet.
    pub fn new(inner: Arc<F>) -> Recording<F> {
        Recording {
            inner,
            calls: Mutex::new(Vec::new()),
            fault: Mutex::new(None),
        }
    }

    /// The wrapped file system.
    pub fn inner(&self) -> &Arc<F> {
        &self.inner
    }

    /// The calls made so far, and forgets them.
    pub fn take_calls(&self) -> Vec<Call> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }

    /// From now on, `call` fails with `fault`.
    pub fn fail(&self, call: Call, fault: Fault) {
        *self.fault.lock().unwrap() = Some((call, fault));
    }

    /// The fault slot: set it to `None` to stop failing.
    pub fn fault_slot(&self) -> std::sync::MutexGuard<'_, Option<(Call, Fault)>> {
        self.fault.lock().unwrap()
    }

    /// What happens to `call`: `None` to pass it through.
    fn injected(&self, op: Op, path: &Path) -> Option<Fault> {
        self.calls.lock().unwrap().push((op, path.to_path_buf()));
        let fault = self.fault.lock().unwrap();
        match &*fault {
            Some(((o, p), f)) if *o == op && p == path => Some(*f),
            _ => None,
        }
    }

    fn metadata_with(
        &self,
        op: Op,
        path: &Path,
        real: impl FnOnce() -> io::Result<EntryMetadata>,
    ) -> io::Result<EntryMetadata> {
        match self.injected(op, path) {
            None => real(),
            Some(Fault::Os(kind)) => Err(io::Error::from(kind)),
            Some(Fault::BecameDirectory) => Ok(EntryMetadata::new(EntryKind::Directory, 0)),
            Some(Fault::Grew) => Ok(EntryMetadata::new(EntryKind::File, 10)),
            Some(Fault::Swapped(swap)) => {
                swap.apply(path)?;
                real()
            }
        }
    }
}

impl<F: FileSystem> FileSystem for Recording<F> {
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.metadata_with(Op::Metadata, path, || self.inner.metadata(path))
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.metadata_with(Op::SymlinkMetadata, path, || {
            self.inner.symlink_metadata(path)
        })
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        match self.injected(Op::ReadDir, path) {
            None => self.inner.read_dir(path),
            Some(Fault::Os(kind)) => Err(io::Error::from(kind)),
            Some(Fault::BecameDirectory | Fault::Grew) => {
                Err(io::Error::from(io::ErrorKind::NotADirectory))
            }
            Some(Fault::Swapped(swap)) => {
                swap.apply(path)?;
                self.inner.read_dir(path)
            }
        }
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        match self.injected(Op::Read, path) {
            None => self.inner.read(path, limit),
            Some(Fault::Os(kind)) => Err(io::Error::from(kind)),
            Some(Fault::BecameDirectory) => Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "the entry is no longer a regular file",
            )),
            Some(Fault::Grew) => {
                let size = usize::try_from(limit)
                    .unwrap_or(usize::MAX)
                    .saturating_add(1);
                Ok(vec![b'#'; size])
            }
            Some(Fault::Swapped(swap)) => {
                swap.apply(path)?;
                self.inner.read(path, limit)
            }
        }
    }

    // `read_dir_with_kinds` is left to its default on purpose: the kinds
    // are then unknown, so the loader asks `symlink_metadata` for each
    // entry, and each of those calls is one more place to inject a fault.

    fn read_record(&self, path: &Path) -> io::Result<Vec<u8>> {
        match self.injected(Op::ReadRecord, path) {
            None => self.inner.read_record(path),
            Some(Fault::Os(kind)) => Err(io::Error::from(kind)),
            Some(Fault::BecameDirectory) => Err(io::Error::from(io::ErrorKind::IsADirectory)),
            Some(Fault::Grew) => Ok(vec![b'#'; 4096]),
            Some(Fault::Swapped(swap)) => {
                swap.apply(path)?;
                self.inner.read_record(path)
            }
        }
    }
}
