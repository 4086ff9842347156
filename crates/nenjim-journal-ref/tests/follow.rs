//! Follow cursors over a backend that can notify: a ledger in memory whose
//! followers wake on each commit (what a NATS root's stream does, without
//! a server). The backlog, then every later commit in order, each
//! validated as ingestion validates it; `next_timeout`; `stop()`; errors
//! that are typed and final; queries unchanged until a refresh.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nenjim_journal_api::error::{self, ErrorKind, JournalError};
use nenjim_journal_api::model::{EventChange, JournalRevision, ReplayRequest};
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_ref::{JournalAssembly, LoadOptions};
use nenjim_journal_store::ledger::{
    self, Entry, FollowEntries, Followed, LedgerFollow, LedgerReader, Record, RevisionPointer,
};
use nenjim_journal_testkit::memory_fs::{MemoryFs, root};
use nenjim_journal_testkit::texts::{genesis, successor, ts};
use parking_lot::{Condvar, Mutex};
use rstest::rstest;

/// A ledger in memory over a [`MemoryFs`] root; `carry` says whether its
/// followers hand out the revisions' bytes (as a NATS message does) or
/// leave them to be read from the root's files.
#[derive(Debug)]
struct Shared {
    fs: Arc<MemoryFs>,
    entries: Mutex<Vec<Entry>>,
    grew: Condvar,
    stopped: AtomicBool,
    carry: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Notifying(Arc<Shared>);

impl Notifying {
    fn new(carry: bool) -> Notifying {
        Notifying(Arc::new(Shared {
            fs: Arc::new(MemoryFs::with_root(&root())),
            entries: Mutex::new(Vec::new()),
            grew: Condvar::new(),
            stopped: AtomicBool::new(false),
            carry,
        }))
    }

    /// Writes `text` (a revision of `coordinate` at `version`) and commits
    /// it: its sequence.
    pub(crate) fn commit(&self, coordinate: &str, version: &str, text: &str) -> u64 {
        let pointer = RevisionPointer::new(
            coordinate.parse().unwrap(),
            version.parse().unwrap(),
            text.len() as u64,
            RevisionDigest::of_text(text),
        );
        let path = ledger::revision_path(&root(), pointer.coordinate(), pointer.version());
        self.0.fs.put(&path, text.as_bytes().to_vec());
        self.push(Record::Revision(pointer))
    }

    fn fence(&self, epoch: u64) -> u64 {
        self.push(Record::Fence { epoch })
    }

    fn push(&self, record: Record) -> u64 {
        let mut entries = self.0.entries.lock();
        let sequence = entries.len() as u64 + 1;
        entries.push(Entry::new(sequence, record));
        self.0.grew.notify_all();
        sequence
    }

    fn assembly(&self) -> JournalAssembly {
        JournalAssembly::with_ledger(
            root(),
            LoadOptions::default(),
            self.0.fs.clone(),
            Arc::new(self.clone()),
            Some(Arc::new(self.clone())),
        )
    }
}

impl LedgerReader for Notifying {
    fn exists(&self) -> Result<bool, JournalError> {
        Ok(true)
    }
    fn read_after(&self, after: u64, max: usize) -> Result<Vec<Entry>, JournalError> {
        let entries = self.0.entries.lock();
        let from = usize::try_from(after).unwrap().min(entries.len());
        Ok(entries[from..].iter().take(max).cloned().collect())
    }
    fn entry_path(&self, sequence: u64) -> PathBuf {
        ledger::entry_path(&root(), sequence)
    }
}

impl LedgerFollow for Notifying {
    fn follow(&self, after: u64) -> Result<Box<dyn FollowEntries>, JournalError> {
        Ok(Box::new(Follower {
            ledger: self.clone(),
            last: after,
        }))
    }
    fn stop(&self) {
        let _entries = self.0.entries.lock();
        self.0.stopped.store(true, Ordering::SeqCst);
        self.0.grew.notify_all();
    }
}

#[derive(Debug)]
struct Follower {
    ledger: Notifying,
    last: u64,
}

impl FollowEntries for Follower {
    fn next_timeout(
        &mut self,
        timeout: Option<Duration>,
    ) -> Result<Option<Followed>, JournalError> {
        let shared = &self.ledger.0;
        let mut entries = shared.entries.lock();
        loop {
            if shared.stopped.load(Ordering::SeqCst) {
                return Err(error::error(ErrorKind::Stopped, "the ledger is stopped"));
            }
            if let Some(entry) = entries.get(usize::try_from(self.last).unwrap()).cloned() {
                self.last = entry.sequence();
                let bytes = match (shared.carry, entry.revision()) {
                    (true, Some(pointer)) => {
                        let path =
                            ledger::revision_path(&root(), pointer.coordinate(), pointer.version());
                        Some(
                            nenjim_journal_fs::FileSystem::read(&*shared.fs, &path, u64::MAX)
                                .unwrap(),
                        )
                    }
                    _ => None,
                };
                return Ok(Some(Followed::new(entry, bytes)));
            }
            match timeout {
                Some(timeout) => {
                    if shared.grew.wait_for(&mut entries, timeout).timed_out() {
                        return Ok(None);
                    }
                }
                None => shared.grew.wait(&mut entries),
            }
        }
    }
}

fn short(revision: &JournalRevision) -> (u64, String, String) {
    (
        revision.sequence(),
        revision.coordinate().to_string(),
        revision.journal_version().to_string(),
    )
}

/// A root of two revisions (sequences 1, 2), started.
pub(crate) fn started(carry: bool) -> (Notifying, JournalAssembly, String) {
    let ledger = Notifying::new(carry);
    let a1 = genesis("aaa", &ts(1), &["1.0.0"]);
    ledger.commit("aaa", &ts(1), &a1);
    ledger.commit("bbb", &ts(2), &genesis("bbb", &ts(2), &["0.1.0"]));
    let assembly = ledger.assembly();
    assembly.process().start().unwrap();
    (ledger, assembly, a1)
}

#[rstest]
fn a_follow_cursor_yields_the_backlog_then_each_later_commit_in_order(
    #[values(true, false)] carry: bool,
) {
    let (ledger, assembly, a1) = started(carry);
    let service = assembly.service();
    let mut cursor = service
        .replay(&ReplayRequest::after(0).follow(true))
        .unwrap();
    let a2 = successor(&a1, "aaa", &ts(3), &["1.0.0", "1.1.0"]);
    ledger.commit("aaa", &ts(3), &a2);
    ledger.fence(2);
    ledger.commit("ccc", &ts(4), &genesis("ccc", &ts(4), &[]));
    let got: Vec<_> = (0..4)
        .map(|_| short(&cursor.next().unwrap().unwrap()))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, "aaa".into(), ts(1)),
            (2, "bbb".into(), ts(2)),
            (3, "aaa".into(), ts(3)),
            (5, "ccc".into(), ts(4)),
        ]
    );
    // Following published nothing: queries see the start until a refresh.
    assert_eq!(service.coordinates().unwrap().len(), 2);
    let report = assembly.manager().refresh().unwrap();
    assert_eq!(report.ingested(), 2);
    assert_eq!(service.coordinates().unwrap().len(), 3);
    assert_eq!(
        service
            .latest(&"aaa".parse().unwrap())
            .unwrap()
            .unwrap()
            .sequence(),
        3
    );
}

#[test]
fn next_timeout_returns_none_when_nothing_came_and_the_cursor_goes_on() {
    let (ledger, assembly, a1) = started(true);
    let mut cursor = assembly
        .service()
        .replay(&ReplayRequest::after(2).follow(true))
        .unwrap();
    assert!(
        cursor
            .next_timeout(Duration::from_millis(5))
            .unwrap()
            .is_none()
    );
    // A fence alone yields nothing either.
    ledger.fence(2);
    assert!(
        cursor
            .next_timeout(Duration::from_millis(5))
            .unwrap()
            .is_none()
    );
    ledger.commit("aaa", &ts(3), &successor(&a1, "aaa", &ts(3), &["1.0.0"]));
    let next = cursor
        .next_timeout(Duration::from_secs(600))
        .unwrap()
        .unwrap();
    assert_eq!(short(&next), (4, "aaa".into(), ts(3)));
    assert!(cursor.next_timeout(Duration::ZERO).unwrap().is_none());
}

#[test]
fn a_cold_cursor_never_waits_and_next_timeout_is_next() {
    let (ledger, assembly, _) = started(true);
    let mut cursor = assembly.service().replay(&ReplayRequest::after(1)).unwrap();
    ledger.commit("ccc", &ts(4), &genesis("ccc", &ts(4), &[]));
    assert_eq!(
        short(
            &cursor
                .next_timeout(Duration::from_secs(600))
                .unwrap()
                .unwrap()
        )
        .0,
        2
    );
    assert!(
        cursor
            .next_timeout(Duration::from_secs(600))
            .unwrap()
            .is_none()
    );
}

#[test]
fn a_consumer_resuming_past_the_snapshot_gets_only_what_is_after_its_sequence() {
    let (ledger, assembly, a1) = started(true);
    let a2 = successor(&a1, "aaa", &ts(3), &["1.0.0"]);
    ledger.commit("aaa", &ts(3), &a2);
    ledger.commit(
        "aaa",
        &ts(5),
        &successor(&a2, "aaa", &ts(5), &["1.0.0", "2.0.0"]),
    );
    // The snapshot holds 1..2; the consumer has everything up to 3.
    let mut cursor = assembly
        .service()
        .replay_events(&ReplayRequest::after(3).follow(true))
        .unwrap();
    let event = cursor.next().unwrap().unwrap();
    assert_eq!(event.sequence(), 4);
    match event.change() {
        EventChange::ReleasePublished(release) => {
            assert_eq!(release.version().to_string(), "2.0.0")
        }
        other => panic!("expected the 2.0.0 release, found {other:?}"),
    }
    assert!(cursor.next_timeout(Duration::ZERO).unwrap().is_none());
}

#[test]
fn stop_ends_a_blocked_follower_with_stopped() {
    let (_ledger, assembly, _) = started(true);
    let mut cursor = assembly
        .service()
        .replay_events(&ReplayRequest::after(2).follow(true))
        .unwrap();
    let blocked = std::thread::spawn(move || cursor.next().map(|e| e.map(|e| e.sequence())));
    assembly.process().stop().unwrap();
    let ended = blocked.join().unwrap().unwrap_err();
    assert_eq!(ended.kind(), ErrorKind::Stopped);
    assert_eq!(
        assembly
            .service()
            .replay(&ReplayRequest::after(0).follow(true))
            .map(|_| ())
            .unwrap_err()
            .kind(),
        ErrorKind::Stopped
    );
}

#[test]
fn a_followed_revision_the_chain_refuses_is_a_typed_error_that_stays() {
    let (ledger, assembly, _) = started(true);
    let mut cursor = assembly
        .service()
        .replay(&ReplayRequest::after(2).follow(true))
        .unwrap();
    // A second genesis of aaa: a fork the chain refuses.
    ledger.commit("aaa", &ts(3), &genesis("aaa", &ts(3), &[]));
    let refused = cursor.next().unwrap_err();
    let again = cursor.next_timeout(Duration::ZERO).unwrap_err();
    assert_eq!(refused.kind(), again.kind());
    assert_ne!(refused.kind(), ErrorKind::Stopped);
    assert!(
        refused.to_string().contains("aaa"),
        "the error names the revision: {refused}"
    );
    // Queries are untouched, and a refresh meets the same refusal.
    assert_eq!(assembly.service().coordinates().unwrap().len(), 2);
    assert_eq!(
        assembly.manager().refresh().unwrap_err().kind(),
        refused.kind()
    );
}

#[test]
fn a_directory_root_still_refuses_to_follow() {
    let root = nenjim_journal_testkit::texts::Root::new();
    root.put("aaa", &ts(1), &genesis("aaa", &ts(1), &[]));
    let assembly = JournalAssembly::new(root.path());
    assembly.process().start().unwrap();
    for follow in [
        assembly
            .service()
            .replay(&ReplayRequest::after(0).follow(true))
            .map(|_| ()),
        assembly
            .service()
            .replay_events(&ReplayRequest::after(0).follow(true))
            .map(|_| ()),
    ] {
        assert_eq!(follow.unwrap_err().kind(), ErrorKind::FollowUnsupported);
    }
}
