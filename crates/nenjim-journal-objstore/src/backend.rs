//! Roots in buckets as a backend of the storage seam: the URL schemes
//! `s3`, `gs`, `az` and `memory` ([`ObjectKind`]), each root a
//! [`ObjectRoot`] whose files, ledger and lease are objects of its store.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::error::{self, JournalError};
use nenjim_journal_store::FileSystem as _;
use nenjim_journal_store::Store;
use nenjim_journal_store::backend::{
    Backend, BackendKind, Creating, LocalRoot, Opening, Reading, Writing, create_in,
};

use crate::{Address, ObjectFs, parse_address};

/// Roots in buckets: `s3://`, `gs://`, `az://` and `memory://` addresses,
/// configured from the process's environment (see [`crate::address`]).
#[derive(Debug)]
pub struct ObjectKind;

impl BackendKind for ObjectKind {
    fn schemes(&self) -> &'static [&'static str] {
        &["s3", "gs", "az", "memory"]
    }

    fn open(&self, address: &str, _: &Opening) -> Result<Arc<dyn Backend>, JournalError> {
        match parse_address(address)
            .map_err(|e| error::io_error(address, "cannot open the store", e))?
        {
            Address::Local(path) => Ok(Arc::new(LocalRoot::new(path))),
            Address::Object { store, root } => Ok(Arc::new(ObjectRoot {
                store,
                root,
                address: address.to_owned(),
            })),
        }
    }
}

/// A root at a path inside a bucket (see the [crate docs](crate)).
#[derive(Debug, Clone)]
pub struct ObjectRoot {
    store: Arc<ObjectFs>,
    root: PathBuf,
    address: String,
}

impl ObjectRoot {
    /// The root at `root` inside `store`, named `address` to the user.
    pub fn new(store: Arc<ObjectFs>, root: impl Into<PathBuf>, address: impl Into<String>) -> Self {
        ObjectRoot {
            store,
            root: root.into(),
            address: address.into(),
        }
    }

    /// The bucket.
    pub fn store(&self) -> &Arc<ObjectFs> {
        &self.store
    }
}

impl Backend for ObjectRoot {
    fn root_path(&self) -> &Path {
        &self.root
    }

    fn address(&self) -> String {
        self.address.clone()
    }

    /// A prefix exists when some object has it (`init` puts `.keep`).
    fn exists(&self) -> Result<bool, JournalError> {
        match self.store.metadata(&self.root) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(error::io_error(&self.root, "cannot read the root", e)),
        }
    }

    fn has_remote_files(&self) -> bool {
        true
    }

    fn reading(&self) -> Reading {
        Reading::files(self.store.clone())
    }

    fn writing(&self) -> Result<Writing, JournalError> {
        Ok(Writing::Files(self.store.clone()))
    }

    fn create(&self, creating: &Creating) -> Result<bool, JournalError> {
        create_in(self, &*self.store, creating, || {
            self.store.ensure_dir(&self.root)
        })
    }

    fn content_store(&self) -> Result<(Arc<dyn Store>, PathBuf), JournalError> {
        Ok((self.store.clone(), self.root.clone()))
    }
}
