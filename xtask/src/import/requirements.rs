//! A cargo version requirement as a Journal interval: each comparator's
//! bounds, their intersection, and the interval or why there is none
//! (the dependency is then skipped and reported).

use super::*;

// ------------------------------------------------------------ requirements

pub(super) fn v(major: u64, minor: u64, patch: u64) -> semver::Version {
    semver::Version::new(major, minor, patch)
}

pub(super) fn inc(n: u64) -> Result<u64, String> {
    n.checked_add(1)
        .ok_or_else(|| "a version number overflows".to_owned())
}

pub(super) type Bounds = (Bound<semver::Version>, Bound<semver::Version>);

/// One Cargo comparator as a precedence interval (pre-release opt-in aside).
pub(super) fn comparator_bounds(c: &semver::Comparator) -> Result<Bounds, String> {
    use semver::Op;
    use std::ops::Bound::{Excluded, Included, Unbounded};
    let full = || semver::Version {
        major: c.major,
        minor: c.minor.unwrap_or(0),
        patch: c.patch.unwrap_or(0),
        pre: c.pre.clone(),
        build: semver::BuildMetadata::EMPTY,
    };
    let (major, minor, patch) = (c.major, c.minor, c.patch);
    Ok(match c.op {
        Op::Exact | Op::Wildcard => match (minor, patch) {
            (Some(_), Some(_)) => (Included(full()), Included(full())),
            (Some(mi), None) => (Included(v(major, mi, 0)), Excluded(v(major, inc(mi)?, 0))),
            (None, _) => (Included(v(major, 0, 0)), Excluded(v(inc(major)?, 0, 0))),
        },
        Op::Greater => match (minor, patch) {
            (Some(_), Some(_)) => (Excluded(full()), Unbounded),
            (Some(mi), None) => (Included(v(major, inc(mi)?, 0)), Unbounded),
            (None, _) => (Included(v(inc(major)?, 0, 0)), Unbounded),
        },
        Op::GreaterEq => match (minor, patch) {
            (Some(_), Some(_)) => (Included(full()), Unbounded),
            (Some(mi), None) => (Included(v(major, mi, 0)), Unbounded),
            (None, _) => (Included(v(major, 0, 0)), Unbounded),
        },
        Op::Less => match (minor, patch) {
            (Some(_), Some(_)) => (Unbounded, Excluded(full())),
            (Some(mi), None) => (Unbounded, Excluded(v(major, mi, 0))),
            (None, _) => (Unbounded, Excluded(v(major, 0, 0))),
        },
        Op::LessEq => match (minor, patch) {
            (Some(_), Some(_)) => (Unbounded, Included(full())),
            (Some(mi), None) => (Unbounded, Excluded(v(major, inc(mi)?, 0))),
            (None, _) => (Unbounded, Excluded(v(inc(major)?, 0, 0))),
        },
        Op::Tilde => match (minor, patch) {
            (Some(mi), Some(_)) => (Included(full()), Excluded(v(major, inc(mi)?, 0))),
            (Some(mi), None) => (Included(v(major, mi, 0)), Excluded(v(major, inc(mi)?, 0))),
            (None, _) => (Included(v(major, 0, 0)), Excluded(v(inc(major)?, 0, 0))),
        },
        Op::Caret => match (major, minor, patch) {
            (0, Some(0), Some(pa)) if c.pre.is_empty() => {
                let _ = pa;
                (Included(full()), Included(full()))
            }
            // ^0.0.3-alpha: 0.0.3-alpha up to 0.0.3 itself.
            (0, Some(0), Some(pa)) => (Included(full()), Included(v(0, 0, pa))),
            (0, Some(mi), Some(_)) => (Included(full()), Excluded(v(0, inc(mi)?, 0))),
            (_, Some(_), Some(_)) => (Included(full()), Excluded(v(inc(major)?, 0, 0))),
            (0, Some(mi), None) => (Included(v(0, mi, 0)), Excluded(v(0, inc(mi)?, 0))),
            (_, Some(mi), None) => (Included(v(major, mi, 0)), Excluded(v(inc(major)?, 0, 0))),
            (_, None, _) => (Included(v(major, 0, 0)), Excluded(v(inc(major)?, 0, 0))),
        },
        _ => return Err(format!("unsupported comparator `{c}`")),
    })
}

pub(super) fn version_of(b: &Bound<semver::Version>) -> Option<&semver::Version> {
    match b {
        Bound::Included(v) | Bound::Excluded(v) => Some(v),
        Bound::Unbounded => None,
    }
}

/// The higher of two lower bounds (exclusive wins a tie).
pub(super) fn max_lower(
    a: Bound<semver::Version>,
    b: Bound<semver::Version>,
) -> Bound<semver::Version> {
    match (version_of(&a), version_of(&b)) {
        (None, _) => b,
        (_, None) => a,
        (Some(x), Some(y)) if x > y => a,
        (Some(x), Some(y)) if y > x => b,
        _ if matches!(a, Bound::Excluded(_)) => a,
        _ => b,
    }
}

/// The lower of two upper bounds (exclusive wins a tie).
pub(super) fn min_upper(
    a: Bound<semver::Version>,
    b: Bound<semver::Version>,
) -> Bound<semver::Version> {
    match (version_of(&a), version_of(&b)) {
        (None, _) => b,
        (_, None) => a,
        (Some(x), Some(y)) if x < y => a,
        (Some(x), Some(y)) if y < x => b,
        _ if matches!(a, Bound::Excluded(_)) => a,
        _ => b,
    }
}

/// A `semver::Version` (without build metadata) as a Journal release version,
/// through its text: the API keeps `semver` out of its signatures.
pub(super) fn release_version(v: &semver::Version) -> Result<ReleaseVersion, String> {
    v.to_string()
        .parse::<ReleaseVersion>()
        .map_err(|e| e.to_string())
}

pub(super) fn release_bound(b: Bound<semver::Version>) -> Result<Bound<ReleaseVersion>, String> {
    Ok(match b {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) => Bound::Included(release_version(&v)?),
        Bound::Excluded(v) => Bound::Excluded(release_version(&v)?),
    })
}

/// A Cargo requirement as a Journal requirement, exactly (see the module doc).
pub fn convert_requirement(req: &str) -> Result<VersionRequirement, String> {
    let parsed =
        semver::VersionReq::parse(req).map_err(|e| format!("unparsable requirement: {e}"))?;
    let mut lower = Bound::Unbounded;
    let mut upper = Bound::Unbounded;
    for c in &parsed.comparators {
        let (l, u) = comparator_bounds(c)?;
        lower = max_lower(lower, l);
        upper = min_upper(upper, u);
    }
    match (&lower, &upper) {
        (Bound::Unbounded, Bound::Unbounded) => return Ok(VersionRequirement::any()),
        (Bound::Included(a), Bound::Included(b)) if a == b => {
            let exact = release_version(a)?;
            return Ok(VersionRequirement::exact(exact));
        }
        _ => {}
    }
    VersionRequirement::interval(release_bound(lower)?, release_bound(upper)?)
        .map_err(|_| "the comparators cannot all hold (empty intersection)".to_owned())
}
