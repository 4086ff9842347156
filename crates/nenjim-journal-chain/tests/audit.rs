//! The chain audit (s28): the rules of sections 4 to 6 and the queries and
//! event feed of `docs/api.md` at their edges (pre-releases in intervals, `*`,
//! releases added below the newest one, DEPENDS reordered, policy that moves,
//! boundaries of `revision_as_of`, resumed event feeds, idempotent repeats
//! with another sequence), every revision built from a text by the parser.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::{EventChange, EventCursor, JournalRevision, PolicyStatement};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, ContentDigest, ReleaseVersion};
use nenjim_journal_chain::{ChainState, Outcome, events};
use nenjim_journal_testkit::docs::assert_same_state;

/// One release block: its version, its content seed (a release keeps its
/// values while the seed stays) and its property lines after CONTENT.
struct Block<'a> {
    version: &'a str,
    seed: &'a str,
    lines: &'a [&'a str],
}

fn block<'a>(version: &'a str) -> Block<'a> {
    Block {
        version,
        seed: version,
        lines: &[],
    }
}

/// A text of `artifact` at `version`, after `predecessor` (or a genesis).
fn text(
    artifact: &str,
    version: &str,
    predecessor: Option<&JournalRevision>,
    blocks: &[Block<'_>],
    policy: &[&str],
) -> String {
    let mut t = String::new();
    writeln!(t, "FORMAT nenjim-journal/1").unwrap();
    writeln!(t, "ARTIFACT {artifact}").unwrap();
    writeln!(t, "JOURNAL_VERSION {version}").unwrap();
    match predecessor {
        None => writeln!(t, "PREDECESSOR GENESIS").unwrap(),
        Some(p) => writeln!(t, "PREDECESSOR {}", p.digest()).unwrap(),
    }
    writeln!(t, "DESCRIPTION \"audit\"").unwrap();
    for b in blocks {
        let content = ContentDigest::of_bytes(format!("{artifact}@{}", b.seed).as_bytes());
        write!(
            t,
            "\nRELEASE {}\n  LICENSE MIT\n  CONTENT {content} 1\n",
            b.version
        )
        .unwrap();
        for l in b.lines {
            writeln!(t, "  {l}").unwrap();
        }
    }
    if !policy.is_empty() {
        t.push('\n');
    }
    for p in policy {
        writeln!(t, "{p}").unwrap();
    }
    t
}

fn ingest(state: &ChainState, text: &str) -> Result<(ChainState, JournalRevision), JournalError> {
    let parsed = nenjim_journal_parser::parse(text)?;
    let ingested = state.ingest_revision(parsed.clone())?;
    // Sharing values with the predecessor never changes one.
    assert!(ingested.revision().same_worldview(&parsed), "{text}");
    Ok((ingested.state().clone(), ingested.revision().clone()))
}

fn accepted(state: &ChainState, text: &str) -> (ChainState, JournalRevision) {
    ingest(state, text).unwrap_or_else(|e| panic!("refused: {e}\n{text}"))
}

fn refused(state: &ChainState, text: &str, kind: ErrorKind) {
    let error = ingest(state, text).expect_err("the revision must be refused");
    assert_eq!(error.kind(), kind, "{error}");
}

fn v(s: &str) -> ReleaseVersion {
    s.parse().unwrap()
}

fn c(s: &str) -> ArtifactCoordinate {
    s.parse().unwrap()
}

const T1: &str = "20261101T000000Z";
const T2: &str = "20261102T000000Z";
const T3: &str = "20261103T000000Z";

#[test]
fn an_interval_yanks_the_prereleases_inside_it_by_precedence() {
    let releases = ["1.0.0", "1.5.0-rc.1", "1.5.0", "2.0.0-rc.1", "2.0.0"].map(block);
    let t = text(
        "a",
        T1,
        None,
        &releases,
        &["YANK [1.0.0,2.0.0) \"old\"", "DEPRECATE * \"all\""],
    );
    let (state, genesis) = accepted(&ChainState::new(), &t);
    let successor = |policy: &[&str]| text("a", T2, Some(&genesis), &releases, policy);
    for (version, yanked) in [
        ("1.0.0", true),
        ("1.5.0-rc.1", true),
        ("1.5.0", true),
        ("2.0.0-rc.1", true),
        ("2.0.0", false),
    ] {
        let release = state.release(&c("a"), genesis.journal_version(), &v(version));
        let release = release.unwrap();
        assert_eq!(release.policy().yanked().is_some(), yanked, "{version}");
        assert!(release.policy().deprecated().is_some(), "{version}");
    }
    // A pre-release inside a yanked interval cannot be recommended.
    let bad = successor(&["YANK [1.0.0,2.0.0) \"old\"", "RECOMMEND 2.0.0-rc.1"]);
    refused(&state, &bad, ErrorKind::Semantic);
    // Nor yanked by a later `*` once recommended.
    let bad = successor(&["RECOMMEND 1.5.0", "YANK * \"all\""]);
    refused(&state, &bad, ErrorKind::Semantic);
    // Releases matched by one YANK are found past a pre-release that is
    // outside a second one's interval.
    let split = successor(&["YANK (1.0.0,1.5.0) \"rc\"", "YANK [1.5.0,1.5.0] \"five\""]);
    let (state, next) = accepted(&state, &split);
    let yanked: Vec<String> = next
        .releases()
        .iter()
        .filter(|r| r.policy().yanked().is_some())
        .map(|r| r.version().to_string())
        .collect();
    assert_eq!(yanked, ["1.5.0-rc.1", "1.5.0"]);
    assert_eq!(state.len(), 2);
}

#[test]
fn a_release_added_below_the_newest_is_legal_and_published_once() {
    let (state, g) = accepted(
        &ChainState::new(),
        &text("a", T1, None, &["1.0.0", "2.0.0"].map(block), &[]),
    );
    let t2 = text(
        "a",
        T2,
        Some(&g),
        &["0.9.0", "1.0.0", "1.0.1-rc.1", "2.0.0", "3.0.0"].map(block),
        &["RECOMMEND 1.0.1-rc.1"],
    );
    let (state, r2) = accepted(&state, &t2);
    let published: Vec<String> = events(Some(&g), &r2)
        .iter()
        .filter_map(|e| match e.change() {
            EventChange::ReleasePublished(r) => Some(r.version().to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(published, ["0.9.0", "1.0.1-rc.1", "3.0.0"]);
    // Dropping the new middle release later is a rewrite.
    let t3 = text(
        "a",
        T3,
        Some(&r2),
        &["0.9.0", "1.0.0", "2.0.0", "3.0.0"].map(block),
        &[],
    );
    refused(&state, &t3, ErrorKind::ReleaseRewritten);
}

#[test]
fn reordered_depends_are_the_same_values_and_keep_their_own_order() {
    let first = Block {
        lines: &[
            "DEPENDS x 1.0.0",
            "DEPENDS y *",
            "EXCLUDES z",
            "PREFERS x 1.0.0",
        ],
        ..block("1.0.0")
    };
    let (state, g) = accepted(&ChainState::new(), &text("a", T1, None, &[first], &[]));
    let swapped = Block {
        lines: &[
            "DEPENDS y *",
            "DEPENDS x 1.0.0",
            "EXCLUDES z",
            "PREFERS x 1.0.0",
        ],
        ..block("1.0.0")
    };
    let (state, r2) = accepted(&state, &text("a", T2, Some(&g), &[swapped], &[]));
    let depends: Vec<String> = r2.releases()[0]
        .dependencies()
        .iter()
        .map(|d| d.artifact().to_string())
        .collect();
    assert_eq!(depends, ["y", "x"], "the successor's own text order");
    assert!(events(Some(&g), &r2).is_empty(), "nothing changed");
    // A changed requirement, a dropped or an added line, another content
    // or description: each a rewrite.
    for lines in [
        &[
            "DEPENDS x 1.0.1",
            "DEPENDS y *",
            "EXCLUDES z",
            "PREFERS x 1.0.0",
        ][..],
        &["DEPENDS x 1.0.0", "EXCLUDES z", "PREFERS x 1.0.0"],
        &[
            "DEPENDS x 1.0.0",
            "DEPENDS y *",
            "EXCLUDES z",
            "PREFERS x 1.0.0",
            "PREFERS y *",
        ],
        &[
            "DEPENDS x 1.0.0",
            "DEPENDS y *",
            "EXCLUDES z (,1.0.0)",
            "PREFERS x 1.0.0",
        ],
    ] {
        let b = Block {
            lines,
            ..block("1.0.0")
        };
        refused(
            &state,
            &text("a", T3, Some(&r2), &[b], &[]),
            ErrorKind::ReleaseRewritten,
        );
    }
    let other_content = Block {
        seed: "other",
        lines: &[
            "DEPENDS x 1.0.0",
            "DEPENDS y *",
            "EXCLUDES z",
            "PREFERS x 1.0.0",
        ],
        ..block("1.0.0")
    };
    refused(
        &state,
        &text("a", T3, Some(&r2), &[other_content], &[]),
        ErrorKind::ReleaseRewritten,
    );
    let described = Block {
        lines: &[
            "DESCRIPTION \"new\"",
            "DEPENDS x 1.0.0",
            "DEPENDS y *",
            "EXCLUDES z",
            "PREFERS x 1.0.0",
        ],
        ..block("1.0.0")
    };
    refused(
        &state,
        &text("a", T3, Some(&r2), &[described], &[]),
        ErrorKind::ReleaseRewritten,
    );
}

#[test]
fn policy_moves_freely_and_each_move_is_one_event_pair() {
    let rs = ["1.0.0", "1.1.0", "2.0.0"].map(block);
    let (s, g) = accepted(
        &ChainState::new(),
        &text(
            "a",
            T1,
            None,
            &rs,
            &["YANK * \"all\"", "DEPRECATE 1.0.0 \"old\""],
        ),
    );
    // Un-yank, un-deprecate, recommend a formerly yanked release.
    let (s, r2) = accepted(
        &s,
        &text(
            "a",
            T2,
            Some(&g),
            &rs,
            &["YANK 1.1.0 \"bad\"", "RECOMMEND 2.0.0"],
        ),
    );
    let got: Vec<String> = events(Some(&g), &r2)
        .iter()
        .map(|e| match e.change() {
            EventChange::PolicyWithdrawn(p) => format!("withdrawn {p:?}"),
            EventChange::PolicyStated(p) => format!("stated {p:?}"),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(got[0].starts_with("withdrawn Yank") && got[1].starts_with("withdrawn Deprecate"));
    assert!(got[2].starts_with("stated Yank") && got[3].starts_with("stated Recommend"));
    let at = |r: &JournalRevision, version: &str| {
        s.release(&c("a"), r.journal_version(), &v(version))
            .unwrap()
            .policy()
            .clone()
    };
    assert!(
        at(&g, "2.0.0").yanked().is_some(),
        "the genesis is unchanged"
    );
    assert!(at(&r2, "2.0.0").yanked().is_none() && at(&r2, "2.0.0").is_recommended());
    assert!(at(&r2, "1.1.0").yanked().is_some() && at(&r2, "1.0.0").deprecated().is_none());
    assert!(
        s.latest(&c("a"))
            .unwrap()
            .policy()
            .contains(&PolicyStatement::Recommend {
                version: v("2.0.0")
            })
    );
}

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

#[test]
fn forks_and_non_increasing_versions_are_refused_without_a_trace() {
    let (s, g) = accepted(
        &ChainState::new(),
        &text("a", T2, None, &[block("1.0.0")], &[]),
    );
    let (s, r2) = accepted(&s, &text("a", T3, Some(&g), &[block("1.0.0")], &[]));
    let before = s.clone();
    // A second successor of the genesis (a fork), at a new version.
    refused(
        &s,
        &text(
            "a",
            "20261104T000000Z",
            Some(&g),
            &["1.0.0", "1.1.0"].map(block),
            &[],
        ),
        ErrorKind::StalePredecessor,
    );
    // A successor of the head at an earlier Journal version than the head's.
    refused(
        &s,
        &text("a", T1, Some(&r2), &[block("1.0.0")], &[]),
        ErrorKind::NonIncreasingVersion,
    );
    // Another text at the head's version: a conflict.
    refused(
        &s,
        &text("a", T3, Some(&r2), &[block("1.0.0")], &[]),
        ErrorKind::Conflict,
    );
    refused(
        &s,
        &text("a", T1, None, &[block("1.0.0")], &[]),
        ErrorKind::DuplicateGenesis,
    );
    let mut in_place = s.clone();
    let text_fork = text("a", "20261105T000000Z", Some(&g), &[block("1.0.0")], &[]);
    let parsed = nenjim_journal_parser::parse(&text_fork).unwrap();
    assert!(in_place.ingest_revision_in_place(parsed).is_err());
    assert_same_state(&before, &in_place);
    assert_same_state(&before, &s);
    // ingest_all that fails part way leaves the original untouched.
    let good = nenjim_journal_parser::parse(&text("b", T1, None, &[], &[])).unwrap();
    let bad = nenjim_journal_parser::parse(&text_fork).unwrap();
    assert!(s.ingest_all([good, bad]).is_err());
    assert_same_state(&before, &s);
    assert!(s.latest(&c("b")).is_none());
}

#[test]
fn an_idempotent_repeat_changes_nothing_whatever_its_sequence() {
    let t1 = text("a", T1, None, &[block("1.0.0")], &[]);
    let g = nenjim_journal_parser::parse(&t1).unwrap();
    let s = ChainState::new()
        .ingest_revision_at(g, 10)
        .unwrap()
        .into_state();
    let before = s.clone();
    for sequence in [1, 10, 11, 1000] {
        let again = nenjim_journal_parser::parse(&t1).unwrap();
        let ingested = s.ingest_revision_at(again, sequence).unwrap();
        assert_eq!(ingested.outcome(), Outcome::Unchanged);
        assert_eq!(ingested.revision().sequence(), 10);
        assert_same_state(&before, ingested.state());
        assert_eq!(ingested.state().last_sequence(), 10);
    }
    let mut in_place = s.clone();
    let again = nenjim_journal_parser::parse(&t1).unwrap();
    let (_, outcome) = in_place.ingest_revision_in_place(again).unwrap();
    assert_eq!(outcome, Outcome::Unchanged);
    assert_same_state(&before, &in_place);
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

#[test]
fn every_interval_marks_exactly_the_releases_it_matches() {
    use nenjim_journal_api::valuetypes::VersionRequirement;
    let pool = [
        "0.1.0",
        "1.0.0-alpha",
        "1.0.0-rc.1",
        "1.0.0",
        "1.0.1",
        "2.0.0-beta.2",
        "2.0.0",
    ];
    let bounds = [
        "",
        "0.0.1",
        "1.0.0-alpha",
        "1.0.0-beta",
        "1.0.0",
        "1.0.1",
        "2.0.0-0",
        "2.0.0",
        "3.0.0",
    ];
    let mut requirements = vec!["*".to_owned()];
    requirements.extend(pool.iter().map(|s| (*s).to_owned()));
    for lower in bounds {
        for upper in bounds {
            for (open, close) in [("[", "]"), ("[", ")"), ("(", "]"), ("(", ")")] {
                let r = format!("{open}{lower},{upper}{close}");
                if r.parse::<VersionRequirement>().is_ok() {
                    requirements.push(r);
                }
            }
        }
    }
    // Every other release of the pool, and all of it.
    let subsets: [Vec<&str>; 3] = [
        pool.to_vec(),
        pool.iter().copied().step_by(2).collect(),
        pool.iter().copied().skip(1).step_by(2).collect(),
    ];
    let mut checked = 0;
    for releases in &subsets {
        let blocks: Vec<Block<'_>> = releases.iter().map(|r| block(r)).collect();
        for r in &requirements {
            let requirement: VersionRequirement = r.parse().unwrap();
            let expected: Vec<&str> = releases
                .iter()
                .copied()
                .filter(|s| requirement.matches(&v(s)))
                .collect();
            for keyword in ["YANK", "DEPRECATE"] {
                let statement = format!("{keyword} {r} \"why\"");
                let t = text("a", T1, None, &blocks, &[statement.as_str()]);
                match ingest(&ChainState::new(), &t) {
                    Ok((_, revision)) => {
                        let marked: Vec<String> = revision
                            .releases()
                            .iter()
                            .filter(|x| {
                                let p = x.policy();
                                if keyword == "YANK" {
                                    p.yanked().is_some()
                                } else {
                                    p.deprecated().is_some()
                                }
                            })
                            .map(|x| x.version().to_string())
                            .collect();
                        assert_eq!(marked, expected, "{statement} over {releases:?}");
                        checked += 1;
                    }
                    Err(e) => {
                        assert!(expected.is_empty(), "{statement} over {releases:?}: {e}");
                        assert_eq!(e.kind(), ErrorKind::Semantic);
                    }
                }
            }
        }
    }
    assert!(checked > 100, "{checked}");
}
