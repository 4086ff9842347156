//! The content store: each blob at `<store>/blobs/sha256/<hex>` (format
//! section 4, the OCI image-layout convention), put durably and checked by
//! size and SHA-256.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::ContentPointer;

use nenjim_journal_store::content::{blob_dir, blob_path};
use nenjim_journal_store::{Created, Store};

/// The size and SHA-256 of the file at `path`, streamed.
fn measure(fs: &dyn Store, path: &Path) -> io::Result<ContentPointer> {
    let mut file = fs.open(path)?;
    nenjim_journal_store::measure(&mut file, &mut io::sink())
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
            return Err(error::error(
                ErrorKind::BlobMissing,
                format!(
                    "found no blob for CONTENT {} {}, expected it in the content store first (put it with put-blob)",
                    pointer.digest(),
                    pointer.size()
                ),
            )
            .with_path(path));
        }
        Err(e) => return Err(error::io_error(path, "cannot read the blob", e)),
    };
    if found != *pointer {
        return Err(error::error(
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

/// A blob put into a content store ([`put_blob_from`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PutBlob {
    pointer: ContentPointer,
    path: PathBuf,
    new: bool,
}

impl PutBlob {
    /// Its content pointer (what a `CONTENT` line says).
    pub fn pointer(&self) -> ContentPointer {
        self.pointer
    }
    /// Where it is: `<store>/blobs/sha256/<hex>`.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// False when the store already held it.
    pub fn is_new(&self) -> bool {
        self.new
    }
}

/// Puts everything `reader` yields into the content store at `store` of
/// `fs` (`<store>/blobs/sha256/<hex>`), streamed and durably
/// ([`BlobStore::put_by_digest`](nenjim_journal_store::BlobStore::put_by_digest)): idempotent for a blob the store holds
/// already; a blob under that name with other bytes is `BlobMismatch` (the
/// store is damaged), and nothing is replaced. A content store needs no
/// lease (a blob's name is its digest: any two puts of a name put the same
/// bytes), so this takes no writer; [`FsJournalWriter::put_blob`](crate::FsJournalWriter::put_blob)
/// calls it for the writer's content store.
pub fn put_blob_from(
    fs: &dyn Store,
    store: &Path,
    reader: &mut dyn Read,
) -> Result<PutBlob, JournalError> {
    let dir = blob_dir(store);
    let (created, pointer) = fs
        .put_by_digest(&dir, reader)
        .map_err(|e| error::io_error(&dir, "cannot write the blob", e))?;
    let path = blob_path(store, pointer.digest());
    if created == Created::Exists {
        check(fs, store, &pointer).map_err(|e| {
            if e.kind() == ErrorKind::BlobMismatch {
                e.note("the store is damaged: that name must hold those bytes")
                    .with_path(&path)
            } else {
                e
            }
        })?;
    }
    Ok(PutBlob {
        pointer,
        path,
        new: created == Created::New,
    })
}
