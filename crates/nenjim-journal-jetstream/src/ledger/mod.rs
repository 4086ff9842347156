//! The ledger of a NATS root: one JetStream stream, one message per entry
//! (see the [crate docs](crate) for the layout).
//!
//! One job a file: this one holds the handle (its connection, names and
//! buckets) and the checks the others share; `read.rs` reads the stream
//! (batches, single entries, the decoding and checking of a message),
//! `commit.rs` commits at an expected tip, one entry or an atomic batch
//! (and settles a resent publish),
//! `blobs.rs` keeps the blob bucket (revisions over the inline limit and
//! the root's content store).

mod blobs;
mod commit;
mod read;
mod streams;

pub use commit::{ATOMIC_BATCH_BYTES, ATOMIC_BATCH_MAX, CommitError};
#[doc(hidden)]
pub use read::{MessageBody, parse_message, stream_sequence};
pub(crate) use streams::ELECTION_POLL;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_nats::jetstream::consumer::pull::Ordered;
use async_nats::jetstream::object_store::ObjectStore;
use async_nats::jetstream::stream::{Config, DiscardPolicy, StorageType, Stream};
use bytes::Bytes;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_store::ledger::{Entry, RevisionPointer};

use crate::JetStreamRoot;
use crate::connection::Connection;
use crate::follow::StopSignal;
use crate::lease::NatsLease;

/// The header holding an entry's record line.
pub const RECORD_HEADER: &str = "Nenjim-Record";
/// The header naming the object of a revision kept in the blob bucket.
pub const BLOB_HEADER: &str = "Nenjim-Blob";
/// [`RECORD_HEADER`] as a header name (made once, not parsed per message).
pub(crate) const RECORD: async_nats::header::HeaderName =
    async_nats::header::HeaderName::from_static(RECORD_HEADER);
/// [`BLOB_HEADER`] as a header name.
pub(crate) const BLOB: async_nats::header::HeaderName =
    async_nats::header::HeaderName::from_static(BLOB_HEADER);
/// The prefix of a revision's object key in the blob bucket; the key is
/// `revisions/sha256/<hex>`.
pub const REVISION_KEY_PREFIX: &str = "revisions/sha256/";
/// The prefix of a content blob's key in the blob bucket (the content
/// store of a NATS root); the key is `blobs/sha256/<hex>`, as a directory
/// content store's path.
pub const CONTENT_KEY_PREFIX: &str = "blobs/sha256/";
/// How many times a publish whose answer was lost is sent again (with the
/// same `Nats-Msg-Id`, so the server stores it at most once).
const PUBLISH_ATTEMPTS: usize = 3;

/// The JetStream names of one root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names {
    /// The stream: `NENJIM_<name>`.
    pub stream: String,
    /// Its one subject: `nenjim.<name>.ledger`.
    pub subject: String,
    /// The lease's key-value bucket: `NENJIM_<name>_lease`.
    pub lease_bucket: String,
    /// The object-store bucket of large revisions (and blobs): `NENJIM_<name>_blobs`.
    pub blob_bucket: String,
    /// The key-value bucket of a signed root's transparency log (its
    /// checkpoint and tiles): `NENJIM_<name>_tlog`.
    pub tlog_bucket: String,
    /// The prefix of the subjects on which a lease's holder answers while it
    /// is connected: `nenjim.<name>.lease` (the holder's is
    /// `nenjim.<name>.lease.<nonce>`, see [`crate::lease`]).
    pub lease_subjects: String,
    /// The key-value bucket of the root's ledger metadata (the content
    /// store `init` records): `NENJIM_<name>_meta`.
    pub meta_bucket: String,
}

impl Names {
    /// The streams of the root's buckets (lease, blobs, tlog, meta): what
    /// a root's replicas and leader reads apply to besides its stream.
    pub fn bucket_streams(&self) -> [String; 4] {
        [
            format!("KV_{}", self.lease_bucket),
            format!("OBJ_{}", self.blob_bucket),
            format!("KV_{}", self.tlog_bucket),
            format!("KV_{}", self.meta_bucket),
        ]
    }

    /// The names of the root `name` (a valid root name, see [`JetStreamRoot::parse`]).
    pub fn of(name: &str) -> Names {
        Names {
            stream: format!("NENJIM_{name}"),
            subject: format!("nenjim.{name}.ledger"),
            lease_bucket: format!("NENJIM_{name}_lease"),
            blob_bucket: format!("NENJIM_{name}_blobs"),
            tlog_bucket: format!("NENJIM_{name}_tlog"),
            lease_subjects: format!("nenjim.{name}.lease"),
            meta_bucket: format!("NENJIM_{name}_meta"),
        }
    }
}

/// How a root's ledger is replicated ([`NatsLedger::replication`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Replication {
    /// The stream's replicas (1 when not replicated).
    pub replicas: usize,
    /// The server name of the stream's leader, when one is known.
    pub leader: Option<String>,
    /// How many followers are current with the leader.
    pub current: usize,
    /// Whether the server is one of a cluster.
    pub clustered: bool,
}

/// One ledger entry as read from the stream, with the revision's bytes
/// (checked against the record's size and SHA-256; the seam's
/// `read_after_with_bytes` checks the size and leaves the SHA-256 to the
/// loader).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LedgerMessage {
    entry: Entry,
    revision: Option<Bytes>,
}

impl LedgerMessage {
    /// The entry (its sequence is the stream sequence of its message).
    pub fn entry(&self) -> &Entry {
        &self.entry
    }
    /// The revision's exact bytes; `None` for a fence.
    pub fn revision(&self) -> Option<&[u8]> {
        self.revision.as_deref()
    }
    /// The entry and the revision's bytes.
    pub fn into_parts(self) -> (Entry, Option<Bytes>) {
        (self.entry, self.revision)
    }
}

/// The ledger of one NATS root (and the handle its lease, blobs and
/// followers come from). Every call blocks on the connection's own runtime:
/// call it from a plain thread, never from inside an async runtime.
#[derive(Debug, Clone)]
pub struct NatsLedger {
    inner: Arc<Inner>,
}

struct Inner {
    names: Names,
    root: JetStreamRoot,
    /// The stream, once known to exist: one handle shared by every call
    /// (a commit clones the `Arc`, never the stream's info).
    stream: Mutex<Option<Arc<Stream>>>,
    /// The ledger's subject, `names.subject` as the client takes it (a
    /// commit clones it without copying the name).
    subject: async_nats::Subject,
    /// The blob bucket, once known to exist.
    blobs: Mutex<Option<ObjectStore>>,
    /// The consumer of the last [`NatsLedger::read_after`], kept for the
    /// next one if that reads on where it ended (a start reading batch
    /// after batch uses one consumer): the sequence it is at and the
    /// connection's reconnection count when it was made.
    reading: Mutex<Option<(u64, u64, Ordered)>>,
    /// Revisions up to this many bytes travel inside their message.
    inline_limit: usize,
    /// This handle's id in the `Nats-Msg-Id` of its commits, and the
    /// prefix of the names of the consumers it makes (see `Drop`).
    committer: String,
    /// How many ordered consumers this handle made (each named
    /// `nenjim_<committer>_<n>`): deleted when the handle is dropped.
    consumers: std::sync::atomic::AtomicU64,
    stop: StopSignal,
    /// Declared last: dropped after the consumers and handles above, which
    /// belong to its runtime.
    conn: Connection,
}

impl Inner {
    /// The prefix of the names of this handle's consumers.
    fn consumer_prefix(&self) -> String {
        format!("nenjim_{}", self.committer)
    }
}

/// The consumers a handle made are deleted with it: otherwise each reader
/// (every command's start) would leave its ordered consumer on the server
/// until the client's inactivity threshold (30 s) ends it. Best effort,
/// and only from a plain thread (never blocking inside an async runtime):
/// the server still ends what is left.
impl Drop for Inner {
    fn drop(&mut self) {
        use std::sync::atomic::Ordering;
        if self.consumers.load(Ordering::Relaxed) == 0
            || tokio::runtime::Handle::try_current().is_ok()
            || self.conn.is_lost()
        {
            return;
        }
        let Some(stream) = lock(&self.stream).clone() else {
            return;
        };
        let prefix = self.consumer_prefix();
        let timeout = self
            .root
            .options
            .request_timeout
            .min(Duration::from_secs(2));
        self.conn.block_on(async {
            use futures::StreamExt as _;
            let cleanup = async {
                let names: Vec<String> = stream
                    .consumer_names()
                    .filter_map(|n| async move { n.ok() })
                    .filter(|n| std::future::ready(n.starts_with(&prefix)))
                    .collect()
                    .await;
                for name in names {
                    let _ = stream.delete_consumer(&name).await;
                }
            };
            let _ = tokio::time::timeout(timeout, cleanup).await;
        });
    }
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NatsLedger")
            .field("root", &self.root)
            .field("names", &self.names)
            .field("inline_limit", &self.inline_limit)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The room kept under the server's `max_payload` for the headers of a
/// message that carries its revision.
pub const HEADER_ROOM: usize = 8 * 1024;

impl NatsLedger {
    /// Connects to `root`'s server. The stream is looked up on first use:
    /// a root whose stream does not exist is `RootMissing` to a reader
    /// ([`NatsLedger::create`] makes it).
    pub fn connect(root: &JetStreamRoot) -> Result<NatsLedger, JournalError> {
        let conn = Connection::open(root)?;
        let max_payload = conn.client.server_info().max_payload;
        let inline_limit = root
            .options
            .inline_limit
            .min(max_payload.saturating_sub(HEADER_ROOM));
        let names = Names::of(&root.name);
        let subject = async_nats::Subject::from(names.subject.as_str());
        Ok(NatsLedger {
            inner: Arc::new(Inner {
                names,
                root: root.clone(),
                stream: Mutex::new(None),
                subject,
                blobs: Mutex::new(None),
                reading: Mutex::new(None),
                inline_limit,
                committer: unique_id(),
                consumers: std::sync::atomic::AtomicU64::new(0),
                stop: StopSignal::new(),
                conn,
            }),
        })
    }

    /// The root this ledger belongs to.
    pub fn root(&self) -> &JetStreamRoot {
        &self.inner.root
    }

    /// The root's JetStream names.
    pub fn names(&self) -> &Names {
        &self.inner.names
    }

    /// The largest revision that travels inside its message: the
    /// configured limit, at most the server's `max_payload` less
    /// [`HEADER_ROOM`].
    pub fn inline_limit(&self) -> usize {
        self.inner.inline_limit
    }

    /// A name for the entry `sequence` in messages:
    /// `nats://host:port/<name>/ledger/<sequence>`.
    pub fn entry_path(&self, sequence: u64) -> PathBuf {
        PathBuf::from(format!("{}/ledger/{sequence}", self.inner.conn.address))
    }

    /// The signal that ends every follower of this ledger with `Stopped`.
    pub fn stop_signal(&self) -> &StopSignal {
        &self.inner.stop
    }

    pub(crate) fn conn(&self) -> &Connection {
        &self.inner.conn
    }

    /// Whether the root exists (its stream does).
    pub fn exists(&self) -> Result<bool, JournalError> {
        match self.stream() {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == ErrorKind::RootMissing => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The stream (looked up once, then the shared handle); `RootMissing`
    /// when it does not exist.
    fn stream(&self) -> Result<Arc<Stream>, JournalError> {
        if let Some(stream) = lock(&self.inner.stream).as_ref() {
            return Ok(Arc::clone(stream));
        }
        let conn = &self.inner.conn;
        match self.find_stream(&self.inner.names.stream, "cannot look up the ledger's stream")? {
            Some(stream) => {
                let stream = Arc::new(stream);
                *lock(&self.inner.stream) = Some(Arc::clone(&stream));
                Ok(stream)
            }
            None => Err(error::error(
                ErrorKind::RootMissing,
                format!(
                    "found no stream {} on the server, expected the ledger of the root {} (a writer creates it)",
                    self.inner.names.stream, conn.address
                ),
            )
            .with_path(&conn.address)),
        }
    }

    /// The lease bucket (created if `create`).
    pub(crate) fn lease_bucket(
        &self,
        create: bool,
    ) -> Result<async_nats::jetstream::kv::Store, JournalError> {
        let conn = &self.inner.conn;
        let bucket = &self.inner.names.lease_bucket;
        if create {
            let config = async_nats::jetstream::kv::Config {
                bucket: bucket.clone(),
                history: 1,
                storage: StorageType::File,
                num_replicas: self.stream_replicas(),
                description: format!("the writer's lease of {}", conn.address),
                ..Default::default()
            };
            // An existing bucket is opened as it is: its description names
            // the address of the writer that made it, which another spelling
            // of the server's address (a host name for an IP) differs from.
            conn.block_on(conn.js.create_key_value(config))
                .or_else(|e| {
                    conn.block_on(conn.js.get_key_value(bucket.clone()))
                        .map_err(|_| e)
                })
                .map_err(|e| conn.request_error("cannot create the lease bucket", e))
        } else {
            conn.block_on(conn.js.get_key_value(bucket.clone()))
                .map_err(|e| conn.request_error("cannot open the lease bucket", e))
        }
    }

    /// The blob bucket (created if `create`).
    fn blob_bucket(&self, create: bool) -> Result<ObjectStore, JournalError> {
        if let Some(store) = lock(&self.inner.blobs).as_ref() {
            return Ok(store.clone());
        }
        let conn = &self.inner.conn;
        let bucket = &self.inner.names.blob_bucket;
        let store = if create {
            let config = async_nats::jetstream::object_store::Config {
                bucket: bucket.clone(),
                storage: StorageType::File,
                num_replicas: self.stream_replicas(),
                description: Some(format!("large revisions and blobs of {}", conn.address)),
                ..Default::default()
            };
            // An existing bucket is opened as it is (see `lease_bucket`).
            conn.block_on(conn.js.create_object_store(config))
                .or_else(|e| {
                    conn.block_on(conn.js.get_object_store(bucket))
                        .map_err(|_| e)
                })
                .map_err(|e| conn.request_error("cannot create the blob bucket", e))?
        } else {
            conn.block_on(conn.js.get_object_store(bucket))
                .map_err(|e| conn.request_error("cannot open the blob bucket", e))?
        };
        *lock(&self.inner.blobs) = Some(store.clone());
        Ok(store)
    }

    /// The lease of this root (its bucket must exist: a writer's
    /// [`NatsLedger::create`] makes it).
    pub fn lease(&self) -> Result<NatsLease, JournalError> {
        NatsLease::new(self.clone())
    }

    /// The tip: the last entry's sequence (0 for an empty ledger).
    pub fn tip(&self) -> Result<u64, JournalError> {
        let stream = self.stream()?;
        let conn = &self.inner.conn;
        let info = conn
            .block_on(stream.get_info())
            .map_err(|e| conn.request_error("cannot read the ledger's stream info", e))?;
        if info.state.first_sequence > 1 && info.state.messages > 0 {
            return Err(error::error(
                ErrorKind::LedgerMismatch,
                format!(
                    "found the ledger's stream starting at sequence {}, expected it to start at 1 (entries are never removed)",
                    info.state.first_sequence
                ),
            )
            .with_path(&conn.address));
        }
        Ok(info.state.last_sequence)
    }
}

/// The key of the blob bucket's object holding the revision `pointer`
/// points at: `revisions/sha256/<hex>` of its digest.
fn revision_key(pointer: &RevisionPointer) -> String {
    format!("{REVISION_KEY_PREFIX}{}", pointer.digest().to_hex())
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        hex.push(char::from(DIGITS[usize::from(b >> 4)]));
        hex.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    hex
}

/// What of a revision's bytes is checked against its record's pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// Their size and SHA-256: bytes whose digest no one computed yet
    /// (given by a caller of [`NatsLedger::commit_at`], read by
    /// [`NatsLedger::read_after`]).
    Digest,
    /// Their size alone, the SHA-256 being computed once elsewhere: by the
    /// writer, whose pointer is the digest its parse computed of exactly
    /// these bytes (the seam's commit), or by the loader, which compares
    /// the digest its parse computes with the record's (the seam's
    /// `read_after_with_bytes`, a `LedgerMismatch` when they differ).
    Size,
}

/// Checks `bytes` against `pointer`'s size and, for [`Check::Digest`], its
/// SHA-256.
fn check(
    pointer: &RevisionPointer,
    bytes: &[u8],
    what: Check,
    error: &dyn Fn(String) -> JournalError,
    where_: &str,
) -> Result<(), JournalError> {
    if bytes.len() as u64 != pointer.size() {
        return Err(error(format!(
            "found {} bytes of {} {where_}, expected {} (the record's size)",
            bytes.len(),
            pointer.coordinate(),
            pointer.size()
        )));
    }
    if what == Check::Size {
        return Ok(());
    }
    // Compared as bytes: formatting both digests cost two strings per
    // revision read (a start reads every one).
    let digest = nenjim_journal_api::valuetypes::RevisionDigest::of_bytes(bytes);
    if digest != *pointer.digest() {
        return Err(error(format!(
            "found the SHA-256 {digest} of {} {where_}, expected {} (the record's)",
            pointer.coordinate(),
            pointer.digest()
        )));
    }
    Ok(())
}

/// A fresh id, unique across processes and handles: the process id, the
/// time and a counter.
pub(crate) fn unique_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{SystemTime, UNIX_EPOCH};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{:x}-{nanos:x}-{n:x}", std::process::id())
}
