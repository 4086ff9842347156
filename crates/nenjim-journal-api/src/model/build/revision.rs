//! [`RevisionBuilder`]: the semantic rules of sections 4 (release order)
//! and 5 (policy), one statement at a time.

use std::sync::Arc;

use super::{exact, semantic};
use crate::error::{ErrorKind, JournalError};
use crate::model::policy::{NO_POLICY, PolicyStatement, ReleasePolicy};
use crate::model::release::ArtifactRelease;
use crate::model::revision::{JournalRevision, RevisionInner, SharedWithPredecessor};
use crate::valuetypes::{
    ArtifactCoordinate, Description, InformationUri, JournalVersion, ReleaseVersion,
    RevisionDigest, VersionRequirement,
};

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
    /// Per release: the reason of the YANK that matches it (sized at the
    /// first policy statement, which comes after the last release; empty
    /// in a revision without policy).
    yanked: Vec<Option<Description>>,
    /// Per release: the reason of the DEPRECATE that matches it (likewise).
    deprecated: Vec<Option<Description>>,
    recommended: Option<usize>,
}

impl RevisionBuilder {
    /// Starts a revision from its header.
    pub fn new(
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

    /// Makes room for `releases` releases (a hint, neither a limit nor a
    /// promise: a parser reading a successor knows about how many its
    /// predecessor had), so that the list is allocated once.
    pub fn reserve_releases(&mut self, releases: usize) -> &mut RevisionBuilder {
        self.releases.reserve_exact(releases);
        self
    }

    /// Sets the `INFORMATION` URI.
    pub fn information(&mut self, uri: InformationUri) -> &mut RevisionBuilder {
        self.information = Some(uri);
        self
    }

    /// The artifact of the revision being built.
    pub fn coordinate(&self) -> &ArtifactCoordinate {
        &self.coordinate
    }

    /// Checks, without adding anything, that a release may come next at
    /// all: no policy statement yet (section 5: releases come before
    /// policy). The one home of that rule: [`check_next_release`](Self::check_next_release)
    /// makes it, and a parser calls it at a `RELEASE` keyword, before it
    /// reads the version, so that the first error in text order is the one
    /// reported.
    pub fn check_release_allowed(&self) -> Result<(), JournalError> {
        if self.policy.is_empty() {
            return Ok(());
        }
        Err(JournalError::new(
            ErrorKind::Syntax,
            "found `RELEASE` after a policy statement, expected a policy statement (releases come before policy)",
        ))
    }

    /// Checks, without adding anything, that a release with `version` may
    /// come next: no policy statement yet, and strictly above the previous
    /// release. [`push_release`](Self::push_release) makes the same check; a
    /// parser calls this at the `RELEASE` line, before reading the block, so
    /// that the first error in text order is the one reported.
    pub fn check_next_release(&self, version: &ReleaseVersion) -> Result<(), JournalError> {
        self.check_release_allowed()?;
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
        Ok(())
    }

    /// Adds the next policy statement.
    pub fn push_policy(&mut self, statement: PolicyStatement) -> Result<(), JournalError> {
        // No release comes after a statement: the marks are sized once.
        if self.yanked.len() != self.releases.len() {
            self.yanked.resize(self.releases.len(), None);
            self.deprecated.resize(self.releases.len(), None);
        }
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
    ) -> Result<std::ops::Range<usize>, JournalError> {
        let start = match requirement.lower() {
            std::ops::Bound::Unbounded => 0,
            std::ops::Bound::Included(v) | std::ops::Bound::Excluded(v) => {
                self.releases.partition_point(|r| r.version() < v)
            }
        };
        // Requirements are contiguous ranges in precedence order: the
        // matched releases are one run of indexes.
        let mut matched = start..start;
        for (i, release) in self.releases.iter().enumerate().skip(start) {
            if requirement.matches(release.version()) {
                if matched.is_empty() {
                    matched.start = i;
                }
                matched.end = i + 1;
            } else if !matched.is_empty() {
                break;
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
        if let Some(i) = matched.clone().find(|&i| marks[i].is_some()) {
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
        let (yanked, deprecated) = (&self.yanked, &self.deprecated);
        let releases: Box<[ArtifactRelease]> = self
            .releases
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                let policy = ReleasePolicy {
                    yanked: yanked.get(i).cloned().flatten(),
                    deprecated: deprecated.get(i).cloned().flatten(),
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
                ArtifactRelease {
                    body: r.body,
                    policy: shared,
                }
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
            policy: exact(self.policy),
            sequence: 0,
            shared: SharedWithPredecessor::default(),
        }))
    }
}
