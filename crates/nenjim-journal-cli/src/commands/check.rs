//! `check <root> [--examples] [--json]`: load the root as `start()` does and
//! report a summary, or the first error as a diagnostic (exit code 1, or 2
//! for a missing or unreadable root). On a root with a ledger, revision
//! files the ledger does not record are warnings (exit code still 0).

use serde::Serialize;

use crate::args::CheckArgs;
use crate::failure::{CliError, Status};
use crate::load::load;
use crate::report::{counted, path_text};
use crate::ui::{Paint, Ui};

/// The `--json` document of a successful check.
#[derive(Debug, Serialize)]
struct CheckDocument {
    command: &'static str,
    ok: bool,
    root: String,
    examples: bool,
    /// Artifacts with at least one revision.
    artifacts: usize,
    /// Revisions of all artifacts.
    revisions: usize,
    /// Releases of the latest revision of each artifact (all releases known).
    releases: usize,
    /// How long loading took, in milliseconds.
    elapsed_ms: u64,
    /// Revision files the root's ledger does not record (never loaded; a
    /// warning): record each with `nenjim-journal append <root> <file>`.
    unrecorded: Vec<String>,
}

pub fn run(args: &CheckArgs, ui: &Ui) -> Result<Status, CliError> {
    let loaded = load(&args.root, ui)?;
    let service = &*loaded.service;
    let coordinates = service.coordinates()?;
    let mut revisions = 0;
    let mut releases = 0;
    for coordinate in &coordinates {
        revisions += service.revisions(coordinate)?.len();
        if let Some(latest) = service.latest(coordinate)? {
            releases += latest.releases().len();
        }
    }
    let unrecorded = super::unrecorded::unrecorded(&args.root.root, args.root.examples, service)?;
    let document = CheckDocument {
        command: "check",
        ok: true,
        root: path_text(&args.root.root),
        examples: args.root.examples,
        artifacts: coordinates.len(),
        revisions,
        releases,
        elapsed_ms: u64::try_from(loaded.elapsed.as_millis()).unwrap_or(u64::MAX),
        unrecorded: unrecorded.iter().map(|p| path_text(p)).collect(),
    };
    for file in &document.unrecorded {
        ui.eprintln(&format!(
            "{} {file}: not recorded by the root's ledger, so never loaded; record it with: nenjim-journal append {} {file}",
            ui.err(Paint::Warn, "warning:"),
            document.root
        ));
    }
    if args.json {
        ui.print_json(&document)?;
    } else {
        ui.print(&format!(
            "{} {}{}: {}, {}, {} (loaded in {:.3} s)\n",
            ui.out(Paint::Good, "ok"),
            document.root,
            if document.examples {
                " (with examples)"
            } else {
                ""
            },
            counted(document.artifacts, "artifact"),
            counted(document.revisions, "revision"),
            counted(document.releases, "release"),
            loaded.elapsed.as_secs_f64(),
        ))?;
    }
    Ok(Status::Ok)
}
