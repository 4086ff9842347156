//! Queries over a snapshot, replay, sequence numbers and structural sharing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::model::RevisionCursor;
use nenjim_journal_api::model::build;
use nenjim_journal_api::valuetypes::{JournalVersion, ReleaseVersion, RevisionDigest};
use nenjim_journal_chain::ChainState;
use nenjim_journal_testkit::docs::*;
use rstest::rstest;

/// left-pad: days 10, 20, 30 (1.0.0; + 1.1.0 with 1.0.0 yanked; + 2.0.0
/// recommended); right-pad: days 15, 25. Sequence order: l10 r15 l20 r25 l30.
struct Fixture {
    l: [Doc; 3],
    r: [Doc; 2],
    state: ChainState,
}

fn fixture() -> Fixture {
    let l10 = Doc::genesis("left-pad", 10).with(rel("1.0.0", 1));
    let l20 = l10
        .next(20)
        .with(rel("1.1.0", 2))
        .policy(Pol::Yank("1.0.0".to_owned(), "broken".to_owned()));
    let l30 = l20
        .next(30)
        .with(rel("2.0.0", 3))
        .policy(Pol::Yank("1.0.0".to_owned(), "broken".to_owned()))
        .policy(Pol::Deprecate("1.1.0".to_owned(), "old".to_owned()))
        .policy(Pol::Recommend("2.0.0".to_owned()));
    let r15 = Doc::genesis("right-pad", 15).with(rel("0.1.0", 9));
    let r25 = r15.next(25).with(rel("0.2.0", 10));
    let state = build(&[&l10, &r15, &l20, &r25, &l30]);
    Fixture {
        l: [l10, l20, l30],
        r: [r15, r25],
        state,
    }
}

fn left() -> nenjim_journal_api::valuetypes::ArtifactCoordinate {
    coordinate("left-pad")
}

fn drain(mut cursor: Box<dyn RevisionCursor>) -> Vec<(RevisionDigest, u64)> {
    let mut out = Vec::new();
    while let Some(r) = cursor.next().unwrap() {
        out.push((*r.digest(), r.sequence()));
    }
    // Drained stays drained.
    assert!(cursor.next().unwrap().is_none());
    out
}

#[test]
fn sequences_follow_the_order_of_acceptance() {
    let f = fixture();
    let expected = vec![
        (f.l[0].digest(), 1),
        (f.r[0].digest(), 2),
        (f.l[1].digest(), 3),
        (f.r[1].digest(), 4),
        (f.l[2].digest(), 5),
    ];
    assert_eq!(picture(&f.state), expected);
    assert_eq!(f.state.len(), 5);
    assert!(!f.state.is_empty());
    assert!(ChainState::new().is_empty());
    assert_eq!(ChainState::new().len(), 0);
    for (digest, sequence) in expected {
        assert_eq!(f.state.by_sequence(sequence).unwrap().digest(), &digest);
        assert_eq!(
            f.state.revision_by_digest(&digest).unwrap().sequence(),
            sequence
        );
    }
    assert!(f.state.by_sequence(0).is_none());
    assert!(f.state.by_sequence(6).is_none());
}

#[test]
fn coordinates_revisions_latest_and_find_digest() {
    let f = fixture();
    let names: Vec<_> = f
        .state
        .coordinates()
        .into_iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(names, ["left-pad", "right-pad"]);
    let revisions: Vec<_> = f
        .state
        .revisions(&left())
        .iter()
        .map(|r| *r.digest())
        .collect();
    assert_eq!(revisions, f.l.iter().map(Doc::digest).collect::<Vec<_>>());
    assert_eq!(f.state.latest(&left()).unwrap().digest(), &f.l[2].digest());
    assert_eq!(
        f.state.find_digest(&f.r[0].digest()),
        Some((coordinate("right-pad"), version(15)))
    );
    assert_eq!(f.state.find_digest(&RevisionDigest::of_text("?")), None);

    let unknown = coordinate("nothing");
    assert!(f.state.revisions(&unknown).is_empty());
    assert!(f.state.latest(&unknown).is_none());
    assert!(f.state.revision(&unknown, version(10)).is_none());
    assert!(f.state.revision_as_of(&unknown, version(99)).is_none());
    let v: ReleaseVersion = "1.0.0".parse().unwrap();
    assert!(f.state.release(&unknown, version(10), &v).is_none());
}

#[rstest]
#[case::first(10, Some(10))]
#[case::middle(20, Some(20))]
#[case::last(30, Some(30))]
#[case::between(15, None)]
#[case::before_first(1, None)]
#[case::after_last(99, None)]
fn revision_is_exact(#[case] day: u32, #[case] found: Option<u32>) {
    let f = fixture();
    let got = f.state.revision(&left(), version(day));
    assert_eq!(got.map(|r| r.journal_version()), found.map(version));
}

#[rstest]
#[case::before_the_first(9, None)]
#[case::at_the_first(10, Some(10))]
#[case::between_first_and_second(11, Some(10))]
#[case::just_before_the_second(19, Some(10))]
#[case::at_the_second(20, Some(20))]
#[case::between_second_and_last(29, Some(20))]
#[case::at_the_last(30, Some(30))]
#[case::after_the_last(300, Some(30))]
fn revision_as_of_is_the_newest_at_or_before(#[case] day: u32, #[case] found: Option<u32>) {
    let f = fixture();
    let got = f.state.revision_as_of(&left(), version(day));
    assert_eq!(got.map(|r| r.journal_version()), found.map(version));
}

#[test]
fn revision_as_of_a_very_early_instant() {
    let f = fixture();
    let early: JournalVersion = "00010101T000000Z".parse().unwrap();
    assert!(f.state.revision_as_of(&left(), early).is_none());
}

/// A release from an old revision keeps the policy context of that revision.
#[rstest]
#[case::before_the_yank(10, "1.0.0", Some((false, false, false)))]
#[case::yanked_later(20, "1.0.0", Some((true, false, false)))]
#[case::still_yanked(30, "1.0.0", Some((true, false, false)))]
#[case::not_yet_deprecated(20, "1.1.0", Some((false, false, false)))]
#[case::deprecated(30, "1.1.0", Some((false, true, false)))]
#[case::recommended(30, "2.0.0", Some((false, false, true)))]
#[case::not_yet_released(20, "2.0.0", None)]
#[case::no_such_revision(25, "1.0.0", None)]
#[case::no_such_release(30, "9.9.9", None)]
fn release_has_the_policy_context_of_its_revision(
    #[case] day: u32,
    #[case] release: &str,
    #[case] expected: Option<(bool, bool, bool)>,
) {
    let f = fixture();
    let v: ReleaseVersion = release.parse().unwrap();
    let got = f.state.release(&left(), version(day), &v);
    let context = got.as_ref().map(|r| {
        let p = r.policy();
        (
            p.yanked().is_some(),
            p.deprecated().is_some(),
            p.is_recommended(),
        )
    });
    assert_eq!(context, expected);
    if let Some(r) = got {
        assert_eq!(r.version(), &v);
        assert_eq!(r.coordinate(), &left());
    }
    if day == 20 && release == "1.0.0" {
        let f = fixture();
        let r = f.state.release(&left(), version(20), &v).unwrap();
        assert_eq!(r.policy().yanked().unwrap().as_str(), "broken");
    }
}

#[test]
fn kept_releases_share_their_values_along_a_chain() {
    let f = fixture();
    let one: ReleaseVersion = "1.0.0".parse().unwrap();
    let eleven: ReleaseVersion = "1.1.0".parse().unwrap();
    let at = |day, v: &ReleaseVersion| f.state.release(&left(), version(day), v).unwrap();
    // Kept from revision to revision (and transitively), whatever the policy.
    assert!(build::shares_values(&at(10, &one), &at(20, &one)));
    assert!(build::shares_values(&at(20, &one), &at(30, &one)));
    assert!(build::shares_values(&at(10, &one), &at(30, &one)));
    assert!(build::shares_values(&at(20, &eleven), &at(30, &eleven)));
    // Different releases do not.
    assert!(!build::shares_values(&at(30, &one), &at(30, &eleven)));
    // The policy context still differs.
    assert!(at(10, &one).policy().yanked().is_none());
    assert!(at(30, &one).policy().yanked().is_some());
}

#[test]
fn sharing_survives_re_ordered_depends_lines() {
    let mut first = rel("1.0.0", 1);
    first.depends = vec![
        line("alpha", Some("*"), None),
        line("beta", Some("1.0.0"), None),
    ];
    let genesis = Doc::genesis("solo", 1).with(first);
    let mut next = genesis.next(2).with(rel("2.0.0", 2));
    next.releases[0].depends.reverse();
    let state = build(&[&genesis, &next]);
    let v: ReleaseVersion = "1.0.0".parse().unwrap();
    let a = state.release(&coordinate("solo"), version(1), &v).unwrap();
    let b = state.release(&coordinate("solo"), version(2), &v).unwrap();
    assert!(build::same_values(&a, &b));
    // Equal as sets but written in another order: accepted, stored as written.
    assert_eq!(b.dependencies()[0].artifact(), &coordinate("beta"));
}

#[test]
fn a_chain_of_k_revisions_each_adding_one_release_stores_k_release_values() {
    let k = 40u8;
    let mut doc = Doc::genesis("long", 1).with(rel("1.0.0", 0));
    let mut state = ingest(&ChainState::new(), &doc).unwrap().into_state();
    for i in 1..k {
        doc = doc.next(u32::from(i) + 1).with(rel(&format!("1.{i}.0"), i));
        state = ingest(&state, &doc).unwrap().into_state();
    }
    let revisions = state.revisions(&coordinate("long"));
    assert_eq!(revisions.len(), usize::from(k));
    // Every release of the head shares its values with its first appearance.
    let head = revisions.last().unwrap();
    for (i, release) in head.releases().iter().enumerate() {
        let first = revisions[i].release(release.version()).unwrap();
        assert!(
            build::shares_values(release, first),
            "{}",
            release.version()
        );
        for later in &revisions[i..] {
            assert!(build::shares_values(
                later.release(release.version()).unwrap(),
                first
            ));
        }
    }
}

#[rstest]
#[case::from_the_start(0, &[1, 2, 3, 4, 5])]
#[case::from_the_middle(2, &[3, 4, 5])]
#[case::from_the_last(5, &[])]
#[case::past_the_end(99, &[])]
#[case::far_past_the_end(u64::MAX, &[])]
fn replay_after_a_sequence(#[case] after: u64, #[case] sequences: &[u64]) {
    let f = fixture();
    let all = picture(&f.state);
    let got = drain(f.state.replay(after));
    let expected: Vec<_> = all
        .into_iter()
        .filter(|(_, s)| sequences.contains(s))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn a_cursor_reads_the_snapshot_it_was_opened_on() {
    let f = fixture();
    let mut cursor = f.state.replay(3);
    let first = cursor.next().unwrap().unwrap();
    assert_eq!(first.sequence(), 4);

    let l40 = f.l[2].next(40).with(rel("3.0.0", 4));
    let next = ingest(&f.state, &l40).unwrap().into_state();
    assert_eq!(next.len(), 6);

    assert_eq!(cursor.next().unwrap().unwrap().sequence(), 5);
    assert!(
        cursor.next().unwrap().is_none(),
        "the later ingestion is not seen"
    );
    // A cursor opened on the new state sees it.
    let seen = drain(next.replay(5));
    assert_eq!(seen, vec![(l40.digest(), 6)]);
    // The untouched old state still replays five.
    assert_eq!(drain(f.state.replay(0)).len(), 5);
}

#[test]
fn an_empty_state_replays_nothing() {
    assert!(drain(ChainState::new().replay(0)).is_empty());
}

#[test]
fn the_text_and_the_builders_describe_the_same_revision() {
    let f = fixture();
    for doc in f.l.iter().chain(&f.r) {
        let parsed = nenjim_journal_parser::parse(&doc.text()).unwrap();
        let built = doc.revision();
        assert_eq!(parsed.digest(), built.digest());
        assert!(parsed.same_worldview(&built), "{}", doc.text());
        let via_builders = ingest_via(Via::Builders, &ChainState::new(), doc);
        let via_text = ingest_via(Via::Text, &ChainState::new(), doc);
        assert_eq!(
            via_builders
                .map(|i| *i.revision().digest())
                .map_err(|e| e.kind()),
            via_text
                .map(|i| *i.revision().digest())
                .map_err(|e| e.kind()),
        );
    }
}

#[test]
fn a_syntax_error_is_the_parsers_and_leaves_the_state() {
    let f = fixture();
    let before = picture(&f.state);
    let error = nenjim_journal_parser::parse("FORMAT nenjim-journal/2\n")
        .and_then(|r| f.state.ingest_revision(r))
        .unwrap_err();
    assert_eq!(error.kind(), nenjim_journal_api::error::ErrorKind::Syntax);
    assert!(error.line().is_some());
    assert_eq!(picture(&f.state), before);
}

#[test]
fn an_idempotent_repeat_after_others_keeps_its_original_sequence() {
    let f = fixture();
    let again = ingest(&f.state, &f.l[0]).unwrap();
    assert_eq!(again.revision().sequence(), 1);
    assert_eq!(again.state().len(), 5);
}
