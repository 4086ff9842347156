//! The state a batch leaves: a chunk ingests its revisions into one state
//! in place, and its texts are parsed on several threads (chunks of 16 and
//! more). A revision refused after its ingestion (a blob missing from the
//! content store) is not in the writer's state afterwards, and the first
//! error of a long batch is the one one-by-one appends meet first, whatever
//! thread parsed which text.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_testkit::texts::{bare_genesis as genesis, restated as successor};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

use crate::writer::CONTENT;

/// A batch of 40 texts whose 31st needs a blob the content store lacks:
/// the 30 before it are committed, the writer's state holds none of the
/// refused revision (appending it again is refused the same way, not an
/// idempotent success), and the artifact's head is still its genesis (its
/// next revision after the genesis is accepted).
#[test]
fn a_revision_refused_for_a_missing_blob_is_not_in_the_state_after_the_batch() {
    let (_root, _store, mut writer, g) = crate::writer::with_store();
    let needs_blob = successor(
        &g,
        "20260102T000000Z",
        &format!("RELEASE 1.0.0\n  LICENSE MIT\n  CONTENT {CONTENT}\n"),
    );
    let mut texts: Vec<String> = (0..30)
        .map(|i| genesis(&format!("n{i:02}"), "20260101T000000Z"))
        .collect();
    texts.push(needs_blob.clone());
    texts.extend((30..39).map(|i| genesis(&format!("n{i:02}"), "20260101T000000Z")));
    let batch: Vec<&str> = texts.iter().map(String::as_str).collect();
    let error = writer.append_batch(&batch).unwrap_err();
    assert_eq!(error.index(), 30, "{error}");
    assert_eq!(error.error().kind(), ErrorKind::BlobMissing, "{error}");
    assert_eq!(writer.tip(), 31);
    let again = writer.append(&needs_blob).unwrap_err();
    assert_eq!(again.kind(), ErrorKind::BlobMissing, "{again}");
    let plain = successor(&g, "20260102T000000Z", "");
    assert_eq!(writer.append(&plain).unwrap().sequence(), 32);
    // The texts after the refused one were never recorded.
    assert_eq!(
        writer.append(&texts[31]).unwrap().sequence(),
        33,
        "n30 is new"
    );
}

/// In a batch of 64 texts with two bad ones (the 20th malformed, the
/// 50th a successor of an unknown head), the batch stops at the first,
/// with the error a single append of it gets; the prefix is committed.
#[test]
fn the_first_bad_text_of_a_long_batch_stops_it_whichever_thread_parsed_it() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    let broken = "FORMAT nenjim-journal/1\nARTIFACT broken\nJOURNAL_VERSION yesterday\n";
    let wrong = successor(&genesis("zzz", "20251231T000000Z"), "20260102T000000Z", "");
    let mut texts: Vec<String> = (0..64)
        .map(|i| genesis(&format!("m{i:02}"), "20260101T000000Z"))
        .collect();
    texts[19] = broken.to_owned();
    texts[49] = wrong;
    let batch: Vec<&str> = texts.iter().map(String::as_str).collect();
    let error = writer.append_batch(&batch).unwrap_err();
    assert_eq!(error.index(), 19, "{error}");
    let single = writer.append(broken).unwrap_err();
    assert_eq!(error.error().to_string(), single.to_string());
    assert_eq!(writer.tip(), 19);
    let rest = writer.append_batch(&batch[20..]).unwrap_err();
    assert_eq!(rest.index(), 29, "{rest}");
    assert_eq!(writer.tip(), 19 + 29);
}
