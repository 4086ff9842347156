//! [`ReleaseBuilder`]: the semantic rules of section 4 inside one release.

use std::collections::HashSet;
use std::sync::Arc;

use super::{exact, semantic};
use crate::error::JournalError;
use crate::model::lines::{Dependency, Exclusion, Preference, Target};
use crate::model::release::{ArtifactRelease, ReleaseBody};
use crate::valuetypes::{
    ArtifactCoordinate, ContentPointer, Description, LicenseExpression, ReleaseVersion,
};

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

impl<T: Target> Targets<T> {
    const SCAN: usize = 16;

    fn contains(&self, artifact: &ArtifactCoordinate) -> bool {
        match &self.index {
            Some(index) => index.contains(artifact),
            None => self.items.iter().any(|item| item.target() == artifact),
        }
    }

    /// Room for `n` more items (none asked for: nothing done).
    fn reserve(&mut self, n: usize) {
        if n > 0 {
            self.items.reserve_exact(n);
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
    /// Starts a release of `coordinate` (the revision's artifact).
    pub fn new(
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

    /// Makes room for `dependencies`, `exclusions` and `preferences` lines
    /// (how many the caller expects: a hint, neither a limit nor a promise),
    /// so that lists of that size are allocated once, at their final size.
    /// Without it a list starts with room for eight and is copied to its
    /// exact size by [`build`](Self::build).
    pub fn reserve(
        &mut self,
        dependencies: usize,
        exclusions: usize,
        preferences: usize,
    ) -> &mut ReleaseBuilder {
        self.dependencies.reserve(dependencies);
        self.exclusions.reserve(exclusions);
        self.preferences.reserve(preferences);
        self
    }

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
        let artifact = dependency.target();
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
        let artifact = exclusion.target();
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
        let artifact = preference.target();
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
        body.dependencies = exact(self.dependencies.items);
        body.exclusions = exact(self.exclusions.items);
        body.preferences = exact(self.preferences.items);
        ArtifactRelease {
            body: Arc::new(body),
            policy: None,
        }
    }
}
