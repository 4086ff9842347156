//! `ReleaseBuilder::reserve` is a size hint and nothing else: whatever it
//! is told (nothing, too little, exactly, too much, lists past the builder's
//! switch to a hashed duplicate check), the release built, its lists'
//! order and every refusal are those of a builder told nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use nenjim_journal_api::model::ArtifactRelease;
use nenjim_journal_api::model::build::{self, ReleaseBuilder};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, ContentDigest, ContentPointer};

fn coordinate(name: &str) -> ArtifactCoordinate {
    name.parse().unwrap()
}

fn builder() -> ReleaseBuilder {
    ReleaseBuilder::new(
        coordinate("left-pad"),
        "1.0.0".parse().unwrap(),
        "MIT".parse().unwrap(),
        ContentPointer::new(ContentDigest::of_bytes(b"blob"), 4),
    )
}

/// What pushing `d` dependencies, `e` exclusions and `p` preferences (then
/// the lines in `extra`, which may be refused) gives, with `hint` reserved
/// first (`None`: no call): the release, or the messages of the refusals.
fn build_with(
    hint: Option<(usize, usize, usize)>,
    (d, e, p): (usize, usize, usize),
    extra: &[(&str, &str)],
) -> (ArtifactRelease, Vec<String>) {
    let mut b = builder();
    if let Some((hd, he, hp)) = hint {
        b.reserve(hd, he, hp);
    }
    let mut refused = Vec::new();
    for i in 0..d {
        let line = build::dependency(coordinate(&format!("dep-{i}")), "*".parse().unwrap(), None);
        b.push_dependency(line).unwrap();
    }
    for i in 0..e {
        let line = build::exclusion(coordinate(&format!("excl-{i}")), None, None);
        b.push_exclusion(line).unwrap();
    }
    for i in 0..p {
        let line = build::preference(
            coordinate(&format!("dep-{i}")),
            "1.0.0".parse().unwrap(),
            None,
        );
        b.push_preference(line).unwrap();
    }
    for (kind, artifact) in extra {
        let artifact = coordinate(artifact);
        let result = match *kind {
            "DEPENDS" => b.push_dependency(build::dependency(artifact, "*".parse().unwrap(), None)),
            "EXCLUDES" => b.push_exclusion(build::exclusion(artifact, None, None)),
            _ => b.push_preference(build::preference(artifact, "*".parse().unwrap(), None)),
        };
        if let Err(e) = result {
            refused.push(e.to_string());
        }
    }
    (b.build(), refused)
}

#[test]
fn a_hint_changes_nothing_the_builder_makes() {
    let sizes = [
        (0, 0, 0),
        (1, 0, 0),
        (5, 2, 1),
        (8, 0, 3),
        (9, 1, 0),
        (40, 17, 20),
    ];
    for size in sizes {
        let (reference, none) = build_with(None, size, &[]);
        assert!(none.is_empty());
        assert_eq!(reference.dependencies().len(), size.0);
        assert_eq!(reference.exclusions().len(), size.1);
        assert_eq!(reference.preferences().len(), size.2);
        let (d, e, p) = size;
        let hints = [
            (0, 0, 0),
            (d, e, p),
            (d / 2, e / 2, p / 2),
            (d + 3, e + 1, p + 7),
            (1000, 0, 1000),
        ];
        for hint in hints {
            let (release, refused) = build_with(Some(hint), size, &[]);
            assert_eq!(release, reference, "size {size:?}, hint {hint:?}");
            assert!(build::same_values(&release, &reference));
            assert!(refused.is_empty());
            let order = |r: &ArtifactRelease| -> Vec<String> {
                r.dependencies()
                    .iter()
                    .map(|x| x.artifact().to_string())
                    .chain(r.exclusions().iter().map(|x| x.artifact().to_string()))
                    .chain(r.preferences().iter().map(|x| x.artifact().to_string()))
                    .collect()
            };
            assert_eq!(order(&release), order(&reference));
        }
    }
}

#[test]
fn a_hint_keeps_every_refusal() {
    // A duplicate, a dependency also excluded, an own-artifact line, a
    // second preference: refused the same way whatever was reserved,
    // in short lists and in lists past the hashed-check switch.
    let extra = [
        ("DEPENDS", "dep-0"),
        ("EXCLUDES", "dep-1"),
        ("DEPENDS", "left-pad"),
        ("EXCLUDES", "left-pad"),
        ("PREFERS", "dep-0"),
        ("DEPENDS", "fresh"),
    ];
    for size in [(2, 0, 1), (20, 0, 18)] {
        let (reference, expected) = build_with(None, size, &extra);
        assert_eq!(expected.len(), 5, "{expected:?}");
        assert_eq!(reference.dependencies().len(), size.0 + 1);
        for hint in [(0, 0, 0), (size.0, size.1, size.2), (size.0 + 1, 3, 40)] {
            let (release, refused) = build_with(Some(hint), size, &extra);
            assert_eq!(refused, expected, "size {size:?}, hint {hint:?}");
            assert_eq!(release, reference);
        }
    }
}
