//! The two feeds of a served Journal (`replay`, `replay_events`) checked
//! against the sequences a root should give, resuming from every point.
//!
//! A root with a ledger numbers its revisions by ledger entry, and a
//! `FENCE` (a takeover of an expired lease) takes a number no revision
//! has, so a mirror's stored "after N" may sit before, at or after a gap.
//! Every test that makes such a root, on any backend, checks it here.

use nenjim_journal_api::JournalService;
use nenjim_journal_api::model::{JournalEvent, ReplayRequest};

/// The text of a lease file (`nenjim-lease/1`) with its expiry set to 1 ms
/// after the Unix epoch: expired, but not released, as a writer that died
/// holding it would leave it (another machine's clock sees it so), so the
/// next writer takes it over and fences the ledger's tip.
pub fn expired_lease(text: &str) -> String {
    let mut out: String = text
        .lines()
        .map(|l| {
            if l.starts_with("expires ") {
                "expires 1"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    out.push('\n');
    out
}

/// Expires the lease of the local root `root` (see [`expired_lease`]).
pub fn expire_lease_of(root: &std::path::Path) {
    let path = root.join(".ledger/lease");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, expired_lease(&text)).unwrap();
}

/// The sequence of each revision `replay` gives after `after`.
pub fn revision_sequences(service: &dyn JournalService, after: u64) -> Vec<u64> {
    let mut cursor = service.replay(&ReplayRequest::after(after)).unwrap();
    let mut out = Vec::new();
    while let Some(revision) = cursor.next().unwrap() {
        out.push(revision.sequence());
    }
    out
}

/// Every event `replay_events` gives after `after`.
pub fn events_after(service: &dyn JournalService, after: u64) -> Vec<JournalEvent> {
    let mut cursor = service.replay_events(&ReplayRequest::after(after)).unwrap();
    let mut out = Vec::new();
    while let Some(event) = cursor.next().unwrap() {
        out.push(event);
    }
    out
}

/// Asserts that `service` holds revisions at exactly `sequences` (ascending,
/// with the root's gaps) and that both feeds, resumed after every number
/// from 0 to one past the last, give exactly what has a larger sequence:
/// the revisions, and the events of the full feed with a larger sequence.
/// Every revision in `with_events` must have at least one event (a genesis
/// always has `ArtifactCreated`), so a feed that lost one cannot pass.
pub fn assert_feeds_resume_across_gaps(
    service: &dyn JournalService,
    sequences: &[u64],
    with_events: &[u64],
) {
    assert_eq!(revision_sequences(service, 0), sequences, "the revisions");
    let all = events_after(service, 0);
    for s in with_events {
        assert!(
            all.iter().any(|e| e.sequence() == *s),
            "no event of sequence {s} in the full feed"
        );
    }
    let last = sequences.last().copied().unwrap_or(0);
    for after in 0..=last + 1 {
        let revisions: Vec<u64> = sequences.iter().copied().filter(|s| *s > after).collect();
        assert_eq!(
            revision_sequences(service, after),
            revisions,
            "revisions after {after}"
        );
        let events: Vec<JournalEvent> = all
            .iter()
            .filter(|e| e.sequence() > after)
            .cloned()
            .collect();
        assert_eq!(events_after(service, after), events, "events after {after}");
    }
}
