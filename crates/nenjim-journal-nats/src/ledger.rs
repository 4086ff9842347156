//! The ledger of a NATS root: one JetStream stream, one message per entry
//! (see the [crate docs](crate) for the layout).
//!
//! Over 600 lines, on purpose for now: the stream's reading, its
//! compare-and-set commit, the settling of a resent publish and the
//! revision blobs share one connection, one runtime and one error mapping,
//! and this groundwork is not yet behind the seam's `Ledger` trait; the
//! split by job (read, commit, blobs) comes with that wiring (issue 22).

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_nats::HeaderMap;
use async_nats::jetstream::consumer::DeliverPolicy;
use async_nats::jetstream::consumer::pull::{Ordered, OrderedConfig};
use async_nats::jetstream::context::PublishErrorKind;
use async_nats::jetstream::message::PublishMessage;
use async_nats::jetstream::object_store::ObjectStore;
use async_nats::jetstream::stream::{Config, DiscardPolicy, StorageType, Stream};
use bytes::Bytes;
use futures::StreamExt as _;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::{ContentDigest, ContentPointer};
use nenjim_journal_store::ledger::{Entry, Record, RevisionPointer};
use sha2::{Digest as _, Sha256};
use tokio::io::AsyncReadExt as _;

use crate::NatsRoot;
use crate::connection::Connection;
use crate::follow::{Follower, StopSignal};
use crate::lease::NatsLease;

/// The header holding an entry's record line.
pub const RECORD_HEADER: &str = "Nenjim-Record";
/// The header naming the object of a revision kept in the blob bucket.
pub const BLOB_HEADER: &str = "Nenjim-Blob";
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
}

impl Names {
    /// The names of the root `name` (a valid root name, see [`NatsRoot::parse`]).
    pub fn of(name: &str) -> Names {
        Names {
            stream: format!("NENJIM_{name}"),
            subject: format!("nenjim.{name}.ledger"),
            lease_bucket: format!("NENJIM_{name}_lease"),
            blob_bucket: format!("NENJIM_{name}_blobs"),
        }
    }
}

/// One ledger entry as read from the stream, with the revision's bytes
/// (checked against the record's size and SHA-256).
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

impl std::fmt::Display for CommitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommitError::TipMoved { tip, found } => {
                write!(f, "the ledger's tip moved to sequence {tip}")?;
                match found {
                    Some(entry) => write!(f, " (found `{entry}`)"),
                    None => Ok(()),
                }
            }
            CommitError::Failed(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CommitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CommitError::TipMoved { .. } => None,
            CommitError::Failed(e) => Some(e),
        }
    }
}

/// Why [`NatsLedger::commit_at`] did not commit.
#[derive(Debug)]
#[non_exhaustive]
pub enum CommitError {
    /// The stream's last sequence was not the expected tip: another writer
    /// committed first, and nothing of this commit is stored.
    TipMoved {
        /// The stream's last sequence, as the server reported it.
        tip: u64,
        /// The entry found at the sequence this commit wanted, as far as it
        /// could be read.
        found: Option<Entry>,
    },
    /// Anything else (nothing was committed, or, for a lost answer after
    /// every resend, the outcome is unknown: the error says which).
    Failed(JournalError),
}

impl CommitError {
    /// The error as a [`JournalError`]: `TipMoved` (or `LeaseLost` when the
    /// entry found is a fence of an epoch above `epoch`), or the failure.
    pub fn into_error(self, ledger: &NatsLedger, sequence: u64, epoch: u64) -> JournalError {
        match self {
            CommitError::Failed(e) => e,
            CommitError::TipMoved { tip, found } => match found.as_ref().map(Entry::record) {
                Some(Record::Fence { epoch: fenced }) if *fenced > epoch => error::error(
                    ErrorKind::LeaseLost,
                    format!(
                        "found the ledger fenced at sequence {sequence} by lease epoch {fenced}, expected this writer's epoch {epoch} to hold the root; nothing of this append was committed"
                    ),
                )
                .with_path(ledger.entry_path(sequence)),
                _ => error::error(
                    ErrorKind::TipMoved,
                    format!(
                        "found the ledger's tip at sequence {tip}, expected {}: another writer committed first; nothing of this append was committed",
                        sequence - 1
                    ),
                )
                .with_path(ledger.entry_path(sequence)),
            },
        }
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
    root: NatsRoot,
    /// The stream, once known to exist.
    stream: Mutex<Option<Stream>>,
    /// The blob bucket, once known to exist.
    blobs: Mutex<Option<ObjectStore>>,
    /// The consumer of the last [`NatsLedger::read_after`], kept for the
    /// next one if that reads on where it ended (a start reading batch
    /// after batch uses one consumer): the sequence it is at and the
    /// connection's reconnection count when it was made.
    reading: Mutex<Option<(u64, u64, Ordered)>>,
    /// Revisions up to this many bytes travel inside their message.
    inline_limit: usize,
    /// This handle's id in the `Nats-Msg-Id` of its commits.
    committer: String,
    stop: StopSignal,
    /// Declared last: dropped after the consumers and handles above, which
    /// belong to its runtime.
    conn: Connection,
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

/// The hex SHA-256 of `bytes`.
fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The room kept under the server's `max_payload` for the headers of a
/// message that carries its revision.
pub const HEADER_ROOM: usize = 8 * 1024;

impl NatsLedger {
    /// Connects to `root`'s server. The stream is looked up on first use:
    /// a root whose stream does not exist is `RootMissing` to a reader
    /// ([`NatsLedger::create`] makes it).
    pub fn connect(root: &NatsRoot) -> Result<NatsLedger, JournalError> {
        let conn = Connection::open(root)?;
        let max_payload = conn.client.server_info().max_payload;
        let inline_limit = root
            .options
            .inline_limit
            .min(max_payload.saturating_sub(HEADER_ROOM));
        Ok(NatsLedger {
            inner: Arc::new(Inner {
                names: Names::of(&root.name),
                root: root.clone(),
                stream: Mutex::new(None),
                blobs: Mutex::new(None),
                reading: Mutex::new(None),
                inline_limit,
                committer: unique_id(),
                stop: StopSignal::new(),
                conn,
            }),
        })
    }

    /// The root this ledger belongs to.
    pub fn root(&self) -> &NatsRoot {
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

    /// Creates the root's stream and buckets where absent (what a writer
    /// does before its first commit); an existing stream is kept as it is.
    pub fn create(&self) -> Result<(), JournalError> {
        let conn = &self.inner.conn;
        let names = &self.inner.names;
        let config = Config {
            name: names.stream.clone(),
            subjects: vec![names.subject.clone()],
            storage: StorageType::File,
            // Entries are only ever added: never discarded, deleted or purged.
            discard: DiscardPolicy::New,
            deny_delete: true,
            deny_purge: true,
            allow_direct: true,
            duplicate_window: Duration::from_secs(120),
            description: Some(format!(
                "the ledger of the Nenjim Journal root {}",
                conn.address
            )),
            ..Config::default()
        };
        let stream = conn
            .block_on(conn.js.get_or_create_stream(config))
            .map_err(|e| conn.request_error("cannot create the ledger's stream", e))?;
        *lock(&self.inner.stream) = Some(stream);
        self.lease_bucket(true)?;
        self.blob_bucket(true)?;
        Ok(())
    }

    /// Whether the root exists (its stream does).
    pub fn exists(&self) -> Result<bool, JournalError> {
        match self.stream() {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == ErrorKind::RootMissing => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The stream; `RootMissing` when it does not exist.
    fn stream(&self) -> Result<Stream, JournalError> {
        if let Some(stream) = lock(&self.inner.stream).as_ref() {
            return Ok(stream.clone());
        }
        let conn = &self.inner.conn;
        let got = conn.block_on(conn.js.get_stream(&self.inner.names.stream));
        match got {
            Ok(stream) => {
                *lock(&self.inner.stream) = Some(stream.clone());
                Ok(stream)
            }
            Err(e)
                if matches!(
                    e.kind(),
                    async_nats::jetstream::context::GetStreamErrorKind::JetStream(j)
                        if j.error_code() == async_nats::jetstream::ErrorCode::STREAM_NOT_FOUND
                ) =>
            {
                Err(error::error(
                    ErrorKind::RootMissing,
                    format!(
                        "found no stream {} on the server, expected the ledger of the root {} (a writer creates it)",
                        self.inner.names.stream, conn.address
                    ),
                )
                .with_path(&conn.address))
            }
            Err(e) => Err(conn.request_error("cannot look up the ledger's stream", e)),
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
                description: format!("the writer's lease of {}", conn.address),
                ..Default::default()
            };
            conn.block_on(conn.js.create_key_value(config))
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
                description: Some(format!("large revisions and blobs of {}", conn.address)),
                ..Default::default()
            };
            conn.block_on(conn.js.create_object_store(config))
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

    /// The entries after sequence `after`, ascending and contiguous from
    /// `after + 1`, at most `max` of them (at least one if there is one):
    /// empty when `after` is the tip. Each revision's bytes are checked
    /// against its record (`LedgerMismatch`).
    pub fn read_after(&self, after: u64, max: usize) -> Result<Vec<LedgerMessage>, JournalError> {
        let tip = self.tip()?;
        if after > tip {
            return Err(error::error(
                ErrorKind::LedgerMismatch,
                format!(
                    "found the ledger's tip at sequence {tip}, expected at least {after} (the sequence already read): the stream went back"
                ),
            )
            .with_path(&self.inner.conn.address));
        }
        let count = usize::try_from(tip - after)
            .unwrap_or(usize::MAX)
            .min(max.max(1));
        if tip == after {
            return Ok(Vec::new());
        }
        let conn = &self.inner.conn;
        let reconnections = *conn.reconnected.borrow();
        let kept = lock(&self.inner.reading)
            .take()
            .filter(|(at, made, _)| *at == after && *made == reconnections);
        let mut messages = match kept {
            Some((_, _, messages)) => messages,
            None => self.ordered(after)?,
        };
        let mut read = Vec::with_capacity(count.min(4096));
        while read.len() < count {
            let expected = after + read.len() as u64 + 1;
            let timeout = self.inner.root.options.request_timeout;
            let next =
                conn.block_on(async { tokio::time::timeout(timeout, messages.next()).await });
            let message = match next {
                Ok(Some(Ok(message))) => message,
                Ok(Some(Err(e))) => {
                    return Err(conn.request_error("cannot read the ledger's stream", e));
                }
                Ok(None) => return Err(conn.lost_error()),
                Err(_) => {
                    return Err(conn.request_error(
                        "cannot read the ledger's stream",
                        format!("no message {expected} within {timeout:?}"),
                    ));
                }
            };
            read.push(self.decode(&message, expected)?);
        }
        *lock(&self.inner.reading) = Some((after + read.len() as u64, reconnections, messages));
        Ok(read)
    }

    /// An ordered consumer of the stream from `after + 1`.
    pub(crate) fn ordered(&self, after: u64) -> Result<Ordered, JournalError> {
        let stream = self.stream()?;
        let conn = &self.inner.conn;
        let config = OrderedConfig {
            deliver_policy: DeliverPolicy::ByStartSequence {
                start_sequence: after + 1,
            },
            filter_subject: self.inner.names.subject.clone(),
            ..Default::default()
        };
        conn.block_on(async {
            let consumer = stream.create_consumer(config).await?;
            consumer.messages().await.map_err(async_nats::Error::from)
        })
        .map_err(|e| conn.request_error("cannot read the ledger's stream", e))
    }

    /// Follows the ledger from `after`: every entry after it, as it is
    /// committed (see [`Follower`]).
    pub fn follow(&self, after: u64) -> Result<Follower, JournalError> {
        Follower::new(self.clone(), after)
    }

    /// Reads one stream message as the entry `expected`.
    pub(crate) fn decode(
        &self,
        message: &async_nats::jetstream::Message,
        expected: u64,
    ) -> Result<LedgerMessage, JournalError> {
        let path = self.entry_path(expected);
        let mismatch = |m: String| error::error(ErrorKind::LedgerMismatch, m).with_path(&path);
        let sequence = message
            .info()
            .map_err(|e| {
                mismatch(format!(
                    "found a message without its stream sequence ({e}), expected entry {expected}"
                ))
            })?
            .stream_sequence;
        if sequence != expected {
            return Err(mismatch(format!(
                "found the message of stream sequence {sequence}, expected entry {expected} (every ledger entry is one message, in order)"
            )));
        }
        let headers = message.headers.as_ref();
        let header = |name: &str| {
            headers
                .and_then(|h| h.get(name))
                .map(|v| v.as_str().to_owned())
        };
        let line = header(RECORD_HEADER).ok_or_else(|| {
            mismatch(format!(
                "found message {sequence} without a {RECORD_HEADER} header, expected a ledger record"
            ))
        })?;
        let entry = Entry::parse(&line).map_err(|e| mismatch(e.to_string()))?;
        if entry.sequence() != sequence {
            return Err(mismatch(format!(
                "found the record `{line}` in message {sequence}, expected the record of sequence {sequence}"
            )));
        }
        let blob = header(BLOB_HEADER);
        let payload = &message.payload;
        let revision = match (entry.record(), blob) {
            (Record::Fence { .. }, None) if payload.is_empty() => None,
            (Record::Fence { .. }, _) => {
                return Err(mismatch(format!(
                    "found a revision with the fence `{line}`, expected a fence to carry nothing"
                )));
            }
            (Record::Revision(pointer), None) => {
                check(pointer, payload, &mismatch, "in its message")?;
                Some(payload.clone())
            }
            (Record::Revision(pointer), Some(key)) => {
                if !payload.is_empty() {
                    return Err(mismatch(format!(
                        "found {} bytes in message {sequence} besides its {BLOB_HEADER} pointer, expected none",
                        payload.len()
                    )));
                }
                let bytes = self.read_blob(&key, pointer.size(), &mismatch)?;
                check(pointer, &bytes, &mismatch, &format!("in the blob {key}"))?;
                Some(bytes)
            }
            _ => {
                return Err(mismatch(format!(
                    "found the record `{line}`, expected a REVISION or FENCE record"
                )));
            }
        };
        Ok(LedgerMessage { entry, revision })
    }

    /// Reads at most `size + 1` bytes of the object `key` of the blob bucket.
    fn read_blob(
        &self,
        key: &str,
        size: u64,
        mismatch: &dyn Fn(String) -> JournalError,
    ) -> Result<Bytes, JournalError> {
        let store = self.blob_bucket(false)?;
        let conn = &self.inner.conn;
        let read = conn.block_on(async {
            let object = store.get(key).await?;
            let mut bytes = Vec::new();
            object
                .take(size.saturating_add(1))
                .read_to_end(&mut bytes)
                .await?;
            Ok::<_, async_nats::Error>(bytes)
        });
        match read {
            Ok(bytes) => Ok(Bytes::from(bytes)),
            Err(e)
                if e.downcast_ref::<async_nats::jetstream::object_store::GetError>()
                    .is_some_and(|g| {
                        g.kind() == async_nats::jetstream::object_store::GetErrorKind::NotFound
                    }) =>
            {
                Err(mismatch(format!(
                    "found no object {key} in the bucket {}, expected the revision the record points at",
                    self.inner.names.blob_bucket
                )))
            }
            Err(e) => Err(conn.request_error(&format!("cannot read the blob {key}"), e)),
        }
    }

    /// Commits `record` as the entry after `tip`, with `revision`'s bytes
    /// for a `REVISION` record (they must match its size and SHA-256): a
    /// publish with `Nats-Expected-Last-Sequence: <tip>`, so that
    /// [`CommitError::TipMoved`] leaves nothing stored, and a `Nats-Msg-Id`
    /// of this handle, the sequence and the record, so that a resend (an
    /// answer lost) is stored once: the server deduplicates it within its
    /// window, and a resend refused for the moved tip finds its own first
    /// send there (the same `Nats-Msg-Id` and record) and is a success. A revision over [`NatsLedger::inline_limit`] is put
    /// in the blob bucket first and the message carries its key.
    pub fn commit_at(
        &self,
        tip: u64,
        record: Record,
        revision: Option<&[u8]>,
    ) -> Result<Entry, CommitError> {
        let entry = Entry::new(tip + 1, record);
        let line = entry.to_string();
        let path = self.entry_path(entry.sequence());
        let failed =
            |m: String| CommitError::Failed(error::error(ErrorKind::Io, m).with_path(&path));
        let mut headers = HeaderMap::new();
        headers.insert(RECORD_HEADER, line.as_str());
        let payload = match (entry.record(), revision) {
            (Record::Fence { .. }, None) => Bytes::new(),
            (Record::Revision(pointer), Some(bytes)) => {
                let mismatch = |m: String| error::error(ErrorKind::Io, m).with_path(&path);
                check(pointer, bytes, &mismatch, "given").map_err(CommitError::Failed)?;
                if bytes.len() > self.inner.inline_limit {
                    let key = format!("{REVISION_KEY_PREFIX}{}", sha256_hex(bytes));
                    self.put_blob_object(&key, bytes)
                        .map_err(CommitError::Failed)?;
                    headers.insert(BLOB_HEADER, key.as_str());
                    Bytes::new()
                } else {
                    Bytes::copy_from_slice(bytes)
                }
            }
            (Record::Fence { .. }, Some(_)) => {
                return Err(failed(
                    "found revision bytes with a fence, expected none".to_owned(),
                ));
            }
            (Record::Revision(_), None) => {
                return Err(failed(
                    "found no revision bytes with a revision record, expected its text".to_owned(),
                ));
            }
            _ => {
                return Err(failed(format!(
                    "found the record `{line}`, expected a REVISION or FENCE record"
                )));
            }
        };
        let stream = self.stream().map_err(CommitError::Failed)?;
        let conn = &self.inner.conn;
        let id = format!(
            "{}-{}-{}",
            self.inner.committer,
            entry.sequence(),
            &sha256_hex(line.as_bytes())[..16]
        );
        let mut last = None;
        for _ in 0..PUBLISH_ATTEMPTS {
            let publish = PublishMessage::build()
                .payload(payload.clone())
                .headers(headers.clone())
                .message_id(&id)
                .expected_last_sequence(tip);
            let acked = conn.block_on(async {
                conn.js
                    .send_publish(self.inner.names.subject.clone(), publish)
                    .await?
                    .await
            });
            match acked {
                Ok(ack) if ack.sequence == entry.sequence() => return Ok(entry),
                Ok(ack) => {
                    return Err(CommitError::Failed(
                        error::error(
                            ErrorKind::LedgerMismatch,
                            format!(
                                "found the commit stored at stream sequence {}, expected {} (the ledger's sequences are the stream's)",
                                ack.sequence,
                                entry.sequence()
                            ),
                        )
                        .with_path(&path),
                    ));
                }
                Err(e) if e.kind() == PublishErrorKind::WrongLastSequence => {
                    // This handle's own earlier send (its answer lost) is
                    // the entry there: committed once, by this commit.
                    let there = conn.block_on(stream.get_raw_message(entry.sequence())).ok();
                    let header = |name: &str| {
                        there
                            .as_ref()
                            .and_then(|m| m.headers.get(name))
                            .map(|v| v.as_str().to_owned())
                    };
                    if header("Nats-Msg-Id").as_deref() == Some(id.as_str())
                        && header(RECORD_HEADER).as_deref() == Some(line.as_str())
                    {
                        return Ok(entry);
                    }
                    let found = header(RECORD_HEADER).and_then(|l| Entry::parse(&l).ok());
                    let tip = self.tip().unwrap_or(tip + 1);
                    return Err(CommitError::TipMoved { tip, found });
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        PublishErrorKind::TimedOut | PublishErrorKind::BrokenPipe
                    ) && !conn.is_lost() =>
                {
                    last = Some(e);
                }
                Err(e) => {
                    return Err(CommitError::Failed(
                        conn.request_error("cannot commit the ledger entry", e)
                            .with_path(&path),
                    ));
                }
            }
        }
        Err(CommitError::Failed(
            conn.request_error(
                "cannot commit the ledger entry (no answer to any resend: whether it is stored is unknown until the ledger is read again)",
                last.map_or_else(String::new, |e| e.to_string()),
            )
            .with_path(&path),
        ))
    }

    /// Puts `bytes` at `key` of the blob bucket, unless an object of the
    /// same size and SHA-256 (as the bucket records it) is there already: a
    /// key is its bytes' SHA-256, so a good object is never replaced and a
    /// reader never sees it change.
    fn put_blob_object(&self, key: &str, bytes: &[u8]) -> Result<(), JournalError> {
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
}

impl NatsLedger {
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

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut hex = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

/// Checks `bytes` against `pointer`'s size and SHA-256.
fn check(
    pointer: &RevisionPointer,
    bytes: &[u8],
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
    let digest = format!("sha256:{}", sha256_hex(bytes));
    if digest != pointer.digest().to_string() {
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
