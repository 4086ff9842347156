//! A fault-injecting file system: [`Recording`] wraps another
//! [`FileSystem`] (a [`MemoryFs`](crate::memory_fs::MemoryFs) or the
//! [`RealFileSystem`](nenjim_journal_fs::RealFileSystem)), records every
//! call and fails one of them with a [`Fault`]: an OS error, an entry that
//! became a directory or grew past the limit, or an entry swapped really
//! on disk (for a directory, a symbolic link or a FIFO) just before the
//! inner file system is called, so the real reader's own checks are
//! exercised. And for the write side, [`FailingWrites`] in front of a
//! [`Store`](nenjim_journal_store::Store): it records the writes under one
//! directory and fails one of them and every one after it (a crash at that
//! write, say of a signed root's publication).

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use nenjim_journal_fs::{EntryKind, EntryMetadata, FileSystem};

/// The OS error kind an error keeps as its source, if it does: a failed
/// call's error must keep it (the fault walks of fs's `faults` and ref's
/// `hardening_faults`).
pub fn io_kind(error: &nenjim_journal_api::error::JournalError) -> Option<io::ErrorKind> {
    std::error::Error::source(error)
        .and_then(|s| s.downcast_ref::<io::Error>())
        .map(io::Error::kind)
}

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

/// What a [`FailingWrites`] store does to the write it is told to fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteFault {
    /// The write is refused: nothing is written.
    Refused,
    /// The write lands, but its answer is lost: the caller is told it
    /// failed.
    Lost,
}

/// A [`Store`](nenjim_journal_store::Store) in front of another that
/// records every write under one directory (say a signed root's
/// `.ledger/tlog/`) and, once told, fails the write of one path there
/// and every write under that directory after it: a crash at that write,
/// as far as the directory is concerned (the writes elsewhere, a ledger's
/// or a lease's, go through). Reads are forwarded untouched.
#[derive(Debug)]
pub struct FailingWrites<S: ?Sized> {
    inner: Arc<S>,
    under: PathBuf,
    writes: Mutex<Vec<PathBuf>>,
    target: Mutex<Option<(PathBuf, WriteFault)>>,
    tripped: std::sync::atomic::AtomicBool,
}

impl<S: nenjim_journal_store::Store + ?Sized> FailingWrites<S> {
    /// `inner`, watching the writes under `under`, failing none yet.
    pub fn new(inner: Arc<S>, under: impl Into<PathBuf>) -> FailingWrites<S> {
        FailingWrites {
            inner,
            under: under.into(),
            writes: Mutex::new(Vec::new()),
            target: Mutex::new(None),
            tripped: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// From now on the write of `path` fails with `fault`, and every
    /// write under the watched directory after it is refused.
    pub fn fail(&self, path: impl Into<PathBuf>, fault: WriteFault) {
        *self.target.lock().unwrap() = Some((path.into(), fault));
    }

    /// Whether the write to fail came (and failed).
    pub fn tripped(&self) -> bool {
        self.tripped.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The watched writes made so far, in the order they were made, and
    /// forgets them.
    pub fn take_writes(&self) -> Vec<PathBuf> {
        std::mem::take(&mut *self.writes.lock().unwrap())
    }

    /// Whether `path` is watched.
    fn watched(&self, path: &Path) -> bool {
        path.starts_with(&self.under)
    }

    /// Runs the write `write` of `path`, failing it as told.
    fn write<T>(&self, path: &Path, write: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
        use std::sync::atomic::Ordering;
        if !self.watched(path) {
            return write();
        }
        self.writes.lock().unwrap().push(path.to_path_buf());
        if self.tripped.load(Ordering::SeqCst) {
            return Err(stopped(path));
        }
        let fault = match &*self.target.lock().unwrap() {
            Some((target, fault)) if target == path => Some(*fault),
            _ => None,
        };
        match fault {
            None => write(),
            Some(fault) => {
                self.tripped.store(true, Ordering::SeqCst);
                if fault == WriteFault::Lost {
                    let _ = write();
                }
                Err(stopped(path))
            }
        }
    }
}

fn stopped(path: &Path) -> io::Error {
    io::Error::other(format!(
        "injected: the store stopped accepting writes at {}",
        path.display()
    ))
}

impl<S: nenjim_journal_store::Store + ?Sized> FileSystem for FailingWrites<S> {
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
    fn read_recorded(
        &self,
        path: &Path,
        limit: u64,
        digest: &nenjim_journal_api::valuetypes::RevisionDigest,
    ) -> io::Result<Vec<u8>> {
        self.inner.read_recorded(path, limit, digest)
    }
    fn read_records(&self, paths: &[PathBuf]) -> Vec<io::Result<Vec<u8>>> {
        self.inner.read_records(paths)
    }
}

impl<S: nenjim_journal_store::Store + ?Sized> nenjim_journal_store::BlobStore for FailingWrites<S> {
    fn get(
        &self,
        path: &Path,
        limit: u64,
    ) -> io::Result<Option<(Vec<u8>, nenjim_journal_store::Version)>> {
        self.inner.get(path, limit)
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn put_if_absent(
        &self,
        path: &Path,
        bytes: &[u8],
    ) -> io::Result<nenjim_journal_store::Created> {
        self.write(path, || self.inner.put_if_absent(path, bytes))
    }
    fn put_by_digest(
        &self,
        dir: &Path,
        reader: &mut dyn io::Read,
    ) -> io::Result<(
        nenjim_journal_store::Created,
        nenjim_journal_api::valuetypes::ContentPointer,
    )> {
        self.write(dir, || self.inner.put_by_digest(dir, reader))
    }
    fn put_record(&self, path: &Path, record: &str) -> io::Result<()> {
        self.write(path, || self.inner.put_record(path, record))
    }
    fn put_many_if_absent(
        &self,
        objects: &[(&Path, &[u8])],
    ) -> io::Result<Vec<nenjim_journal_store::Created>> {
        if objects.iter().any(|(path, _)| self.watched(path)) {
            // One by one, each failed as told.
            return objects
                .iter()
                .map(|(path, bytes)| self.put_if_absent(path, bytes))
                .collect();
        }
        self.inner.put_many_if_absent(objects)
    }
    fn put_records(&self, records: &[(&Path, &str)]) -> (usize, io::Result<()>) {
        if records.iter().any(|(path, _)| self.watched(path)) {
            for (done, (path, record)) in records.iter().enumerate() {
                if let Err(e) = self.put_record(path, record) {
                    return (done, Err(e));
                }
            }
            return (records.len(), Ok(()));
        }
        self.inner.put_records(records)
    }
    fn replace_if_unchanged(
        &self,
        path: &Path,
        bytes: &[u8],
        expected: Option<&nenjim_journal_store::Version>,
    ) -> io::Result<Option<nenjim_journal_store::Version>> {
        self.write(path, || {
            self.inner.replace_if_unchanged(path, bytes, expected)
        })
    }
    fn open(&self, path: &Path) -> io::Result<Box<dyn io::Read + Send>> {
        self.inner.open(path)
    }
    fn remove_all(&self, dir: &Path) -> io::Result<()> {
        self.write(dir, || self.inner.remove_all(dir))
    }
    fn make_dir(&self, dir: &Path) -> io::Result<()> {
        self.write(dir, || self.inner.make_dir(dir))
    }
    fn check_conditional_writes(&self, probe: &Path) -> io::Result<()> {
        self.inner.check_conditional_writes(probe)
    }
    fn location(&self) -> String {
        self.inner.location()
    }
}
