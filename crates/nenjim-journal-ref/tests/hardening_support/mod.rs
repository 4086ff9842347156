//! In-memory file systems for the hardening tests: a tree held in memory
//! (fast, no disk), and a wrapper that records every call and fails one.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use nenjim_journal_fs::{EntryKind, EntryMetadata, FileSystem};

/// A directory tree in memory. Cheap to share between threads; files can be
/// added and removed while a Journal reads it.
#[derive(Debug, Default)]
pub struct MemoryFs {
    tree: RwLock<Tree>,
    /// The largest `limit` any `read` was given.
    max_limit: AtomicU64,
    /// The bytes `read` returned, in all.
    bytes_returned: AtomicU64,
}

#[derive(Debug, Default)]
struct Tree {
    dirs: HashMap<PathBuf, BTreeSet<OsString>>,
    files: HashMap<PathBuf, Arc<Vec<u8>>>,
}

impl Tree {
    fn link(&mut self, path: &Path) {
        let mut child = path.to_path_buf();
        while let (Some(parent), Some(name)) = (child.parent(), child.file_name()) {
            let name = name.to_os_string();
            let parent = parent.to_path_buf();
            let entries = self.dirs.entry(parent.clone()).or_default();
            let new = entries.insert(name);
            if !new {
                break;
            }
            child = parent;
        }
    }
}

fn not_found() -> io::Error {
    io::Error::from(io::ErrorKind::NotFound)
}

impl MemoryFs {
    /// An empty tree with the directory `root`.
    pub fn with_root(root: &Path) -> MemoryFs {
        let fs = MemoryFs::default();
        fs.mkdir(root);
        fs
    }

    /// Creates the directory `path` (and its parents).
    pub fn mkdir(&self, path: &Path) {
        let mut tree = self.tree.write().unwrap();
        tree.dirs.entry(path.to_path_buf()).or_default();
        tree.link(path);
    }

    /// Writes the file `path` (creating its parents).
    pub fn put(&self, path: &Path, bytes: impl Into<Vec<u8>>) {
        let mut tree = self.tree.write().unwrap();
        tree.files
            .insert(path.to_path_buf(), Arc::new(bytes.into()));
        if let Some(parent) = path.parent() {
            tree.dirs.entry(parent.to_path_buf()).or_default();
        }
        tree.link(path);
    }

    /// Removes the file `path`.
    pub fn remove(&self, path: &Path) {
        let mut tree = self.tree.write().unwrap();
        tree.files.remove(path);
        if let (Some(parent), Some(name)) = (path.parent(), path.file_name())
            && let Some(entries) = tree.dirs.get_mut(parent)
        {
            entries.remove(name);
        }
    }

    /// The largest `limit` a `read` was given.
    pub fn max_limit(&self) -> u64 {
        self.max_limit.load(Ordering::SeqCst)
    }

    /// The bytes every `read` returned, added up.
    pub fn bytes_returned(&self) -> u64 {
        self.bytes_returned.load(Ordering::SeqCst)
    }
}

impl FileSystem for MemoryFs {
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.symlink_metadata(path)
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        let tree = self.tree.read().unwrap();
        if let Some(bytes) = tree.files.get(path) {
            Ok(EntryMetadata::new(EntryKind::File, bytes.len() as u64))
        } else if tree.dirs.contains_key(path) {
            Ok(EntryMetadata::new(EntryKind::Directory, 0))
        } else {
            Err(not_found())
        }
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        let tree = self.tree.read().unwrap();
        match tree.dirs.get(path) {
            Some(entries) => Ok(entries.iter().cloned().collect()),
            None if tree.files.contains_key(path) => {
                Err(io::Error::from(io::ErrorKind::NotADirectory))
            }
            None => Err(not_found()),
        }
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        self.max_limit.fetch_max(limit, Ordering::SeqCst);
        let bytes = {
            let tree = self.tree.read().unwrap();
            if tree.dirs.contains_key(path) {
                return Err(io::Error::from(io::ErrorKind::IsADirectory));
            }
            tree.files.get(path).cloned().ok_or_else(not_found)?
        };
        let take = usize::try_from(limit.saturating_add(1))
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        self.bytes_returned.fetch_add(take as u64, Ordering::SeqCst);
        Ok(bytes[..take].to_vec())
    }
}

/// Which call of the `FileSystem` trait.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Metadata,
    SymlinkMetadata,
    ReadDir,
    Read,
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
    pub fn new(inner: Arc<F>) -> Recording<F> {
        Recording {
            inner,
            calls: Mutex::new(Vec::new()),
            fault: Mutex::new(None),
        }
    }

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
            Some(Fault::BecameDirectory) => Err(io::Error::from(io::ErrorKind::NotADirectory)),
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
        }
    }
}
