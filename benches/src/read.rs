//! Reading every value of a revision once, as a consumer of whole records
//! does (issue 32: P2, P5 and P9 read each value once after the parse, so
//! that a model that decodes a value on first access pays for it there).

use std::hint::black_box;
use std::ops::Bound;

use nenjim_journal_api::model::{ArtifactRelease, JournalRevision};
use nenjim_journal_api::valuetypes::{ReleaseVersion, VersionRequirement};

/// Reads a version: its bytes, through its `Ord` (a comparison with itself).
fn version(v: &ReleaseVersion) -> usize {
    usize::from(black_box(v) == v)
}

/// Reads a requirement: each bound's version.
fn requirement(r: &VersionRequirement) -> usize {
    let bound = |b: Bound<&ReleaseVersion>| match b {
        Bound::Included(v) | Bound::Excluded(v) => version(v),
        Bound::Unbounded => 0,
    };
    bound(r.lower()) + bound(r.upper()) + usize::from(r.is_any())
}

/// Reads every value of `release` once; returns a count of what it read,
/// so that nothing is optimised away.
pub fn release(release: &ArtifactRelease) -> usize {
    let mut n = release.coordinate().as_str().len()
        + version(release.version())
        + release.license().as_str().len()
        + usize::from(release.content().digest().as_bytes()[0])
        + release.content().size() as usize;
    if let Some(d) = release.description() {
        n += d.as_str().len();
    }
    for d in release.dependencies() {
        n += d.artifact().as_str().len() + requirement(d.requirement());
        n += d.description().map_or(0, |d| d.as_str().len());
    }
    for x in release.exclusions() {
        n += x.artifact().as_str().len() + x.requirement().map_or(0, requirement);
        n += x.description().map_or(0, |d| d.as_str().len());
    }
    for p in release.preferences() {
        n += p.artifact().as_str().len() + requirement(p.requirement());
        n += p.description().map_or(0, |d| d.as_str().len());
    }
    black_box(release.policy());
    n
}

/// Reads every value of `revision` once (its header, every release's
/// values, every policy statement).
pub fn revision(revision: &JournalRevision) -> usize {
    let mut n = revision.coordinate().as_str().len() + revision.description().as_str().len();
    n += revision.information().map_or(0, |i| i.as_str().len());
    for r in revision.releases() {
        n += release(r);
    }
    for s in revision.policy() {
        black_box(s);
        n += 1;
    }
    n
}
