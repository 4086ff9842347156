//! Composed, immutable domain objects: what a Journal revision says.
//!
//! A [`JournalRevision`] is one artifact's complete worldview at one
//! instant: its releases ([`ArtifactRelease`], each with
//! [`Dependency`]s, [`Exclusion`]s and [`Preference`]s) and its
//! [`PolicyStatement`]s, whose effect on each release is that release's
//! [`ReleasePolicy`]. Both are cheap to clone (`Arc` inside) and
//! `Send + Sync`.
//!
//! Revisions and releases are built with [`RevisionBuilder`] and
//! [`ReleaseBuilder`], which enforce the semantic rules of sections 4 and 5
//! of the format one statement at a time (so a parser can locate the
//! offending line), and cannot produce a revision that breaks them.
//!
//! ```
//! use nenjim_journal_api::model::{ArtifactRelease, JournalRevision, PolicyStatement};
//! use nenjim_journal_api::valuetypes::*;
//! # fn main() -> Result<(), nenjim_journal_api::error::JournalError> {
//! let coordinate: ArtifactCoordinate = "left-pad".parse()?;
//! let mut revision = JournalRevision::builder(
//!     coordinate.clone(),
//!     "20261129T101530Z".parse()?,
//!     None,
//!     Description::new("pads strings on the left")?,
//! );
//! let release = ArtifactRelease::builder(
//!     coordinate,
//!     "1.0.0".parse()?,
//!     "MIT".parse()?,
//!     ContentPointer::new(ContentDigest::of_bytes(b"blob"), 4),
//! )
//! .build();
//! revision.push_release(release)?;
//! revision.push_policy(PolicyStatement::Recommend { version: "1.0.0".parse()? })?;
//! let revision = revision.build(RevisionDigest::of_text("the text it came from"));
//! assert!(revision.releases()[0].policy().is_recommended());
//! # Ok(()) }
//! ```

mod event;
pub use event::{EventChange, EventCursor, JournalEvent};

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use crate::error::{ErrorKind, JournalError};
use crate::valuetypes::{
    ArtifactCoordinate, ContentPointer, Description, InformationUri, JournalVersion,
    LicenseExpression, ReleaseVersion, RevisionDigest, VersionRequirement,
};

fn semantic(message: impl Into<String>) -> JournalError {
    JournalError::new(ErrorKind::Semantic, message)
}

/// A `DEPENDS` line: the release needs `artifact` in `requirement`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dependency {
    artifact: ArtifactCoordinate,
    requirement: VersionRequirement,
    description: Option<Description>,
}

impl Dependency {
    /// A dependency on `artifact` in `requirement`, with an optional description.
    pub fn new(
        artifact: ArtifactCoordinate,
        requirement: VersionRequirement,
        description: Option<Description>,
    ) -> Dependency {
        Dependency {
            artifact,
            requirement,
            description,
        }
    }
    /// The artifact depended on.
    pub fn artifact(&self) -> &ArtifactCoordinate {
        &self.artifact
    }
    /// The versions that satisfy the dependency.
    pub fn requirement(&self) -> &VersionRequirement {
        &self.requirement
    }
    /// The optional description.
    pub fn description(&self) -> Option<&Description> {
        self.description.as_ref()
    }
}

/// An `EXCLUDES` line: `artifact` (in `requirement`, or in every version when
/// there is none) must never be in this release's dependency graph.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Exclusion {
    artifact: ArtifactCoordinate,
    requirement: Option<VersionRequirement>,
    description: Option<Description>,
}

impl Exclusion {
    /// An exclusion of `artifact`, in `requirement` or in every version.
    pub fn new(
        artifact: ArtifactCoordinate,
        requirement: Option<VersionRequirement>,
        description: Option<Description>,
    ) -> Exclusion {
        Exclusion {
            artifact,
            requirement,
            description,
        }
    }
    /// The excluded artifact.
    pub fn artifact(&self) -> &ArtifactCoordinate {
        &self.artifact
    }
    /// The excluded versions; `None` means all of them.
    pub fn requirement(&self) -> Option<&VersionRequirement> {
        self.requirement.as_ref()
    }
    /// The optional description.
    pub fn description(&self) -> Option<&Description> {
        self.description.as_ref()
    }
}

/// A `PREFERS` line: where several versions of `artifact` would do, those in
/// `requirement` are chosen first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Preference {
    artifact: ArtifactCoordinate,
    requirement: VersionRequirement,
    description: Option<Description>,
}

impl Preference {
    /// A preference for `artifact` in `requirement`.
    pub fn new(
        artifact: ArtifactCoordinate,
        requirement: VersionRequirement,
        description: Option<Description>,
    ) -> Preference {
        Preference {
            artifact,
            requirement,
            description,
        }
    }
    /// The artifact the preference is about.
    pub fn artifact(&self) -> &ArtifactCoordinate {
        &self.artifact
    }
    /// The preferred versions.
    pub fn requirement(&self) -> &VersionRequirement {
        &self.requirement
    }
    /// The optional description.
    pub fn description(&self) -> Option<&Description> {
        self.description.as_ref()
    }
}

/// A policy statement of a revision (section 5).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PolicyStatement {
    /// Matching releases stay queryable but must not be chosen by a new resolution.
    Yank {
        /// The releases yanked.
        requirement: VersionRequirement,
        /// Why.
        reason: Description,
    },
    /// Matching releases may be chosen, with a warning.
    Deprecate {
        /// The releases deprecated.
        requirement: VersionRequirement,
        /// Why.
        reason: Description,
    },
    /// The release the publisher recommends by default.
    Recommend {
        /// The recommended release.
        version: ReleaseVersion,
    },
}

impl PolicyStatement {
    /// The reason of a YANK or DEPRECATE.
    fn reason(&self) -> Option<&Description> {
        match self {
            PolicyStatement::Yank { reason, .. } | PolicyStatement::Deprecate { reason, .. } => {
                Some(reason)
            }
            PolicyStatement::Recommend { .. } => None,
        }
    }

    /// The requirement of a YANK or DEPRECATE.
    fn requirement(&self) -> Option<&VersionRequirement> {
        match self {
            PolicyStatement::Yank { requirement, .. }
            | PolicyStatement::Deprecate { requirement, .. } => Some(requirement),
            PolicyStatement::Recommend { .. } => None,
        }
    }
}

/// The policy context of a release in one revision: yanked or not,
/// deprecated or not (each with its reason), recommended or not.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReleasePolicy {
    yanked: Option<Description>,
    deprecated: Option<Description>,
    recommended: bool,
}

impl ReleasePolicy {
    /// The yank reason, if the release is yanked.
    pub fn yanked(&self) -> Option<&Description> {
        self.yanked.as_ref()
    }
    /// The deprecation reason, if the release is deprecated.
    pub fn deprecated(&self) -> Option<&Description> {
        self.deprecated.as_ref()
    }
    /// Whether the release is the recommended one.
    pub fn is_recommended(&self) -> bool {
        self.recommended
    }
}

/// The immutable part of a release, shared between revisions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ReleaseBody {
    coordinate: ArtifactCoordinate,
    version: ReleaseVersion,
    license: LicenseExpression,
    content: ContentPointer,
    description: Option<Description>,
    dependencies: Box<[Dependency]>,
    exclusions: Box<[Exclusion]>,
    preferences: Box<[Preference]>,
}

/// One release of an artifact as a revision sees it: its immutable values
/// (license, content, description, dependencies, exclusions, preferences)
/// and its policy context in that revision.
///
/// Cheap to clone: the values are shared (`Arc`), and a successor revision
/// shares the values of every release it keeps unchanged.
#[derive(Clone)]
pub struct ArtifactRelease {
    body: Arc<ReleaseBody>,
    /// `None` for the empty policy context (not yanked, not deprecated, not
    /// recommended), which most releases have: a release is two pointers.
    /// Never `Some` of the empty context, so that the derived comparisons
    /// below would agree with comparing [`ArtifactRelease::policy`].
    policy: Option<Arc<ReleasePolicy>>,
}

/// The empty policy context that [`ArtifactRelease::policy`] returns for a
/// release without one.
static NO_POLICY: ReleasePolicy = ReleasePolicy {
    yanked: None,
    deprecated: None,
    recommended: false,
};

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
    /// Starts a release of `coordinate` (the revision's artifact).
    pub fn builder(
        coordinate: ArtifactCoordinate,
        version: ReleaseVersion,
        license: LicenseExpression,
        content: ContentPointer,
    ) -> ReleaseBuilder {
        ReleaseBuilder {
            body: ReleaseBody {
                coordinate,
                version,
                license,
                content,
                description: None,
                dependencies: Box::default(),
                exclusions: Box::default(),
                preferences: Box::default(),
            },
            dependencies: Targets::default(),
            exclusions: Targets::default(),
            preferences: Targets::default(),
        }
    }

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
    /// release immutability test of section 6.
    pub fn same_values(&self, other: &ArtifactRelease) -> bool {
        let (a, b) = (&*self.body, &*other.body);
        if Arc::ptr_eq(&self.body, &other.body) {
            return true;
        }
        a.coordinate == b.coordinate
            && a.version == b.version
            && a.license == b.license
            && a.content == b.content
            && a.description == b.description
            && same_set(&a.dependencies, &b.dependencies, |d| &d.artifact)
            && same_set(&a.exclusions, &b.exclusions, |d| &d.artifact)
            && same_set(&a.preferences, &b.preferences, |d| &d.artifact)
    }

    /// Whether the two share one stored copy of their values (structural sharing).
    pub fn shares_values_with(&self, other: &ArtifactRelease) -> bool {
        Arc::ptr_eq(&self.body, &other.body)
    }

    /// This release's values with `policy` (`None`: the empty context).
    fn with_policy(&self, policy: Option<Arc<ReleasePolicy>>) -> ArtifactRelease {
        debug_assert!(policy.as_deref() != Some(&NO_POLICY));
        ArtifactRelease {
            body: Arc::clone(&self.body),
            policy,
        }
    }
}

/// Compares two lists whose items are unique by artifact as sets.
fn same_set<T: PartialEq>(a: &[T], b: &[T], key: impl Fn(&T) -> &ArtifactCoordinate) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a == b {
        return true;
    }
    let mut a: Vec<&T> = a.iter().collect();
    let mut b: Vec<&T> = b.iter().collect();
    a.sort_by(|x, y| key(x).cmp(key(y)));
    b.sort_by(|x, y| key(x).cmp(key(y)));
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

/// Builds an [`ArtifactRelease`], refusing the semantic errors of section 4
/// as each line is added: an artifact named twice in one list, an artifact
/// both depended on and excluded, and a dependency on or exclusion of the
/// release's own artifact.
#[derive(Debug)]
pub struct ReleaseBuilder {
    body: ReleaseBody,
    dependencies: Targets<Dependency>,
    exclusions: Targets<Exclusion>,
    preferences: Targets<Preference>,
}

/// One list of a release (its DEPENDS, EXCLUDES or PREFERS lines) and the
/// artifacts it names, for the duplicate checks:
/// a linear scan of the list while it is short (a release names a handful of
/// artifacts; hashing each costs more than comparing a few), a hash set once
/// it reaches [`Targets::SCAN`] entries, so a hostile release with 100 000
/// dependencies still costs O(n).
#[derive(Debug)]
struct Targets<T> {
    items: Vec<T>,
    index: Option<HashSet<ArtifactCoordinate>>,
}

impl<T> Default for Targets<T> {
    fn default() -> Self {
        Targets {
            items: Vec::new(),
            index: None,
        }
    }
}

/// A line of a release that names an artifact (`DEPENDS`, `EXCLUDES`, `PREFERS`).
trait Target {
    fn target(&self) -> &ArtifactCoordinate;
}

impl Target for Dependency {
    fn target(&self) -> &ArtifactCoordinate {
        &self.artifact
    }
}

impl Target for Exclusion {
    fn target(&self) -> &ArtifactCoordinate {
        &self.artifact
    }
}

impl Target for Preference {
    fn target(&self) -> &ArtifactCoordinate {
        &self.artifact
    }
}

impl<T: Target> Targets<T> {
    const SCAN: usize = 16;

    fn contains(&self, artifact: &ArtifactCoordinate) -> bool {
        match &self.index {
            Some(index) => index.contains(artifact),
            None => self.items.iter().any(|item| item.target() == artifact),
        }
    }

    /// Adds `item`, whose artifact is known to be absent.
    fn push(&mut self, item: T) {
        match &mut self.index {
            Some(index) => {
                index.insert(item.target().clone());
            }
            None if self.items.len() + 1 >= Self::SCAN => {
                let mut index: HashSet<ArtifactCoordinate> =
                    self.items.iter().map(|i| i.target().clone()).collect();
                index.insert(item.target().clone());
                self.index = Some(index);
            }
            None => {}
        }
        if self.items.capacity() == 0 {
            // Lists are short (a dozen dependencies is a lot): one
            // allocation for most, instead of growing 1, 2, 4, 8 (`build`
            // shrinks it to fit).
            self.items.reserve_exact(8);
        }
        self.items.push(item);
    }
}

impl ReleaseBuilder {
    /// Sets the release's description.
    pub fn description(&mut self, description: Description) -> &mut ReleaseBuilder {
        self.body.description = Some(description);
        self
    }

    /// The version of the release being built.
    pub fn version(&self) -> &ReleaseVersion {
        &self.body.version
    }

    /// Adds a `DEPENDS` line.
    pub fn push_dependency(&mut self, dependency: Dependency) -> Result<(), JournalError> {
        let artifact = &dependency.artifact;
        if *artifact == self.body.coordinate {
            return Err(semantic(format!(
                "found a dependency of {} {} on its own artifact, expected another artifact",
                self.body.coordinate, self.body.version
            )));
        }
        if self.exclusions.contains(artifact) {
            return Err(semantic(format!(
                "found a dependency on {artifact}, which release {} also excludes; expected one or the other",
                self.body.version
            )));
        }
        if self.dependencies.contains(artifact) {
            return Err(semantic(format!(
                "found a second DEPENDS on {artifact} in release {}, expected each artifact once",
                self.body.version
            )));
        }
        self.dependencies.push(dependency);
        Ok(())
    }

    /// Adds an `EXCLUDES` line.
    pub fn push_exclusion(&mut self, exclusion: Exclusion) -> Result<(), JournalError> {
        let artifact = &exclusion.artifact;
        if *artifact == self.body.coordinate {
            return Err(semantic(format!(
                "found an exclusion of {} by its own release {}, expected another artifact",
                self.body.coordinate, self.body.version
            )));
        }
        if self.dependencies.contains(artifact) {
            return Err(semantic(format!(
                "found an exclusion of {artifact}, which release {} also depends on; expected one or the other",
                self.body.version
            )));
        }
        if self.exclusions.contains(artifact) {
            return Err(semantic(format!(
                "found a second EXCLUDES of {artifact} in release {}, expected each artifact once",
                self.body.version
            )));
        }
        self.exclusions.push(exclusion);
        Ok(())
    }

    /// Adds a `PREFERS` line.
    pub fn push_preference(&mut self, preference: Preference) -> Result<(), JournalError> {
        let artifact = &preference.artifact;
        if self.preferences.contains(artifact) {
            return Err(semantic(format!(
                "found a second PREFERS of {artifact} in release {}, expected each artifact once",
                self.body.version
            )));
        }
        self.preferences.push(preference);
        Ok(())
    }

    /// The finished release (with an empty policy context until it is part of a revision).
    pub fn build(self) -> ArtifactRelease {
        let mut body = self.body;
        body.dependencies = self.dependencies.items.into_boxed_slice();
        body.exclusions = self.exclusions.items.into_boxed_slice();
        body.preferences = self.preferences.items.into_boxed_slice();
        ArtifactRelease {
            body: Arc::new(body),
            policy: None,
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct RevisionInner {
    coordinate: ArtifactCoordinate,
    journal_version: JournalVersion,
    digest: RevisionDigest,
    predecessor: Option<RevisionDigest>,
    description: Description,
    information: Option<InformationUri>,
    releases: Box<[ArtifactRelease]>,
    policy: Box<[PolicyStatement]>,
    sequence: u64,
}

impl RevisionInner {
    /// Replaces values equal to one of `older`'s by `older`'s copy (see
    /// [`JournalRevision::sharing_releases_with`]).
    fn share_with(&mut self, older: &RevisionInner) {
        share(&mut self.coordinate, Some(&older.coordinate));
        share(&mut self.description, Some(&older.description));
        if let Some(information) = &mut self.information {
            share(information, older.information.as_ref());
        }

        // Policy statements: an equal statement of `older` (a restated one)
        // is taken whole, otherwise an equal requirement or reason.
        let reasons: Vec<&Description> = older
            .policy
            .iter()
            .filter_map(PolicyStatement::reason)
            .collect();
        for statement in self.policy.iter_mut() {
            if let Some(same) = older.policy.iter().find(|s| *s == statement) {
                *statement = same.clone();
                continue;
            }
            if let PolicyStatement::Yank {
                requirement,
                reason,
            }
            | PolicyStatement::Deprecate {
                requirement,
                reason,
            } = statement
            {
                let requirements = older.policy.iter().filter_map(PolicyStatement::requirement);
                share_from(requirement, requirements);
                share_from(reason, reasons.iter().copied());
            }
        }

        // The releases' policy contexts: an equal context of `older`, or one
        // rebuilt on the (now shared) reasons of this revision's statements.
        let reasons: Vec<&Description> = self
            .policy
            .iter()
            .filter_map(PolicyStatement::reason)
            .collect();
        let mut contexts: Vec<&Arc<ReleasePolicy>> = Vec::new();
        for release in older.releases.iter() {
            if let Some(p) = &release.policy
                && !contexts.iter().any(|c| Arc::ptr_eq(c, p))
            {
                contexts.push(p);
            }
        }
        let mut rebuilt: Vec<(Arc<ReleasePolicy>, Arc<ReleasePolicy>)> = Vec::new();
        for release in self.releases.iter_mut() {
            let Some(policy) = &mut release.policy else {
                continue;
            };
            if let Some(same) = contexts.iter().find(|c| ***c == *policy) {
                *policy = Arc::clone(same);
            } else if let Some((_, new)) = rebuilt.iter().find(|(old, _)| Arc::ptr_eq(old, policy))
            {
                *policy = Arc::clone(new);
            } else {
                let mut context = ReleasePolicy::clone(policy);
                for reason in [&mut context.yanked, &mut context.deprecated]
                    .into_iter()
                    .flatten()
                {
                    share_from(reason, reasons.iter().copied());
                }
                let new = Arc::new(context);
                rebuilt.push((Arc::clone(policy), Arc::clone(&new)));
                *policy = new;
            }
        }

        // The release bodies: an equal body of `older`, or this revision's
        // own body on the shared coordinate.
        for release in self.releases.iter_mut() {
            match older
                .releases
                .binary_search_by(|r| r.version().cmp(release.version()))
                .ok()
                .and_then(|i| older.releases.get(i))
            {
                Some(old) if Arc::ptr_eq(&old.body, &release.body) => {}
                Some(old) if *old.body == *release.body => {
                    release.body = Arc::clone(&old.body);
                }
                _ if !release.body.coordinate.shares_text_with(&self.coordinate)
                    && release.body.coordinate == self.coordinate =>
                {
                    let mut body = ReleaseBody::clone(&release.body);
                    body.coordinate = self.coordinate.clone();
                    release.body = Arc::new(body);
                }
                _ => {}
            }
        }
    }
}

/// Replaces `value` by `shared` when they are equal (a reference count
/// instead of a second copy).
fn share<T: PartialEq + Clone>(value: &mut T, shared: Option<&T>) {
    if let Some(shared) = shared
        && *shared == *value
    {
        *value = shared.clone();
    }
}

/// Replaces `value` by the first equal item of `pool`.
fn share_from<'a, T: PartialEq + Clone + 'a>(value: &mut T, pool: impl IntoIterator<Item = &'a T>) {
    if let Some(shared) = pool.into_iter().find(|s| **s == *value) {
        *value = shared.clone();
    }
}

/// One immutable revision of an artifact's Journal: its complete worldview
/// at one instant, identified by the SHA-256 of its exact text.
///
/// Cheap to clone (`Arc` inside). Equality compares everything, digest and
/// sequence included; [`same_worldview`](JournalRevision::same_worldview)
/// compares what the text says, ignoring both.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct JournalRevision(Arc<RevisionInner>);

impl JournalRevision {
    /// Starts a revision from its header.
    pub fn builder(
        coordinate: ArtifactCoordinate,
        journal_version: JournalVersion,
        predecessor: Option<RevisionDigest>,
        description: Description,
    ) -> RevisionBuilder {
        RevisionBuilder {
            coordinate,
            journal_version,
            predecessor,
            description,
            information: None,
            releases: Vec::new(),
            policy: Vec::new(),
            yanked: Vec::new(),
            deprecated: Vec::new(),
            recommended: None,
        }
    }

    /// The artifact (`ARTIFACT`).
    pub fn coordinate(&self) -> &ArtifactCoordinate {
        &self.0.coordinate
    }
    /// The revision's instant (`JOURNAL_VERSION`).
    pub fn journal_version(&self) -> JournalVersion {
        self.0.journal_version
    }
    /// SHA-256 of the exact text.
    pub fn digest(&self) -> &RevisionDigest {
        &self.0.digest
    }
    /// The predecessor's digest; `None` for the genesis.
    pub fn predecessor(&self) -> Option<&RevisionDigest> {
        self.0.predecessor.as_ref()
    }
    /// Whether this is the artifact's genesis (`PREDECESSOR GENESIS`).
    pub fn is_genesis(&self) -> bool {
        self.0.predecessor.is_none()
    }
    /// The artifact's description (`DESCRIPTION`).
    pub fn description(&self) -> &Description {
        &self.0.description
    }
    /// The optional `INFORMATION` URI.
    pub fn information(&self) -> Option<&InformationUri> {
        self.0.information.as_ref()
    }
    /// Every release, in ascending SemVer precedence, each with its policy context.
    pub fn releases(&self) -> &[ArtifactRelease] {
        &self.0.releases
    }
    /// The release with `version`, found by binary search.
    pub fn release(&self, version: &ReleaseVersion) -> Option<&ArtifactRelease> {
        self.0
            .releases
            .binary_search_by(|r| r.version().cmp(version))
            .ok()
            .and_then(|i| self.0.releases.get(i))
    }
    /// The policy statements, in text order.
    pub fn policy(&self) -> &[PolicyStatement] {
        &self.0.policy
    }
    /// The place of this revision in the order of accepted ingestions
    /// (1, 2, 3 …); 0 for a revision that has not been ingested.
    pub fn sequence(&self) -> u64 {
        self.0.sequence
    }

    /// Whether `other` says the same thing: equal in everything but digest and sequence.
    pub fn same_worldview(&self, other: &JournalRevision) -> bool {
        let (a, b) = (&*self.0, &*other.0);
        a.coordinate == b.coordinate
            && a.journal_version == b.journal_version
            && a.predecessor == b.predecessor
            && a.description == b.description
            && a.information == b.information
            && a.releases == b.releases
            && a.policy == b.policy
    }

    /// This revision with its ingestion sequence number set (used by
    /// ingestion). Changed in place when this is the only handle to it,
    /// copied otherwise.
    #[must_use]
    pub fn with_sequence(self, sequence: u64) -> JournalRevision {
        self.changed(|inner| inner.sequence = sequence)
    }

    /// This revision with every release whose values equal (in the same
    /// order) a release of `older` sharing `older`'s stored values, so that a
    /// chain stores each release's values once (used by ingestion).
    ///
    /// The header values (coordinate, description, information), the policy
    /// statements' requirements and reasons, and the releases' policy
    /// contexts that equal one of `older`'s share `older`'s copy too, and the
    /// releases new in this revision refer to the shared coordinate, so that
    /// a successor that restates its predecessor adds little more than its
    /// new releases. Sharing never changes a value: the result is equal to
    /// `self`. Changed in place when this is the only handle to it, copied
    /// otherwise.
    #[must_use]
    pub fn sharing_releases_with(self, older: &JournalRevision) -> JournalRevision {
        self.changed(|inner| inner.share_with(&older.0))
    }

    /// `change` applied in place if this is the only handle, else to a copy.
    fn changed(mut self, change: impl FnOnce(&mut RevisionInner)) -> JournalRevision {
        match Arc::get_mut(&mut self.0) {
            Some(inner) => {
                change(inner);
                self
            }
            None => self.rebuilt(change),
        }
    }

    fn rebuilt(&self, change: impl FnOnce(&mut RevisionInner)) -> JournalRevision {
        let a = &*self.0;
        let mut inner = RevisionInner {
            coordinate: a.coordinate.clone(),
            journal_version: a.journal_version,
            digest: a.digest,
            predecessor: a.predecessor,
            description: a.description.clone(),
            information: a.information.clone(),
            releases: a.releases.clone(),
            policy: a.policy.clone(),
            sequence: a.sequence,
        };
        change(&mut inner);
        JournalRevision(Arc::new(inner))
    }
}

impl fmt::Debug for JournalRevision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = &*self.0;
        f.debug_struct("JournalRevision")
            .field("coordinate", &a.coordinate)
            .field("journal_version", &a.journal_version)
            .field("digest", &a.digest)
            .field("predecessor", &a.predecessor)
            .field("description", &a.description)
            .field("information", &a.information)
            .field("releases", &a.releases)
            .field("policy", &a.policy)
            .field("sequence", &a.sequence)
            .finish()
    }
}

/// Builds a [`JournalRevision`], refusing the semantic errors of sections 4
/// and 5 as each release and statement is added: releases out of ascending
/// precedence, a release of another artifact, a release after a policy
/// statement, a YANK or DEPRECATE that matches no release or overlaps
/// another of its kind, a second RECOMMEND, or a RECOMMEND of a missing or
/// yanked release.
#[derive(Debug)]
pub struct RevisionBuilder {
    coordinate: ArtifactCoordinate,
    journal_version: JournalVersion,
    predecessor: Option<RevisionDigest>,
    description: Description,
    information: Option<InformationUri>,
    releases: Vec<ArtifactRelease>,
    policy: Vec<PolicyStatement>,
    /// Per release: the reason of the YANK that matches it.
    yanked: Vec<Option<Description>>,
    /// Per release: the reason of the DEPRECATE that matches it.
    deprecated: Vec<Option<Description>>,
    recommended: Option<usize>,
}

impl RevisionBuilder {
    /// Sets the `INFORMATION` URI.
    pub fn information(&mut self, uri: InformationUri) -> &mut RevisionBuilder {
        self.information = Some(uri);
        self
    }

    /// The artifact of the revision being built.
    pub fn coordinate(&self) -> &ArtifactCoordinate {
        &self.coordinate
    }

    /// Checks, without adding anything, that a release with `version` may
    /// come next: no policy statement yet, and strictly above the previous
    /// release. [`push_release`](Self::push_release) makes the same check; a
    /// parser calls this at the `RELEASE` line, before reading the block, so
    /// that the first error in text order is the one reported.
    pub fn check_next_release(&self, version: &ReleaseVersion) -> Result<(), JournalError> {
        if !self.policy.is_empty() {
            return Err(JournalError::new(
                ErrorKind::Syntax,
                format!(
                    "found RELEASE {version} after a policy statement, expected releases before policy"
                ),
            ));
        }
        if let Some(last) = self.releases.last()
            && version <= last.version()
        {
            let what = if version == last.version() {
                "a duplicate of"
            } else {
                "lower than"
            };
            return Err(semantic(format!(
                "found RELEASE {version}, {what} the previous release {}; expected releases in strictly ascending SemVer precedence",
                last.version()
            )));
        }
        Ok(())
    }

    /// Adds the next release (ascending precedence, before any policy statement).
    pub fn push_release(&mut self, release: ArtifactRelease) -> Result<(), JournalError> {
        self.check_next_release(release.version())?;
        if *release.coordinate() != self.coordinate {
            return Err(semantic(format!(
                "found a release of {}, expected a release of {}",
                release.coordinate(),
                self.coordinate
            )));
        }
        self.releases.push(release);
        self.yanked.push(None);
        self.deprecated.push(None);
        Ok(())
    }

    /// Adds the next policy statement.
    pub fn push_policy(&mut self, statement: PolicyStatement) -> Result<(), JournalError> {
        match &statement {
            PolicyStatement::Yank {
                requirement,
                reason,
            } => {
                let matched = self.mark(requirement, reason, true, "YANK")?;
                if let Some(r) = self.recommended
                    && matched.contains(&r)
                {
                    return Err(semantic(format!(
                        "found YANK {requirement} matching the recommended release {}, expected the recommended release not to be yanked",
                        self.releases[r].version()
                    )));
                }
                for i in matched {
                    self.yanked[i] = Some(reason.clone());
                }
            }
            PolicyStatement::Deprecate {
                requirement,
                reason,
            } => {
                for i in self.mark(requirement, reason, false, "DEPRECATE")? {
                    self.deprecated[i] = Some(reason.clone());
                }
            }
            PolicyStatement::Recommend { version } => {
                if let Some(r) = self.recommended {
                    return Err(semantic(format!(
                        "found a second RECOMMEND ({version}; {} is already recommended), expected at most one",
                        self.releases[r].version()
                    )));
                }
                let Ok(i) = self.releases.binary_search_by(|r| r.version().cmp(version)) else {
                    return Err(semantic(format!(
                        "found RECOMMEND {version}, expected a release of this revision"
                    )));
                };
                if self.yanked[i].is_some() {
                    return Err(semantic(format!(
                        "found RECOMMEND {version}, which is yanked; expected a release that is not yanked"
                    )));
                }
                self.recommended = Some(i);
            }
        }
        self.policy.push(statement);
        Ok(())
    }

    /// The indexes of the releases `requirement` matches, checked to be at
    /// least one and not already matched by a statement of the same kind.
    fn mark(
        &self,
        requirement: &VersionRequirement,
        _reason: &Description,
        yank: bool,
        keyword: &str,
    ) -> Result<Vec<usize>, JournalError> {
        let start = match requirement.lower() {
            std::ops::Bound::Unbounded => 0,
            std::ops::Bound::Included(v) | std::ops::Bound::Excluded(v) => {
                self.releases.partition_point(|r| r.version() < v)
            }
        };
        let mut matched = Vec::new();
        for (i, release) in self.releases.iter().enumerate().skip(start) {
            if requirement.matches(release.version()) {
                matched.push(i);
            } else if !matched.is_empty() {
                break; // requirements are contiguous ranges in precedence order
            } else if let std::ops::Bound::Included(u) | std::ops::Bound::Excluded(u) =
                requirement.upper()
                && release.version() > u
            {
                break;
            }
        }
        if matched.is_empty() {
            return Err(semantic(format!(
                "found {keyword} {requirement} matching no release of this revision, expected a requirement that matches at least one"
            )));
        }
        let marks = if yank { &self.yanked } else { &self.deprecated };
        if let Some(&i) = matched.iter().find(|&&i| marks[i].is_some()) {
            return Err(semantic(format!(
                "found {keyword} {requirement} matching release {}, which an earlier {keyword} already matches; expected each release in at most one {keyword}",
                self.releases[i].version()
            )));
        }
        Ok(matched)
    }

    /// The finished revision, identified by the digest of the text it came from.
    pub fn build(self, digest: RevisionDigest) -> JournalRevision {
        // Releases matched by one statement are contiguous, so consecutive
        // equal contexts share one allocation; the empty one needs none.
        let mut previous: Option<Arc<ReleasePolicy>> = None;
        let releases: Box<[ArtifactRelease]> = self
            .releases
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let policy = ReleasePolicy {
                    yanked: self.yanked[i].clone(),
                    deprecated: self.deprecated[i].clone(),
                    recommended: self.recommended == Some(i),
                };
                let shared = if policy == NO_POLICY {
                    None
                } else if let Some(p) = previous.as_ref().filter(|p| ***p == policy) {
                    Some(Arc::clone(p))
                } else {
                    let p = Arc::new(policy);
                    previous = Some(Arc::clone(&p));
                    Some(p)
                };
                r.with_policy(shared)
            })
            .collect();
        JournalRevision(Arc::new(RevisionInner {
            coordinate: self.coordinate,
            journal_version: self.journal_version,
            digest,
            predecessor: self.predecessor,
            description: self.description,
            information: self.information,
            releases,
            policy: self.policy.into_boxed_slice(),
            sequence: 0,
        }))
    }
}

/// What a refresh did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RefreshReport {
    ingested: usize,
    unchanged: usize,
    unrecorded: usize,
}

impl RefreshReport {
    /// A report of `ingested` new revisions and `unchanged` idempotent re-reads.
    pub fn new(ingested: usize, unchanged: usize) -> RefreshReport {
        RefreshReport {
            ingested,
            unchanged,
            unrecorded: 0,
        }
    }
    /// This report, saying that `unrecorded` revision files were seen that
    /// the root's ledger does not record (and that were therefore not read).
    #[must_use]
    pub fn with_unrecorded(self, unrecorded: usize) -> RefreshReport {
        RefreshReport { unrecorded, ..self }
    }
    /// How many new revisions were accepted.
    pub fn ingested(&self) -> usize {
        self.ingested
    }
    /// How many files were re-read and found identical to stored revisions.
    pub fn unchanged(&self) -> usize {
        self.unchanged
    }
    /// How many revision files a root with a ledger holds that its ledger
    /// does not record: they are not part of the Journal (never loaded)
    /// until they are appended. Always 0 for a root without a ledger.
    pub fn unrecorded(&self) -> usize {
        self.unrecorded
    }
}

/// A request for the change feed: every revision with a sequence above
/// [`after_sequence`](ReplayRequest::after_sequence).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReplayRequest {
    after: u64,
    follow: bool,
}

impl ReplayRequest {
    /// Revisions after `sequence` (0 = from the start), not following.
    pub fn after(sequence: u64) -> ReplayRequest {
        ReplayRequest {
            after: sequence,
            follow: false,
        }
    }
    /// Whether to wait for future revisions once the backlog is drained.
    #[must_use]
    pub fn follow(self, follow: bool) -> ReplayRequest {
        ReplayRequest { follow, ..self }
    }
    /// The last sequence the consumer already has.
    pub fn after_sequence(&self) -> u64 {
        self.after
    }
    /// Whether the request asks to follow future revisions.
    pub fn is_follow(&self) -> bool {
        self.follow
    }
}

/// A cursor over replayed revisions, in ascending sequence order.
pub trait RevisionCursor: Send {
    /// The next revision; `Ok(None)` only when the backlog is drained.
    fn next(&mut self) -> Result<Option<JournalRevision>, JournalError>;
}

impl fmt::Debug for dyn RevisionCursor + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RevisionCursor")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

    use super::*;
    use crate::valuetypes::{ContentDigest, ContentPointer};

    fn release(coordinate: &ArtifactCoordinate, version: &str) -> ArtifactRelease {
        ArtifactRelease::builder(
            coordinate.clone(),
            version.parse().unwrap(),
            "MIT".parse().unwrap(),
            ContentPointer::new(ContentDigest::of_bytes(version.as_bytes()), 1),
        )
        .build()
    }

    fn revision(policy: &[&str]) -> JournalRevision {
        let coordinate: ArtifactCoordinate = "left-pad".parse().unwrap();
        let mut builder = JournalRevision::builder(
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
        assert!(r.releases()[0].same_values(&other.releases()[0]));
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
        let mut builder = JournalRevision::builder(
            coordinate.clone(),
            version.parse().unwrap(),
            None,
            Description::new(description).unwrap(),
        );
        builder.information("https://example.org/left-pad".parse().unwrap());
        for v in releases {
            let mut release = ArtifactRelease::builder(
                "left-pad".parse().unwrap(),
                v.parse().unwrap(),
                "MIT".parse().unwrap(),
                ContentPointer::new(ContentDigest::of_bytes(v.as_bytes()), 1),
            );
            release.description(Description::new(format!("release {v}")).unwrap());
            release
                .push_dependency(Dependency::new(
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
        let shared = second.clone().sharing_releases_with(&first);
        assert_eq!(shared, second);
        assert!(shared.same_worldview(&second));

        let (a, b) = (&*first.0, &*shared.0);
        assert!(a.coordinate.shares_text_with(&b.coordinate));
        assert!(same_text(&a.description, &b.description));
        // The kept releases share their values; the new one its coordinate.
        for (old, new) in a.releases.iter().zip(b.releases.iter()) {
            assert!(old.shares_values_with(new));
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
        let shared_third = third.clone().sharing_releases_with(&shared);
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
}
