//! The writer's errors keep what they carry: context is added to the error
//! that was found (its kind, path and source kept), never rebuilt from its
//! kind and message, and a misuse is a usage error.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::append::JournalWriter;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_testkit::texts::{bare_genesis as genesis, files, restated as successor};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

use crate::writer::CONTENT;

#[test]
fn put_blob_without_a_content_store_is_a_usage_error_and_writes_nothing() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    let before = files(root.path());
    let error = writer.put_blob(b"bytes").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Usage, "{error}");
    assert!(error.to_string().contains("content_store"), "{error}");
    assert_eq!(files(root.path()), before);
}

#[test]
fn a_missing_blob_is_named_by_its_release_and_keeps_its_kind_and_path() {
    let (_root, store, mut writer, g) = crate::writer::with_store();
    let text = successor(
        &g,
        "20260102T000000Z",
        &format!("RELEASE 1.0.0\n  LICENSE MIT\n  CONTENT {CONTENT}\n"),
    );
    let error = writer.append(&text).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BlobMissing, "{error}");
    assert!(error.message().starts_with("aaa 1.0.0: "), "{error}");
    let path = error.path().unwrap();
    assert!(path.starts_with(store.path()), "{error}");
    assert!(
        error
            .to_string()
            .starts_with(&format!("{}: aaa 1.0.0: ", path.display())),
        "{error}"
    );
}

#[test]
fn the_error_that_poisons_a_writer_is_the_one_every_later_append_returns() {
    let root = tempfile::tempdir().unwrap();
    let mut old = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    old.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    // Another machine sees the lease expired and takes the root over.
    nenjim_journal_testkit::feeds::expire_lease_of(root.path());
    let _new = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    let first = old.append(&genesis("bbb", "20260101T000000Z")).unwrap_err();
    assert_eq!(first.kind(), ErrorKind::LeaseLost, "{first}");
    let later = old.append(&genesis("ccc", "20260101T000000Z")).unwrap_err();
    assert_eq!(
        (later.kind(), later.path(), later.message()),
        (first.kind(), first.path(), first.message())
    );
    assert!(first.path().is_some(), "{first}");
}
