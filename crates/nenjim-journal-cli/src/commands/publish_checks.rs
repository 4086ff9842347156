//! Checks at publish time: what the format accepts but a publisher most
//! likely did not mean, and can never change once written (a release is
//! immutable). The publishing commands (`release`, `append` of revision
//! files) run them over each *new* release of the revision about to be
//! appended, against the root as the writer holds it, and warn (text on
//! stderr, a `warnings` list in `--json`); with `--strict` any warning
//! refuses the command before anything is written.
//!
//! - a DEPENDS or PREFERS line naming an artifact the root does not hold
//!   (with the close names, as the read commands offer them);
//! - a DEPENDS requirement that matches no release of its artifact, or only
//!   yanked ones (in the artifact's latest revision);
//! - the rules `check` warns about forever after ([`crate::warnings`]):
//!   deprecated SPDX identifiers, an empty (0-byte) blob.

use std::path::Path;

use nenjim_journal_api::model::{ArtifactRelease, JournalRevision};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, VersionRequirement};
use nenjim_journal_chain::ChainState;

use super::similar;
use crate::failure::CliError;
use crate::report::path_text;
use crate::warnings;

/// The warnings about the releases of `revision` that its artifact's head
/// in `state` does not hold yet (every release of a genesis).
pub fn new_releases(state: &ChainState, root: &Path, revision: &JournalRevision) -> Vec<String> {
    let head = state.latest(revision.coordinate());
    let mut found = Vec::new();
    for release in revision.releases() {
        if head
            .as_ref()
            .is_some_and(|h| h.release(release.version()).is_some())
        {
            continue;
        }
        found.extend(release_warnings(state, root, release));
    }
    found
}

/// The warnings about one new release.
fn release_warnings(state: &ChainState, root: &Path, release: &ArtifactRelease) -> Vec<String> {
    let mut found = Vec::new();
    let here = || format!("{} {}", release.coordinate(), release.version());
    for dependency in release.dependencies() {
        let line = format!("DEPENDS {dependency}");
        found.extend(requirement_warning(
            state,
            root,
            &here(),
            &line,
            dependency.artifact(),
            Some(dependency.requirement()),
        ));
    }
    for preference in release.preferences() {
        let line = format!("PREFERS {preference}");
        found.extend(requirement_warning(
            state,
            root,
            &here(),
            &line,
            preference.artifact(),
            None,
        ));
    }
    found.extend(warnings::deprecated_licenses(release));
    found.extend(warnings::empty_content(release));
    found
}

/// A warning about a line naming `artifact`: unknown to the root, or (with
/// a `requirement`) matching no release, or only yanked ones.
fn requirement_warning(
    state: &ChainState,
    root: &Path,
    here: &str,
    line: &str,
    artifact: &ArtifactCoordinate,
    requirement: Option<&VersionRequirement>,
) -> Option<String> {
    let Some(target) = state.latest(artifact) else {
        let known = state.coordinates();
        let close = similar(
            artifact.as_str(),
            known.iter().map(ArtifactCoordinate::as_str),
        );
        let hint = if close.is_empty() {
            "expected an artifact of this root (create it first, or check the name)".to_owned()
        } else {
            format!("did you mean {}?", close.join(", "))
        };
        return Some(format!(
            "{here}: {line}: found no artifact `{artifact}` in {}; {hint}",
            path_text(root)
        ));
    };
    let requirement = requirement?;
    let matching: Vec<&ArtifactRelease> = target
        .releases()
        .iter()
        .filter(|r| requirement.matches(r.version()))
        .collect();
    let versions = |releases: &mut dyn Iterator<Item = &ArtifactRelease>| -> String {
        let listed: Vec<String> = releases.map(|r| r.version().to_string()).collect();
        if listed.is_empty() {
            "none".to_owned()
        } else {
            listed.join(", ")
        }
    };
    if matching.is_empty() {
        return Some(format!(
            "{here}: {line}: found no release of `{artifact}` matching `{requirement}` (its releases: {}); expected a requirement that a release satisfies",
            versions(&mut target.releases().iter())
        ));
    }
    if matching.iter().all(|r| r.policy().yanked().is_some()) {
        return Some(format!(
            "{here}: {line}: found only yanked releases of `{artifact}` matching `{requirement}` ({}); expected a requirement that a release not yanked satisfies",
            versions(&mut matching.iter().copied())
        ));
    }
    None
}

/// The refusal of `--strict` when there are `warnings`: nothing is written.
pub fn strict_refusal(warnings: &[String]) -> CliError {
    CliError::refused(
        "Strict",
        format!(
            "found {} with --strict, expected none; nothing written:\n  {}",
            crate::report::counted(warnings.len(), "warning"),
            warnings.join("\n  ")
        ),
    )
}
