//! Findings of the audit of the writer (session 28), each a test that
//! failed before its fix: a lease file whose epoch cannot grow (its
//! holder expired, so the next writer takes it over at the next epoch)
//! is refused with a located error, never a panic, and writes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::append::JournalWriter;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_fs::{LoadOptions, load};
use nenjim_journal_testkit::feeds::expire_lease_of;
use nenjim_journal_testkit::texts::bare_genesis as genesis;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

/// The lease file of `root` with its epoch line replaced by `epoch`.
fn set_epoch(root: &std::path::Path, epoch: &str) {
    let path = root.join(".ledger/lease");
    let text = std::fs::read_to_string(&path).unwrap();
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("epoch ") {
                format!("epoch {epoch}")
            } else {
                l.to_owned()
            }
        })
        .collect();
    std::fs::write(&path, out.join("\n") + "\n").unwrap();
}

#[test]
fn an_expired_lease_at_the_last_epoch_is_refused_with_a_located_error_not_a_panic() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    writer.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    // The writer is gone without closing: its lease stays, expired.
    drop(writer);
    expire_lease_of(root.path());
    set_epoch(root.path(), &u64::MAX.to_string());
    let lease = std::fs::read(root.path().join(".ledger/lease")).unwrap();
    let error = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Io, "{error}");
    assert!(
        error.to_string().contains(".ledger/lease"),
        "the error names the lease file: {error}"
    );
    // Nothing was written: the lease as it was, the root as it was.
    assert_eq!(
        std::fs::read(root.path().join(".ledger/lease")).unwrap(),
        lease
    );
    let state = load(root.path(), LoadOptions::new()).unwrap();
    assert_eq!(state.len(), 1);
    assert!(
        !root
            .path()
            .join(".ledger/log/00000000000000000002")
            .exists()
    );
}
