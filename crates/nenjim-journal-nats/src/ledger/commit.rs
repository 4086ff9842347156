//! Committing at an expected tip: one publish with
//! `Nats-Expected-Last-Sequence` and a `Nats-Msg-Id`, resent when its
//! answer is lost, and settled when a resend finds its own first send.

use async_nats::HeaderMap;
use async_nats::jetstream::context::PublishErrorKind;
use async_nats::jetstream::message::PublishMessage;
use bytes::Bytes;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_store::ledger::{Entry, Record};

use super::{
    BLOB_HEADER, NatsLedger, PUBLISH_ATTEMPTS, RECORD_HEADER, REVISION_KEY_PREFIX, check,
    sha256_hex,
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
}
