//! The local fault walk on a root with a ledger: every call a start, and a
//! refresh, make (the marker, the segments' listing and files, each ledger
//! entry's record, each revision file) failed in turn with every fault
//! kind. Either the start or refresh fails naming the failed call's path,
//! publishing nothing (a start) or only a prefix of what it would have (a
//! refresh), or the fault changed nothing (the worldview is the clean
//! one's, or, when an entry's read answered "no such entry", which is how
//! a reader finds the end of the log, an earlier snapshot of it with the
//! same sequences); a denied permission always fails. The root is written by the
//! writer on disk and read from memory (`MemoryFs::copy_tree`: its
//! symbolic-link entries become records), through the recording wrapper,
//! which forwards every call of the loader, ledger records included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::ReplayRequest;
use nenjim_journal_ref::{JournalAssembly, LoadOptions};
use nenjim_journal_testkit::faults::{Call, Fault, Op, Recording};
use nenjim_journal_testkit::memory_fs::MemoryFs;
use nenjim_journal_testkit::texts::{bare_genesis, restated};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

fn root() -> PathBuf {
    PathBuf::from("/journal")
}

/// Copies the local tree `from` to `to` (files hard-linked, entries as links).
fn copy_local(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_local(&source, &target);
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source).unwrap(), &target).unwrap();
        } else {
            std::fs::copy(&source, &target).unwrap();
        }
    }
}

/// Two local roots with a ledger (segments of 2 entries): `before`, three
/// revisions of two artifacts, and `after`, the same plus three appended
/// (a successor, a new artifact and its successor).
fn roots() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (before, after) = (dir.path().join("before"), dir.path().join("after"));
    std::fs::create_dir(&before).unwrap();
    let options = || WriterOptions::new().segment_span(2);
    let mut writer = FsJournalWriter::open(&before, options()).unwrap();
    let a1 = bare_genesis("aaa", "20260101T000000Z");
    let a2 = restated(&a1, "20260102T000000Z", "");
    writer.append(&a1).unwrap();
    writer.append(&a2).unwrap();
    writer
        .append(&bare_genesis("bbb", "20260101T000000Z"))
        .unwrap();
    writer.close().unwrap();
    copy_local(&before, &after);
    let mut writer = FsJournalWriter::open(&after, options()).unwrap();
    let c1 = bare_genesis("ccc", "20260101T000000Z");
    writer
        .append(&restated(&a2, "20260103T000000Z", ""))
        .unwrap();
    writer.append(&c1).unwrap();
    writer
        .append(&restated(&c1, "20260102T000000Z", ""))
        .unwrap();
    writer.close().unwrap();
    (dir, before, after)
}

fn digests(assembly: &JournalAssembly) -> Vec<String> {
    let mut cursor = assembly.service().replay(&ReplayRequest::after(0)).unwrap();
    let mut all = Vec::new();
    while let Some(r) = cursor.next().unwrap() {
        all.push(format!("{} {}", r.sequence(), r.digest()));
    }
    all
}

fn assembly(fs: &Arc<Recording<MemoryFs>>) -> JournalAssembly {
    JournalAssembly::with_file_system(root(), LoadOptions::new(), fs.clone())
}

/// A failed call's error names its path.
fn assert_located(error: &JournalError, call: &Call, fault: Fault) {
    assert_eq!(
        error.path(),
        Some(call.1.as_path()),
        "{call:?} failed with {fault:?}: {error}"
    );
}

/// Whether `call` reads a ledger entry after the first absent one (`tip + 1`).
fn past_the_end(call: &Call, tip: u64) -> bool {
    call.0 == Op::ReadRecord
        && call
            .1
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|sequence| sequence > tip + 1)
}

/// What a run with a fault that did not fail it loaded: the clean result,
/// or, when an entry's read answered "no such entry" (the end of the log,
/// as far as a reader can tell), an earlier snapshot of it: a prefix, with
/// the same sequences.
fn assert_same_or_earlier(got: &[String], clean: &[String], call: &Call, fault: Fault) {
    if got != clean {
        assert!(clean.starts_with(got), "{call:?} {fault:?}: {got:?}");
        assert_eq!(
            (call.0, fault),
            (Op::ReadRecord, Fault::Os(io::ErrorKind::NotFound)),
            "only a missing entry ends the ledger early: {got:?}"
        );
    }
}

#[test]
fn every_call_of_a_start_of_a_ledger_root_failing_fails_it_or_changes_nothing() {
    let (_dir, before, _) = roots();
    let memory = MemoryFs::with_root(&root());
    memory.copy_tree(&before, &root());
    let recording = Arc::new(Recording::new(Arc::new(memory)));
    let clean = assembly(&recording);
    clean.process().start().unwrap();
    let expected = digests(&clean);
    assert_eq!(expected.len(), 3);
    let calls = recording.take_calls();
    let count = |op| calls.iter().filter(|(o, _)| *o == op).count();
    // The marker and the segment, each revision once; the entry after the
    // segment, then a batch of the next two (absent); the start never walks
    // the root.
    assert_eq!(count(Op::Read), 1 + 1 + 3, "{calls:?}");
    assert_eq!(count(Op::ReadRecord), 1 + 2, "{calls:?}");
    assert_eq!(count(Op::ReadDir), 1, "{calls:?}");

    let (mut failed, mut runs) = (0, 0);
    for call in &calls {
        for fault in Fault::ALL {
            runs += 1;
            let memory = MemoryFs::with_root(&root());
            memory.copy_tree(&before, &root());
            let recording = Arc::new(Recording::new(Arc::new(memory)));
            recording.fail(call.clone(), fault);
            let journal = assembly(&recording);
            match journal.process().start() {
                Err(error) => {
                    failed += 1;
                    assert_located(&error, call, fault);
                    let query = journal.service().coordinates().unwrap_err();
                    assert_eq!(query.kind(), ErrorKind::NotStarted);
                }
                Ok(()) => {
                    // A read past the first absent entry (a batch reads a
                    // few ahead) does not matter: the log ended before it.
                    assert!(
                        fault != Fault::Os(io::ErrorKind::PermissionDenied)
                            || past_the_end(call, expected.len() as u64),
                        "{call:?}: a denied call went unnoticed"
                    );
                    assert_same_or_earlier(&digests(&journal), &expected, call, fault);
                }
            }
        }
    }
    assert!(failed >= calls.len(), "{failed} of {runs} runs failed");
}

#[test]
fn every_call_of_a_refresh_of_a_ledger_root_failing_keeps_a_prefix_or_changes_nothing() {
    let (_dir, before, after) = roots();
    let setup = || {
        let memory = MemoryFs::with_root(&root());
        memory.copy_tree(&before, &root());
        let recording = Arc::new(Recording::new(Arc::new(memory)));
        let journal = assembly(&recording);
        journal.process().start().unwrap();
        recording.inner().copy_tree(&after, &root());
        let _ = recording.take_calls();
        (recording, journal)
    };
    let (recording, clean) = setup();
    let first = digests(&clean);
    let report = clean.manager().refresh().unwrap();
    assert_eq!((report.ingested(), report.unchanged()), (3, 3));
    let full = digests(&clean);
    let calls = recording.take_calls();
    // The ledger from the last sequence held: the marker, the segments from
    // the one holding sequence 4 (ending at 4 and 6), the absent entry
    // after them, and the three new revisions; no revision held is read,
    // nothing listed but the segments.
    let count = |op| calls.iter().filter(|(o, _)| *o == op).count();
    assert_eq!(count(Op::Read), 1 + 2 + 3, "{calls:?}");
    assert_eq!(count(Op::ReadRecord), 1, "{calls:?}");
    assert_eq!(count(Op::ReadDir), 1, "{calls:?}");

    let mut failed = 0;
    for call in &calls {
        for fault in Fault::ALL {
            let (recording, journal) = setup();
            recording.fail(call.clone(), fault);
            match journal.manager().refresh() {
                Err(error) => {
                    failed += 1;
                    assert_located(&error, call, fault);
                    let now = digests(&journal);
                    assert!(
                        now.starts_with(&first),
                        "{call:?} {fault:?}: lost a revision"
                    );
                    assert!(full.starts_with(&now), "{call:?} {fault:?}: not a prefix");
                    // A clean refresh completes it.
                    *recording.fault_slot() = None;
                    journal.manager().refresh().unwrap();
                    assert_eq!(digests(&journal), full);
                }
                Ok(_) => {
                    assert!(
                        fault != Fault::Os(io::ErrorKind::PermissionDenied)
                            || past_the_end(call, full.len() as u64),
                        "{call:?}: a denied call went unnoticed"
                    );
                    assert_same_or_earlier(&digests(&journal), &full, call, fault);
                }
            }
        }
    }
    assert!(failed >= calls.len(), "{failed}");
}
