//! Roots and content stores by address: a local path, or a URL of an
//! object store (`s3://bucket/prefix`, `gs://…`, `az://…`, `file://…`,
//! `memory://`), read by `nenjim_journal_objstore::parse_address` (its
//! credentials and endpoint come from each store's standard environment
//! variables: `AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_ALLOW_HTTP` …).

use std::path::Path;
use std::sync::Arc;

use nenjim_journal_fs::{FileSystem, RealFileSystem};
pub use nenjim_journal_objstore::Address;

use crate::failure::CliError;

/// Where `path` (as typed) lives: a URL with a scheme is an object store,
/// anything else a local path.
pub fn locate(path: &Path) -> Result<Address, CliError> {
    match path.to_str() {
        Some(text) if text.contains("://") => nenjim_journal_objstore::parse_address(text)
            .map_err(|e| CliError::io(path, "cannot open the store", e)),
        _ => Ok(Address::Local(path.to_path_buf())),
    }
}

/// The file system to read `address` through, and the root path in it.
pub fn file_system(address: &Address) -> (Arc<dyn FileSystem>, &Path) {
    match address {
        Address::Local(path) => (Arc::new(RealFileSystem), path),
        Address::Object { store, root } => (store.clone(), root),
    }
}
