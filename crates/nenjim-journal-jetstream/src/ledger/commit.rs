//! Committing at an expected tip: one publish with
//! `Nats-Expected-Last-Sequence` and a `Nats-Msg-Id`, resent when its
//! answer is lost, and settled when a resend finds its own first send; a
//! batch as atomic batch publishes (ADR-50), each stored whole or not at
//! all.

use async_nats::HeaderMap;
use async_nats::jetstream::context::PublishErrorKind;
use async_nats::jetstream::message::PublishMessage;
use bytes::Bytes;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_store::ledger::{Entry, Record};
use sha2::Digest as _;

use super::{
    BLOB, Check, NatsLedger, PUBLISH_ATTEMPTS, RECORD, RECORD_HEADER, check, hex, revision_key,
};

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

impl NatsLedger {
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
        self.commit_checked(tip, record, revision, Check::Digest)
    }

    /// [`commit_at`](Self::commit_at), the revision's bytes checked against
    /// the record as `what` says: [`Check::Size`] for the seam's commit,
    /// whose pointer the writer computed from these bytes.
    pub(crate) fn commit_checked(
        &self,
        tip: u64,
        record: Record,
        revision: Option<&[u8]>,
        what: Check,
    ) -> Result<Entry, CommitError> {
        let entry = Entry::new(tip + 1, record);
        let Outgoing {
            line,
            headers,
            payload,
            id,
        } = self.outgoing(&entry, revision, what)?;
        // Its path names it in the errors (made there, not per commit).
        let path = || self.entry_path(entry.sequence());
        // The shared handle (an `Arc`), looked up once per ledger handle:
        // a root whose stream is gone is `RootMissing` before any publish.
        let stream = self.stream().map_err(CommitError::Failed)?;
        let conn = &self.inner.conn;
        let mut last = None;
        for attempt in 1..=PUBLISH_ATTEMPTS {
            // Each send a copy (a count on the bytes, the small header
            // map): a resend sends the same message.
            let publish = PublishMessage::build()
                .payload(payload.clone())
                .headers(headers.clone())
                .expected_last_sequence(tip);
            let acked = conn.block_on(async {
                conn.js
                    .send_publish(self.inner.subject.clone(), publish)
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
                        .with_path(path()),
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
                        if attempt > 1 {
                            tracing::info!(
                                target: "nenjim_journal_nats",
                                address = %conn.address,
                                sequence = entry.sequence(),
                                attempt,
                                "resend settled: the first send was stored"
                            );
                        }
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
                    tracing::warn!(
                        target: "nenjim_journal_nats",
                        address = %conn.address,
                        sequence = entry.sequence(),
                        attempt,
                        attempts = PUBLISH_ATTEMPTS,
                        error = %e,
                        "commit answer lost; resending"
                    );
                    last = Some(e);
                }
                Err(e) => {
                    return Err(CommitError::Failed(
                        conn.request_error("cannot commit the ledger entry", e)
                            .with_path(path()),
                    ));
                }
            }
        }
        let why = last.as_ref().and_then(crate::outage::Outage::outage);
        Err(CommitError::Failed(
            conn.commit_error(
                "cannot commit the ledger entry (no answer to any resend)",
                crate::outage::Said(
                    last.map_or_else(String::new, |e| e.to_string()),
                    Some(why.unwrap_or(crate::outage::Why::TimedOut)),
                ),
            )
            .with_path(path()),
        ))
    }

    /// The message of `entry` (its revision's bytes given for a revision),
    /// the blob put first above the inline limit.
    fn outgoing(
        &self,
        entry: &Entry,
        revision: Option<&[u8]>,
        what: Check,
    ) -> Result<Outgoing, CommitError> {
        let line = entry.to_string();
        let path = || self.entry_path(entry.sequence());
        let failed =
            |m: String| CommitError::Failed(error::error(ErrorKind::Io, m).with_path(path()));
        let mut headers = HeaderMap::new();
        headers.insert(RECORD, line.as_str());
        let payload = match (entry.record(), revision) {
            (Record::Fence { .. }, None) => Bytes::new(),
            (Record::Revision(pointer), Some(bytes)) => {
                let mismatch = |m: String| error::error(ErrorKind::Io, m).with_path(path());
                check(pointer, bytes, what, &mismatch, "given").map_err(CommitError::Failed)?;
                if bytes.len() > self.inner.inline_limit {
                    let key = revision_key(pointer);
                    self.put_blob_object(&key, bytes)
                        .map_err(CommitError::Failed)?;
                    headers.insert(BLOB, key.as_str());
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
        // The first 8 bytes of the line's SHA-256, in hex.
        let digest = sha2::Sha256::digest(line.as_bytes());
        let id = format!(
            "{}-{}-{}",
            self.inner.committer,
            entry.sequence(),
            hex(digest.get(..8).unwrap_or_default())
        );
        headers.insert(async_nats::header::NATS_MESSAGE_ID, id.as_str());
        Ok(Outgoing {
            line,
            headers,
            payload,
            id,
        })
    }
}

/// One ledger message ready to publish.
struct Outgoing {
    /// The record line.
    line: String,
    /// Its headers: the record (or also the blob's key) and the
    /// `Nats-Msg-Id`.
    headers: HeaderMap,
    payload: Bytes,
    /// Its `Nats-Msg-Id`.
    id: String,
}

/// The most entries one atomic batch publish holds (the server's limit).
pub const ATOMIC_BATCH_MAX: usize = 1000;
/// The most bytes of message bodies one atomic batch publish holds (the
/// server holds a batch in memory until its commit): a longer batch is
/// committed as several, in order.
pub const ATOMIC_BATCH_BYTES: usize = 8 * 1024 * 1024;

impl NatsLedger {
    /// Whether the stream takes atomic batch publishes (`allow_atomic`, set
    /// on the streams this crate creates; a stream made before is
    /// committed one entry at a time).
    pub fn atomic_batches(&self) -> Result<bool, JournalError> {
        Ok(self.stream()?.cached_info().config.allow_atomic_publish)
    }

    /// Commits `records` (each with its revision's bytes, as
    /// [`commit_at`](Self::commit_at) takes them) as the entries after
    /// `tip`, in order: in atomic batch publishes of at most
    /// [`ATOMIC_BATCH_MAX`] entries and [`ATOMIC_BATCH_BYTES`] bytes
    /// (each stored whole or not at all, its first message expecting the
    /// tip), one publish each on a stream without atomic publishes. The
    /// entries committed are a prefix of them; the error says why the rest
    /// were not (`TipMoved`: nothing of that batch is stored).
    pub fn commit_batch_at(
        &self,
        tip: u64,
        records: Vec<(Record, Option<&[u8]>)>,
    ) -> (Vec<Entry>, Option<CommitError>) {
        self.commit_batch_checked(tip, records, Check::Digest)
    }

    /// [`commit_batch_at`](Self::commit_batch_at), each revision's bytes
    /// checked as `what` says (see [`commit_checked`](Self::commit_checked)).
    pub(crate) fn commit_batch_checked(
        &self,
        tip: u64,
        records: Vec<(Record, Option<&[u8]>)>,
        what: Check,
    ) -> (Vec<Entry>, Option<CommitError>) {
        let atomic = match self.atomic_batches() {
            Ok(atomic) => atomic,
            Err(e) => return (Vec::new(), Some(CommitError::Failed(e))),
        };
        let mut committed = Vec::with_capacity(records.len());
        let mut tip = tip;
        let mut records = records.into_iter().peekable();
        while records.peek().is_some() {
            let mut chunk = Vec::new();
            let mut bytes = 0;
            while let Some((_, revision)) = records.peek() {
                let size = revision.map_or(0, <[u8]>::len);
                let full = chunk.len() >= ATOMIC_BATCH_MAX
                    || (!chunk.is_empty() && bytes + size > ATOMIC_BATCH_BYTES);
                if full || (!atomic && !chunk.is_empty()) {
                    break;
                }
                bytes += size;
                chunk.extend(records.next());
            }
            let done = match chunk.len() {
                1 => chunk
                    .pop()
                    .map(|(record, revision)| {
                        self.commit_checked(tip, record, revision, what)
                            .map(|e| vec![e])
                    })
                    .unwrap_or_else(|| Ok(Vec::new())),
                _ => self.commit_atomic(tip, chunk, what),
            };
            match done {
                Ok(entries) => {
                    tip += entries.len() as u64;
                    committed.extend(entries);
                }
                Err(e) => return (committed, Some(e)),
            }
        }
        (committed, None)
    }

    /// One atomic batch publish of `records` after `tip`: every message
    /// carries `Nats-Batch-Id` and `Nats-Batch-Sequence`, the first
    /// `Nats-Expected-Last-Sequence: <tip>`, the last `Nats-Batch-Commit`,
    /// whose answer says whether the whole batch is stored. A lost answer
    /// is settled by reading the ledger: the batch's last entry there (its
    /// `Nats-Msg-Id`) is its success; the tip unchanged, the batch is sent
    /// again under a new batch id (the server drops an uncommitted batch).
    /// A resend refused for the moved tip, or for a message id the server
    /// has stored (it checks those first in a batch), that finds its own
    /// first and last entries there is that batch's success.
    fn commit_atomic(
        &self,
        tip: u64,
        records: Vec<(Record, Option<&[u8]>)>,
        what: Check,
    ) -> Result<Vec<Entry>, CommitError> {
        let mut entries = Vec::with_capacity(records.len());
        let mut messages = Vec::with_capacity(records.len());
        for (i, (record, revision)) in records.into_iter().enumerate() {
            let entry = Entry::new(tip + 1 + i as u64, record);
            messages.push(self.outgoing(&entry, revision, what)?);
            entries.push(entry);
        }
        let stream = self.stream().map_err(CommitError::Failed)?;
        let conn = &self.inner.conn;
        let subject = self.inner.subject.clone();
        let count = messages.len();
        let last_sequence = tip + count as u64;
        let path = self.entry_path(tip + 1);
        let ours = |sequence: u64, id: &str| {
            conn.block_on(stream.get_raw_message(sequence))
                .ok()
                .is_some_and(|m| m.headers.get("Nats-Msg-Id").map(|v| v.as_str()) == Some(id))
        };
        let mut last = None;
        for attempt in 1..=PUBLISH_ATTEMPTS {
            let batch = super::unique_id();
            let acked = conn.block_on(async {
                for (i, message) in messages.iter().enumerate() {
                    // Its `Nats-Msg-Id` is among them.
                    let mut headers = message.headers.clone();
                    headers.insert("Nats-Batch-Id", batch.as_str());
                    headers.insert("Nats-Batch-Sequence", (i + 1).to_string().as_str());
                    if i == 0 {
                        headers.insert("Nats-Expected-Last-Sequence", tip.to_string().as_str());
                    }
                    if i + 1 < count {
                        if let Err(e) = conn
                            .client
                            .publish_with_headers(subject.clone(), headers, message.payload.clone())
                            .await
                        {
                            return Sent::Lost(e.to_string());
                        }
                    } else {
                        headers.insert("Nats-Batch-Commit", "1");
                        let publish = PublishMessage::build()
                            .payload(message.payload.clone())
                            .headers(headers);
                        let acked = match conn.js.send_publish(subject.clone(), publish).await {
                            Ok(ack) => ack.await,
                            Err(e) => Err(e),
                        };
                        return match acked {
                            Ok(ack) => Sent::Stored(ack.sequence),
                            Err(e) if e.kind() == PublishErrorKind::WrongLastSequence => {
                                Sent::TipMoved
                            }
                            // A resend of a batch that is stored (its answer
                            // lost): the server refuses a batch holding a
                            // message id it has seen before it looks at the
                            // expected tip. Every id names its entry's
                            // sequence, after the tip: the tip moved, and the
                            // batch there is this one or another's.
                            Err(e) if is_duplicate_in_batch(&e) => Sent::TipMoved,
                            Err(e)
                                if matches!(
                                    e.kind(),
                                    PublishErrorKind::TimedOut | PublishErrorKind::BrokenPipe
                                ) =>
                            {
                                Sent::Lost(e.to_string())
                            }
                            Err(e) => Sent::Failed(e.to_string()),
                        };
                    }
                }
                Sent::Failed("found an empty batch, expected entries".to_owned())
            });
            let last_id = messages.last().map_or("", |m| m.id.as_str());
            let first_id = messages.first().map_or("", |m| m.id.as_str());
            match acked {
                Sent::Stored(sequence) if sequence == last_sequence => return Ok(entries),
                Sent::Stored(sequence) => {
                    return Err(CommitError::Failed(
                        error::error(
                            ErrorKind::LedgerMismatch,
                            format!(
                                "found the batch's last entry stored at stream sequence {sequence}, expected {last_sequence} (the ledger's sequences are the stream's)"
                            ),
                        )
                        .with_path(&path),
                    ));
                }
                Sent::TipMoved => {
                    // An earlier send of this batch (its answer lost) is
                    // there whole: committed once, by this commit.
                    if ours(tip + 1, first_id) && ours(last_sequence, last_id) {
                        if attempt > 1 {
                            tracing::info!(
                                target: "nenjim_journal_nats",
                                address = %conn.address,
                                first_sequence = tip + 1,
                                last_sequence,
                                attempt,
                                "batch resend settled: the first send was stored"
                            );
                        }
                        return Ok(entries);
                    }
                    let found = conn
                        .block_on(stream.get_raw_message(tip + 1))
                        .ok()
                        .and_then(|m| {
                            m.headers
                                .get(RECORD_HEADER)
                                .and_then(|l| Entry::parse(l.as_str()).ok())
                        });
                    let tip = self.tip().unwrap_or(tip + 1);
                    return Err(CommitError::TipMoved { tip, found });
                }
                Sent::Lost(e) if !conn.is_lost() => {
                    if ours(last_sequence, last_id) {
                        tracing::info!(
                            target: "nenjim_journal_nats",
                            address = %conn.address,
                            first_sequence = tip + 1,
                            last_sequence,
                            attempt,
                            "batch answer lost; settled by reading the ledger: stored"
                        );
                        return Ok(entries);
                    }
                    tracing::warn!(
                        target: "nenjim_journal_nats",
                        address = %conn.address,
                        first_sequence = tip + 1,
                        last_sequence,
                        attempt,
                        attempts = PUBLISH_ATTEMPTS,
                        error = %e,
                        "batch answer lost and not stored; resending"
                    );
                    last = Some(e);
                }
                Sent::Lost(e) => {
                    return Err(CommitError::Failed(
                        conn.commit_error(
                            "cannot commit a batch of ledger entries",
                            crate::outage::Said(e, Some(crate::outage::Why::Disconnected)),
                        )
                        .with_path(&path),
                    ));
                }
                Sent::Failed(e) => {
                    return Err(CommitError::Failed(
                        conn.request_error(
                            "cannot commit a batch of ledger entries",
                            crate::outage::Said(e, None),
                        )
                        .with_path(&path),
                    ));
                }
            }
        }
        Err(CommitError::Failed(
            conn.commit_error(
                "cannot commit a batch of ledger entries (no answer to any resend)",
                crate::outage::Said(last.unwrap_or_default(), Some(crate::outage::Why::TimedOut)),
            )
            .with_path(&path),
        ))
    }
}

/// What the server said to a batch's commit message.
enum Sent {
    /// Stored whole; the stream sequence of its last entry.
    Stored(u64),
    /// The first entry's expected tip was not the stream's.
    TipMoved,
    /// No answer (a timeout, a broken connection): settled by reading.
    Lost(String),
    /// Refused for another reason.
    Failed(String),
}

/// Whether the server refused a batch for a message id it has stored
/// already (within its duplicate window): `ATOMIC_PUBLISH_CONTAINS_DUPLICATE_MESSAGE`.
fn is_duplicate_in_batch(error: &async_nats::jetstream::context::PublishError) -> bool {
    std::error::Error::source(error)
        .and_then(|source| source.downcast_ref::<async_nats::jetstream::Error>())
        .is_some_and(|e| {
            e.error_code()
                == async_nats::jetstream::ErrorCode::ATOMIC_PUBLISH_CONTAINS_DUPLICATE_MESSAGE
        })
}
