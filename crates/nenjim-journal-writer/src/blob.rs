//! The content store: each blob at `<store>/blobs/sha256/<hex>` (format
//! section 4, the OCI image-layout convention), put durably and checked by
//! size and SHA-256.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::build::{self, ErrorContext as _};
use nenjim_journal_api::valuetypes::{ContentDigest, ContentPointer};
use sha2::{Digest, Sha256};

use nenjim_journal_fs::{Created, Store};

/// `<store>/blobs/sha256`.
pub(crate) fn blob_dir(store: &Path) -> PathBuf {
    store.join("blobs").join("sha256")
}

/// Where the blob with `digest` lives.
pub(crate) fn blob_path(store: &Path, digest: &ContentDigest) -> PathBuf {
    blob_dir(store).join(digest.to_hex())
}

/// The size and SHA-256 of the file at `path`, read in chunks.
fn measure(fs: &dyn Store, path: &Path) -> io::Result<ContentPointer> {
    let mut file = fs.open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        size += n as u64;
        hasher.update(buffer.get(..n).unwrap_or_default());
    }
    Ok(ContentPointer::new(
        ContentDigest::from_bytes(hasher.finalize().into()),
        size,
    ))
}

/// Checks that the store holds the blob `pointer` points at, exactly.
pub(crate) fn check(
    fs: &dyn Store,
    store: &Path,
    pointer: &ContentPointer,
) -> Result<(), JournalError> {
    let path = blob_path(store, pointer.digest());
    let found = match measure(fs, &path) {
        Ok(found) => found,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(build::error(
                ErrorKind::BlobMissing,
                format!(
                    "found no blob for CONTENT {} {}, expected it in the content store first (put it with put-blob)",
                    pointer.digest(),
                    pointer.size()
                ),
            )
            .with_path(path));
        }
        Err(e) => return Err(build::io_error(path, "cannot read the blob", e)),
    };
    if found != *pointer {
        return Err(build::error(
            ErrorKind::BlobMismatch,
            format!(
                "found a blob of {} bytes with digest {}, expected CONTENT {} {}",
                found.size(),
                found.digest(),
                pointer.digest(),
                pointer.size()
            ),
        )
        .with_path(path));
    }
    Ok(())
}

/// Puts `bytes` into `store`, durably; an existing blob with the same name
/// must hold exactly these bytes (`BlobMismatch` otherwise).
pub(crate) fn put(
    fs: &dyn Store,
    store: &Path,
    bytes: &[u8],
) -> Result<ContentPointer, JournalError> {
    let pointer = ContentPointer::new(ContentDigest::of_bytes(bytes), bytes.len() as u64);
    let dir = blob_dir(store);
    for d in [store.to_path_buf(), store.join("blobs"), dir.clone()] {
        fs.ensure_dir(&d)
            .map_err(|e| build::io_error(&d, "cannot create the content store", e))?;
    }
    let path = blob_path(store, pointer.digest());
    let created = fs
        .create(&path, bytes, &dir)
        .map_err(|e| build::io_error(&path, "cannot write the blob", e))?;
    if created == Created::Exists {
        check(fs, store, &pointer)?;
    }
    Ok(pointer)
}
