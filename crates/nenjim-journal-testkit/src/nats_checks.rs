//! What the fuzz target `nats_records` checks (and its stable twin,
//! `crates/nenjim-journal-nats/tests/records_fuzz.rs`): the decoding of a
//! NATS root's ledger message (`nenjim_journal_nats::ledger::parse_message`:
//! its `Nenjim-Record` and `Nenjim-Blob` headers and its body) never
//! panics, refuses with `LedgerMismatch` saying what it expected, and
//! accepts a message only as a writer publishes it: the record header is
//! the entry's record line at the message's sequence, a fence carries
//! nothing, a revision is the body (of the record's size and SHA-256) or
//! the blob `revisions/sha256/<hex>` of the record's digest with an empty
//! body; a message as a writer publishes it is accepted.
//!
//! The input is a message a writer publishes (a fence, a revision in the
//! body, a revision in a blob) drawn from the bytes, then damaged by the
//! bytes that follow: a header's value replaced by raw bytes or edited, a
//! second value, a header in other case, the blob header added or
//! removed, the body edited, another sequence, no headers at all.

use async_nats::HeaderMap;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_nats::ledger::{
    BLOB_HEADER, MessageBody, RECORD_HEADER, REVISION_KEY_PREFIX, parse_message,
};
use nenjim_journal_store::ledger::{Entry, Record, RevisionPointer};

use crate::checks::Choices;
use crate::store_checks::edit;

/// One message: its sequence, headers (name, value) in order, body.
#[derive(Clone, Debug)]
pub struct Message {
    /// The stream sequence it is read at.
    pub sequence: u64,
    /// Its headers, in order (a name may repeat).
    pub headers: Vec<(String, String)>,
    /// Its body.
    pub payload: Vec<u8>,
}

impl Message {
    /// The client's header map of these headers (`None` when there are
    /// none); a name or value the client refuses (it never receives one)
    /// is left out.
    pub fn header_map(&self) -> Option<HeaderMap> {
        if self.headers.is_empty() {
            return None;
        }
        let mut map = HeaderMap::new();
        for (name, value) in &self.headers {
            if let (Ok(name), Ok(value)) = (
                name.parse::<async_nats::HeaderName>(),
                value.parse::<async_nats::HeaderValue>(),
            ) {
                map.append(name, value);
            }
        }
        Some(map)
    }
}

/// The blob key a writer names a revision of `digest` by.
pub fn blob_key(digest: &RevisionDigest) -> String {
    format!("{REVISION_KEY_PREFIX}{}", digest.to_hex())
}

/// The message a writer publishes for entry `sequence`: a fence (`kind`
/// 0), a revision in the body (1) or in a blob (2).
pub fn published(sequence: u64, kind: usize, revision: &[u8]) -> (Entry, Message) {
    let record = match kind {
        0 => Record::Fence { epoch: 3 },
        _ => Record::Revision(RevisionPointer::new(
            "left-pad".parse().expect("a coordinate"),
            "20261129T101530Z".parse().expect("a version"),
            revision.len() as u64,
            RevisionDigest::of_bytes(revision),
        )),
    };
    let entry = Entry::new(sequence, record);
    let mut headers = vec![(RECORD_HEADER.to_owned(), entry.to_string())];
    let payload = match kind {
        0 => Vec::new(),
        1 => revision.to_vec(),
        _ => {
            headers.push((
                BLOB_HEADER.to_owned(),
                blob_key(&RevisionDigest::of_bytes(revision)),
            ));
            Vec::new()
        }
    };
    (
        entry,
        Message {
            sequence,
            headers,
            payload,
        },
    )
}

/// Damages `message` once, as the next bytes of `choices` say.
fn damage(choices: &mut Choices<'_>, message: &mut Message) {
    let raw = |choices: &mut Choices<'_>| -> String {
        let len = choices.below(40);
        let bytes: Vec<u8> = (0..len).map(|_| choices.byte()).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    let names = [
        RECORD_HEADER,
        BLOB_HEADER,
        "nenjim-record",
        "NENJIM-BLOB",
        "Nats-Msg-Id",
    ];
    match choices.below(9) {
        0 => {
            if let Some(header) = message.headers.first_mut() {
                header.1 = raw(choices);
            }
        }
        1 | 2 => {
            let at = choices.below(message.headers.len().max(1));
            let edits = [
                choices.byte(),
                choices.byte(),
                choices.byte(),
                choices.byte(),
            ];
            if let Some(header) = message.headers.get_mut(at) {
                let value = edit(std::mem::take(&mut header.1).into_bytes(), &edits);
                header.1 = String::from_utf8_lossy(&value).into_owned();
            }
        }
        3 => {
            // Another value of a header (first or last), or another header.
            let name = names[choices.below(names.len())].to_owned();
            let value = match choices.below(3) {
                0 => message
                    .headers
                    .first()
                    .map(|h| h.1.clone())
                    .unwrap_or_default(),
                1 => blob_key(&RevisionDigest::of_bytes(&message.payload)),
                _ => raw(choices),
            };
            let at = if choices.byte().is_multiple_of(2) {
                0
            } else {
                message.headers.len()
            };
            message.headers.insert(at, (name, value));
        }
        4 => {
            if !message.headers.is_empty() {
                let at = choices.below(message.headers.len());
                message.headers.remove(at);
            }
        }
        5 => {
            let edits = [choices.byte(), choices.byte()];
            message.payload = edit(std::mem::take(&mut message.payload), &edits);
        }
        6 => message.payload = raw(choices).into_bytes(),
        7 => {
            message.sequence = match choices.byte() % 3 {
                0 => message.sequence.saturating_add(1),
                1 => message.sequence.saturating_sub(1),
                _ => u64::MAX,
            }
        }
        _ => message.headers.clear(),
    }
}

/// Checks the decoding of `message`; `published`: the entry it holds
/// when it is undamaged.
pub fn check_message(message: &Message, published: Option<&Entry>) {
    let map = message.header_map();
    let first = |name: &str| map.as_ref().and_then(|m| m.get(name)).map(|v| v.as_str());
    let count = |name: &str| map.as_ref().map_or(0, |m| m.get_all(name).count());
    match parse_message(message.sequence, map.as_ref(), &message.payload) {
        Ok((entry, body)) => {
            if let Some(published) = published {
                assert_eq!(&entry, published, "a published message reads as its entry");
            }
            assert_eq!(
                entry.sequence(),
                message.sequence,
                "the message's own entry"
            );
            let line = entry.to_string();
            assert_eq!(
                first(RECORD_HEADER),
                Some(line.as_str()),
                "a record writes back as read"
            );
            assert_eq!(count(RECORD_HEADER), 1, "one record header");
            assert!(count(BLOB_HEADER) <= 1, "at most one blob header");
            match (entry.record(), body) {
                (Record::Fence { .. }, MessageBody::Fence) => {
                    assert!(message.payload.is_empty(), "a fence carries nothing");
                    assert_eq!(first(BLOB_HEADER), None, "a fence names no blob");
                }
                (Record::Revision(pointer), MessageBody::Inline) => {
                    assert_eq!(message.payload.len() as u64, pointer.size());
                    assert_eq!(
                        &RevisionDigest::of_bytes(&message.payload),
                        pointer.digest()
                    );
                    assert_eq!(first(BLOB_HEADER), None, "an inline revision names no blob");
                }
                (Record::Revision(pointer), MessageBody::Blob(key)) => {
                    assert!(message.payload.is_empty(), "a blob's message has no body");
                    assert_eq!(first(BLOB_HEADER), Some(key));
                    assert_eq!(key, blob_key(pointer.digest()), "the revision's own blob");
                }
                (record, body) => panic!("{body:?} for the record {record:?}"),
            }
        }
        Err(e) => {
            assert!(published.is_none(), "a published message is refused: {e}");
            assert_eq!(e.kind(), ErrorKind::LedgerMismatch, "{e}");
            assert_eq!(e.path(), None, "{e}: the caller names the entry");
            assert!(e.message().contains("expected"), "{e}");
            let input: usize = message.headers.iter().map(|(n, v)| n.len() + v.len()).sum();
            assert!(
                e.message().len() <= 2 * input + 512,
                "a message of {} bytes for {input} bytes of headers",
                e.message().len()
            );
        }
    }
}

/// The fuzz target `nats_records` (see the module docs).
pub fn nats_records(data: &[u8]) {
    let mut choices = Choices::new(data);
    let sequence = 1 + choices.below(3) as u64;
    let kind = choices.below(3);
    let revision = format!("revision {}\n", choices.byte()).into_bytes();
    let (entry, mut message) = published(sequence, kind, &revision);
    let damages = choices.below(4);
    for _ in 0..damages {
        damage(&mut choices, &mut message);
    }
    check_message(&message, (damages == 0).then_some(&entry));
}
