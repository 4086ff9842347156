//! Roots and content stores by address: a local path, a URL of an object
//! store (`s3://bucket/prefix`, `gs://…`, `az://…`, `file://…`,
//! `memory://`), read by `nenjim_journal_objstore::parse_address` (its
//! credentials and endpoint come from each store's standard environment
//! variables: `AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_ALLOW_HTTP` …),
//! or a NATS JetStream root (`nats://host:port/<name>`), read by
//! `nenjim_journal_nats::NatsRoot::parse` (credentials and TLS from the
//! NATS tools' variables: `NATS_CREDS`, `NATS_USER` / `NATS_PASSWORD`,
//! `NATS_TOKEN`, `NATS_CA` …).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_fs::{FileSystem, RealFileSystem};
use nenjim_journal_nats::{NatsBackend, NatsRoot, NatsSource};
use nenjim_journal_objstore::ObjectFs;
use nenjim_journal_store::Store;

use crate::failure::CliError;

/// Where a root or a store lives.
#[derive(Clone, Debug)]
pub enum Address {
    /// A path on the local file system.
    Local(PathBuf),
    /// A path inside an object store.
    Object {
        /// The store.
        store: Arc<ObjectFs>,
        /// The path inside it (`/` and the URL's path).
        root: PathBuf,
    },
    /// A root on a NATS JetStream server.
    Nats {
        /// The root.
        root: Box<NatsRoot>,
        /// Its name as a path (`nats://host:port/<name>`): the prefix of
        /// every path its errors name.
        path: PathBuf,
    },
}

/// Where `path` (as typed) lives: `nats://` is a NATS root, another URL
/// with a scheme an object store, anything else a local path.
pub fn locate(path: &Path) -> Result<Address, CliError> {
    match path.to_str() {
        Some(text) if text.starts_with("nats://") => {
            // A command never gives up on a server it lost while it runs
            // (`events --follow` rides out restarts); a request that no
            // server answers times out as `Unavailable` (exit 75).
            let root = NatsRoot::parse(text)?.reconnect_without_limit();
            Ok(Address::Nats {
                path: PathBuf::from(root.to_string()),
                root: Box::new(root),
            })
        }
        Some(text) if text.contains("://") => match nenjim_journal_objstore::parse_address(text)
            .map_err(|e| CliError::io(path, "cannot open the store", e))?
        {
            nenjim_journal_objstore::Address::Local(path) => Ok(Address::Local(path)),
            nenjim_journal_objstore::Address::Object { store, root } => {
                Ok(Address::Object { store, root })
            }
        },
        _ => Ok(Address::Local(path.to_path_buf())),
    }
}

/// The file system to read `address` through, and the root path in it (a
/// NATS root reads as a directory holding nothing but what its ledger's
/// entries carry).
pub fn file_system(address: &Address) -> (Arc<dyn FileSystem>, &Path) {
    match address {
        Address::Local(path) => (Arc::new(RealFileSystem), path),
        Address::Object { store, root } => (store.clone(), root),
        Address::Nats { root, path } => (Arc::new(NatsSource::new(root)), path),
    }
}

/// The store to write `address` through, and the root path in it: a
/// NATS root's backend is connected here (its error if the server cannot
/// be reached).
pub fn store(address: &Address) -> Result<(Arc<dyn Store>, &Path), CliError> {
    match address {
        Address::Local(path) => Ok((Arc::new(RealFileSystem), path)),
        Address::Object { store, root } => Ok((store.clone(), root)),
        Address::Nats { root, path } => Ok((NatsBackend::connect(root)?, path)),
    }
}
