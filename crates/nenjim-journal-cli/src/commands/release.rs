//! `release <root> <coordinate> <version>... --license <spdx>... --content
//! <file>... [--store <store> [--create]] [--description <text>]
//! [--depends …]… [--excludes …]… [--prefers …]… [--strict] [--wait D]`:
//! put the blobs, then append the head's successor holding the new releases
//! (each in its place by precedence; the head's policy kept). The content
//! store is `--store`, else the one the root records (`init`); one that does
//! not exist is refused unless `--create`.
//!
//! Several versions are published in one revision: each takes the
//! `--content` at its position (and the `--license` there, unless one
//! license is given for all); the description and the DEPENDS, EXCLUDES
//! and PREFERS lines apply to each. A revision's JOURNAL_VERSION has a
//! resolution of one second and each successor must be later than its
//! head, so releases published one command each, faster than once a
//! second, are stamped ahead of the clock; one command for all of them
//! writes one revision, stamped now.
//!
//! A release the head already holds with the same values (license, content,
//! description, dependencies, exclusions, preferences) writes nothing; with
//! other values it is the chain's `ReleaseRewritten`, located at the release
//! in the head's file, and nothing is written.

use std::collections::BTreeSet;

use clap::CommandFactory as _;
use nenjim_journal_api::error::{ErrorContext as _, JournalError};
use nenjim_journal_api::model::ArtifactRelease;
use nenjim_journal_api::model::build;
use nenjim_journal_api::valuetypes::{
    ContentDigest, ContentPointer, LicenseExpression, ReleaseVersion,
};

use super::publish::{Publish, publish};
use crate::args::{Cli, ReleaseArgs};
use crate::failure::{CliError, Status};
use crate::ui::Ui;

pub fn run(args: &ReleaseArgs, ui: &Ui) -> Result<Status, CliError> {
    check_counts(args);
    let mut wanted = Vec::with_capacity(args.releases.len());
    let mut blobs = Vec::with_capacity(args.releases.len());
    // One license for all repeats; one per version is taken in order.
    let licenses = args.license.iter().cycle();
    for ((version, content), license) in args.releases.iter().zip(&args.content).zip(licenses) {
        let bytes = std::fs::read(content)
            .map_err(|e| CliError::io(content, "cannot read the release's content", e))?;
        let pointer = ContentPointer::new(ContentDigest::of_bytes(&bytes), bytes.len() as u64);
        wanted.push(build_release(args, version, license.clone(), pointer)?);
        blobs.push(bytes);
    }
    super::publish::require_root(&crate::address::locate(&args.root)?)?;
    let store = super::init::needed_store(&args.root, args.store.as_deref())?;
    super::init::require_store(&store, args.create)?;
    let what = Publish {
        command: "release",
        root: &args.root,
        store: Some(store),
        writing: &args.writing,
        coordinate: &args.coordinate,
        releases: &args.releases,
        strict: args.strict,
        content: wanted
            .iter()
            .map(|r| (r.version().clone(), *r.content()))
            .collect(),
        json: args.json,
    };
    let wanted: Vec<(ArtifactRelease, Vec<u8>)> = wanted.into_iter().zip(blobs).collect();
    publish(&what, ui, |head, at| {
        nenjim_journal_root::publish::plan_release(head, at, &wanted)
    })
}

/// Exits with a usage error (code 2) unless there is one `--content` per
/// version, one `--license` or one per version, and no version twice.
fn check_counts(args: &ReleaseArgs) {
    let versions = args.releases.len();
    let problem = if args.content.len() != versions {
        Some(format!(
            "found {} --content for {versions} version(s), expected one --content per version, in the same order",
            args.content.len()
        ))
    } else if args.license.len() != 1 && args.license.len() != versions {
        Some(format!(
            "found {} --license for {versions} versions, expected one for all or one per version",
            args.license.len()
        ))
    } else {
        let distinct: BTreeSet<&ReleaseVersion> = args.releases.iter().collect();
        (distinct.len() != versions)
            .then(|| "found a version named twice, expected each version once".to_owned())
    };
    if let Some(problem) = problem {
        let mut command = Cli::command();
        let release = command.find_subcommand_mut("release").cloned();
        release
            .unwrap_or(command)
            .error(clap::error::ErrorKind::WrongNumberOfValues, problem)
            .exit();
    }
}

/// The release the arguments describe; the builder refuses what section 4
/// refuses (an artifact named twice, a dependency on itself …).
fn build_release(
    args: &ReleaseArgs,
    version: &ReleaseVersion,
    license: LicenseExpression,
    pointer: ContentPointer,
) -> Result<ArtifactRelease, CliError> {
    let mut builder =
        build::ReleaseBuilder::new(args.coordinate.clone(), version.clone(), license, pointer);
    if let Some(description) = &args.description {
        builder.description(description.clone());
    }
    let refused = |option: &str, error: JournalError| -> CliError { error.context(option).into() };
    for d in &args.depends {
        builder
            .push_dependency(d.clone())
            .map_err(|e| refused("--depends", e))?;
    }
    for x in &args.excludes {
        builder
            .push_exclusion(x.clone())
            .map_err(|e| refused("--excludes", e))?;
    }
    for p in &args.prefers {
        builder
            .push_preference(p.clone())
            .map_err(|e| refused("--prefers", e))?;
    }
    Ok(builder.build())
}
