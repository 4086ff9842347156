//! The reference Journal's event feed: the same snapshot, sequence space and
//! guarantees as `replay`, and resuming from a stored sequence.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::JournalService;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::model::{EventChange, JournalEvent, ReplayRequest};
use nenjim_journal_ref::JournalAssembly;
use nenjim_journal_testkit::texts::{Root, revision, ts};

use crate::scenarios::{started, three_revisions};

/// `(sequence, coordinate, short change)` of an event.
fn short(event: &JournalEvent) -> (u64, String, String) {
    let change = match event.change() {
        EventChange::ArtifactCreated => "created".to_owned(),
        EventChange::ReleasePublished(r) => format!("published {}", r.version()),
        EventChange::PolicyStated(p) => format!("stated {p:?}"),
        EventChange::PolicyWithdrawn(p) => format!("withdrawn {p:?}"),
        other => format!("{other:?}"),
    };
    (event.sequence(), event.coordinate().to_string(), change)
}

fn events_after(service: &dyn JournalService, after: u64) -> Vec<JournalEvent> {
    let mut cursor = service.replay_events(&ReplayRequest::after(after)).unwrap();
    let mut out = Vec::new();
    while let Some(e) = cursor.next().unwrap() {
        out.push(e);
    }
    assert!(cursor.next().unwrap().is_none());
    out
}

#[test]
fn events_follow_the_replayed_revisions() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    let got: Vec<_> = events_after(&*service, 0).iter().map(short).collect();
    let kinds: Vec<(u64, &str, &str)> = got
        .iter()
        .map(|(s, c, k)| (*s, c.as_str(), k.split(' ').next().unwrap_or("")))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (1, "left-pad", "created"),
            (1, "left-pad", "published"),
            (2, "serde", "created"),
            (2, "serde", "published"),
            (3, "serde", "published"),
            (3, "serde", "stated"),
            (4, "serde", "published"),
            (4, "serde", "withdrawn"),
            (4, "serde", "stated"),
            (4, "serde", "stated"),
        ]
    );
    assert_eq!(got[6].2, "published 2.0.0");
    // Every event's sequence, coordinate and version are its revision's.
    let mut revisions = service.replay(&ReplayRequest::after(0)).unwrap();
    let mut by_sequence = std::collections::BTreeMap::new();
    while let Some(r) = revisions.next().unwrap() {
        by_sequence.insert(r.sequence(), r);
    }
    for event in events_after(&*service, 0) {
        let r = &by_sequence[&event.sequence()];
        assert_eq!(event.coordinate(), r.coordinate());
        assert_eq!(event.journal_version(), r.journal_version());
    }
}

#[test]
fn follow_and_lifecycle_are_refused_like_replay() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = JournalAssembly::new(root.path());
    let service = assembly.service();
    let kind = |service: &dyn JournalService, request: ReplayRequest| {
        service
            .replay_events(&request)
            .map(|_| ())
            .unwrap_err()
            .kind()
    };
    assert_eq!(
        kind(&*service, ReplayRequest::after(0)),
        ErrorKind::NotStarted
    );
    assembly.process().start().unwrap();
    assert_eq!(
        kind(&*service, ReplayRequest::after(0).follow(true)),
        ErrorKind::FollowUnsupported
    );
    // A cursor opened before stop still drains its snapshot.
    let mut open = service.replay_events(&ReplayRequest::after(3)).unwrap();
    assembly.process().stop().unwrap();
    assert_eq!(kind(&*service, ReplayRequest::after(0)), ErrorKind::Stopped);
    let mut left = 0;
    while open.next().unwrap().is_some() {
        left += 1;
    }
    assert_eq!(left, 4);
}

#[test]
fn resume_within_a_process_and_across_two_starts() {
    let root = Root::new();
    three_revisions(&root);
    let first = started(&root);
    let all = events_after(&*first.service(), 0);
    // A consumer stores the last sequence it processed completely and
    // resumes after it, within the process...
    for stored in 0..=4 {
        let rest = events_after(&*first.service(), stored);
        let expected: Vec<_> = all
            .iter()
            .filter(|e| e.sequence() > stored)
            .cloned()
            .collect();
        assert_eq!(rest, expected, "after {stored}");
    }
    // ... and after a restart: a second start of the same (unchanged) plain
    // root numbers the revisions the same way, so the rest is the same.
    drop(first);
    let second = started(&root);
    assert_eq!(events_after(&*second.service(), 0), all);
    let rest: Vec<_> = events_after(&*second.service(), 2)
        .iter()
        .map(short)
        .collect();
    let expected: Vec<_> = all.iter().filter(|e| e.sequence() > 2).map(short).collect();
    assert_eq!(rest, expected);
}

#[test]
fn a_refresh_is_seen_by_later_cursors_only() {
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    let before = service.replay_events(&ReplayRequest::after(4)).unwrap();
    let s2 = &texts[2];
    // A successor that changes nothing, then one that publishes 2.1.0.
    let s3 = revision(
        "serde",
        &ts(40),
        Some(s2),
        &["1.0.0", "1.1.0", "2.0.0"],
        &["YANK 1.0.0 \"broken\"", "RECOMMEND 2.0.0"],
    );
    let s4 = revision(
        "serde",
        &ts(50),
        Some(&s3),
        &["1.0.0", "1.1.0", "2.0.0", "2.1.0"],
        &["YANK 1.0.0 \"broken\"", "RECOMMEND 2.0.0"],
    );
    root.put("serde", &ts(40), &s3);
    root.put("serde", &ts(50), &s4);
    assert_eq!(assembly.manager().refresh().unwrap().ingested(), 2);
    let mut before = before;
    assert!(before.next().unwrap().is_none());
    let after: Vec<_> = events_after(&*service, 4).iter().map(short).collect();
    assert_eq!(
        after,
        vec![(6, "serde".to_owned(), "published 2.1.0".to_owned())]
    );
}
