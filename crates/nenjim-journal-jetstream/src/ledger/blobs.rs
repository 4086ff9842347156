//! The blob bucket: revisions over the inline limit (`revisions/sha256/<hex>`)
//! and the root's content store (`blobs/sha256/<hex>`), each object put
//! once under the SHA-256 of its bytes.

use std::path::PathBuf;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::{ContentDigest, ContentPointer};
use sha2::{Digest as _, Sha256};
use tokio::io::AsyncReadExt as _;

use super::{CONTENT_KEY_PREFIX, NatsLedger, hex};

impl NatsLedger {
    /// Puts `bytes` at `key` of the blob bucket, unless an object of the
    /// same size and SHA-256 (as the bucket records it) is there already: a
    /// key is its bytes' SHA-256, so a good object is never replaced and a
    /// reader never sees it change.
    pub(super) fn put_blob_object(&self, key: &str, bytes: &[u8]) -> Result<(), JournalError> {
        use base64::Engine as _;
        let store = self.blob_bucket(true)?;
        let conn = &self.inner.conn;
        let digest = format!(
            "SHA-256={}",
            base64::engine::general_purpose::URL_SAFE.encode(Sha256::digest(bytes))
        );
        let existing = conn.block_on(store.info(key));
        if let Ok(info) = existing
            && !info.deleted
            && u64::try_from(info.size).ok() == Some(bytes.len() as u64)
            && info.digest.as_deref() == Some(digest.as_str())
        {
            return Ok(());
        }
        let mut reader = bytes;
        conn.block_on(store.put(key, &mut reader))
            .map(|_| ())
            .map_err(|e| conn.request_error(&format!("cannot put the blob {key}"), e))
    }
    /// Puts `bytes` into the root's content store (the object
    /// `blobs/sha256/<hex>` of the blob bucket), idempotently, and returns
    /// its content pointer.
    pub fn put_blob(&self, bytes: &[u8]) -> Result<ContentPointer, JournalError> {
        let pointer = ContentPointer::new(ContentDigest::of_bytes(bytes), bytes.len() as u64);
        let key = format!("{CONTENT_KEY_PREFIX}{}", pointer.digest().to_hex());
        self.put_blob_object(&key, bytes)?;
        Ok(pointer)
    }

    /// Checks that the content store holds the blob `pointer` points at,
    /// exactly (read and hashed as it streams): `BlobMissing` without it,
    /// `BlobMismatch` for other bytes.
    pub fn check_blob(&self, pointer: &ContentPointer) -> Result<(), JournalError> {
        let key = format!("{CONTENT_KEY_PREFIX}{}", pointer.digest().to_hex());
        let path = PathBuf::from(format!("{}/{key}", self.inner.conn.address));
        let missing = || {
            error::error(
                ErrorKind::BlobMissing,
                format!(
                    "found no blob {key} in the bucket {}, expected the content {pointer} put first",
                    self.inner.names.blob_bucket
                ),
            )
            .with_path(&path)
        };
        let store = match self.blob_bucket(false) {
            Ok(store) => store,
            Err(_) if self.exists()? => return Err(missing()),
            Err(e) => return Err(e),
        };
        let conn = &self.inner.conn;
        let measured = conn.block_on(async {
            let mut object = store.get(&key).await?;
            let mut hasher = Sha256::new();
            let mut size = 0u64;
            let mut buffer = vec![0; 64 * 1024];
            loop {
                let n = object.read(&mut buffer).await?;
                if n == 0 {
                    break;
                }
                hasher.update(&buffer[..n]);
                size += n as u64;
            }
            Ok::<_, async_nats::Error>((size, hasher.finalize()))
        });
        let (size, digest) = match measured {
            Ok(measured) => measured,
            Err(e) if is_not_found(&e) => return Err(missing()),
            Err(e) => return Err(conn.request_error(&format!("cannot read the blob {key}"), e)),
        };
        let hex = hex(&digest);
        if size != pointer.size() || hex != pointer.digest().to_hex() {
            return Err(error::error(
                ErrorKind::BlobMismatch,
                format!(
                    "found the blob {key} of {size} bytes with SHA-256 {hex}, expected {pointer}"
                ),
            )
            .with_path(&path));
        }
        Ok(())
    }
}

/// Whether a blob bucket's answer says the object is not there.
fn is_not_found(error: &async_nats::Error) -> bool {
    error
        .downcast_ref::<async_nats::jetstream::object_store::GetError>()
        .is_some_and(|g| g.kind() == async_nats::jetstream::object_store::GetErrorKind::NotFound)
}

impl NatsLedger {
    /// The size of the object `key` of the blob bucket, or `None` when it
    /// is not there (nor the bucket).
    pub(crate) fn blob_size(&self, key: &str) -> Result<Option<u64>, JournalError> {
        let store = match self.blob_bucket(false) {
            Ok(store) => store,
            Err(_) if !self.exists()? => return Ok(None),
            Err(e) => return Err(e),
        };
        let conn = &self.inner.conn;
        match conn.block_on(store.info(key)) {
            Ok(info) if !info.deleted => Ok(Some(info.size as u64)),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == async_nats::jetstream::object_store::InfoErrorKind::NotFound => {
                Ok(None)
            }
            Err(e) => Err(conn.request_error(&format!("cannot look up the blob {key}"), e)),
        }
    }

    /// Streams the object `key` of the blob bucket (never whole in
    /// memory); `None` when it is not there.
    pub(crate) fn open_blob(&self, key: &str) -> Result<Option<BlobReader>, JournalError> {
        if self.blob_size(key)?.is_none() {
            return Ok(None);
        }
        let store = self.blob_bucket(false)?;
        let conn = &self.inner.conn;
        match conn.block_on(store.get(key)) {
            Ok(object) => Ok(Some(BlobReader {
                ledger: self.clone(),
                object: Box::new(object),
            })),
            Err(e) if e.kind() == async_nats::jetstream::object_store::GetErrorKind::NotFound => {
                Ok(None)
            }
            Err(e) => Err(conn.request_error(&format!("cannot read the blob {key}"), e)),
        }
    }

    /// Puts `bytes` at `key` of the blob bucket unless an object is there
    /// already (whose bytes the caller compares): whether it was put.
    pub(crate) fn put_blob_if_absent(&self, key: &str, bytes: &[u8]) -> Result<bool, JournalError> {
        if self.blob_size(key)?.is_some() {
            return Ok(false);
        }
        self.put_blob_object(key, bytes)?;
        Ok(true)
    }
}

/// The bytes of one object of the blob bucket, read as they stream in
/// (each `read` blocks on the ledger's runtime).
pub(crate) struct BlobReader {
    ledger: NatsLedger,
    object: Box<async_nats::jetstream::object_store::Object>,
}

impl std::io::Read for BlobReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let conn = self.ledger.conn();
        conn.block_on(self.object.read(buf))
    }
}
