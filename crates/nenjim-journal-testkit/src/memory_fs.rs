//! A file system in memory for the hardening tests: a tree held in memory
//! (fast, no disk), safe to change while a Journal reads it.

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use nenjim_journal_fs::{EntryKind, EntryMetadata, FileSystem};

/// The root of the fault walks' trees in memory (ref's
/// `hardening_faults`, the writer's `fault_walk`): `/journal`.
pub fn root() -> PathBuf {
    PathBuf::from("/journal")
}

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
    /// Ledger entries (a local root's symbolic links): their records.
    records: HashMap<PathBuf, Arc<Vec<u8>>>,
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

    /// Writes the ledger entry `path` recording `record` (creating its
    /// parents): what a local root holds as a symbolic link.
    pub fn put_record(&self, path: &Path, record: impl Into<Vec<u8>>) {
        let mut tree = self.tree.write().unwrap();
        tree.records
            .insert(path.to_path_buf(), Arc::new(record.into()));
        if let Some(parent) = path.parent() {
            tree.dirs.entry(parent.to_path_buf()).or_default();
        }
        tree.link(path);
    }

    /// Copies the local directory `from` into this tree at `to`: its
    /// directories, its files, and its symbolic links as ledger entries
    /// (a root with a ledger written by the writer on disk, in memory).
    pub fn copy_tree(&self, from: &Path, to: &Path) {
        self.mkdir(to);
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let (source, target) = (entry.path(), to.join(entry.file_name()));
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                self.copy_tree(&source, &target);
            } else if kind.is_symlink() {
                let record = std::fs::read_link(&source).unwrap();
                self.put_record(&target, record.into_os_string().into_encoded_bytes());
            } else {
                self.put(&target, std::fs::read(&source).unwrap());
            }
        }
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

    /// Removes `path` and everything below it.
    pub fn remove_tree(&self, path: &Path) {
        let mut tree = self.tree.write().unwrap();
        tree.files.retain(|p, _| !p.starts_with(path));
        tree.records.retain(|p, _| !p.starts_with(path));
        tree.dirs.retain(|p, _| !p.starts_with(path));
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
        } else if let Some(record) = tree.records.get(path) {
            Ok(EntryMetadata::new(EntryKind::Symlink, record.len() as u64))
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
            if tree.records.contains_key(path) {
                // A symbolic link is never followed (`O_NOFOLLOW`).
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "a symbolic link, never followed",
                ));
            }
            tree.files.get(path).cloned().ok_or_else(not_found)?
        };
        let take = usize::try_from(limit.saturating_add(1))
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        self.bytes_returned.fetch_add(take as u64, Ordering::SeqCst);
        Ok(bytes[..take].to_vec())
    }

    fn read_record(&self, path: &Path) -> io::Result<Vec<u8>> {
        let tree = self.tree.read().unwrap();
        match tree.records.get(path) {
            Some(record) => Ok(record.to_vec()),
            None if tree.files.contains_key(path) || tree.dirs.contains_key(path) => Err(
                io::Error::new(io::ErrorKind::InvalidInput, "not a ledger entry"),
            ),
            None => Err(not_found()),
        }
    }
}
