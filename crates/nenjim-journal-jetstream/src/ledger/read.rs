//! Reading the stream: the entries after a sequence in batches (one
//! ordered consumer kept across batches), one entry by its sequence, and
//! the decoding of a message into its entry and checked revision.

use async_nats::jetstream::consumer::DeliverPolicy;
use async_nats::jetstream::consumer::pull::{Ordered, OrderedConfig};
use bytes::Bytes;
use futures::StreamExt as _;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_store::ledger::{Entry, Record};
use tokio::io::AsyncReadExt as _;

use super::{
    BLOB_HEADER, Check, LedgerMessage, NatsLedger, RECORD_HEADER, check, lock, revision_key,
};
use crate::follow::Follower;

impl NatsLedger {
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
        // The batch is received in one wait on the runtime (not one per
        // message), then decoded here.
        let timeout = self.inner.root.options.request_timeout;
        let received = conn.block_on(async {
            let mut received = Vec::with_capacity(count.min(4096));
            while received.len() < count {
                match tokio::time::timeout(timeout, messages.next()).await {
                    Ok(Some(Ok(message))) => received.push(message),
                    Ok(Some(Err(e))) => {
                        let why = crate::outage::Outage::outage(&e);
                        return Err(Some(crate::outage::Said(e.to_string(), why)));
                    }
                    Ok(None) => return Err(None),
                    Err(_) => {
                        return Err(Some(crate::outage::Said(
                            format!(
                                "no message {} within {timeout:?}",
                                after + received.len() as u64 + 1
                            ),
                            Some(crate::outage::Why::TimedOut),
                        )));
                    }
                }
            }
            Ok(received)
        });
        let received = match received {
            Ok(received) => received,
            Err(Some(e)) => return Err(conn.request_error("cannot read the ledger's stream", e)),
            Err(None) => return Err(conn.lost_error()),
        };
        let mut read = Vec::with_capacity(received.len());
        for (i, message) in received.iter().enumerate() {
            read.push(self.decode(message, after + i as u64 + 1)?);
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
            // Named after this handle, so that its drop deletes it.
            name: Some(format!(
                "{}_{}",
                self.inner.consumer_prefix(),
                self.inner
                    .consumers
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            )),
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
        // The entry's path is only made for an error (a start reads every entry).
        let mismatch = |m: String| {
            error::error(ErrorKind::LedgerMismatch, m).with_path(self.entry_path(expected))
        };
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
        self.decode_parts(sequence, message.headers.as_ref(), &message.payload)
    }

    /// The entry `sequence` alone, read by its stream sequence (a direct
    /// get, no consumer), its revision checked as [`read_after`](Self::read_after)
    /// checks it; `LedgerMismatch` when there is no such entry.
    pub fn read_entry(&self, sequence: u64) -> Result<LedgerMessage, JournalError> {
        let stream = self.stream()?;
        let conn = &self.inner.conn;
        match conn.block_on(stream.get_raw_message(sequence)) {
            Ok(message) => {
                self.decode_parts(message.sequence, Some(&message.headers), &message.payload)
                    .and_then(|read| {
                        if message.sequence == sequence {
                            Ok(read)
                        } else {
                            Err(error::error(
                                ErrorKind::LedgerMismatch,
                                format!(
                                    "found the message of stream sequence {}, expected entry {sequence}",
                                    message.sequence
                                ),
                            )
                            .with_path(self.entry_path(sequence)))
                        }
                    })
            }
            Err(e)
                if e.kind()
                    == async_nats::jetstream::stream::RawMessageErrorKind::NoMessageFound =>
            {
                Err(error::error(
                    ErrorKind::LedgerMismatch,
                    format!("found no message {sequence} in the ledger's stream, expected entry {sequence}"),
                )
                .with_path(self.entry_path(sequence)))
            }
            Err(e) => Err(conn.request_error(&format!("cannot read ledger entry {sequence}"), e)),
        }
    }

    /// Decodes the message of stream sequence `sequence` (its headers and
    /// body) into its entry and checked revision.
    fn decode_parts(
        &self,
        sequence: u64,
        headers: Option<&async_nats::HeaderMap>,
        payload: &Bytes,
    ) -> Result<LedgerMessage, JournalError> {
        // The entry's path is only made for an error (a start reads every entry).
        let at_entry = |e: JournalError| e.with_path(self.entry_path(sequence));
        let (entry, body) = parse_message(sequence, headers, payload).map_err(at_entry)?;
        let revision = match (entry.record(), body) {
            (_, MessageBody::Fence) => None,
            (_, MessageBody::Inline) => Some(payload.clone()),
            (Record::Revision(pointer), MessageBody::Blob(key)) => {
                let mismatch = |m: String| at_entry(error::error(ErrorKind::LedgerMismatch, m));
                // A record that sizes its revision over the loader's limit
                // is refused before a byte of its blob is read.
                if pointer.size() > nenjim_journal_store::MAX_FILE_LEN {
                    return Err(at_entry(error::error(
                        ErrorKind::TooLarge,
                        format!(
                            "found the record `{}` sizing its revision at {} bytes, expected at most {} (the loader's limit): its blob {key} is not read",
                            entry,
                            pointer.size(),
                            nenjim_journal_store::MAX_FILE_LEN
                        ),
                    )));
                }
                let bytes = self.read_blob(key, pointer.size(), &mismatch)?;
                check(
                    pointer,
                    &bytes,
                    Check::Digest,
                    &mismatch,
                    &format!("in the blob {key}"),
                )?;
                Some(bytes)
            }
            (_, MessageBody::Blob(_)) => {
                return Err(at_entry(error::error(
                    ErrorKind::LedgerMismatch,
                    format!("found a blob with the record `{entry}`, expected a revision"),
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
}

/// Where the revision of a ledger message is, as its headers say
/// ([`parse_message`]).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageBody<'a> {
    /// A fence: no revision, an empty body.
    Fence,
    /// The revision is the message's body, checked against its record.
    Inline,
    /// The revision is this object of the blob bucket (not read yet): the
    /// body is empty.
    Blob(&'a str),
}

/// Reads a ledger message of stream sequence `sequence` (its headers and
/// body) back into its entry: the record line of its `Nenjim-Record`
/// header, which must name `sequence`, and where its revision is (a
/// revision in the body is checked against the record's size and
/// SHA-256). A parser of stored input (what a server holds, whoever wrote
/// it): a refusal is `LedgerMismatch` saying what was found and what was
/// expected, without a path (the caller adds the entry's). Public for the
/// fuzz target `nats_records`; the reader's one decoding of a message.
#[doc(hidden)]
pub fn parse_message<'a>(
    sequence: u64,
    headers: Option<&'a async_nats::HeaderMap>,
    payload: &[u8],
) -> Result<(Entry, MessageBody<'a>), JournalError> {
    let mismatch = |m: String| error::error(ErrorKind::LedgerMismatch, m);
    let header = |name: &str| headers.and_then(|h| h.get(name)).map(|v| v.as_str());
    // A writer sets each header once: a second value (which `get` would
    // not see) is refused, not ignored.
    for name in [RECORD_HEADER, BLOB_HEADER] {
        let values = headers.map_or(0, |h| h.get_all(name).count());
        if values > 1 {
            return Err(mismatch(format!(
                "found {values} {name} headers in message {sequence}, expected at most one"
            )));
        }
    }
    let line = header(RECORD_HEADER).ok_or_else(|| {
        mismatch(format!(
            "found message {sequence} without a {RECORD_HEADER} header, expected a ledger record"
        ))
    })?;
    let entry = Entry::parse(line).map_err(|e| mismatch(e.to_string()))?;
    if entry.sequence() != sequence {
        return Err(mismatch(format!(
            "found the record `{line}` in message {sequence}, expected the record of sequence {sequence}"
        )));
    }
    let blob = header(BLOB_HEADER);
    let body = match (entry.record(), blob) {
        (Record::Fence { .. }, None) if payload.is_empty() => MessageBody::Fence,
        (Record::Fence { .. }, _) => {
            return Err(mismatch(format!(
                "found a revision with the fence `{line}`, expected a fence to carry nothing"
            )));
        }
        (Record::Revision(pointer), None) => {
            check(pointer, payload, Check::Digest, &mismatch, "in its message")?;
            MessageBody::Inline
        }
        (Record::Revision(pointer), Some(key)) => {
            // The one object a writer puts a revision in: any other key
            // (another object, a name the bucket refuses) is no blob of it.
            let expected = revision_key(pointer);
            if key != expected {
                return Err(mismatch(format!(
                    "found the {BLOB_HEADER} `{key}` in message {sequence}, expected `{expected}` (the revision's blob)"
                )));
            }
            if !payload.is_empty() {
                return Err(mismatch(format!(
                    "found {} bytes in message {sequence} besides its {BLOB_HEADER} pointer, expected none",
                    payload.len()
                )));
            }
            MessageBody::Blob(key)
        }
        _ => {
            return Err(mismatch(format!(
                "found the record `{line}`, expected a REVISION or FENCE record"
            )));
        }
    };
    Ok((entry, body))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a test fails by panicking
mod tests {
    use async_nats::HeaderMap;
    use nenjim_journal_api::valuetypes::RevisionDigest;
    use nenjim_journal_store::ledger::RevisionPointer;

    use super::*;

    /// A message is read only as a writer publishes it: a revision's blob
    /// header names that revision's object, and no header is there twice
    /// (found by the fuzz target `nats_records`: an accepted message
    /// writes back as read).
    #[test]
    fn a_message_names_its_own_blob_once() {
        let revision = b"revision\n";
        let digest = RevisionDigest::of_bytes(revision);
        let pointer = RevisionPointer::new(
            "left-pad".parse().unwrap(),
            "20261129T101530Z".parse().unwrap(),
            revision.len() as u64,
            digest,
        );
        let record = Entry::new(2, Record::Revision(pointer.clone())).to_string();
        let key = revision_key(&pointer);
        let read = |headers: &[(&str, &str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in headers {
                map.append(*name, *value);
            }
            parse_message(2, Some(&map), &[]).map(|(_, body)| format!("{body:?}"))
        };
        assert_eq!(
            read(&[(RECORD_HEADER, &record), (BLOB_HEADER, &key)]).unwrap(),
            format!("{:?}", MessageBody::Blob(&key))
        );
        for headers in [
            &[
                (RECORD_HEADER, record.as_str()),
                (BLOB_HEADER, "blobs/sha256/0"),
            ][..],
            &[(RECORD_HEADER, &record), (BLOB_HEADER, "")],
            &[(RECORD_HEADER, &record), (BLOB_HEADER, &key.to_uppercase())],
            &[
                (RECORD_HEADER, &record),
                (BLOB_HEADER, &key),
                (BLOB_HEADER, "x"),
            ],
            &[
                (RECORD_HEADER, &record),
                (RECORD_HEADER, "2 FENCE 1"),
                (BLOB_HEADER, &key),
            ],
        ] {
            let error = read(headers).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::LedgerMismatch, "{error}");
            assert!(error.message().contains("expected"), "{error}");
        }
    }
}
