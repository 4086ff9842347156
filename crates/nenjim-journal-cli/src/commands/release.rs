//! `release <root> <coordinate> <version> --license <spdx> --content <file>
//! [--store <store> [--create]] [--description <text>] [--depends …]… [--excludes …]…
//! [--prefers …]…`: put the blob, then append the head's successor holding
//! the new release (in its place by precedence; the head's policy kept).
//! The content store is `--store`, else the one the root records (`init`);
//! one that does not exist is refused unless `--create`.
//!
//! A release the head already holds with the same values (license, content,
//! description, dependencies, exclusions, preferences) is a success that
//! writes nothing; with other values it is the chain's `ReleaseRewritten`,
//! located at the release in the head's file, and nothing is written.

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::ArtifactRelease;
use nenjim_journal_api::model::build::{self};
use nenjim_journal_api::valuetypes::{ContentDigest, ContentPointer};

use super::publish::{Plan, Publish, publish, successor_text};
use crate::args::ReleaseArgs;
use crate::failure::{CliError, Status};
use crate::ui::Ui;

pub fn run(args: &ReleaseArgs, ui: &Ui) -> Result<Status, CliError> {
    let bytes = std::fs::read(&args.content)
        .map_err(|e| CliError::io(&args.content, "cannot read the release's content", e))?;
    let pointer = ContentPointer::new(ContentDigest::of_bytes(&bytes), bytes.len() as u64);
    let release = build_release(args, pointer)?;
    super::publish::require_root(&args.root, &crate::address::locate(&args.root)?)?;
    let store = super::init::needed_store(&args.root, args.store.as_deref())?;
    super::init::require_store(&store, args.create)?;
    let what = Publish {
        command: "release",
        root: &args.root,
        store: Some(store),
        wait: args.writing.wait,
        coordinate: &args.coordinate,
        release: Some(&args.release),
        content: Some(pointer),
        json: args.json,
    };
    publish(&what, ui, |head, at| {
        let Some(head) = head else {
            return Ok(Plan::Unchanged);
        };
        if head
            .release(&args.release)
            .is_some_and(|held| build::same_values(held, &release))
        {
            return Ok(Plan::Unchanged);
        }
        // The head's releases with this one in its place (replacing one of
        // the same version, which the chain then refuses as rewritten).
        let mut releases: Vec<ArtifactRelease> = head
            .releases()
            .iter()
            .filter(|r| r.version() != &args.release)
            .cloned()
            .collect();
        let at_index = releases.partition_point(|r| r.version() < &args.release);
        releases.insert(at_index, release);
        Ok(Plan::Append {
            text: successor_text(head, at, &releases, head.policy())?,
            blob: Some(bytes),
        })
    })
}

/// The release the arguments describe; the builder refuses what section 4
/// refuses (an artifact named twice, a dependency on itself …).
fn build_release(args: &ReleaseArgs, pointer: ContentPointer) -> Result<ArtifactRelease, CliError> {
    let mut builder = build::ReleaseBuilder::new(
        args.coordinate.clone(),
        args.release.clone(),
        args.license.clone(),
        pointer,
    );
    if let Some(description) = &args.description {
        builder.description(description.clone());
    }
    let refused = |option: &str, error: JournalError| -> CliError {
        build::error(error.kind(), format!("{option}: {}", error.message())).into()
    };
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
