//! Loading and refreshing by a ledger that is not `log/` + `segments/`
//! (`load_recorded`, `refresh_recorded`): a ledger of entries in memory,
//! as a NATS stream's would be, over revision files in a directory.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Mutex;

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_fs::ledger::{Entry, LedgerReader, Record, RevisionPointer};
use nenjim_journal_fs::{RealFileSystem, load_recorded, refresh_recorded};
use nenjim_journal_testkit::texts::{Root, bare_genesis, ts};

/// A ledger held in memory that remembers after which sequences it was read.
#[derive(Debug, Default)]
struct Memory {
    entries: Mutex<Vec<Entry>>,
    asked: Mutex<Vec<u64>>,
}

impl Memory {
    /// Records `text` as the revision file of `artifact` at `ts(k)`, written in `root`.
    fn record(&self, root: &Root, artifact: &str, k: u32) -> String {
        let text = bare_genesis(artifact, &ts(k));
        root.put(artifact, &ts(k), &text);
        let mut entries = self.entries.lock().unwrap();
        let pointer = RevisionPointer::new(
            artifact.parse().unwrap(),
            ts(k).parse().unwrap(),
            text.len() as u64,
            RevisionDigest::of_bytes(text.as_bytes()),
        );
        let sequence = entries.len() as u64 + 1;
        entries.push(Entry::new(sequence, Record::Revision(pointer)));
        text
    }
}

impl LedgerReader for Memory {
    fn exists(&self) -> Result<bool, JournalError> {
        Ok(true)
    }

    fn read_after(&self, after: u64, max: usize) -> Result<Vec<Entry>, JournalError> {
        self.asked.lock().unwrap().push(after);
        let entries = self.entries.lock().unwrap();
        Ok(entries
            .iter()
            .filter(|e| e.sequence() > after)
            .take(max.max(1))
            .cloned()
            .collect())
    }

    fn entry_path(&self, sequence: u64) -> PathBuf {
        PathBuf::from(format!("memory:{sequence}"))
    }
}

#[test]
fn a_refresh_by_any_ledger_reads_only_what_follows_the_state() {
    let root = Root::new();
    let ledger = Memory::default();
    ledger.record(&root, "a", 1);
    ledger.record(&root, "b", 1);
    let (state, tip) = load_recorded(&RealFileSystem, &ledger, root.path())
        .unwrap()
        .unwrap();
    assert_eq!((state.len(), tip), (2, 2));

    // Unchanged: nothing published, both revisions counted as held.
    ledger.asked.lock().unwrap().clear();
    let mut published = Vec::new();
    let report = refresh_recorded(&RealFileSystem, &ledger, root.path(), &state, &mut |s| {
        published.push(s)
    })
    .unwrap();
    assert_eq!((report.ingested(), report.unchanged()), (0, 2));
    assert!(published.is_empty());
    assert_eq!(ledger.asked.lock().unwrap().first(), Some(&2));

    // Two new entries: each published at its sequence, in order; the
    // ledger is never asked for what the state holds.
    ledger.record(&root, "c", 1);
    ledger.record(&root, "d", 1);
    ledger.asked.lock().unwrap().clear();
    let report = refresh_recorded(&RealFileSystem, &ledger, root.path(), &state, &mut |s| {
        published.push(s)
    })
    .unwrap();
    assert_eq!((report.ingested(), report.unchanged()), (2, 2));
    let sequences: Vec<_> = published.iter().map(|s| s.last_sequence()).collect();
    assert_eq!(sequences, [3, 4]);
    assert_eq!(published[1].len(), 4);
    assert!(ledger.asked.lock().unwrap().iter().all(|after| *after >= 2));
}

#[test]
fn a_refresh_by_any_ledger_refuses_a_file_that_is_not_its_record() {
    let root = Root::new();
    let ledger = Memory::default();
    ledger.record(&root, "a", 1);
    let (state, _) = load_recorded(&RealFileSystem, &ledger, root.path())
        .unwrap()
        .unwrap();
    ledger.record(&root, "b", 1);
    ledger.record(&root, "c", 1);
    // `c`'s file changed after it was recorded: `b` is published, then
    // the refresh stops at `c`.
    root.put(
        "c",
        &ts(1),
        &bare_genesis("c", &ts(1)).replace("\"c\"", "\"C\""),
    );
    let mut published = Vec::new();
    let error = refresh_recorded(&RealFileSystem, &ledger, root.path(), &state, &mut |s| {
        published.push(s)
    })
    .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LedgerMismatch, "{error}");
    assert_eq!(
        error.path(),
        Some(root.join("c").join(format!("{}.journal", ts(1))).as_path())
    );
    assert_eq!(published.len(), 1);
    assert_eq!(published[0].last_sequence(), 2);
}
