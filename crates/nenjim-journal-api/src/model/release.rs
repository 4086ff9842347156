//! A release ([`ArtifactRelease`]): its immutable values, shared between
//! revisions, and its policy context in one revision.

use std::fmt;
use std::sync::Arc;

use super::lines::{Dependency, Exclusion, Preference, Target};
use super::policy::{NO_POLICY, ReleasePolicy};
use crate::valuetypes::{
    ArtifactCoordinate, ContentPointer, Description, LicenseExpression, ReleaseVersion,
};

/// The immutable part of a release, shared between revisions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ReleaseBody {
    pub(crate) coordinate: ArtifactCoordinate,
    pub(crate) version: ReleaseVersion,
    pub(crate) license: LicenseExpression,
    pub(crate) content: ContentPointer,
    pub(crate) description: Option<Description>,
    pub(crate) dependencies: Box<[Dependency]>,
    pub(crate) exclusions: Box<[Exclusion]>,
    pub(crate) preferences: Box<[Preference]>,
}

/// One release of an artifact as a revision sees it: its immutable values
/// (license, content, description, dependencies, exclusions, preferences)
/// and its policy context in that revision.
///
/// Cheap to clone: the values are shared (`Arc`), and a successor revision
/// shares the values of every release it keeps unchanged.
#[derive(Clone)]
pub struct ArtifactRelease {
    pub(crate) body: Arc<ReleaseBody>,
    /// `None` for the empty policy context (not yanked, not deprecated, not
    /// recommended), which most releases have: a release is two pointers.
    /// Never `Some` of the empty context, so that the derived comparisons
    /// below would agree with comparing [`ArtifactRelease::policy`].
    pub(crate) policy: Option<Arc<ReleasePolicy>>,
}

impl PartialEq for ArtifactRelease {
    fn eq(&self, other: &ArtifactRelease) -> bool {
        self.body == other.body && self.policy() == other.policy()
    }
}

impl Eq for ArtifactRelease {}

impl std::hash::Hash for ArtifactRelease {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.body.hash(state);
        self.policy().hash(state);
    }
}

impl ArtifactRelease {
    /// The artifact this is a release of.
    pub fn coordinate(&self) -> &ArtifactCoordinate {
        &self.body.coordinate
    }
    /// The release's version.
    pub fn version(&self) -> &ReleaseVersion {
        &self.body.version
    }
    /// The release's license.
    pub fn license(&self) -> &LicenseExpression {
        &self.body.license
    }
    /// The pointer to the release's blob.
    pub fn content(&self) -> &ContentPointer {
        &self.body.content
    }
    /// The optional description.
    pub fn description(&self) -> Option<&Description> {
        self.body.description.as_ref()
    }
    /// The `DEPENDS` lines, in text order.
    pub fn dependencies(&self) -> &[Dependency] {
        &self.body.dependencies
    }
    /// The `EXCLUDES` lines, in text order.
    pub fn exclusions(&self) -> &[Exclusion] {
        &self.body.exclusions
    }
    /// The `PREFERS` lines, in text order.
    pub fn preferences(&self) -> &[Preference] {
        &self.body.preferences
    }
    /// The release's policy context in the revision it was taken from.
    pub fn policy(&self) -> &ReleasePolicy {
        self.policy.as_deref().unwrap_or(&NO_POLICY)
    }

    /// Whether `other` has the same values (coordinate, version, license,
    /// content, description, dependencies, exclusions and preferences),
    /// comparing the three lists as sets, and ignoring policy. This is the
    /// release immutability test of section 6 (reached through
    /// [`build::same_values`](super::build::same_values)).
    pub(crate) fn same_values(&self, other: &ArtifactRelease) -> bool {
        let (a, b) = (&*self.body, &*other.body);
        if Arc::ptr_eq(&self.body, &other.body) {
            return true;
        }
        a.coordinate == b.coordinate
            && a.version == b.version
            && a.license == b.license
            && a.content == b.content
            && a.description == b.description
            && same_set(&a.dependencies, &b.dependencies)
            && same_set(&a.exclusions, &b.exclusions)
            && same_set(&a.preferences, &b.preferences)
    }

    /// Whether the two share one stored copy of their values (structural sharing).
    pub(crate) fn shares_values_with(&self, other: &ArtifactRelease) -> bool {
        Arc::ptr_eq(&self.body, &other.body)
    }
}

/// Compares two lists whose items are unique by artifact as sets.
fn same_set<T: PartialEq + Target>(a: &[T], b: &[T]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a == b {
        return true;
    }
    let mut a: Vec<&T> = a.iter().collect();
    let mut b: Vec<&T> = b.iter().collect();
    a.sort_by(|x, y| x.target().cmp(y.target()));
    b.sort_by(|x, y| x.target().cmp(y.target()));
    a == b
}

impl fmt::Debug for ArtifactRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArtifactRelease")
            .field("coordinate", &self.body.coordinate)
            .field("version", &self.body.version)
            .field("license", &self.body.license)
            .field("content", &self.body.content)
            .field("description", &self.body.description)
            .field("dependencies", &self.body.dependencies)
            .field("exclusions", &self.body.exclusions)
            .field("preferences", &self.body.preferences)
            .field("policy", self.policy())
            .finish()
    }
}
