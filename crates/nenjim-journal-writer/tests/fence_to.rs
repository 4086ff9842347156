//! `FsJournalWriter::fence_to`: FENCE entries up to a sequence, so that the
//! next append gets the sequence after it (a root copy keeps its source's
//! sequences), and the loader gives every revision that sequence.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_fs::{LoadOptions, load};
use nenjim_journal_testkit::texts::bare_genesis;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

#[test]
fn fences_fill_a_gap_and_the_next_append_takes_the_sequence_after_it() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    assert_eq!(
        writer
            .append(&bare_genesis("aaa", "20260101T000000Z"))
            .unwrap()
            .sequence(),
        1
    );
    writer.fence_to(1).unwrap();
    assert_eq!(writer.tip(), 1, "nothing to fence at the tip");
    writer.fence_to(3).unwrap();
    assert_eq!(writer.tip(), 3);
    assert_eq!(
        writer
            .append(&bare_genesis("bbb", "20260101T000000Z"))
            .unwrap()
            .sequence(),
        4
    );
    let back = writer.fence_to(2).unwrap_err();
    assert_eq!(back.kind(), ErrorKind::LedgerMismatch, "{back}");
    assert_eq!(writer.tip(), 4, "a refused fence writes nothing");
    writer.close().unwrap();
    // A fresh load, and a writer opened again, see the same sequences.
    let state = load(root.path(), LoadOptions::new()).unwrap();
    let mut cursor = state.replay(0);
    let mut seen = Vec::new();
    while let Some(r) = cursor.next().unwrap() {
        seen.push((r.coordinate().to_string(), r.sequence()));
    }
    assert_eq!(seen, [("aaa".to_owned(), 1), ("bbb".to_owned(), 4)]);
    let writer = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    assert_eq!(writer.tip(), 4);
    writer.close().unwrap();
}
