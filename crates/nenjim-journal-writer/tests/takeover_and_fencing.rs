//! Takeovers and fencing at their edges, from the audit of the writer
//! (session 28; this file was `audit.rs`). A finding, a test that failed
//! before its fix: a lease file whose epoch cannot grow (its holder
//! expired, so the next writer takes it over at the next epoch) is
//! refused with a located error, never a panic, and writes nothing. Two
//! probes of paths the audit found right, kept as regression tests: a
//! fenced writer's batch commits nothing (`LeaseLost`), and a batch
//! stopped by another writer's entry keeps a prefix and a state equal to
//! what the ledger loads.
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

/// A probe of the fence rule on the batch path: a writer whose lease was
/// taken over commits nothing of a batch, reports `LeaseLost`, and stays
/// refused; the new holder's sequences follow its fence.
#[test]
fn a_batch_of_a_fenced_writer_commits_nothing_and_reports_lease_lost() {
    use nenjim_journal_testkit::texts::restated as successor;
    let root = tempfile::tempdir().unwrap();
    let mut old = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    let g = genesis("aaa", "20260101T000000Z");
    old.append(&g).unwrap();
    expire_lease_of(root.path());
    let mut new = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    assert_eq!(new.tip(), 2, "the new holder fenced at 2");
    let s1 = successor(&g, "20260102T000000Z", "");
    let b = genesis("bbb", "20260101T000000Z");
    let c = genesis("ccc", "20260101T000000Z");
    let failed = old.append_batch(&[&s1, &b, &c]).unwrap_err();
    assert_eq!(failed.error().kind(), ErrorKind::LeaseLost, "{failed}");
    assert!(failed.appended().is_empty());
    assert_eq!(old.append(&c).unwrap_err().kind(), ErrorKind::LeaseLost);
    let appended = new.append_batch(&[&s1, &b]).unwrap();
    let sequences: Vec<u64> = appended.iter().map(|a| a.sequence()).collect();
    assert_eq!(sequences, vec![3, 4]);
    let state = load(root.path(), LoadOptions::new()).unwrap();
    assert_eq!(state.len(), 3);
    assert_eq!(state.last_sequence(), 4);
}

/// A probe of group commit when another writer took an entry in the
/// middle of a batch: the entries before it are committed and reported
/// (a prefix), the writer's state is exactly what the ledger holds, the
/// rest is `TipMoved` and commits at the new tip when retried.
#[test]
fn a_batch_stopped_by_another_writers_entry_keeps_a_prefix_and_the_ledgers_state() {
    use nenjim_journal_store::ledger::{Entry, Record, entry_path};
    let root = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    writer.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    // Entry 3 is taken before the batch's second text commits at it.
    let other = Entry::new(3, Record::Fence { epoch: 1 }).to_string();
    std::os::unix::fs::symlink(&other, entry_path(root.path(), 3)).unwrap();
    let b = genesis("bbb", "20260101T000000Z");
    let c = genesis("ccc", "20260101T000000Z");
    let d = genesis("ddd", "20260101T000000Z");
    let failed = writer.append_batch(&[&b, &c, &d]).unwrap_err();
    assert_eq!(failed.error().kind(), ErrorKind::TipMoved, "{failed}");
    let committed: Vec<u64> = failed.appended().iter().map(|a| a.sequence()).collect();
    assert_eq!(committed, vec![2]);
    assert_eq!(writer.tip(), 3, "the writer read the other entry");
    let loaded = load(root.path(), LoadOptions::new()).unwrap();
    assert_eq!(listed(writer.state()), listed(&loaded));
    assert_eq!(
        listed(&loaded),
        vec![(1, "aaa".to_owned()), (2, "bbb".to_owned())]
    );
    let retried = writer.append_batch(&[&b, &c, &d]).unwrap();
    let sequences: Vec<(u64, bool)> = retried.iter().map(|a| (a.sequence(), a.is_new())).collect();
    assert_eq!(sequences, vec![(2, false), (4, true), (5, true)]);
    assert_eq!(
        listed(writer.state()),
        listed(&load(root.path(), LoadOptions::new()).unwrap())
    );
}

/// Each revision of `state` in sequence order: its sequence and artifact.
fn listed(state: &nenjim_journal_chain::ChainState) -> Vec<(u64, String)> {
    let mut cursor = state.replay(0);
    let mut out = Vec::new();
    while let Some(revision) = cursor.next().unwrap() {
        out.push((revision.sequence(), revision.coordinate().to_string()));
    }
    out
}
