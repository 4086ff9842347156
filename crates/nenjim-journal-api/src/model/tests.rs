//! Unit tests of the model: policy contexts, sizes, sharing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::sync::Arc;

use super::build::{
    ReleaseBuilder, RevisionBuilder, dependency, same_values, shares_values, sharing_releases_with,
};
use super::*;
use crate::valuetypes::{
    ArtifactCoordinate, Description, InformationUri, LicenseExpression, RevisionDigest,
};
use crate::valuetypes::{ContentDigest, ContentPointer};

fn release(coordinate: &ArtifactCoordinate, version: &str) -> ArtifactRelease {
    ReleaseBuilder::new(
        coordinate.clone(),
        version.parse().unwrap(),
        "MIT".parse().unwrap(),
        ContentPointer::new(ContentDigest::of_bytes(version.as_bytes()), 1),
    )
    .build()
}

fn revision(policy: &[&str]) -> JournalRevision {
    let coordinate: ArtifactCoordinate = "left-pad".parse().unwrap();
    let mut builder = RevisionBuilder::new(
        coordinate.clone(),
        "20261129T101530Z".parse().unwrap(),
        None,
        Description::new("pads").unwrap(),
    );
    for v in ["1.0.0", "1.0.1", "1.1.0", "2.0.0", "3.0.0"] {
        builder.push_release(release(&coordinate, v)).unwrap();
    }
    for line in policy {
        let (keyword, rest) = line.split_once(' ').unwrap();
        let statement = match keyword {
            "YANK" | "DEPRECATE" => {
                let (requirement, reason) = rest.split_once(' ').unwrap();
                let requirement = requirement.parse().unwrap();
                let reason = Description::new(reason).unwrap();
                if keyword == "YANK" {
                    PolicyStatement::Yank {
                        requirement,
                        reason,
                    }
                } else {
                    PolicyStatement::Deprecate {
                        requirement,
                        reason,
                    }
                }
            }
            _ => PolicyStatement::Recommend {
                version: rest.parse().unwrap(),
            },
        };
        builder.push_policy(statement).unwrap();
    }
    builder.build(RevisionDigest::of_text(&policy.join("\n")))
}

fn hash_of(value: &impl std::hash::Hash) -> u64 {
    use std::hash::{BuildHasher, RandomState};
    thread_local!(static STATE: RandomState = RandomState::new());
    STATE.with(|s| s.hash_one(value))
}

#[test]
fn releases_with_and_without_policy_report_their_context() {
    let r = revision(&[
        "YANK [1.0.0,1.1.0) broken",
        "DEPRECATE [1.0.1,2.0.0] old",
        "RECOMMEND 3.0.0",
    ]);
    let policy: Vec<(Option<&str>, Option<&str>, bool)> = r
        .releases()
        .iter()
        .map(|r| {
            let p = r.policy();
            (
                p.yanked().map(Description::as_str),
                p.deprecated().map(Description::as_str),
                p.is_recommended(),
            )
        })
        .collect();
    assert_eq!(
        policy,
        [
            (Some("broken"), None, false),
            (Some("broken"), Some("old"), false),
            (None, Some("old"), false),
            (None, Some("old"), false),
            (None, None, true),
        ]
    );
    // No policy at all: every release reports the empty context.
    let plain = revision(&[]);
    for release in plain.releases() {
        assert_eq!(*release.policy(), ReleasePolicy::default());
        assert!(release.policy.is_none());
    }
    // A freshly built release has the empty context too.
    let coordinate: ArtifactCoordinate = "left-pad".parse().unwrap();
    assert_eq!(
        *release(&coordinate, "1.0.0").policy(),
        ReleasePolicy::default()
    );
}

#[test]
fn equal_policy_contexts_share_one_allocation_and_compare_by_value() {
    let r = revision(&["DEPRECATE [1.0.0,1.1.0] old"]);
    let [a, b, c, d, _] = r.releases() else {
        panic!("five releases expected");
    };
    let (Some(pa), Some(pb), Some(pc)) = (&a.policy, &b.policy, &c.policy) else {
        panic!("deprecated releases carry a policy context");
    };
    assert!(Arc::ptr_eq(pa, pb) && Arc::ptr_eq(pb, pc));
    assert!(d.policy.is_none());

    // Equality and hashing follow the values, not the allocations.
    let again = revision(&["DEPRECATE [1.0.0,1.1.0] old"]);
    assert_eq!(r.releases(), again.releases());
    for (x, y) in r.releases().iter().zip(again.releases()) {
        assert_eq!(hash_of(x), hash_of(y));
    }
    let other = revision(&["DEPRECATE [1.0.0,1.1.0] older"]);
    assert_ne!(r.releases()[0], other.releases()[0]);
    assert!(same_values(&r.releases()[0], &other.releases()[0]));
    assert_eq!(r.releases()[4], other.releases()[4]);
}

#[test]
fn a_release_is_two_pointers() {
    assert!(std::mem::size_of::<ArtifactRelease>() <= 16);
}

#[test]
fn the_lines_of_a_release_are_three_pointers() {
    use std::mem::size_of;
    assert!(size_of::<Dependency>() <= 24);
    assert!(size_of::<Exclusion>() <= 24);
    assert!(size_of::<Preference>() <= 24);
    assert!(size_of::<ReleasePolicy>() <= 24);
    // The shared texts are thin pointers, with a niche for `Option`.
    assert_eq!(size_of::<Option<ArtifactCoordinate>>(), 8);
    assert_eq!(size_of::<Option<Description>>(), 8);
    assert_eq!(size_of::<Option<LicenseExpression>>(), 8);
    assert_eq!(size_of::<Option<InformationUri>>(), 8);
}

/// A revision of `left-pad` parsed from scratch (nothing shared with
/// any other), with the given releases and policy.
fn fresh(
    version: &str,
    releases: &[&str],
    policy: &[PolicyStatement],
    description: &str,
) -> JournalRevision {
    let coordinate: ArtifactCoordinate = "left-pad".parse().unwrap();
    let mut builder = RevisionBuilder::new(
        coordinate.clone(),
        version.parse().unwrap(),
        None,
        Description::new(description).unwrap(),
    );
    builder.information("https://example.org/left-pad".parse().unwrap());
    for v in releases {
        let mut release = ReleaseBuilder::new(
            "left-pad".parse().unwrap(),
            v.parse().unwrap(),
            "MIT".parse().unwrap(),
            ContentPointer::new(ContentDigest::of_bytes(v.as_bytes()), 1),
        );
        release.description(Description::new(format!("release {v}")).unwrap());
        release
            .push_dependency(dependency(
                "right-pad".parse().unwrap(),
                "[1.0.0,2.0.0)".parse().unwrap(),
                None,
            ))
            .unwrap();
        builder.push_release(release.build()).unwrap();
    }
    for statement in policy {
        builder.push_policy(statement.clone()).unwrap();
    }
    builder.build(RevisionDigest::of_text(version))
}

/// Whether two descriptions share one stored text.
fn same_text(a: &Description, b: &Description) -> bool {
    std::ptr::eq(a.as_str(), b.as_str())
}

fn yank(requirement: &str, reason: &str) -> PolicyStatement {
    PolicyStatement::Yank {
        requirement: requirement.parse().unwrap(),
        reason: Description::new(reason).unwrap(),
    }
}

#[test]
fn sharing_with_the_predecessor_changes_no_value_and_shares_equal_ones() {
    let first = fresh(
        "20260101T000000Z",
        &["1.0.0", "1.1.0"],
        &[yank("1.0.0", "broken")],
        "pads",
    );
    let second = fresh(
        "20260102T000000Z",
        &["1.0.0", "1.1.0", "2.0.0"],
        &[
            yank("1.0.0", "broken"),
            PolicyStatement::Deprecate {
                requirement: "[1.0.0,2.0.0)".parse().unwrap(),
                reason: Description::new("broken").unwrap(),
            },
        ],
        "pads",
    );
    let shared = sharing_releases_with(second.clone(), &first);
    assert_eq!(shared, second);
    assert!(shared.same_worldview(&second));

    let (a, b) = (&*first.0, &*shared.0);
    assert!(a.coordinate.shares_text_with(&b.coordinate));
    assert!(same_text(&a.description, &b.description));
    // The kept releases share their values; the new one its coordinate.
    for (old, new) in a.releases.iter().zip(b.releases.iter()) {
        assert!(shares_values(old, new));
    }
    let new = &b.releases[2];
    assert!(new.coordinate().shares_text_with(&b.coordinate));
    // A restated statement is taken whole; an equal reason is shared.
    assert_eq!(a.policy[0], b.policy[0]);
    let reason = |s: &PolicyStatement| s.reason().cloned().unwrap();
    assert!(same_text(&reason(&a.policy[0]), &reason(&b.policy[0])));
    assert!(same_text(&reason(&a.policy[0]), &reason(&b.policy[1])));
    // The policy contexts refer to the shared reasons.
    let context = b.releases[0].policy();
    assert!(same_text(context.yanked().unwrap(), &reason(&a.policy[0])));
    assert!(same_text(
        context.deprecated().unwrap(),
        &reason(&a.policy[0])
    ));

    // Different values stay different.
    let third = fresh(
        "20260103T000000Z",
        &["1.0.0", "1.1.0", "2.0.0"],
        &[yank("2.0.0", "withdrawn")],
        "pads strings",
    );
    let shared_third = sharing_releases_with(third.clone(), &shared);
    assert_eq!(shared_third, third);
    assert_eq!(shared_third.description().as_str(), "pads strings");
    assert_eq!(
        shared_third.releases()[2]
            .policy()
            .yanked()
            .map(Description::as_str),
        Some("withdrawn")
    );
    assert!(shared_third.releases()[0].policy().yanked().is_none());
}

/// A revision shared with its predecessor (the digest it names) is flagged,
/// so that sharing it with that predecessor again (a parser did, then the
/// chain does) returns it untouched; the flag is not part of the value.
#[test]
fn sharing_again_with_the_predecessor_is_skipped_and_not_part_of_the_value() {
    let first = fresh("20260101T000000Z", &["1.0.0", "1.1.0"], &[], "pads");
    let second = fresh(
        "20260102T000000Z",
        &["1.0.0", "1.1.0", "2.0.0"],
        &[],
        "pads",
    );
    let second = JournalRevision(Arc::new(super::revision::RevisionInner {
        predecessor: Some(*first.digest()),
        ..super::revision::RevisionInner::clone(&second.0)
    }));
    let unshared = second.clone();
    let shared = sharing_releases_with(second, &first);
    assert!(shared.0.shared.0 && !unshared.0.shared.0);
    assert!(shares_values(&shared.releases()[0], &first.releases()[0]));
    assert_eq!(shared, unshared);
    let hash = |r: &JournalRevision| {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(r)
    };
    assert_eq!(hash(&shared), hash(&unshared));

    // Again with the predecessor: the same allocation back, not a copy
    // (another handle to it is held, so a change would copy).
    let again = sharing_releases_with(shared.clone(), &first);
    assert!(Arc::ptr_eq(&again.0, &shared.0));
    // With a revision that is not its predecessor: shared, not flagged.
    let other = fresh("20260103T000000Z", &["1.0.0"], &[], "pads");
    let with_other = sharing_releases_with(unshared.clone(), &other);
    assert!(!with_other.0.shared.0);
    assert!(!Arc::ptr_eq(&with_other.0, &unshared.0));
}

/// The forward walk that pairs each release with the older revision's:
/// a release inserted between kept ones (a backport), one dropped, and
/// kept ones whose bodies are already shared or only equal. Every kept
/// release ends up sharing its values with the older one's; the new one
/// keeps its own.
#[test]
fn sharing_pairs_releases_by_version_around_inserted_and_missing_ones() {
    let older = fresh(
        "20260101T000000Z",
        &["1.0.0", "1.1.0", "1.2.0", "2.0.0"],
        &[],
        "pads",
    );
    let newer = fresh(
        "20260102T000000Z",
        &["1.0.0", "1.0.1", "1.1.0", "2.0.0", "3.0.0"],
        &[],
        "pads",
    );
    // Share the first release's body already, as a parser's reuse would.
    let newer = {
        let mut inner = super::revision::RevisionInner::clone(&newer.0);
        let mut releases = inner.releases.to_vec();
        releases[0] = older.0.releases[0].clone();
        inner.releases = releases.into_boxed_slice();
        JournalRevision(Arc::new(inner))
    };
    let shared = sharing_releases_with(newer.clone(), &older);
    assert_eq!(shared, newer);
    let (old, new) = (&older.0.releases, &shared.0.releases);
    assert!(shares_values(&old[0], &new[0])); // 1.0.0, already shared
    assert!(!shares_values(&old[0], &new[1]) && !shares_values(&old[1], &new[1])); // 1.0.1, new
    assert!(shares_values(&old[1], &new[2])); // 1.1.0
    assert!(shares_values(&old[3], &new[3])); // 2.0.0, after the missing 1.2.0
    assert!(old.iter().all(|o| !shares_values(o, &new[4]))); // 3.0.0, new
}

#[test]
fn policy_statements_display_as_their_lines_and_read_back() {
    let cases = [
        (
            yank("[1.0.0,2.0.0)", "broken"),
            r#"YANK [1.0.0,2.0.0) "broken""#,
        ),
        (
            PolicyStatement::Deprecate {
                requirement: "1.0.1".parse().unwrap(),
                reason: r#""say \"no\" \\ please""#.parse().unwrap(),
            },
            r#"DEPRECATE 1.0.1 "say \"no\" \\ please""#,
        ),
        (
            PolicyStatement::Recommend {
                version: "1.1.0".parse().unwrap(),
            },
            "RECOMMEND 1.1.0",
        ),
    ];
    for (statement, line) in cases {
        assert_eq!(statement.to_string(), line);
        // Round trip: the tokens of the line are the statement's values.
        let (keyword, rest) = line.split_once(' ').unwrap();
        let back = match keyword {
            "RECOMMEND" => PolicyStatement::Recommend {
                version: rest.parse().unwrap(),
            },
            _ => {
                let (requirement, reason) = rest.split_once(' ').unwrap();
                let requirement = requirement.parse().unwrap();
                let reason = reason.parse().unwrap();
                if keyword == "YANK" {
                    PolicyStatement::Yank {
                        requirement,
                        reason,
                    }
                } else {
                    PolicyStatement::Deprecate {
                        requirement,
                        reason,
                    }
                }
            }
        };
        assert_eq!(back, statement, "{line}");
    }
}

#[test]
fn events_and_their_changes_display_as_the_command_prints_them() {
    let coordinate: ArtifactCoordinate = "left-pad".parse().unwrap();
    let cases = [
        (EventChange::ArtifactCreated, '*', "created"),
        (
            EventChange::DescriptionChanged(Description::new("pads \"strings\"").unwrap()),
            '~',
            r#"DESCRIPTION "pads \"strings\"""#,
        ),
        (
            EventChange::InformationChanged(Some(
                "https://example.org/left-pad"
                    .parse::<InformationUri>()
                    .unwrap(),
            )),
            '~',
            "INFORMATION https://example.org/left-pad",
        ),
        (
            EventChange::InformationChanged(None),
            '~',
            "INFORMATION (none)",
        ),
        (
            EventChange::ReleasePublished(release(&coordinate, "1.1.0")),
            '+',
            "RELEASE 1.1.0",
        ),
        (
            EventChange::PolicyWithdrawn(yank("1.0.0", "broken")),
            '-',
            r#"YANK 1.0.0 "broken""#,
        ),
        (
            EventChange::PolicyStated(yank("*", "gone")),
            '+',
            r#"YANK * "gone""#,
        ),
    ];
    for (change, mark, text) in cases {
        assert_eq!(change.mark(), mark, "{text}");
        assert_eq!(format!("{change:#}"), text);
        assert_eq!(change.to_string(), format!("{mark} {text}"));
        let event = super::build::event(
            7,
            coordinate.clone(),
            "20261129T101530Z".parse().unwrap(),
            change,
        );
        assert_eq!(
            event.to_string(),
            format!("7  20261129T101530Z  left-pad  {mark} {text}")
        );
    }
}
