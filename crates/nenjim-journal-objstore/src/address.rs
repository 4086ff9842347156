//! Addresses of roots and content stores: a local path or a URL.
//!
//! | address | where |
//! | --- | --- |
//! | `/srv/journal`, `journal`, `file:///srv/journal` | the local file system |
//! | `s3://bucket/prefix` | S3 or a compatible store |
//! | `gs://bucket/prefix` | Google Cloud Storage |
//! | `az://container/prefix` | Azure Blob Storage |
//! | `memory://` | a new, empty in-memory store (tests) |
//!
//! Credentials, region and endpoint come from each store's standard
//! environment variables, read by `object_store`'s `from_env` builders:
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
//! `AWS_ENDPOINT_URL` (an S3-compatible server), `AWS_ALLOW_HTTP=true`
//! (a plain-HTTP endpoint); `GOOGLE_SERVICE_ACCOUNT`…; `AZURE_STORAGE_ACCOUNT_NAME`,
//! `AZURE_STORAGE_ACCOUNT_KEY`…

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use object_store::ObjectStore;

use crate::ObjectFs;

/// Where a root (or a content store) lives.
#[derive(Debug, Clone)]
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
}

impl Address {
    /// The path: the local path, or the path inside the store.
    pub fn path(&self) -> &std::path::Path {
        match self {
            Address::Local(path) => path,
            Address::Object { root, .. } => root,
        }
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// Reads an address: a URL with a scheme (`s3://`, `gs://`, `az://`,
/// `file://`, `memory://`) or else a local path.
pub fn parse_address(text: &str) -> io::Result<Address> {
    let Some((scheme, rest)) = text.split_once("://") else {
        return Ok(Address::Local(PathBuf::from(text)));
    };
    if scheme == "file" {
        return Ok(Address::Local(PathBuf::from(rest)));
    }
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let root = PathBuf::from("/").join(prefix.trim_matches('/'));
    let config =
        |e: object_store::Error| invalid(format!("cannot configure the store of {text}: {e}"));
    let store: Arc<dyn ObjectStore> = match scheme {
        "memory" => Arc::new(object_store::memory::InMemory::new()),
        "s3" => Arc::new(
            object_store::aws::AmazonS3Builder::from_env()
                .with_bucket_name(bucket)
                .build()
                .map_err(config)?,
        ),
        "gs" => Arc::new(
            object_store::gcp::GoogleCloudStorageBuilder::from_env()
                .with_bucket_name(bucket)
                .build()
                .map_err(config)?,
        ),
        "az" => Arc::new(
            object_store::azure::MicrosoftAzureBuilder::from_env()
                .with_container_name(bucket)
                .build()
                .map_err(config)?,
        ),
        other => {
            return Err(invalid(format!(
                "found the scheme `{other}://` in {text}, expected s3://, gs://, az://, file:// or memory://"
            )));
        }
    };
    if scheme != "memory" && bucket.is_empty() {
        return Err(invalid(format!(
            "found no bucket in {text}, expected {scheme}://<bucket>/<prefix>"
        )));
    }
    let location = format!("{scheme}://{bucket}");
    Ok(Address::Object {
        store: Arc::new(ObjectFs::new(store, location)?),
        root,
    })
}
