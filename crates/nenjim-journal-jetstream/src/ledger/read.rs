//! Reading the stream: the entries after a sequence in batches (one
//! ordered consumer kept across batches), one entry by its sequence, and
//! the decoding of a message into its entry and checked revision.

use async_nats::header::{HeaderName, HeaderValue};
use async_nats::jetstream::consumer::DeliverPolicy;
use async_nats::jetstream::consumer::pull::{Ordered, OrderedConfig};
use bytes::Bytes;
use futures::StreamExt as _;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_store::ledger::{Entry, Record};
use tokio::io::AsyncReadExt as _;

use super::{
    BLOB, BLOB_HEADER, Check, LedgerMessage, NatsLedger, RECORD, RECORD_HEADER, check, lock,
    revision_key,
};
use crate::follow::Follower;

impl NatsLedger {
    /// The entries after sequence `after`, ascending and contiguous from
    /// `after + 1`, at most `max` of them (at least one if there is one):
    /// empty when `after` is the tip. Each revision's bytes are checked
    /// against its record (`LedgerMismatch`).
    pub fn read_after(&self, after: u64, max: usize) -> Result<Vec<LedgerMessage>, JournalError> {
        self.read_after_checked(after, max, Check::Digest)
    }

    /// [`read_after`](Self::read_after), each revision's bytes checked
    /// against its record as `what` says: [`Check::Size`] for the loader
    /// (the seam's `read_after_with_bytes`), which compares the digest its
    /// parse computes of them with the record's, so that a start hashes
    /// each revision once. Each message is decoded as it arrives (a blob's
    /// object is read after the batch is received), the first error in
    /// sequence order returned.
    pub(crate) fn read_after_checked(
        &self,
        after: u64,
        max: usize,
        what: Check,
    ) -> Result<Vec<LedgerMessage>, JournalError> {
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
        // message), each message decoded as it arrives: a message already
        // buffered is taken without a timer, only a wait is timed.
        let timeout = self.inner.root.options.request_timeout;
        let received = conn.block_on(async {
            use futures::FutureExt as _;
            let mut read: Vec<Read> = Vec::with_capacity(count.min(4096));
            while read.len() < count {
                let expected = after + read.len() as u64 + 1;
                let next = match messages.next().now_or_never() {
                    Some(next) => Ok(next),
                    None => tokio::time::timeout(timeout, messages.next()).await,
                };
                match next {
                    Ok(Some(Ok(message))) => match self.decode_received(&message, expected, what) {
                        Ok(decoded) => read.push(decoded),
                        // Not past the blobs before it: those are read
                        // (and checked) first, in sequence order.
                        Err(e) => return (read, Err(Stop::Refused(e))),
                    },
                    Ok(Some(Err(e))) => {
                        let why = crate::outage::Outage::outage(&e);
                        return (
                            read,
                            Err(Stop::Failed(Some(crate::outage::Said(e.to_string(), why)))),
                        );
                    }
                    Ok(None) => return (read, Err(Stop::Failed(None))),
                    Err(_) => {
                        return (
                            read,
                            Err(Stop::Failed(Some(crate::outage::Said(
                                format!("no message {expected} within {timeout:?}"),
                                Some(crate::outage::Why::TimedOut),
                            )))),
                        );
                    }
                }
            }
            (read, Ok(()))
        });
        let (decoded, stopped) = received;
        let refused = match stopped {
            Ok(()) => None,
            Err(Stop::Refused(e)) => Some(e),
            Err(Stop::Failed(Some(e))) => {
                return Err(conn.request_error("cannot read the ledger's stream", e));
            }
            Err(Stop::Failed(None)) => return Err(conn.lost_error()),
        };
        let mut read = Vec::with_capacity(decoded.len());
        for decoded in decoded {
            read.push(match decoded {
                Read::Done(message) => message,
                Read::Blob(entry, key) => self.read_blob_of(entry, &key, what)?,
            });
        }
        if let Some(e) = refused {
            return Err(e);
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

    /// Reads one stream message as the entry `expected`, its revision's
    /// bytes checked against its record (size and SHA-256).
    pub(crate) fn decode(
        &self,
        message: &async_nats::jetstream::Message,
        expected: u64,
    ) -> Result<LedgerMessage, JournalError> {
        match self.decode_received(message, expected, Check::Digest)? {
            Read::Done(message) => Ok(message),
            Read::Blob(entry, key) => self.read_blob_of(entry, &key, Check::Digest),
        }
    }

    /// Decodes one stream message as the entry `expected` without reading
    /// anything (no blocking call: it runs inside the receiving loop): a
    /// revision in a blob is left to [`read_blob_of`](Self::read_blob_of).
    fn decode_received(
        &self,
        message: &async_nats::jetstream::Message,
        expected: u64,
        what: Check,
    ) -> Result<Read, JournalError> {
        // The entry's path is only made for an error (a start reads every entry).
        let mismatch = |m: String| {
            error::error(ErrorKind::LedgerMismatch, m).with_path(self.entry_path(expected))
        };
        let sequence = stream_sequence(message).ok_or_else(|| {
            mismatch(format!(
                "found a message without its stream sequence (reply subject {:?}), expected entry {expected}",
                message.reply.as_deref()
            ))
        })?;
        if sequence != expected {
            return Err(mismatch(format!(
                "found the message of stream sequence {sequence}, expected entry {expected} (every ledger entry is one message, in order)"
            )));
        }
        self.decode_parts(sequence, message.headers.as_ref(), &message.payload, what)
    }

    /// The entry `sequence` alone, read by its stream sequence (a direct
    /// get, no consumer), its revision checked as [`read_after`](Self::read_after)
    /// checks it; `LedgerMismatch` when there is no such entry.
    pub fn read_entry(&self, sequence: u64) -> Result<LedgerMessage, JournalError> {
        self.read_entry_checked(sequence, Check::Digest)
    }

    /// [`read_entry`](Self::read_entry), its revision checked as `what`
    /// says ([`Check::Size`] for a caller that hashes what it reads).
    pub(crate) fn read_entry_checked(
        &self,
        sequence: u64,
        what: Check,
    ) -> Result<LedgerMessage, JournalError> {
        let stream = self.stream()?;
        let conn = &self.inner.conn;
        match conn.block_on(stream.get_raw_message(sequence)) {
            Ok(message) => self
                .decode_parts(
                    message.sequence,
                    Some(&message.headers),
                    &message.payload,
                    what,
                )
                .and_then(|read| match read {
                    Read::Done(read) => Ok(read),
                    Read::Blob(entry, key) => self.read_blob_of(entry, &key, what),
                })
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
                }),
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
    /// body) into its entry and its revision, checked as `what` says; a
    /// revision in a blob is left to [`read_blob_of`](Self::read_blob_of)
    /// (once the record's size is known to be within the loader's limit).
    fn decode_parts(
        &self,
        sequence: u64,
        headers: Option<&async_nats::HeaderMap>,
        payload: &Bytes,
        what: Check,
    ) -> Result<Read, JournalError> {
        // The entry's path is only made for an error (a start reads every entry).
        let at_entry = |e: JournalError| e.with_path(self.entry_path(sequence));
        let (entry, body) =
            parse_message_checked(sequence, headers, payload, what).map_err(at_entry)?;
        let revision = match (entry.record(), body) {
            (_, MessageBody::Fence) => None,
            (_, MessageBody::Inline) => Some(payload.clone()),
            (Record::Revision(pointer), MessageBody::Blob(key)) => {
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
                let key = key.to_owned();
                return Ok(Read::Blob(entry, key));
            }
            (_, MessageBody::Blob(_)) => {
                return Err(at_entry(error::error(
                    ErrorKind::LedgerMismatch,
                    format!("found a blob with the record `{entry}`, expected a revision"),
                )));
            }
        };
        Ok(Read::Done(LedgerMessage { entry, revision }))
    }

    /// The revision of `entry` (a `REVISION` record whose message named its
    /// blob `key`): the object read, checked against the record as `what`
    /// says.
    fn read_blob_of(
        &self,
        entry: Entry,
        key: &str,
        what: Check,
    ) -> Result<LedgerMessage, JournalError> {
        let sequence = entry.sequence();
        let mismatch = |m: String| {
            error::error(ErrorKind::LedgerMismatch, m).with_path(self.entry_path(sequence))
        };
        let Record::Revision(pointer) = entry.record() else {
            return Err(mismatch(format!(
                "found a blob with the record `{entry}`, expected a revision"
            )));
        };
        let bytes = self.read_blob(key, pointer.size(), &mismatch)?;
        check(
            pointer,
            &bytes,
            what,
            &mismatch,
            &format!("in the blob {key}"),
        )?;
        Ok(LedgerMessage {
            entry,
            revision: Some(bytes),
        })
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

/// One message of a batch as decoded while it is received.
enum Read {
    /// Its entry and revision, checked.
    Done(LedgerMessage),
    /// A revision in the blob bucket: its entry and the object's key, read
    /// once the batch is received.
    Blob(Entry, String),
}

/// Why the receiving of a batch stopped early.
enum Stop {
    /// A message refused (`LedgerMismatch`, `TooLarge`).
    Refused(JournalError),
    /// The stream failed (what the server or the client said), or ended
    /// (`None`: the connection is gone).
    Failed(Option<crate::outage::Said>),
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

/// The stream sequence of a JetStream message, from its `$JS.ACK.` reply
/// subject as [`Message::info`](async_nats::jetstream::Message::info)
/// reads it (ADR-15: after the prefix, 7 tokens in the original form, 9 or
/// more in the form with the domain and account hash; the stream sequence
/// is the 4th, resp. the 6th), without parsing the tokens a read does not
/// use: `info` also parses the counters and the timestamp, which perf put
/// at about 0.9 µs of every message a start reads (P16). `None` for a
/// message without such a subject, or whose token is not a number.
/// Public for the test that compares it with `info` on a server's messages.
#[doc(hidden)]
pub fn stream_sequence(message: &async_nats::Message) -> Option<u64> {
    let tokens = message.reply.as_deref()?.strip_prefix("$JS.ACK.")?;
    let index = match tokens.split('.').count() {
        7 => 3,
        n if n >= 9 => 5,
        _ => return None,
    };
    tokens.split('.').nth(index)?.parse().ok()
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
    parse_message_checked(sequence, headers, payload, Check::Digest)
}

/// [`parse_message`], a revision in the body checked against the record
/// as `what` says (its size alone for the loader, which compares its
/// parse's digest with the record's).
pub(crate) fn parse_message_checked<'a>(
    sequence: u64,
    headers: Option<&'a async_nats::HeaderMap>,
    payload: &[u8],
    what: Check,
) -> Result<(Entry, MessageBody<'a>), JournalError> {
    let mismatch = |m: String| error::error(ErrorKind::LedgerMismatch, m);
    // A writer sets each header once: a second value (which `get` would
    // not see) is refused, not ignored. Each header is looked up once, by
    // a name made at compile time (a `&str` name is validated and, not
    // being a standard header, allocated at every look-up).
    let header = |name: HeaderName, text: &str| -> Result<Option<&'a str>, JournalError> {
        let mut values = headers.map(|h| h.get_all(name)).into_iter().flatten();
        let first = values.next().map(HeaderValue::as_str);
        match values.count() {
            0 => Ok(first),
            more => Err(mismatch(format!(
                "found {} {text} headers in message {sequence}, expected at most one",
                more + 1
            ))),
        }
    };
    let line = header(RECORD, RECORD_HEADER)?;
    let blob = header(BLOB, BLOB_HEADER)?;
    let line = line.ok_or_else(|| {
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
    let body = match (entry.record(), blob) {
        (Record::Fence { .. }, None) if payload.is_empty() => MessageBody::Fence,
        (Record::Fence { .. }, _) => {
            return Err(mismatch(format!(
                "found a revision with the fence `{line}`, expected a fence to carry nothing"
            )));
        }
        (Record::Revision(pointer), None) => {
            check(pointer, payload, what, &mismatch, "in its message")?;
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
