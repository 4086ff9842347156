//! Properties: canonical rendering round-trips, and parsing never panics
//! and always locates its errors inside the text.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use nenjim_journal_api::model::build::{self, ReleaseBuilder, RevisionBuilder};
use nenjim_journal_api::model::{JournalRevision, PolicyStatement};
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, ContentDigest, ContentPointer, Description, InformationUri, JournalVersion,
    LicenseExpression, ReleaseVersion, RevisionDigest, VersionRequirement,
};
use nenjim_journal_testkit::texts::requirement_text;
use proptest::prelude::*;
use proptest::sample::subsequence;

fn coordinate() -> impl Strategy<Value = ArtifactCoordinate> {
    "[a-x][a-z0-9]{0,5}([._-][a-z0-9]{1,4}){0,2}"
        .prop_filter_map("valid coordinate", |s| s.parse().ok())
}

fn journal_version() -> impl Strategy<Value = JournalVersion> {
    (
        1u32..=9999,
        1u32..=12,
        1u32..=28,
        0u32..24,
        0u32..60,
        0u32..60,
    )
        .prop_filter_map("valid instant", |(y, mo, d, h, mi, s)| {
            format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
                .parse()
                .ok()
        })
}

fn description() -> impl Strategy<Value = Description> {
    "[a-zA-Z0-9 \"\\\\\n\t\u{0}-\u{1f}\u{7f}é✓#]{1,24}"
        .prop_filter_map("non-blank text", |s| Description::new(s).ok())
}

fn uri() -> impl Strategy<Value = InformationUri> {
    prop::sample::select(vec![
        "https://example.org/x?y=1#z",
        "mailto:owner@example.org",
        "urn:isbn:0451450523",
        "git+ssh://git@example.org/x.git",
        "did:example:123456789abcdefghi",
    ])
    .prop_filter_map("valid uri", |s| s.parse().ok())
}

fn license() -> impl Strategy<Value = LicenseExpression> {
    prop::sample::select(vec![
        "MIT",
        "Apache-2.0 OR MIT",
        "(MIT OR Apache-2.0) AND BSD-3-Clause",
        "GPL-2.0-or-later WITH Classpath-exception-2.0",
        "LicenseRef-custom",
        "NONE",
        "NOASSERTION",
    ])
    .prop_filter_map("valid license", |s| s.parse().ok())
}

fn release_version() -> impl Strategy<Value = ReleaseVersion> {
    (
        0u64..4,
        0u64..3,
        0u64..3,
        prop::sample::select(vec!["", "-alpha", "-alpha.1", "-beta", "-rc.1", "-0"]),
    )
        .prop_filter_map("valid version", |(a, b, c, pre)| {
            format!("{a}.{b}.{c}{pre}").parse().ok()
        })
}

fn requirement() -> impl Strategy<Value = VersionRequirement> {
    (release_version(), release_version(), 0u8..8)
        .prop_filter_map("valid requirement", |(a, b, form)| {
            requirement_text(a, b, form).parse().ok()
        })
}

fn content() -> impl Strategy<Value = ContentPointer> {
    (any::<[u8; 32]>(), any::<u64>())
        .prop_map(|(d, s)| ContentPointer::new(ContentDigest::from_bytes(d), s))
}

/// Other artifacts a release may name (never equal to a generated
/// coordinate, which starts with a-x).
fn others() -> Vec<ArtifactCoordinate> {
    (0..6)
        .filter_map(|i| format!("y{i}.lib").parse().ok())
        .collect()
}

#[derive(Debug, Clone)]
struct ReleaseSpec {
    version: ReleaseVersion,
    license: LicenseExpression,
    content: ContentPointer,
    description: Option<Description>,
    depends: Vec<(ArtifactCoordinate, VersionRequirement, Option<Description>)>,
    excludes: Vec<(
        ArtifactCoordinate,
        Option<VersionRequirement>,
        Option<Description>,
    )>,
    prefers: Vec<(ArtifactCoordinate, VersionRequirement, Option<Description>)>,
}

fn release_spec() -> impl Strategy<Value = ReleaseSpec> {
    (
        release_version(),
        license(),
        content(),
        prop::option::of(description()),
        subsequence(others(), 0..=3),
        prop::collection::vec(
            (
                requirement(),
                prop::option::of(requirement()),
                prop::option::of(description()),
            ),
            6,
        ),
        subsequence(others(), 0..=2),
    )
        .prop_map(
            |(version, license, content, description, named, extras, preferred)| {
                // The first names are depended on, the rest excluded: disjoint.
                let split = named.len() / 2 + named.len() % 2;
                let mut extras = extras.into_iter();
                let mut next = || {
                    extras
                        .next()
                        .unwrap_or_else(|| (VersionRequirement::any(), None, None))
                };
                let depends = named[..split]
                    .iter()
                    .map(|c| {
                        let (r, _, d) = next();
                        (c.clone(), r, d)
                    })
                    .collect();
                let excludes = named[split..]
                    .iter()
                    .map(|c| {
                        let (_, r, d) = next();
                        (c.clone(), r, d)
                    })
                    .collect();
                let prefers = preferred
                    .iter()
                    .map(|c| {
                        let (r, _, d) = next();
                        (c.clone(), r, d)
                    })
                    .collect();
                ReleaseSpec {
                    version,
                    license,
                    content,
                    description,
                    depends,
                    excludes,
                    prefers,
                }
            },
        )
}

#[derive(Debug, Clone)]
enum PolicySpec {
    Yank(VersionRequirement, Description),
    Deprecate(VersionRequirement, Description),
    Recommend(ReleaseVersion),
}

fn policy_spec() -> impl Strategy<Value = PolicySpec> {
    prop_oneof![
        (requirement(), description()).prop_map(|(r, d)| PolicySpec::Yank(r, d)),
        (requirement(), description()).prop_map(|(r, d)| PolicySpec::Deprecate(r, d)),
        release_version().prop_map(PolicySpec::Recommend),
    ]
}

/// A valid revision, built through the api builders: releases and policy
/// statements the builders refuse are simply left out.
fn revision() -> impl Strategy<Value = JournalRevision> {
    (
        coordinate(),
        journal_version(),
        prop::option::of(any::<[u8; 32]>()),
        description(),
        prop::option::of(uri()),
        prop::collection::vec(release_spec(), 0..5),
        prop::collection::vec(policy_spec(), 0..5),
    )
        .prop_map(|(c, v, p, d, info, mut releases, policy)| {
            let mut b = RevisionBuilder::new(c.clone(), v, p.map(RevisionDigest::from_bytes), d);
            if let Some(info) = info {
                b.information(info);
            }
            releases.sort_by(|x, y| x.version.cmp(&y.version));
            releases.dedup_by(|x, y| x.version == y.version);
            for r in releases {
                let mut rb = ReleaseBuilder::new(c.clone(), r.version, r.license, r.content);
                if let Some(d) = r.description {
                    rb.description(d);
                }
                for (a, q, d) in r.depends {
                    let _ = rb.push_dependency(build::dependency(a, q, d));
                }
                for (a, q, d) in r.excludes {
                    let _ = rb.push_exclusion(build::exclusion(a, q, d));
                }
                for (a, q, d) in r.prefers {
                    let _ = rb.push_preference(build::preference(a, q, d));
                }
                let _ = b.push_release(rb.build());
            }
            for s in policy {
                let statement = match s {
                    PolicySpec::Yank(requirement, reason) => PolicyStatement::Yank {
                        requirement,
                        reason,
                    },
                    PolicySpec::Deprecate(requirement, reason) => PolicyStatement::Deprecate {
                        requirement,
                        reason,
                    },
                    PolicySpec::Recommend(version) => PolicyStatement::Recommend { version },
                };
                let _ = b.push_policy(statement);
            }
            b.build(RevisionDigest::of_text(""))
        })
}

/// Checks that an error lies inside `text`: its line exists (or is the one
/// just after the last terminator) and its column is at most one past the
/// end of that line.
fn located_inside(
    text: &str,
    error: &nenjim_journal_api::error::JournalError,
) -> Result<(), TestCaseError> {
    let (Some(line), Some(column)) = (error.line(), error.column()) else {
        prop_assert_eq!(
            error.kind(),
            nenjim_journal_api::error::ErrorKind::EmptyInput
        );
        return Ok(());
    };
    let lines: Vec<&str> = text.split('\n').collect();
    prop_assert!(
        line >= 1 && line <= lines.len() + 1,
        "line {} of {}",
        line,
        lines.len()
    );
    let width = lines.get(line - 1).map_or(0, |l| l.chars().count());
    prop_assert!(
        column >= 1 && column <= width + 1,
        "column {} of {}: {}",
        column,
        width,
        error
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn render_then_parse_has_the_same_worldview(r in revision()) {
        let text = nenjim_journal_parser::render(&r);
        let parsed = nenjim_journal_parser::parse(&text);
        prop_assert!(parsed.is_ok(), "{:?}\n{}", parsed.err(), text);
        let parsed = parsed.map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(parsed.same_worldview(&r), "{}", text);
        prop_assert_eq!(parsed.digest(), &RevisionDigest::of_text(&text));
        // Canonical text is a fixed point.
        prop_assert_eq!(nenjim_journal_parser::render(&parsed), text);
    }

    #[test]
    fn parse_never_panics_on_arbitrary_text(text in "(?s).{0,200}") {
        if let Err(e) = nenjim_journal_parser::parse(&text) {
            located_inside(&text, &e)?;
        }
    }

    #[test]
    fn parse_never_panics_on_near_valid_text(
        r in revision(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), "[ -~\t\r\n\"\\\\é\u{feff}\u{0}]{0,3}", 0usize..4), 1..4),
    ) {
        let mut text = nenjim_journal_parser::render(&r);
        for (at, insert, delete) in edits {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) { i -= 1; }
            let mut j = (i + delete).min(text.len());
            while !text.is_char_boundary(j) { j += 1; }
            text.replace_range(i..j, &insert);
        }
        match nenjim_journal_parser::parse(&text) {
            Ok(parsed) => {
                // Whatever parses renders to a text that parses the same.
                let again = nenjim_journal_parser::parse(&nenjim_journal_parser::render(&parsed));
                prop_assert!(again.is_ok_and(|a| a.same_worldview(&parsed)));
            }
            Err(e) => located_inside(&text, &e)?,
        }
    }
}

/// The generator is not trivial: it produces releases with dependencies,
/// exclusions and preferences, and policy statements.
#[test]
fn the_generator_covers_the_grammar() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut releases, mut deps, mut excl, mut prefs, mut policy, mut info) = (0, 0, 0, 0, 0, 0);
    for _ in 0..200 {
        let Ok(tree) = revision().new_tree(&mut runner) else {
            continue;
        };
        let r = tree.current();
        releases += r.releases().len();
        deps += r
            .releases()
            .iter()
            .map(|x| x.dependencies().len())
            .sum::<usize>();
        excl += r
            .releases()
            .iter()
            .map(|x| x.exclusions().len())
            .sum::<usize>();
        prefs += r
            .releases()
            .iter()
            .map(|x| x.preferences().len())
            .sum::<usize>();
        policy += r.policy().len();
        info += usize::from(r.information().is_some());
    }
    let counts = [releases, deps, excl, prefs, policy, info];
    assert!(counts.iter().all(|&n| n > 20), "{counts:?}");
}
