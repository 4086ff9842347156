//! Reads are bounded on every backend: an object over the limit is refused
//! after at most `limit + 1` bytes of its body were read, whether its
//! answer tells its size truly (refused before the body) or understates it
//! (the body cut off). Shared by the in-memory and the S3 test binaries.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::fmt;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use futures::StreamExt as _;
use futures::stream::BoxStream;
use nenjim_journal_fs::FileSystem as _;
use nenjim_journal_objstore::ObjectFs;
use nenjim_journal_store::BlobStore as _;
use object_store::path::Path as Key;
use object_store::{
    CopyOptions, GetOptions, GetResult, GetResultPayload, ListResult, MultipartUpload, ObjectMeta,
    ObjectStore, ObjectStoreExt as _, PutMultipartOptions, PutOptions, PutPayload, PutResult,
};

/// The size of the chunks a [`Counting`] store's bodies arrive in.
pub const CHUNK: usize = 8 * 1024;

/// A store in front of another that counts the body bytes its GETs yield
/// to the caller, and, if `understate`, says every object holds 1 byte.
pub struct Counting {
    inner: Arc<dyn ObjectStore>,
    understate: bool,
    read: Arc<AtomicU64>,
}

impl Counting {
    pub fn new(inner: Arc<dyn ObjectStore>, understate: bool) -> Counting {
        Counting {
            inner,
            understate,
            read: Arc::new(AtomicU64::new(0)),
        }
    }
    pub fn read(&self) -> u64 {
        self.read.load(Ordering::SeqCst)
    }
}

impl fmt::Debug for Counting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Counting({})", self.understate)
    }
}

impl fmt::Display for Counting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Counting({})", self.understate)
    }
}

#[async_trait]
impl ObjectStore for Counting {
    async fn put_opts(
        &self,
        location: &Key,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Key,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &Key,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        let mut result = self.inner.get_opts(location, options).await?;
        if self.understate {
            result.meta.size = 1;
        }
        let read = self.read.clone();
        let body = std::mem::replace(
            &mut result.payload,
            GetResultPayload::Stream(futures::stream::empty().boxed()),
        );
        // (The only payload without `object_store`'s `fs` feature.)
        let GetResultPayload::Stream(body) = body;
        // The body in chunks of `CHUNK` bytes, as a network delivers it
        // (the in-memory store answers in one chunk), each counted when the
        // caller takes it.
        let stream = body
            .flat_map(|chunk| {
                let pieces: Vec<object_store::Result<_>> = match chunk {
                    Ok(bytes) => (0..bytes.len())
                        .step_by(CHUNK)
                        .map(|at| Ok(bytes.slice(at..(at + CHUNK).min(bytes.len()))))
                        .collect(),
                    Err(e) => vec![Err(e)],
                };
                futures::stream::iter(pieces)
            })
            .map(move |chunk| {
                if let Ok(bytes) = &chunk {
                    read.fetch_add(bytes.len() as u64, Ordering::SeqCst);
                }
                chunk
            })
            .boxed();
        result.payload = GetResultPayload::Stream(stream);
        Ok(result)
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Key>>,
    ) -> BoxStream<'static, object_store::Result<Key>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Key>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Key>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Key,
        to: &Key,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

/// Puts a 4 MiB object into `store` (in chunks the body is streamed in)
/// and reads it with a limit of 1 000 bytes through `FileSystem::read` and
/// `BlobStore::get`, both answers telling the size truly and understating
/// it: refused every time; from a true answer before any byte of the body
/// is read, from an understating one once the body passed 1 001 bytes (the
/// chunk that passed them is the last one read, and only 1 001 of its
/// bytes are kept).
pub fn an_object_over_the_limit_is_refused_after_at_most_limit_plus_one_bytes(
    store: Arc<dyn ObjectStore>,
) {
    let size = 4 * 1024 * 1024;
    let limit = 1000u64;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        store
            .put(&Key::from("big/object"), PutPayload::from(vec![b'x'; size]))
            .await
            .unwrap();
    });
    let path = Path::new("/big/object");
    for understate in [false, true] {
        let counting = Arc::new(Counting::new(store.clone(), understate));
        let fs = ObjectFs::new(counting.clone(), "test://").unwrap();
        // The loader's read: an error, or more than `limit` bytes (over it).
        match fs.read(path, limit) {
            Err(e) => assert_eq!(e.kind(), io::ErrorKind::FileTooLarge, "{e}"),
            Ok(bytes) => assert_eq!(bytes.len() as u64, limit + 1, "understate {understate}"),
        }
        let first = counting.read();
        if understate {
            assert!(first > limit && first <= limit + CHUNK as u64, "{first}");
        } else {
            assert_eq!(first, 0, "refused from the answer's size, before the body");
        }
        let before = counting.read();
        // The writer's read: an error whatever the answer says.
        let refused = fs.get(path, limit).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::FileTooLarge, "{refused}");
        let taken = counting.read() - before;
        if understate {
            // The body was read until it passed the limit, and no further.
            assert!(taken > limit && taken <= limit + CHUNK as u64, "{taken}");
        } else {
            assert_eq!(taken, 0, "refused from the answer's size, before the body");
        }
        // Under the limit, the object is read whole.
        let whole = fs.get(path, size as u64).unwrap().unwrap();
        assert_eq!(whole.0.len(), size);
    }
}
