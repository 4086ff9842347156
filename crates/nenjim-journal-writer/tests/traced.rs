//! What a hub operator's log pipeline sees (issue 33, item 7): the tracing
//! events of a takeover (the lease taken over, the ledger fenced, the old
//! holder's lease lost), of appends, and of a start and a refresh with
//! their counts, collected on this thread by the testkit's subscriber.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::append::JournalWriter;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_ref::JournalAssembly;
use nenjim_journal_testkit::feeds::expire_lease_of;
use nenjim_journal_testkit::texts::bare_genesis as genesis;
use nenjim_journal_testkit::traces::capture;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
use tracing::Level;

#[test]
fn a_takeover_is_traced_with_both_holders_the_fence_and_the_lost_lease() {
    let root = tempfile::tempdir().unwrap();
    let root_text = root.path().display().to_string();
    let ((), seen) = capture(|| {
        let mut old = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
        old.append(&genesis("aaa", "20260101T000000Z")).unwrap();
        // Another machine sees the lease expired (a skewed clock).
        expire_lease_of(root.path());
        let mut new = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
        let error = old.append(&genesis("bbb", "20260101T000000Z")).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LeaseLost, "{error}");
        new.append(&genesis("ccc", "20260101T000000Z")).unwrap();
        new.close().unwrap();
    });

    let acquired = seen.one("lease acquired");
    assert_eq!(
        (acquired.target.as_str(), acquired.level),
        ("nenjim_journal_store", Level::INFO)
    );
    assert_eq!(acquired.field("epoch"), Some("1"));
    assert_eq!(acquired.field("root"), Some(root_text.as_str()));

    let taken = seen.one("lease taken over");
    assert_eq!(
        (taken.target.as_str(), taken.level),
        ("nenjim_journal_store", Level::INFO)
    );
    assert_eq!(taken.field("root"), Some(root_text.as_str()));
    assert_eq!(taken.field("epoch"), Some("2"));
    assert_eq!(taken.field("previous_epoch"), Some("1"));
    assert_eq!(taken.field("reason"), Some("expired"));
    assert_eq!(
        taken.field("previous_holder"),
        acquired.field("holder"),
        "the holder taken over is the first one"
    );
    assert_ne!(taken.field("holder"), acquired.field("holder"));

    let fenced = seen.one("ledger fenced");
    assert_eq!(
        (fenced.target.as_str(), fenced.level),
        ("nenjim_journal_writer", Level::INFO)
    );
    assert_eq!(fenced.field("sequence"), Some("2"));
    assert_eq!(fenced.field("epoch"), Some("2"));

    let opened = seen.events_said("writer opened");
    assert_eq!(opened.len(), 2, "{:#?}", seen.events);
    assert_eq!(opened[0].field("taken_over"), Some("false"));
    assert_eq!(opened[1].field("taken_over"), Some("true"));
    assert_eq!(opened[1].field("tip"), Some("2"), "after its fence");

    let lost = seen.one("lease lost");
    assert_eq!(
        (lost.target.as_str(), lost.level),
        ("nenjim_journal_writer", Level::WARN)
    );
    assert_eq!(lost.field("epoch"), Some("1"));

    let appended = seen.events_said("revision appended");
    let sequences: Vec<_> = appended
        .iter()
        .map(|e| (e.level, e.field("coordinate"), e.field("sequence")))
        .collect();
    assert_eq!(
        sequences,
        [
            (Level::INFO, Some("aaa"), Some("1")),
            (Level::INFO, Some("ccc"), Some("3")),
        ]
    );
    let released = seen.one("lease released");
    assert_eq!(released.field("epoch"), Some("2"));
    // The open span names the root the lease events happen under.
    assert!(
        seen.spans
            .iter()
            .any(|s| s.message == "open" && s.field("root") == Some(root_text.as_str())),
        "{:#?}",
        seen.spans
    );
}

#[test]
fn a_start_and_a_refresh_are_traced_with_their_counts() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    writer.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    let assembly = JournalAssembly::new(root.path());
    let ((), seen) = capture(|| {
        assembly.process().start().unwrap();
        let texts = [
            genesis("bbb", "20260101T000000Z"),
            genesis("ccc", "20260101T000000Z"),
        ];
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        writer.append_batch(&texts).unwrap();
        let report = assembly.manager().refresh().unwrap();
        assert_eq!(report.ingested(), 2);
        // Nothing new: at debug.
        assembly.manager().refresh().unwrap();
    });

    let started = seen.one("started");
    assert_eq!(
        (started.target.as_str(), started.level),
        ("nenjim_journal_ref", Level::INFO)
    );
    assert_eq!(started.field("artifacts"), Some("1"));
    assert_eq!(started.field("revisions"), Some("1"));
    assert_eq!(started.field("last_sequence"), Some("1"));
    assert!(started.field("elapsed_ms").is_some());

    let batch = seen.one("batch committed");
    assert_eq!(batch.level, Level::INFO);
    assert_eq!(batch.field("revisions"), Some("2"));
    assert_eq!(batch.field("first_sequence"), Some("2"));
    assert_eq!(batch.field("last_sequence"), Some("3"));
    let entries = seen.events_said("revision appended");
    assert_eq!(entries.len(), 2);
    assert!(entries.iter().all(|e| e.level == Level::DEBUG));

    let refreshed = seen.events_said("refreshed");
    assert_eq!(refreshed.len(), 2, "{:#?}", seen.events);
    let (new, none) = (refreshed[0], refreshed[1]);
    assert_eq!(
        (new.target.as_str(), new.level),
        ("nenjim_journal_ref", Level::INFO)
    );
    assert_eq!(new.field("ingested"), Some("2"));
    assert_eq!(new.field("artifacts"), Some("3"));
    assert_eq!(new.field("revisions"), Some("3"));
    assert_eq!(new.field("last_sequence"), Some("3"));
    assert!(new.field("elapsed_ms").is_some());
    assert_eq!(none.level, Level::DEBUG, "a refresh that found nothing");
    assert_eq!(none.field("ingested"), Some("0"));
    let spans: Vec<&str> = seen
        .spans
        .iter()
        .filter(|s| s.target == "nenjim_journal_ref")
        .map(|s| s.message.as_str())
        .collect();
    assert_eq!(spans, ["start", "refresh", "refresh"]);
}
