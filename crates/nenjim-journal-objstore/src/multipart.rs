//! Blobs: spooled while hashed (their key is their digest), then one
//! conditional put or, above [`SINGLE_PUT_MAX`], a multipart upload.

use std::io::{self, Read, Seek as _, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use nenjim_journal_api::valuetypes::ContentPointer;
use nenjim_journal_store::{BlobStore as _, Created};
use object_store::path::Path as Key;
use object_store::{ObjectStoreExt as _, WriteMultipart};

use crate::ObjectFs;
use crate::errors::io_error;
use crate::keys::key;

/// The largest blob [`BlobStore::put_by_digest`](nenjim_journal_store::BlobStore::put_by_digest) sends in one conditional
/// put (`If-None-Match: *`) by default; a larger one goes in a multipart
/// upload of [`PART_BYTES`] parts (see [`ObjectFs::with_single_put_max`]).
pub const SINGLE_PUT_MAX: u64 = 64 * 1024 * 1024;

/// The part size of a multipart upload (S3 takes parts of 5 MiB and more).
pub const PART_BYTES: usize = 16 * 1024 * 1024;

/// How much of a blob being put stays in memory before the rest is spooled
/// to a temporary file.
const SPOOL_IN_MEMORY: usize = 8 * 1024 * 1024;

/// How many parts of a multipart upload are in flight at once.
const PARTS_IN_FLIGHT: usize = 2;

impl ObjectFs {
    /// [`BlobStore::put_by_digest`]: spooled while hashed, then one
    /// conditional put or a multipart upload.
    pub(crate) fn put_spooled(
        &self,
        dir: &Path,
        reader: &mut dyn Read,
    ) -> io::Result<(Created, ContentPointer)> {
        let mut spool = tempfile::SpooledTempFile::new(SPOOL_IN_MEMORY);
        let pointer = nenjim_journal_store::measure(reader, &mut spool)?;
        spool.seek(SeekFrom::Start(0))?;
        let path = dir.join(pointer.digest().to_hex());
        if pointer.size() <= self.single_put_max {
            let mut bytes = Vec::with_capacity(usize::try_from(pointer.size()).unwrap_or(0));
            spool.read_to_end(&mut bytes)?;
            return Ok((self.put_if_absent(&path, &bytes)?, pointer));
        }
        let key = key(&path)?;
        if self.exists(&key)? {
            return Ok((Created::Exists, pointer));
        }
        self.upload(&key, &mut spool)?;
        Ok((Created::New, pointer))
    }

    /// Puts everything `reader` yields at `key` in a multipart upload of
    /// [`PART_BYTES`] parts, at most [`PARTS_IN_FLIGHT`] at once (so at
    /// most that many parts are in memory); aborted on an error.
    fn upload(&self, key: &Key, reader: &mut dyn Read) -> io::Result<()> {
        let parts = AtomicU64::new(0);
        // The reader is the caller's (not `Send`): refused, not panicking,
        // from a thread of another async runtime.
        self.runtime.refuse_inside_a_runtime()?;
        let result = self.runtime.block_on_here(async {
            let upload = self.store.put_multipart(key).await.map_err(io_error)?;
            let mut writer = WriteMultipart::new_with_chunk_size(upload, PART_BYTES);
            let mut buffer = vec![0u8; nenjim_journal_store::BUFFER_BYTES];
            loop {
                let n = match reader.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        let _ = writer.abort().await;
                        return Err(e);
                    }
                };
                if let Err(e) = writer.wait_for_capacity(PARTS_IN_FLIGHT).await {
                    let _ = writer.abort().await;
                    return Err(io_error(e));
                }
                writer.write(buffer.get(..n).unwrap_or_default());
                parts.fetch_add(n as u64, Ordering::Relaxed);
            }
            writer.finish().await.map(|_| ()).map_err(io_error)
        });
        // The initiation, each part, the completion.
        let bytes = parts.load(Ordering::Relaxed);
        self.counters.put.fetch_add(
            bytes.div_ceil(PART_BYTES as u64).max(1) + 2,
            Ordering::Relaxed,
        );
        result
    }
}
