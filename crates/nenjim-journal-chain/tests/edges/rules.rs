//! The rules of sections 4 to 6 at their edges: intervals and
//! pre-releases, releases added below the newest, DEPENDS order, policy
//! moves, forks, idempotent repeats.

use super::*;

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
