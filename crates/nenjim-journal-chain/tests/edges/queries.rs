//! The queries and the event feed of `docs/api.md` at their edges:
//! `revision_as_of` at and between its boundaries, event feeds resumed
//! after any sequence.

use super::*;

#[test]
fn queries_as_of_answer_at_and_between_the_boundaries() {
    let (s, g) = accepted(
        &ChainState::new(),
        &text("a", "20261101T120000Z", None, &[block("1.0.0")], &[]),
    );
    let (s, r2) = accepted(
        &s,
        &text(
            "a",
            "20261101T120001Z",
            Some(&g),
            &["1.0.0", "1.1.0"].map(block),
            &[],
        ),
    );
    let (s, r3) = accepted(
        &s,
        &text(
            "a",
            "20270101T000000Z",
            Some(&r2),
            &["1.0.0", "1.1.0", "2.0.0"].map(block),
            &[],
        ),
    );
    let as_of = |t: &str| {
        s.revision_as_of(&c("a"), t.parse().unwrap())
            .map(|r| *r.digest())
    };
    assert_eq!(as_of("20261101T115959Z"), None, "before the genesis");
    assert_eq!(as_of("00010101T000000Z"), None);
    assert_eq!(as_of("20261101T120000Z"), Some(*g.digest()));
    assert_eq!(as_of("20261101T120001Z"), Some(*r2.digest()));
    assert_eq!(as_of("20261231T235959Z"), Some(*r2.digest()));
    assert_eq!(as_of("20270101T000000Z"), Some(*r3.digest()));
    assert_eq!(as_of("99991231T235959Z"), Some(*r3.digest()));
    assert_eq!(s.latest(&c("a")).map(|r| *r.digest()), Some(*r3.digest()));
    assert!(
        s.revision(&c("a"), "20261231T235959Z".parse().unwrap())
            .is_none()
    );
    assert!(
        s.release(&c("a"), g.journal_version(), &v("1.1.0"))
            .is_none(),
        "1.1.0 is not in the genesis"
    );
    assert!(
        s.release(&c("a"), r2.journal_version(), &v("1.1.0"))
            .is_some()
    );
    assert!(s.revision_as_of(&c("b"), r3.journal_version()).is_none());
}

/// One revision of the feed test: artifact index, Journal version,
/// releases, policy lines, ledger sequence.
type Step = (
    usize,
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    u64,
);

fn drain(mut cursor: Box<dyn EventCursor>) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    while let Some(e) = cursor.next().unwrap() {
        out.push((e.sequence(), format!("{} {:?}", e.coordinate(), e.change())));
    }
    out
}

#[test]
fn events_resumed_after_any_sequence_are_the_tail_of_the_whole_feed() {
    // Two interleaved artifacts, sequence gaps, a successor that changes
    // nothing, one that only moves policy, one that adds a middle release.
    let mut s = ChainState::new();
    let mut heads: Vec<Option<JournalRevision>> = vec![None, None];
    let steps: [Step; 6] = [
        (0, T1, &["1.0.0"], &[], 3),
        (1, T1, &["0.1.0"], &["YANK * \"x\""], 4),
        (0, T2, &["1.0.0"], &[], 9),
        (1, T2, &["0.1.0", "0.2.0"], &["YANK 0.1.0 \"x\""], 10),
        (
            0,
            T3,
            &["0.5.0", "1.0.0", "2.0.0"],
            &["RECOMMEND 0.5.0"],
            20,
        ),
        (1, T3, &["0.1.0", "0.2.0"], &["RECOMMEND 0.2.0"], 21),
    ];
    for (artifact, version, releases, policy, sequence) in steps {
        let name = ["a", "b"][artifact];
        let blocks: Vec<Block<'_>> = releases.iter().map(|r| block(r)).collect();
        let t = text(name, version, heads[artifact].as_ref(), &blocks, policy);
        let parsed = nenjim_journal_parser::parse(&t).unwrap();
        let (revision, outcome) = s.ingest_revision_in_place_at(parsed, sequence).unwrap();
        assert_eq!(outcome, Outcome::Accepted);
        heads[artifact] = Some(revision);
    }
    let all = drain(s.replay_events(0));
    // By hand: from the revisions and their predecessors.
    let mut expected = Vec::new();
    for artifact in [c("a"), c("b")] {
        let chain = s.revisions(&artifact);
        for (i, r) in chain.iter().enumerate() {
            let p = i.checked_sub(1).map(|i| &chain[i]);
            for e in events(p, r) {
                expected.push((e.sequence(), format!("{} {:?}", e.coordinate(), e.change())));
            }
        }
    }
    expected.sort_by_key(|(sequence, _)| *sequence); // stable: keeps each revision's order
    assert_eq!(all, expected);
    assert!(
        all.iter().all(|(seq, _)| *seq != 9),
        "no event of the no-op"
    );
    for after in 0..=22 {
        let tail: Vec<_> = all.iter().filter(|(q, _)| *q > after).cloned().collect();
        assert_eq!(drain(s.replay_events(after)), tail, "after {after}");
    }
}
