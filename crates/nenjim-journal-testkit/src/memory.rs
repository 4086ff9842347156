//! The test kit's in-memory backend, `testmem://<store>/<path>`: a whole
//! store (what the loader reads and the writer writes) held in this
//! process's memory, shared by every opening of the same `<store>` name.
//!
//! It is what a new backend costs: this one module (a [`Store`] and the
//! seam's [`Backend`] and [`BackendKind`]) and one line where addresses
//! are resolved (`nenjim_journal_root::kinds`, feature `testkit`). The
//! command's tests run the command in-process on `testmem://` roots.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use nenjim_journal_api::error::{self, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::ContentPointer;
use nenjim_journal_store::backend::{
    Backend, BackendKind, Creating, Opening, Reading, Writing, create_in,
};
use nenjim_journal_store::{
    BlobStore, Created, EntryMetadata, FileSystem, Store, Version, measure,
};

use crate::memory_fs::MemoryFs;

/// Every `testmem://` store of this process, by name.
static STORES: LazyLock<Mutex<HashMap<String, Arc<MemoryStore>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The store named `name` in this process (made empty on first use).
pub fn store(name: &str) -> Arc<MemoryStore> {
    STORES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(name.to_owned())
        .or_default()
        .clone()
}

/// A store in memory: a [`MemoryFs`] tree, and a version per object for
/// the writer's compare-and-set.
#[derive(Debug, Default)]
pub struct MemoryStore {
    fs: MemoryFs,
    versions: Mutex<HashMap<PathBuf, u64>>,
    /// Serialises the writes (a create-if-absent is check-then-put).
    write: Mutex<u64>,
}

impl MemoryStore {
    /// The tree, to look at or damage in a test.
    pub fn tree(&self) -> &MemoryFs {
        &self.fs
    }

    fn exists(&self, path: &Path) -> bool {
        self.fs.symlink_metadata(path).is_ok()
    }

    fn bump(&self, path: &Path, counter: &mut u64) -> Version {
        *counter += 1;
        self.versions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(path.to_path_buf(), *counter);
        Version::new(counter.to_string())
    }

    fn version(&self, path: &Path) -> Version {
        let versions = self.versions.lock().unwrap_or_else(PoisonError::into_inner);
        Version::new(versions.get(path).copied().unwrap_or(0).to_string())
    }
}

impl FileSystem for MemoryStore {
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.fs.metadata(path)
    }
    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.fs.symlink_metadata(path)
    }
    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        self.fs.read_dir(path)
    }
    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        self.fs.read(path, limit)
    }
    fn read_record(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.fs.read_record(path)
    }
}

impl BlobStore for MemoryStore {
    fn get(&self, path: &Path, limit: u64) -> io::Result<Option<(Vec<u8>, Version)>> {
        match self.fs.read(path, limit) {
            Ok(bytes) if bytes.len() as u64 > limit => {
                Err(io::Error::from(io::ErrorKind::FileTooLarge))
            }
            Ok(bytes) => Ok(Some((bytes, self.version(path)))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        match self.fs.read_dir(dir) {
            Ok(names) => Ok(names
                .into_iter()
                .filter_map(|n| n.into_string().ok())
                .filter(|n| !n.starts_with('.'))
                .collect()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    fn put_if_absent(&self, path: &Path, bytes: &[u8]) -> io::Result<Created> {
        let mut counter = self.write.lock().unwrap_or_else(PoisonError::into_inner);
        if self.exists(path) {
            return Ok(Created::Exists);
        }
        self.fs.put(path, bytes.to_vec());
        self.bump(path, &mut counter);
        Ok(Created::New)
    }

    fn put_by_digest(
        &self,
        dir: &Path,
        reader: &mut dyn Read,
    ) -> io::Result<(Created, ContentPointer)> {
        let mut bytes = Vec::new();
        let pointer = measure(reader, &mut bytes)?;
        let hex = pointer.digest().to_string();
        let hex = hex.strip_prefix("sha256:").unwrap_or(&hex);
        let created = self.put_if_absent(&dir.join(hex), &bytes)?;
        Ok((created, pointer))
    }

    fn put_record(&self, path: &Path, record: &str) -> io::Result<()> {
        let mut counter = self.write.lock().unwrap_or_else(PoisonError::into_inner);
        if self.exists(path) {
            return Err(io::Error::from(io::ErrorKind::AlreadyExists));
        }
        self.fs.put_record(path, record.as_bytes().to_vec());
        self.bump(path, &mut counter);
        Ok(())
    }

    fn replace_if_unchanged(
        &self,
        path: &Path,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> io::Result<Option<Version>> {
        let mut counter = self.write.lock().unwrap_or_else(PoisonError::into_inner);
        let current = self.exists(path).then(|| self.version(path));
        if current.as_ref() != expected {
            return Ok(None);
        }
        self.fs.put(path, bytes.to_vec());
        Ok(Some(self.bump(path, &mut counter)))
    }

    fn open(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        let bytes = self.fs.read(path, u64::MAX - 1)?;
        Ok(Box::new(io::Cursor::new(bytes)))
    }

    fn remove_all(&self, dir: &Path) -> io::Result<()> {
        self.fs.remove_tree(dir);
        Ok(())
    }

    fn make_dir(&self, dir: &Path) -> io::Result<()> {
        self.fs.mkdir(dir);
        Ok(())
    }

    fn location(&self) -> String {
        "testmem://".to_owned()
    }
}

/// `testmem://<store>/<path>` roots.
#[derive(Debug)]
pub struct MemoryKind;

impl BackendKind for MemoryKind {
    fn schemes(&self) -> &'static [&'static str] {
        &["testmem"]
    }

    fn open(&self, address: &str, _: &Opening) -> Result<Arc<dyn Backend>, JournalError> {
        let rest = address.strip_prefix("testmem://").unwrap_or(address);
        let (name, path) = rest.split_once('/').unwrap_or((rest, ""));
        if name.is_empty() {
            return Err(error::error(
                ErrorKind::Usage,
                format!("found no store name in {address}, expected testmem://<store>/<path>"),
            ));
        }
        Ok(Arc::new(MemoryRoot {
            store: store(name),
            root: PathBuf::from("/").join(path.trim_matches('/')),
            address: address.to_owned(),
        }))
    }
}

/// A root in a [`MemoryStore`].
#[derive(Debug)]
pub struct MemoryRoot {
    store: Arc<MemoryStore>,
    root: PathBuf,
    address: String,
}

impl Backend for MemoryRoot {
    fn root_path(&self) -> &Path {
        &self.root
    }

    fn address(&self) -> String {
        self.address.clone()
    }

    fn exists(&self) -> Result<bool, JournalError> {
        Ok(self.store.exists(&self.root))
    }

    fn reading(&self) -> Reading {
        Reading::files(self.store.clone())
    }

    fn writing(&self) -> Result<Writing, JournalError> {
        Ok(Writing::Files(self.store.clone()))
    }

    fn create(&self, creating: &Creating) -> Result<bool, JournalError> {
        create_in(self, &*self.store, creating, || {
            self.store.fs.mkdir(&self.root);
            Ok(())
        })
    }

    fn content_store(&self) -> Result<(Arc<dyn Store>, PathBuf), JournalError> {
        Ok((self.store.clone(), self.root.clone()))
    }
}
