//! Shared by the bucket tests: revision texts, a copy of a local root into
//! a store, worldviews to compare, stores that fail or lie, and the S3
//! protocol server (moto) the tests start on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use futures::StreamExt as _;
use futures::stream::BoxStream;
use nenjim_journal_chain::ChainState;
use nenjim_journal_objstore::ObjectFs;
use object_store::path::Path as Key;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMode, PutMultipartOptions, PutOptions, PutPayload, PutResult,
};

/// A few artifacts, some with successors, in a fixed order.
pub fn texts() -> Vec<String> {
    let mut out = Vec::new();
    for (i, artifact) in ["left-pad", "serde", "aaa", "zz-top"].iter().enumerate() {
        let first = genesis(artifact, &format!("2026010{}T000000Z", i + 1));
        let second = successor(&first, "20260201T000000Z", "");
        out.push(first);
        out.push(second);
    }
    out
}

/// (sequence, coordinate, version, digest) of every revision, by sequence:
/// the worldview compared revision by revision.
pub fn worldview(state: &ChainState) -> Vec<(u64, String, String, String)> {
    let mut cursor = state.replay(0);
    let mut out = Vec::new();
    while let Some(r) = cursor.next().unwrap() {
        out.push(row(&r));
    }
    out
}

/// One row of a worldview: (sequence, coordinate, version, digest).
pub fn row(r: &nenjim_journal_api::model::JournalRevision) -> (u64, String, String, String) {
    (
        r.sequence(),
        r.coordinate().to_string(),
        r.journal_version().to_string(),
        r.digest().to_string(),
    )
}

pub use nenjim_journal_testkit::texts::{bare_genesis as genesis, files, restated as successor};

/// Copies the local `root` into `store` under the key prefix `prefix`.
pub fn copy_into(root: &Path, store: &dyn ObjectStore, prefix: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for (relative, bytes) in files(root) {
        let key = Key::from(format!("{prefix}/{}", relative.to_str().unwrap()));
        runtime
            .block_on(store.put_opts(&key, PutPayload::from(bytes), PutOptions::default()))
            .unwrap();
    }
}

/// Which calls a [`Faulty`] store fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// None.
    Never,
    /// The `n`-th call (from 1) fails before it reaches the store.
    Refuse(u64),
    /// The `n`-th call reaches the store, then its answer is lost.
    LoseAnswer(u64),
    /// Puts ignore their precondition (a store that lies).
    Lie,
}

/// An object store in front of another that fails one call (a put, a get
/// or head, a listing, a deletion; counted from 1 in the order they are
/// made), or lies. It wraps any store: the in-memory one or an S3 client.
pub struct Faulty {
    inner: Arc<dyn ObjectStore>,
    fault: Fault,
    calls: AtomicU64,
}

impl Faulty {
    pub fn new(inner: Arc<dyn ObjectStore>, fault: Fault) -> Faulty {
        Faulty {
            inner,
            fault,
            calls: AtomicU64::new(0),
        }
    }
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::SeqCst)
    }
    /// `Some(lose_answer)` when this call is the faulty one.
    fn fail_now(&self) -> Option<bool> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        match self.fault {
            Fault::Refuse(k) if k == n => Some(false),
            Fault::LoseAnswer(k) if k == n => Some(true),
            _ => None,
        }
    }
}

fn injected() -> object_store::Error {
    object_store::Error::Generic {
        store: "faulty",
        source: "injected fault".into(),
    }
}

impl fmt::Debug for Faulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Faulty({:?})", self.fault)
    }
}

impl fmt::Display for Faulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Faulty({:?})", self.fault)
    }
}

#[async_trait]
impl ObjectStore for Faulty {
    async fn put_opts(
        &self,
        location: &Key,
        payload: PutPayload,
        mut opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        if self.fault == Fault::Lie {
            opts.mode = PutMode::Overwrite;
        }
        match self.fail_now() {
            Some(false) => Err(injected()),
            Some(true) => {
                let _ = self.inner.put_opts(location, payload, opts).await;
                Err(injected())
            }
            None => self.inner.put_opts(location, payload, opts).await,
        }
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
        match self.fail_now() {
            Some(_) => Err(injected()),
            None => self.inner.get_opts(location, options).await,
        }
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Key>>,
    ) -> BoxStream<'static, object_store::Result<Key>> {
        match self.fail_now() {
            Some(false) => futures::stream::once(async { Err(injected()) }).boxed(),
            // The deletions happen; the answer is lost.
            Some(true) => self
                .inner
                .delete_stream(locations)
                .map(|_| Err(injected()))
                .boxed(),
            None => self.inner.delete_stream(locations),
        }
    }

    fn list(&self, prefix: Option<&Key>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        match self.fail_now() {
            Some(_) => futures::stream::once(async { Err(injected()) }).boxed(),
            None => self.inner.list(prefix),
        }
    }

    async fn list_with_delimiter(&self, prefix: Option<&Key>) -> object_store::Result<ListResult> {
        match self.fail_now() {
            Some(_) => Err(injected()),
            None => self.inner.list_with_delimiter(prefix).await,
        }
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

/// The S3 protocol server of the `moto` Python package (the testkit's),
/// with this crate's clients of its buckets.
pub use nenjim_journal_testkit::moto::Moto;

/// Clients of a moto server's buckets.
pub trait MotoBuckets {
    /// A new bucket `name` as a root store.
    fn object_fs(&self, name: &str) -> Arc<ObjectFs>;
}

impl MotoBuckets for Moto {
    fn object_fs(&self, name: &str) -> Arc<ObjectFs> {
        self.create_bucket(name);
        Arc::new(ObjectFs::new(self.bucket(name), format!("s3://{name}")).unwrap())
    }
}
