//! `show <root> <coordinate> [--at T | --as-of T] [--release V] [--examples] [--json]`:
//! one artifact's worldview at one revision (the latest by default; `--at`
//! the revision with exactly that version, `--as-of` the newest at or
//! before that instant), or one release of it with its license, content,
//! dependencies, exclusions, preferences and policy context.

use std::fmt::Write as _;

use nenjim_journal_api::model::{ArtifactRelease, JournalRevision};
use serde::Serialize;

use super::{revisions_of, select};
use crate::args::ShowArgs;
use crate::failure::{CliError, Status};
use crate::load::load;
use crate::report::{ReleaseJson, RevisionJson, RevisionRefJson, path_text};
use crate::ui::{Paint, Ui};

/// The `--json` document of a worldview.
#[derive(Debug, Serialize)]
struct RevisionDocument {
    command: &'static str,
    ok: bool,
    root: String,
    revision: RevisionJson,
}

/// The `--json` document of one release.
#[derive(Debug, Serialize)]
struct ReleaseDocument {
    command: &'static str,
    ok: bool,
    root: String,
    /// The revision the release is seen in.
    in_revision: RevisionRefJson,
    release: ReleaseJson,
}

pub fn run(args: &ShowArgs, ui: &Ui) -> Result<Status, CliError> {
    let loaded = load(&args.root, ui)?;
    let service = &*loaded.service;
    let coordinate = &args.coordinate;
    let revisions = revisions_of(service, &args.root.root, coordinate)?;
    let revision = select::by_options(service, coordinate, &revisions, &args.revision)?;
    let root = path_text(&args.root.root);
    match &args.release {
        None => {
            if args.json {
                ui.print_json(&RevisionDocument {
                    command: "show",
                    ok: true,
                    root,
                    revision: RevisionJson::of(&revision),
                })?;
            } else {
                ui.print(&revision_text(ui, &revision))?;
            }
        }
        Some(version) => {
            let release = service
                .release(coordinate, revision.journal_version(), version)?
                .ok_or_else(|| {
                    let versions: Vec<String> = revision
                        .releases()
                        .iter()
                        .map(|r| r.version().to_string())
                        .collect();
                    CliError::refused(
                        "UnknownRelease",
                        format!(
                            "found no release {version} in revision {} of {coordinate}; expected one of: {}",
                            revision.journal_version(),
                            if versions.is_empty() {
                                "(none: the revision has no release)".to_owned()
                            } else {
                                versions.join(", ")
                            }
                        ),
                    )
                })?;
            if args.json {
                ui.print_json(&ReleaseDocument {
                    command: "show",
                    ok: true,
                    root,
                    in_revision: RevisionRefJson::of(&revision),
                    release: ReleaseJson::of(&release),
                })?;
            } else {
                let mut text = format!(
                    "{} {} (revision {}, {})\n",
                    ui.out(Paint::Strong, coordinate.as_str()),
                    ui.out(Paint::Strong, &release.version().to_string()),
                    revision.journal_version(),
                    revision.digest()
                );
                release_text(ui, &mut text, &release, "");
                ui.print(&text)?;
            }
        }
    }
    Ok(Status::Ok)
}

/// The worldview of a revision, as text.
fn revision_text(ui: &Ui, revision: &JournalRevision) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{} {} (sequence {})",
        ui.out(Paint::Strong, revision.coordinate().as_str()),
        ui.out(Paint::Strong, &revision.journal_version().to_string()),
        revision.sequence()
    );
    let _ = writeln!(text, "digest       {}", revision.digest());
    match revision.predecessor() {
        Some(p) => {
            let _ = writeln!(text, "predecessor  {p}");
        }
        None => {
            let _ = writeln!(text, "predecessor  GENESIS");
        }
    }
    let _ = writeln!(text, "description  {}", revision.description());
    if let Some(uri) = revision.information() {
        let _ = writeln!(text, "information  {uri}");
    }
    let _ = writeln!(text, "releases     {}", revision.releases().len());
    for release in revision.releases() {
        let _ = writeln!(
            text,
            "  {}",
            ui.out(Paint::Strong, &release.version().to_string())
        );
        release_text(ui, &mut text, release, "    ");
    }
    let _ = writeln!(text, "policy       {}", revision.policy().len());
    for statement in revision.policy() {
        let _ = writeln!(text, "  {statement}");
    }
    text
}

/// One release's properties and policy context, each line after `indent`.
fn release_text(ui: &Ui, text: &mut String, release: &ArtifactRelease, indent: &str) {
    let _ = writeln!(text, "{indent}license      {}", release.license());
    let _ = writeln!(
        text,
        "{indent}content      {} {} bytes",
        release.content().digest(),
        release.content().size()
    );
    if let Some(d) = release.description() {
        let _ = writeln!(text, "{indent}description  {d}");
    }
    for d in release.dependencies() {
        let _ = writeln!(text, "{indent}depends      {d}");
    }
    for e in release.exclusions() {
        let _ = writeln!(text, "{indent}excludes     {e}");
    }
    for p in release.preferences() {
        let _ = writeln!(text, "{indent}prefers      {p}");
    }
    let policy = release.policy();
    let yanked = match policy.yanked() {
        Some(why) => format!("{} {why}", ui.out(Paint::Bad, "yes")),
        None => "no".to_owned(),
    };
    let deprecated = match policy.deprecated() {
        Some(why) => format!("{} {why}", ui.out(Paint::Warn, "yes")),
        None => "no".to_owned(),
    };
    let recommended = if policy.is_recommended() {
        ui.out(Paint::Good, "yes")
    } else {
        "no".to_owned()
    };
    let _ = writeln!(text, "{indent}yanked       {yanked}");
    let _ = writeln!(text, "{indent}deprecated   {deprecated}");
    let _ = writeln!(text, "{indent}recommended  {recommended}");
}
