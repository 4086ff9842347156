//! The ingestion rules of section 6, as tables: each refused revision gives
//! its typed error and leaves the state exactly as it was.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_chain::{ChainState, Outcome};
use nenjim_journal_testkit::docs::*;
use rstest::rstest;

/// Two artifacts: left-pad g1 -> l3 -> l5 -> l7 (days) and right-pad g2 -> r4.
struct World {
    l1: Doc,
    l3: Doc,
    l5: Doc,
    l7: Doc,
    r2: Doc,
    r4: Doc,
    state: ChainState,
}

/// The release 1.0.0 with every kind of property.
fn rich() -> Rel {
    Rel {
        description: Some("first".to_owned()),
        depends: vec![
            line("alpha", Some("[1.0.0,2.0.0)"), None),
            line("beta", Some("1.2.3"), Some("logging")),
        ],
        excludes: vec![
            line("gamma", None, None),
            line("delta", Some("(,2.0.0)"), None),
        ],
        prefers: vec![line("alpha", Some("[1.4.0,1.5.0)"), Some("tested"))],
        ..rel("1.0.0", 1)
    }
}

fn world() -> World {
    let l1 = Doc::genesis("left-pad", 1).with(rich());
    let l3 = l1.next(3).with(rel("1.1.0", 2));
    let l5 = l3.next(5).with(rel("2.0.0", 3));
    let l7 = l5.next(7).with(rel("2.1.0", 4));
    let r2 = Doc::genesis("right-pad", 2).with(rel("0.1.0", 9));
    let r4 = r2.next(4).with(rel("0.2.0", 10));
    let state = build(&[&l1, &r2, &l3, &r4, &l5, &l7]);
    World {
        l1,
        l3,
        l5,
        l7,
        r2,
        r4,
        state,
    }
}

fn refused(state: &ChainState, doc: &Doc, kind: ErrorKind) -> String {
    let before = picture(state);
    let error = ingest(state, doc).expect_err("the revision must be refused");
    assert_eq!(error.kind(), kind, "{error}");
    assert_eq!(error.path(), None, "the chain names no path: {error}");
    assert_eq!(picture(state), before, "the old state is untouched");
    error.to_string()
}

#[test]
fn the_world_is_accepted_in_order() {
    let w = world();
    assert_eq!(w.state.len(), 6);
    let left = w.state.revisions(&coordinate("left-pad"));
    let days: Vec<_> = left.iter().map(|r| r.journal_version()).collect();
    assert_eq!(days, vec![version(1), version(3), version(5), version(7)]);
    let sequences: Vec<_> = left.iter().map(|r| r.sequence()).collect();
    assert_eq!(sequences, vec![1, 3, 5, 6]);
    assert_eq!(
        w.state.latest(&coordinate("right-pad")).unwrap().digest(),
        &w.r4.digest()
    );
}

#[rstest]
#[case::conflict_other_comment(
    |w: &World| w.l5.clone().comment("the same worldview, another text"),
    ErrorKind::Conflict,
    &["left-pad", "20260105T101530Z"],
)]
#[case::conflict_other_description(
    |w: &World| Doc { description: "changed".to_owned(), ..w.l3.clone() },
    ErrorKind::Conflict,
    &["left-pad", "20260103T101530Z"],
)]
#[case::conflict_other_genesis_text(
    |w: &World| w.l1.clone().comment("x"),
    ErrorKind::Conflict,
    &["left-pad", "20260101T101530Z"],
)]
#[case::conflict_equal_to_head_version(
    |w: &World| w.l7.next(7).with(rel("3.0.0", 5)),
    ErrorKind::Conflict,
    &["left-pad", "20260107T101530Z"],
)]
#[case::duplicate_genesis(
    |_: &World| Doc::genesis("left-pad", 20),
    ErrorKind::DuplicateGenesis,
    &["left-pad", "20260120T101530Z", "20260101T101530Z"],
)]
#[case::unknown_predecessor(
    |w: &World| w.l7.next(20).predecessor(Some(RevisionDigest::of_text("nothing stored"))),
    ErrorKind::UnknownPredecessor,
    &["left-pad", "20260120T101530Z", "20260107T101530Z"],
)]
#[case::unknown_predecessor_of_a_new_artifact(
    |w: &World| Doc { artifact: "new-pad".to_owned(), ..w.l7.next(20) }
        .predecessor(Some(RevisionDigest::of_text("nothing stored"))),
    ErrorKind::UnknownPredecessor,
    &["new-pad", "20260120T101530Z"],
)]
#[case::cross_artifact_predecessor(
    |w: &World| Doc { artifact: "right-pad".to_owned(), ..w.l7.next(20) },
    ErrorKind::CrossArtifactPredecessor,
    &["right-pad", "left-pad", "20260107T101530Z", "20260104T101530Z"],
)]
#[case::cross_artifact_predecessor_of_a_new_artifact(
    |w: &World| Doc { artifact: "new-pad".to_owned(), ..w.r4.next(20) },
    ErrorKind::CrossArtifactPredecessor,
    &["new-pad", "right-pad", "20260104T101530Z"],
)]
#[case::non_increasing_version_lower(
    |w: &World| w.l7.next(6),
    ErrorKind::NonIncreasingVersion,
    &["left-pad", "20260106T101530Z", "20260107T101530Z"],
)]
#[case::non_increasing_version_much_lower(
    |w: &World| w.r4.next(1),
    ErrorKind::NonIncreasingVersion,
    &["right-pad", "20260101T101530Z", "20260104T101530Z"],
)]
#[case::release_dropped(
    |w: &World| { let mut d = w.l7.next(20); d.releases.remove(1); d },
    ErrorKind::ReleaseRewritten,
    &["1.1.0", "left-pad", "missing", "20260120T101530Z", "20260107T101530Z"],
)]
#[case::every_release_dropped(
    |w: &World| { let mut d = w.l7.next(20); d.releases.clear(); d },
    ErrorKind::ReleaseRewritten,
    &["1.0.0", "missing"],
)]
fn refused_revisions(
    #[case] make: fn(&World) -> Doc,
    #[case] kind: ErrorKind,
    #[case] mentions: &[&str],
) {
    let w = world();
    let doc = make(&w);
    let message = refused(&w.state, &doc, kind);
    for m in mentions {
        assert!(message.contains(m), "{message:?} should mention {m}");
    }
    assert!(message.contains(&doc.digest().to_string()) || kind == ErrorKind::ReleaseRewritten);
    assert!(message.contains("expected"), "{message}");
}

#[test]
fn a_conflict_is_decided_even_when_the_worldview_is_equal() {
    let w = world();
    let other = w.l5.clone().comment("only a comment differs");
    assert!(other.revision().same_worldview(&w.l5.revision()));
    assert_ne!(other.digest(), w.l5.digest());
    refused(&w.state, &other, ErrorKind::Conflict);
}

/// A fork from every non-head position of a chain is stale.
#[rstest]
fn forks_from_any_non_head_position_are_stale(
    #[values(0, 1, 2)] position: usize,
    #[values(8, 20)] day: u32,
) {
    let w = world();
    let base = [&w.l1, &w.l3, &w.l5][position];
    let fork = base.next(day).with(rel("9.0.0", 99));
    let message = refused(&w.state, &fork, ErrorKind::StalePredecessor);
    assert!(message.contains(&base.digest().to_string()), "{message}");
    assert!(message.contains(&base.version), "{message}");
    assert!(
        message.contains(&w.l7.digest().to_string()),
        "names the head: {message}"
    );
    assert!(message.contains(&w.l7.version), "{message}");
}

/// The rule order: a fork that is also non-increasing is stale, a stale fork
/// that also rewrites a release is stale, an unknown predecessor of a
/// duplicate genesis is a duplicate genesis.
#[rstest]
#[case::stale_before_non_increasing(|w: &World| w.l3.next(4), ErrorKind::StalePredecessor)]
#[case::stale_before_rewrite(
    |w: &World| { let mut d = w.l3.next(20); d.releases.clear(); d },
    ErrorKind::StalePredecessor,
)]
#[case::non_increasing_before_rewrite(
    |w: &World| { let mut d = w.l7.next(2); d.releases.clear(); d },
    ErrorKind::NonIncreasingVersion,
)]
#[case::cross_before_stale(
    |w: &World| Doc { artifact: "right-pad".to_owned(), ..w.l1.next(20) },
    ErrorKind::CrossArtifactPredecessor,
)]
#[case::conflict_before_everything(
    |w: &World| w.l3.clone().predecessor(Some(RevisionDigest::of_text("?"))),
    ErrorKind::Conflict,
)]
#[case::duplicate_genesis_before_unknown(
    |w: &World| w.l7.next(20).predecessor(None),
    ErrorKind::DuplicateGenesis,
)]
fn rules_apply_in_the_order_of_section_6(#[case] make: fn(&World) -> Doc, #[case] kind: ErrorKind) {
    let w = world();
    refused(&w.state, &make(&w), kind);
}

/// Each property of a kept release, changed in the successor.
#[rstest]
#[case::license(|r: &mut Rel| r.license = "Apache-2.0".to_owned(), "LICENSE")]
#[case::content_digest(|r: &mut Rel| r.content = 77, "CONTENT")]
#[case::content_size(|r: &mut Rel| r.size += 1, "CONTENT")]
#[case::description_removed(|r: &mut Rel| r.description = None, "drops DESCRIPTION")]
#[case::description_changed(|r: &mut Rel| r.description = Some("other".to_owned()), "has DESCRIPTION")]
#[case::dependency_requirement(|r: &mut Rel| r.depends[0].requirement = Some("*".to_owned()), "DEPENDS alpha")]
#[case::dependency_description(|r: &mut Rel| r.depends[1].description = None, "DEPENDS beta")]
#[case::dependency_added(|r: &mut Rel| r.depends.push(line("epsilon", Some("*"), None)), "DEPENDS epsilon")]
#[case::dependency_removed(|r: &mut Rel| { r.depends.remove(0); }, "DEPENDS alpha")]
#[case::exclusion_requirement(|r: &mut Rel| r.excludes[0].requirement = Some("*".to_owned()), "EXCLUDES gamma")]
#[case::exclusion_added(|r: &mut Rel| r.excludes.push(line("zeta", None, None)), "EXCLUDES zeta")]
#[case::exclusion_removed(|r: &mut Rel| { r.excludes.remove(1); }, "EXCLUDES delta")]
#[case::preference_requirement(|r: &mut Rel| r.prefers[0].requirement = Some("1.4.0".to_owned()), "PREFERS alpha")]
#[case::preference_description(|r: &mut Rel| r.prefers[0].description = Some("other".to_owned()), "PREFERS alpha")]
#[case::preference_added(|r: &mut Rel| r.prefers.push(line("beta", Some("*"), None)), "PREFERS beta")]
#[case::preference_removed(|r: &mut Rel| r.prefers.clear(), "PREFERS alpha")]
fn rewriting_a_release_is_refused(#[case] change: fn(&mut Rel), #[case] mention: &str) {
    let w = world();
    let mut doc = w.l7.next(20);
    change(&mut doc.releases[0]);
    let message = refused(&w.state, &doc, ErrorKind::ReleaseRewritten);
    assert!(message.contains("1.0.0"), "{message}");
    assert!(
        message.contains(mention),
        "{message:?} should mention {mention}"
    );
    assert!(message.contains(&doc.digest().to_string()), "{message}");
    assert!(message.contains(&w.l7.digest().to_string()), "{message}");
}

#[test]
fn adding_a_description_is_a_rewrite() {
    let genesis = Doc::genesis("solo", 1).with(rel("1.0.0", 1));
    let state = build(&[&genesis]);
    let mut added = genesis.next(2);
    added.releases[0].description = Some("new".to_owned());
    let message = refused(&state, &added, ErrorKind::ReleaseRewritten);
    assert!(message.contains("adds DESCRIPTION"), "{message}");
}

/// Changes a successor may make: re-ordered DEPENDS/EXCLUDES/PREFERS, new
/// releases, any policy.
#[rstest]
#[case::reordered_depends(|d: &mut Doc| d.releases[0].depends.reverse())]
#[case::reordered_excludes(|d: &mut Doc| d.releases[0].excludes.reverse())]
#[case::new_release(|d: &mut Doc| d.releases.push(rel("3.0.0", 42)))]
#[case::new_prerelease_between(|d: &mut Doc| d.releases.insert(1, rel("1.1.0-rc.1", 43)))]
#[case::yank(|d: &mut Doc| d.policy.push(Pol::Yank("1.0.0".to_owned(), "broken".to_owned())))]
#[case::deprecate_and_recommend(|d: &mut Doc| {
    d.policy.push(Pol::Deprecate("[1.0.0,2.0.0)".to_owned(), "old line".to_owned()));
    d.policy.push(Pol::Recommend("2.1.0".to_owned()));
})]
#[case::other_description_of_the_artifact(|d: &mut Doc| d.description = "renamed".to_owned())]
#[case::comment(|d: &mut Doc| d.comment = Some("hello".to_owned()))]
fn allowed_changes_are_accepted(#[case] change: fn(&mut Doc)) {
    let w = world();
    let mut doc = w.l7.next(20);
    change(&mut doc);
    let before = picture(&w.state);
    let next = ingest(&w.state, &doc).unwrap();
    assert_eq!(next.outcome(), Outcome::Accepted);
    assert_eq!(next.revision().sequence(), 7);
    assert_eq!(next.revision().digest(), &doc.digest());
    assert_eq!(
        next.state()
            .latest(&coordinate("left-pad"))
            .unwrap()
            .digest(),
        &doc.digest()
    );
    assert_eq!(picture(&w.state), before, "the old state is untouched");
}

#[test]
fn a_genesis_starts_a_new_artifact_with_the_next_sequence() {
    let w = world();
    let doc = Doc::genesis("new-pad", 1);
    let next = ingest(&w.state, &doc).unwrap();
    assert_eq!(next.outcome(), Outcome::Accepted);
    assert_eq!(next.revision().sequence(), 7);
    assert!(next.state().coordinates().contains(&coordinate("new-pad")));
}

/// An idempotent repeat of any stored revision, head or not.
#[rstest]
#[case::genesis(|w: &World| w.l1.clone(), 1)]
#[case::middle(|w: &World| w.l3.clone(), 3)]
#[case::head(|w: &World| w.l7.clone(), 6)]
#[case::other_artifact_genesis(|w: &World| w.r2.clone(), 2)]
#[case::other_artifact_head(|w: &World| w.r4.clone(), 4)]
fn repeats_are_idempotent(#[case] pick: fn(&World) -> Doc, #[case] sequence: u64) {
    let w = world();
    let doc = pick(&w);
    let again = ingest(&w.state, &doc).unwrap();
    assert_eq!(again.outcome(), Outcome::Unchanged);
    assert_eq!(again.revision().sequence(), sequence);
    assert_eq!(again.revision().digest(), &doc.digest());
    assert_same_state(&w.state, again.state());
    // Repeating again still changes nothing.
    let third = ingest(again.state(), &doc).unwrap();
    assert_eq!(third.outcome(), Outcome::Unchanged);
    assert_same_state(&w.state, third.state());
}

#[test]
fn blank_texts_are_empty_input() {
    let state = world().state;
    for text in ["", " ", "\n\n", "  \r\n", "# a comment only\n  # another\n"] {
        let before = picture(&state);
        let error = nenjim_journal_parser::parse(text)
            .and_then(|r| state.ingest_revision(r))
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::EmptyInput, "{text:?}");
        assert_eq!(picture(&state), before);
    }
}

#[test]
fn ingest_all_is_all_or_nothing() {
    let w = world();
    let good = w.l7.next(20).with(rel("3.0.0", 5));
    let good2 = good.next(21).with(rel("3.1.0", 6));
    let bad = good2.next(22).predecessor(Some(w.l1.digest()));
    let before = picture(&w.state);

    let error = w
        .state
        .ingest_all([good.revision(), good2.revision(), bad.revision()])
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::StalePredecessor);
    assert_eq!(picture(&w.state), before);

    let all = w
        .state
        .ingest_all([good.revision(), w.l3.revision(), good2.revision()])
        .unwrap();
    assert_eq!(
        all.len(),
        8,
        "the repeat of l3 is idempotent inside a batch"
    );
    assert_eq!(all.latest(&coordinate("left-pad")).unwrap().sequence(), 8);
    assert_eq!(picture(&w.state), before);

    let empty = w.state.ingest_all([]).unwrap();
    assert_same_state(&w.state, &empty);
}

#[test]
fn a_hand_built_revision_reusing_a_stored_digest_is_refused() {
    let w = world();
    let other = w.r4.next(20).revision();
    // Same worldview, but built with the digest of a left-pad revision.
    let mut b = nenjim_journal_api::model::build::RevisionBuilder::new(
        other.coordinate().clone(),
        other.journal_version(),
        other.predecessor().copied(),
        other.description().clone(),
    );
    for r in other.releases() {
        b.push_release(r.clone()).unwrap();
    }
    let forged = b.build(w.l5.digest());
    let before = picture(&w.state);
    let error = w.state.ingest_revision(forged).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conflict);
    assert_eq!(picture(&w.state), before);
}

#[test]
fn states_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<ChainState>();
    check::<nenjim_journal_chain::Ingested>();
}
