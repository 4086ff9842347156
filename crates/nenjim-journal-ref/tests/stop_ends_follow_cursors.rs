//! Stopping ends follow cursors: findings of the audit of the reference
//! Journal (session 28; this file was `audit.rs`), each a
//! test that failed before its fix: stopping the Journal ends a follow
//! cursor with `Stopped` even while it still holds a backlog or items
//! of a revision it read (docs/api.md, "Following": "Stopping the Journal
//! ends every follow cursor with `Stopped`").
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::model::ReplayRequest;
use nenjim_journal_testkit::texts::{genesis, ts};

use crate::follow::started;

#[test]
fn stop_ends_a_follow_cursor_whose_backlog_is_not_drained_with_stopped() {
    let (_ledger, assembly, _) = started(true);
    let mut cursor = assembly
        .service()
        .replay(&ReplayRequest::after(0).follow(true))
        .unwrap();
    assert_eq!(cursor.next().unwrap().unwrap().sequence(), 1);
    assembly.process().stop().unwrap();
    // The snapshot still holds sequence 2, but the cursor has ended.
    let ended = cursor.next().map(|r| r.map(|r| r.sequence()));
    assert_eq!(ended.unwrap_err().kind(), ErrorKind::Stopped);
    // And it stays ended.
    assert_eq!(cursor.next().unwrap_err().kind(), ErrorKind::Stopped);
}

#[test]
fn stop_ends_a_follow_event_cursor_between_the_events_of_one_revision() {
    let (ledger, assembly, _) = started(true);
    let mut cursor = assembly
        .service()
        .replay_events(&ReplayRequest::after(2).follow(true))
        .unwrap();
    // A genesis with two releases: three events (created, two releases).
    ledger.commit("ccc", &ts(4), &genesis("ccc", &ts(4), &["1.0.0", "2.0.0"]));
    assert_eq!(cursor.next().unwrap().unwrap().sequence(), 3);
    assembly.process().stop().unwrap();
    let ended = cursor.next().map(|e| e.map(|e| e.sequence()));
    assert_eq!(ended.unwrap_err().kind(), ErrorKind::Stopped);
}
