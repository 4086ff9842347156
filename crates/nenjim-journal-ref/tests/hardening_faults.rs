//! Every filesystem call of a start, and of a refresh, failed in turn with
//! every fault kind: nothing is published that should not be, nothing
//! published is lost, and the error names the path and keeps the OS error.
//!
//! The calls are enumerated by recording a fault-free run (the reads run in
//! parallel, so a call is identified by its operation and path, which are
//! unique within one start or refresh, rather than by its position).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io;
use std::path::Path;
use std::sync::Arc;

use nenjim_journal_api::JournalService;
use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::{JournalRevision, ReplayRequest};
use nenjim_journal_ref::{JournalAssembly, LoadOptions};
use nenjim_journal_testkit::faults::{Call, Fault, Op, Recording, io_kind};
use nenjim_journal_testkit::memory_fs::{MemoryFs, root};
use nenjim_journal_testkit::texts::{genesis, successor, ts};

fn put(fs: &MemoryFs, coordinate: &str, k: u32, text: &str) {
    fs.put(
        &root().join(coordinate).join(format!("{}.journal", ts(k))),
        text,
    );
}

/// A small root with everything a walk meets: two artifacts with a chain,
/// a hidden entry and an example file.
fn small_root() -> (MemoryFs, Vec<String>) {
    let fs = MemoryFs::with_root(&root());
    let a1 = genesis("aaa", &ts(1), &["1.0.0"]);
    let a2 = successor(&a1, "aaa", &ts(2), &["1.0.0", "1.1.0"]);
    let b1 = genesis("bbb", &ts(1), &[]);
    put(&fs, "aaa", 1, &a1);
    put(&fs, "aaa", 2, &a2);
    put(&fs, "bbb", 1, &b1);
    fs.put(&root().join(".hidden"), "ignored");
    fs.put(
        &root()
            .join("bbb")
            .join(format!("{}.journal.example", ts(9))),
        "ignored",
    );
    (fs, vec![a1, a2, b1])
}

/// New revisions for a refresh: a successor of `aaa`, of `bbb`, and a new artifact.
fn add_new_revisions(fs: &MemoryFs, old: &[String]) {
    let a3 = successor(&old[1], "aaa", &ts(3), &["1.0.0", "1.1.0", "2.0.0"]);
    let b2 = successor(&old[2], "bbb", &ts(2), &["0.1.0"]);
    let c1 = genesis("ccc", &ts(1), &["3.0.0"]);
    let c2 = successor(&c1, "ccc", &ts(2), &["3.0.0"]);
    put(fs, "aaa", 3, &a3);
    put(fs, "bbb", 2, &b2);
    put(fs, "ccc", 1, &c1);
    put(fs, "ccc", 2, &c2);
}

fn assembly(fs: &Arc<Recording<MemoryFs>>) -> JournalAssembly {
    JournalAssembly::with_file_system(root(), LoadOptions::new(), fs.clone())
}

/// Whether `fault` means something for `call`: "became a directory" only
/// concerns entries that are regular files.
fn applies(call: &Call, fault: Fault) -> bool {
    let (op, path) = call;
    // "No such file" is the ledger marker's answer on a root without a
    // ledger (these roots have none): failing it so changes nothing.
    if path.ends_with(".ledger/LEDGER") && fault == Fault::Os(io::ErrorKind::NotFound) {
        return false;
    }
    fault != Fault::BecameDirectory
        || *op == Op::Read
        || (*op == Op::SymlinkMetadata
            && path
                .extension()
                .is_some_and(|e| e == "journal" || e == "example"))
}

/// The error of a failed call names its path, and an OS error stays its source.
fn assert_located(error: &JournalError, call: &Call, fault: Fault) {
    let (op, path) = call;
    assert_eq!(
        error.path(),
        Some(path.as_path()),
        "{op:?} {} failed with {fault:?}: {error}",
        path.display()
    );
    match fault {
        Fault::Os(kind) => {
            assert_eq!(io_kind(error), Some(kind), "{op:?} {fault:?}: {error:?}");
            let expected = if path == &root() {
                // Inspected or listed: a root that vanished is missing.
                if kind == io::ErrorKind::NotFound {
                    ErrorKind::RootMissing
                } else {
                    ErrorKind::RootUnreadable
                }
            } else {
                ErrorKind::Io
            };
            assert_eq!(error.kind(), expected, "{op:?} {fault:?}: {error}");
        }
        Fault::BecameDirectory => {
            let expected = if *op == Op::Read {
                ErrorKind::Io
            } else {
                ErrorKind::UnexpectedEntry
            };
            assert_eq!(error.kind(), expected, "{op:?} {fault:?}: {error}");
        }
        Fault::Grew | Fault::Swapped(_) => panic!("{fault:?} is not one of Fault::ALL"),
    }
}

/// Every revision of a service, in sequence order (one snapshot).
fn replayed(service: &dyn JournalService) -> Vec<JournalRevision> {
    let mut cursor = service.replay(&ReplayRequest::after(0)).unwrap();
    let mut all = Vec::new();
    while let Some(revision) = cursor.next().unwrap() {
        all.push(revision);
    }
    all
}

fn digests(revisions: &[JournalRevision]) -> Vec<String> {
    revisions.iter().map(|r| r.digest().to_string()).collect()
}

#[test]
fn every_call_of_a_start_failing_fails_the_start_and_publishes_nothing() {
    let (memory, _) = small_root();
    let recording = Arc::new(Recording::new(Arc::new(memory)));
    let clean = assembly(&recording);
    clean.process().start().unwrap();
    let calls = recording.take_calls();
    // whether the root has a ledger (the metadata of its marker), metadata +
    // listing of the root, then per artifact: its metadata, its listing, the
    // metadata of each entry; and one read per revision file.
    let count = |op| calls.iter().filter(|(o, _)| *o == op).count();
    assert_eq!(count(Op::Metadata), 1, "{calls:?}");
    assert_eq!(count(Op::ReadDir), 3, "{calls:?}");
    assert_eq!(count(Op::SymlinkMetadata), 7, "{calls:?}");
    assert_eq!(count(Op::Read), 3, "{calls:?}");
    assert_eq!(calls.len(), 14);

    let mut runs = 0;
    for (i, call) in calls.iter().enumerate() {
        for fault in Fault::ALL.into_iter().filter(|f| applies(call, *f)) {
            runs += 1;
            let (memory, _) = small_root();
            let recording = Arc::new(Recording::new(Arc::new(memory)));
            recording.fail(call.clone(), fault);
            let journal = assembly(&recording);
            let error = journal
                .process()
                .start()
                .expect_err(&format!("call {i} {call:?} failed with {fault:?}"));
            assert_located(&error, call, fault);
            let query = journal.service().coordinates().unwrap_err();
            assert_eq!(query.kind(), ErrorKind::NotStarted, "call {i} {fault:?}");
            let refresh = journal.manager().refresh().unwrap_err();
            assert_eq!(refresh.kind(), ErrorKind::NotStarted);
            assert!(
                recording.take_calls().contains(call),
                "the faulty call {call:?} was not made"
            );
        }
    }
    assert_eq!(runs, 14 * 3 + 7 - 1, "every call, every applicable fault");
}

#[test]
fn every_call_of_a_refresh_failing_keeps_a_prefix_and_names_the_path() {
    // The full result, without faults.
    let (memory, old) = small_root();
    let recording = Arc::new(Recording::new(Arc::new(memory)));
    let clean = assembly(&recording);
    clean.process().start().unwrap();
    let before = digests(&replayed(&*clean.service()));
    assert_eq!(before.len(), 3);
    add_new_revisions(recording.inner(), &old);
    let _ = recording.take_calls();
    let report = clean.manager().refresh().unwrap();
    assert_eq!((report.ingested(), report.unchanged()), (4, 3));
    let full = replayed(&*clean.service());
    let calls = recording.take_calls();
    assert_eq!(calls.iter().filter(|(o, _)| *o == Op::Read).count(), 7);
    assert_eq!(calls.len(), 1 + 2 + 3 * 2 + 8 + 7, "{calls:?}");

    let mut prefixes = std::collections::BTreeSet::new();
    for (i, call) in calls.iter().enumerate() {
        for fault in Fault::ALL.into_iter().filter(|f| applies(call, *f)) {
            let (memory, old) = small_root();
            let recording = Arc::new(Recording::new(Arc::new(memory)));
            let journal = assembly(&recording);
            journal.process().start().unwrap();
            add_new_revisions(recording.inner(), &old);
            recording.fail(call.clone(), fault);
            let error = journal
                .manager()
                .refresh()
                .expect_err(&format!("call {i} {call:?} failed with {fault:?}"));
            assert_located(&error, call, fault);

            let after = replayed(&*journal.service());
            let after_digests = digests(&after);
            assert!(
                after_digests.starts_with(&before),
                "call {i} {fault:?}: a published revision was lost"
            );
            assert!(
                digests(&full).starts_with(&after_digests),
                "call {i} {fault:?}: not a prefix of the full result"
            );
            for (got, want) in after.iter().zip(&full) {
                // Nothing half-ingested: every revision is whole, with its
                // place in its chain and its sequence.
                assert!(got.same_worldview(want), "call {i} {fault:?}");
                assert_eq!(got.sequence(), want.sequence());
                let chain = journal.service().revisions(got.coordinate()).unwrap();
                assert!(chain.iter().any(|r| r.digest() == got.digest()));
            }
            prefixes.insert(after.len());
            // And the service still works: a clean refresh completes the job.
            *recording.fault_slot() = None;
            journal.manager().refresh().unwrap();
            assert_eq!(digests(&replayed(&*journal.service())), digests(&full));
        }
    }
    // Faults early and late: both "nothing new" and partial refreshes were seen.
    assert!(
        prefixes.contains(&3) && prefixes.iter().any(|&n| n > 3),
        "{prefixes:?}"
    );
}

#[test]
fn a_path_is_never_reported_for_another_entry() {
    // Sanity of the harness itself: a fault on a file that does not exist
    // changes nothing.
    let (memory, _) = small_root();
    let recording = Arc::new(Recording::new(Arc::new(memory)));
    recording.fail(
        (Op::Read, Path::new("/elsewhere/x.journal").to_path_buf()),
        Fault::Os(io::ErrorKind::PermissionDenied),
    );
    let journal = assembly(&recording);
    journal.process().start().unwrap();
    assert_eq!(journal.service().coordinates().unwrap().len(), 2);
}
