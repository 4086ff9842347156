//! The lines of a release that name another artifact: `DEPENDS`,
//! `EXCLUDES` and `PREFERS`.
//!
//! The three share one private representation, [`Line`], and one rendering
//! of what follows the keyword, `artifact [requirement] [description]`: the
//! `Display` of each type, which the parser's renderer, the chain's rewrite
//! message and the command line all write.

use std::fmt;

use crate::valuetypes::{ArtifactCoordinate, Description, VersionRequirement};

/// What a `DEPENDS`, `EXCLUDES` or `PREFERS` line holds; `R` is the
/// requirement (optional for `EXCLUDES` only).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Line<R> {
    pub(crate) artifact: ArtifactCoordinate,
    pub(crate) requirement: R,
    pub(crate) description: Option<Description>,
}

impl<R> Line<R> {
    /// Writes `artifact [requirement] [description]`, the line after its keyword.
    fn write(
        &self,
        requirement: Option<&VersionRequirement>,
        f: &mut fmt::Formatter<'_>,
    ) -> fmt::Result {
        write!(f, "{}", self.artifact)?;
        if let Some(requirement) = requirement {
            write!(f, " {requirement}")?;
        }
        if let Some(description) = &self.description {
            write!(f, " {description}")?;
        }
        Ok(())
    }
}

/// A `DEPENDS` line: the release needs `artifact` in `requirement`.
///
/// `Display` writes the line as it follows its keyword:
/// `artifact requirement ["description"]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dependency(pub(crate) Line<VersionRequirement>);

impl Dependency {
    /// The artifact depended on.
    pub fn artifact(&self) -> &ArtifactCoordinate {
        &self.0.artifact
    }
    /// The versions that satisfy the dependency.
    pub fn requirement(&self) -> &VersionRequirement {
        &self.0.requirement
    }
    /// The optional description.
    pub fn description(&self) -> Option<&Description> {
        self.0.description.as_ref()
    }
}

impl fmt::Display for Dependency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write(Some(&self.0.requirement), f)
    }
}

/// An `EXCLUDES` line: `artifact` (in `requirement`, or in every version when
/// there is none) must never be in this release's dependency graph.
///
/// `Display` writes the line as it follows its keyword:
/// `artifact [requirement] ["description"]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Exclusion(pub(crate) Line<Option<VersionRequirement>>);

impl Exclusion {
    /// The excluded artifact.
    pub fn artifact(&self) -> &ArtifactCoordinate {
        &self.0.artifact
    }
    /// The excluded versions; `None` means all of them.
    pub fn requirement(&self) -> Option<&VersionRequirement> {
        self.0.requirement.as_ref()
    }
    /// The optional description.
    pub fn description(&self) -> Option<&Description> {
        self.0.description.as_ref()
    }
}

impl fmt::Display for Exclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write(self.0.requirement.as_ref(), f)
    }
}

/// A `PREFERS` line: where several versions of `artifact` would do, those in
/// `requirement` are chosen first.
///
/// `Display` writes the line as it follows its keyword:
/// `artifact requirement ["description"]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Preference(pub(crate) Line<VersionRequirement>);

impl Preference {
    /// The artifact the preference is about.
    pub fn artifact(&self) -> &ArtifactCoordinate {
        &self.0.artifact
    }
    /// The preferred versions.
    pub fn requirement(&self) -> &VersionRequirement {
        &self.0.requirement
    }
    /// The optional description.
    pub fn description(&self) -> Option<&Description> {
        self.0.description.as_ref()
    }
}

impl fmt::Display for Preference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write(Some(&self.0.requirement), f)
    }
}

/// A line of a release that names an artifact (`DEPENDS`, `EXCLUDES`,
/// `PREFERS`): its key in the duplicate checks and in set comparisons.
pub(crate) trait Target {
    fn target(&self) -> &ArtifactCoordinate;
}

impl Target for Dependency {
    #[inline]
    fn target(&self) -> &ArtifactCoordinate {
        &self.0.artifact
    }
}

impl Target for Exclusion {
    #[inline]
    fn target(&self) -> &ArtifactCoordinate {
        &self.0.artifact
    }
}

impl Target for Preference {
    #[inline]
    fn target(&self) -> &ArtifactCoordinate {
        &self.0.artifact
    }
}
