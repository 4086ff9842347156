//! The event feed: every kind of event, their order within a revision, a
//! revision that changes nothing, and the cursor over a snapshot.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;

use nenjim_journal_api::model::{EventChange, EventCursor, JournalEvent, PolicyStatement};
use nenjim_journal_api::valuetypes::{ContentDigest, RevisionDigest};
use nenjim_journal_chain::{ChainState, Ingested, events};

/// Parses `text`, then ingests it.
fn ingest_text(
    state: &ChainState,
    text: &str,
) -> Result<Ingested, nenjim_journal_api::error::JournalError> {
    nenjim_journal_parser::parse(text).and_then(|r| state.ingest_revision(r))
}

/// A revision text: header values, releases (MIT, content derived from the
/// coordinate and version, so a release keeps its values) and policy lines.
struct Text<'a> {
    coordinate: &'a str,
    version: &'a str,
    predecessor: Option<&'a str>,
    description: &'a str,
    information: Option<&'a str>,
    releases: &'a [&'a str],
    policy: &'a [&'a str],
    comment: Option<&'a str>,
}

impl Text<'_> {
    fn render(&self) -> String {
        let mut t = String::new();
        if let Some(c) = self.comment {
            writeln!(t, "# {c}").unwrap();
        }
        writeln!(t, "FORMAT nenjim-journal/1").unwrap();
        writeln!(t, "ARTIFACT {}", self.coordinate).unwrap();
        writeln!(t, "JOURNAL_VERSION {}", self.version).unwrap();
        match self.predecessor {
            None => writeln!(t, "PREDECESSOR GENESIS").unwrap(),
            Some(p) => writeln!(t, "PREDECESSOR {}", RevisionDigest::of_text(p)).unwrap(),
        }
        writeln!(t, "DESCRIPTION \"{}\"", self.description).unwrap();
        if let Some(i) = self.information {
            writeln!(t, "INFORMATION {i}").unwrap();
        }
        for r in self.releases {
            let content = ContentDigest::of_bytes(format!("{}@{r}", self.coordinate).as_bytes());
            write!(t, "\nRELEASE {r}\n  LICENSE MIT\n  CONTENT {content} 1\n").unwrap();
        }
        if !self.policy.is_empty() {
            t.push('\n');
        }
        for p in self.policy {
            writeln!(t, "{p}").unwrap();
        }
        t
    }
}

fn text<'a>(coordinate: &'a str, version: &'a str, predecessor: Option<&'a str>) -> Text<'a> {
    Text {
        coordinate,
        version,
        predecessor,
        description: "pads strings",
        information: None,
        releases: &[],
        policy: &[],
        comment: None,
    }
}

/// Each event as one comparable line: `sequence coordinate kind detail`.
fn line(event: &JournalEvent) -> String {
    let change = match event.change() {
        EventChange::ArtifactCreated => "created".to_owned(),
        EventChange::DescriptionChanged(d) => format!("description {}", d.as_str()),
        EventChange::InformationChanged(i) => {
            format!("information {}", i.as_ref().map_or("none", |u| u.as_str()))
        }
        EventChange::ReleasePublished(r) => format!(
            "published {}{}",
            r.version(),
            if r.policy().is_recommended() {
                " (recommended)"
            } else {
                ""
            }
        ),
        EventChange::PolicyWithdrawn(p) => format!("withdrawn {}", policy(p)),
        EventChange::PolicyStated(p) => format!("stated {}", policy(p)),
        other => panic!("unexpected change {other:?}"),
    };
    format!(
        "{} {} {} {change}",
        event.sequence(),
        event.coordinate(),
        event.journal_version()
    )
}

fn policy(statement: &PolicyStatement) -> String {
    match statement {
        PolicyStatement::Yank {
            requirement,
            reason,
        } => format!("YANK {requirement} {}", reason.as_str()),
        PolicyStatement::Deprecate {
            requirement,
            reason,
        } => format!("DEPRECATE {requirement} {}", reason.as_str()),
        PolicyStatement::Recommend { version } => format!("RECOMMEND {version}"),
        other => panic!("unexpected statement {other:?}"),
    }
}

fn drain(mut cursor: Box<dyn EventCursor>) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(event) = cursor.next().unwrap() {
        out.push(line(&event));
    }
    // Drained means drained: asking again still says so.
    assert!(cursor.next().unwrap().is_none());
    out
}

const V1: &str = "20261101T000000Z";
const V2: &str = "20261102T000000Z";
const V3: &str = "20261103T000000Z";
const V4: &str = "20261104T000000Z";

/// left-pad: a genesis with everything, a successor that changes every kind
/// of thing, one that changes nothing (a comment only), one that removes the
/// INFORMATION line. right-pad: a genesis, interleaved.
fn texts() -> Vec<String> {
    let l1 = Text {
        information: Some("https://example.org/left-pad"),
        releases: &["1.0.0", "2.0.0"],
        policy: &["DEPRECATE 1.0.0 \"old\"", "RECOMMEND 2.0.0"],
        ..text("left-pad", V1, None)
    }
    .render();
    let r1 = Text {
        releases: &["0.1.0"],
        ..text("right-pad", V1, None)
    }
    .render();
    let l2 = Text {
        description: "pads strings on the left",
        information: Some("https://example.org/left-pad/v2"),
        // 1.5.0 lands between kept releases: the merge walk; 3.0.0 at the end.
        releases: &["1.0.0", "1.5.0", "2.0.0", "3.0.0"],
        policy: &[
            "YANK 1.0.0 \"broken\"",
            "RECOMMEND 3.0.0",
            "DEPRECATE 2.0.0 \"superseded\"",
        ],
        ..text("left-pad", V2, Some(&l1))
    }
    .render();
    let l3 = Text {
        description: "pads strings on the left",
        information: Some("https://example.org/left-pad/v2"),
        releases: &["1.0.0", "1.5.0", "2.0.0", "3.0.0"],
        policy: &[
            "YANK 1.0.0 \"broken\"",
            "RECOMMEND 3.0.0",
            "DEPRECATE 2.0.0 \"superseded\"",
        ],
        comment: Some("only a comment: another digest, the same worldview"),
        ..text("left-pad", V3, Some(&l2))
    }
    .render();
    let l4 = Text {
        description: "pads strings on the left",
        releases: &["1.0.0", "1.5.0", "2.0.0", "3.0.0", "3.1.0"],
        policy: &[
            "YANK 1.0.0 \"broken\"",
            "RECOMMEND 3.0.0",
            "DEPRECATE 2.0.0 \"superseded\"",
        ],
        ..text("left-pad", V4, Some(&l3))
    }
    .render();
    vec![l1, r1, l2, l3, l4]
}

fn state() -> ChainState {
    let mut state = ChainState::new();
    for t in texts() {
        state = ingest_text(&state, &t).unwrap().into_state();
    }
    state
}

const EXPECTED: &[&str] = &[
    "1 left-pad 20261101T000000Z created",
    "1 left-pad 20261101T000000Z published 1.0.0",
    "1 left-pad 20261101T000000Z published 2.0.0 (recommended)",
    "1 left-pad 20261101T000000Z stated DEPRECATE 1.0.0 old",
    "1 left-pad 20261101T000000Z stated RECOMMEND 2.0.0",
    "2 right-pad 20261101T000000Z created",
    "2 right-pad 20261101T000000Z published 0.1.0",
    "3 left-pad 20261102T000000Z description pads strings on the left",
    "3 left-pad 20261102T000000Z information https://example.org/left-pad/v2",
    "3 left-pad 20261102T000000Z published 1.5.0",
    "3 left-pad 20261102T000000Z published 3.0.0 (recommended)",
    "3 left-pad 20261102T000000Z withdrawn DEPRECATE 1.0.0 old",
    "3 left-pad 20261102T000000Z withdrawn RECOMMEND 2.0.0",
    "3 left-pad 20261102T000000Z stated YANK 1.0.0 broken",
    "3 left-pad 20261102T000000Z stated RECOMMEND 3.0.0",
    "3 left-pad 20261102T000000Z stated DEPRECATE 2.0.0 superseded",
    // Sequence 4 changes nothing: no event.
    "5 left-pad 20261104T000000Z information none",
    "5 left-pad 20261104T000000Z published 3.1.0",
];

#[test]
fn every_kind_of_event_in_the_order_of_the_spec() {
    assert_eq!(drain(state().replay_events(0)), EXPECTED);
}

#[test]
fn a_revision_that_changes_nothing_yields_no_event() {
    let state = state();
    let l2 = state.by_sequence(3).unwrap();
    let l3 = state.by_sequence(4).unwrap();
    assert_ne!(l2.digest(), l3.digest());
    assert!(events(Some(&l2), &l3).is_empty());
    // The cursor steps over it: after 3, the first event is of sequence 5.
    let after = drain(state.replay_events(3));
    assert_eq!(after, EXPECTED[16..]);
}

#[test]
fn the_cursor_and_the_function_agree() {
    // One derivation: the cursor gives, revision by revision, what `events`
    // gives for that revision and its predecessor.
    let state = state();
    let mut expected = Vec::new();
    for sequence in 1..=state.len() {
        let revision = state.by_sequence(sequence).unwrap();
        let predecessor = revision
            .predecessor()
            .map(|d| state.revision_by_digest(d).unwrap());
        expected.extend(events(predecessor.as_ref(), &revision));
    }
    let mut cursor = state.replay_events(0);
    let mut got = Vec::new();
    while let Some(e) = cursor.next().unwrap() {
        got.push(e);
    }
    assert_eq!(got, expected);
    // The events carry the revision's own values: a published release is
    // the revision's release, with its policy context there.
    let l2 = state.by_sequence(3).unwrap();
    let published: Vec<_> = got
        .iter()
        .filter(|e| e.sequence() == 3)
        .filter_map(|e| match e.change() {
            EventChange::ReleasePublished(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        published,
        vec![
            l2.release(&"1.5.0".parse().unwrap()).unwrap().clone(),
            l2.release(&"3.0.0".parse().unwrap()).unwrap().clone(),
        ]
    );
}

#[test]
fn resuming_from_every_sequence_gives_the_rest() {
    let state = state();
    for after in 0..=state.len() + 1 {
        let expected: Vec<&str> = EXPECTED
            .iter()
            .copied()
            .filter(|l| l.split(' ').next().unwrap().parse::<u64>().unwrap() > after)
            .collect();
        assert_eq!(drain(state.replay_events(after)), expected, "after {after}");
    }
    assert!(drain(state.replay_events(u64::MAX)).is_empty());
}

#[test]
fn a_cursor_reads_the_snapshot_it_was_opened_on() {
    let texts = texts();
    let mut state = ChainState::new();
    for t in &texts[..2] {
        state = ingest_text(&state, t).unwrap().into_state();
    }
    let cursor = state.replay_events(0);
    for t in &texts[2..] {
        state = ingest_text(&state, t).unwrap().into_state();
    }
    assert_eq!(drain(cursor), EXPECTED[..7]);
    assert_eq!(drain(state.replay_events(0)), EXPECTED);
}

#[test]
fn an_idempotent_repeat_yields_nothing_new() {
    let texts = texts();
    let state = state();
    let again = ingest_text(&state, &texts[2]).unwrap().into_state();
    assert_eq!(again.len(), state.len());
    assert_eq!(drain(again.replay_events(0)), EXPECTED);
}

/// The same texts ingested at a ledger's sequences, with gaps where fences
/// took a number (1, 3, 4, 7, 8: fences at 2, 5 and 6).
const GAPPED: [u64; 5] = [1, 3, 4, 7, 8];

fn gapped_state() -> ChainState {
    let mut state = ChainState::new();
    for (t, sequence) in texts().iter().zip(GAPPED) {
        let revision = nenjim_journal_parser::parse(t).unwrap();
        state = state
            .ingest_revision_at(revision, sequence)
            .unwrap()
            .into_state();
    }
    state
}

/// `EXPECTED` renumbered: the n-th revision's events carry `GAPPED[n - 1]`.
fn gapped_expected() -> Vec<String> {
    EXPECTED
        .iter()
        .map(|l| {
            let (n, rest) = l.split_once(' ').unwrap();
            let n: usize = n.parse().unwrap();
            format!("{} {rest}", GAPPED[n - 1])
        })
        .collect()
}

#[test]
fn resuming_across_sequence_gaps_gives_exactly_the_later_revisions() {
    // Issue 20: the event cursor skipped `after` revisions by count, so
    // after a gap it lost one revision per earlier gap. Every resume point
    // (before, at and after each gap) gives exactly what has a larger
    // sequence, on both feeds.
    let state = gapped_state();
    let expected = gapped_expected();
    for after in 0..=10 {
        let events: Vec<String> = expected
            .iter()
            .filter(|l| l.split(' ').next().unwrap().parse::<u64>().unwrap() > after)
            .cloned()
            .collect();
        assert_eq!(
            drain(state.replay_events(after)),
            events,
            "events after {after}"
        );
        let mut cursor = state.replay(after);
        let mut revisions = Vec::new();
        while let Some(r) = cursor.next().unwrap() {
            revisions.push(r.sequence());
        }
        let want: Vec<u64> = GAPPED.iter().copied().filter(|&s| s > after).collect();
        assert_eq!(revisions, want, "revisions after {after}");
    }
}
