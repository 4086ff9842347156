//! A revision ([`JournalRevision`]): one artifact's complete worldview at
//! one instant.

use std::fmt;
use std::sync::Arc;

use super::policy::PolicyStatement;
use super::release::ArtifactRelease;
use crate::valuetypes::{
    ArtifactCoordinate, Description, InformationUri, JournalVersion, ReleaseVersion, RevisionDigest,
};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RevisionInner {
    pub(crate) coordinate: ArtifactCoordinate,
    pub(crate) journal_version: JournalVersion,
    pub(crate) digest: RevisionDigest,
    pub(crate) predecessor: Option<RevisionDigest>,
    pub(crate) description: Description,
    pub(crate) information: Option<InformationUri>,
    pub(crate) releases: Box<[ArtifactRelease]>,
    pub(crate) policy: Box<[PolicyStatement]>,
    pub(crate) sequence: u64,
    /// Whether this revision's values were shared with its predecessor's
    /// (by [`sharing_releases_with`](super::build::sharing_releases_with)
    /// given a revision whose digest is `predecessor`): sharing again with
    /// the same predecessor changes nothing, and is skipped. Not part of
    /// the value (equality and hash ignore it).
    pub(crate) shared: SharedWithPredecessor,
}

/// A flag that equality and hashing ignore: it says how a revision is
/// stored, not what it says.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SharedWithPredecessor(pub(crate) bool);

impl PartialEq for SharedWithPredecessor {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for SharedWithPredecessor {}

impl std::hash::Hash for SharedWithPredecessor {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// One immutable revision of an artifact's Journal: its complete worldview
/// at one instant, identified by the SHA-256 of its exact text.
///
/// Cheap to clone (`Arc` inside). Equality compares everything, digest and
/// sequence included; [`same_worldview`](JournalRevision::same_worldview)
/// compares what the text says, ignoring both.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct JournalRevision(pub(crate) Arc<RevisionInner>);

impl JournalRevision {
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
    /// The place of this revision in the order of accepted ingestions,
    /// strictly increasing (1, 2, 3 … without a ledger; in a root with a
    /// ledger its entry's number, with a gap at each fence: see
    /// [`ReplayRequest`](crate::model::ReplayRequest)); 0 for a revision that
    /// has not been ingested.
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
