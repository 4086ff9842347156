//! An object's bytes streamed ([`BlobStore::open`](nenjim_journal_store::BlobStore::open)).

use std::io::{self, Read};
use std::path::Path;
use std::sync::Arc;

use futures::TryStreamExt as _;
use futures::stream::BoxStream;
use object_store::ObjectStoreExt as _;

use crate::errors::io_error;
use crate::keys::key;
use crate::{ObjectFs, bump};

impl ObjectFs {
    /// Streams the object `path` ([`BlobStore::open`]).
    pub(crate) fn open_stream(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        let key = key(path)?;
        bump(&self.counters.get);
        let result = self
            .runtime
            .block_on(self.store.get(&key))
            .map_err(io_error)?;
        Ok(Box::new(ObjectReader {
            runtime: self.runtime.clone(),
            stream: futures::StreamExt::boxed(result.into_stream().map_ok(|chunk| chunk.to_vec())),
            chunk: Vec::new(),
            at: 0,
        }))
    }
}

/// An object's bytes as they arrive ([`BlobStore::open`]): one chunk of the
/// answer in memory at a time.
struct ObjectReader {
    runtime: Arc<crate::Blocking>,
    stream: BoxStream<'static, object_store::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    /// How much of `chunk` was read.
    at: usize,
}

impl Read for ObjectReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use futures::StreamExt as _;
        while self.at == self.chunk.len() {
            match self.runtime.block_on(self.stream.next()) {
                None => return Ok(0),
                Some(Ok(chunk)) => {
                    self.chunk = chunk;
                    self.at = 0;
                }
                Some(Err(e)) => return Err(io_error(e)),
            }
        }
        let rest = self.chunk.get(self.at..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        if let (Some(to), Some(from)) = (buf.get_mut(..n), rest.get(..n)) {
            to.copy_from_slice(from);
        }
        self.at += n;
        Ok(n)
    }
}
