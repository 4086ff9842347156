//! `check <root> [--examples] [--max-errors N] [--json]`: load the root as
//! `start()` does and report a summary; when it fails, report every
//! independent error of the root ([`crate::diagnose`]) with a count (exit
//! code 1, or 2 for a missing or unreadable root). A root given by URL
//! (`s3://bucket/prefix` …) is loaded and scanned through its store, and
//! its errors name their files by URL.
//! On a root with a ledger, revision files the ledger does not record are
//! warnings (the exit code stays 0). A signed root (format section 10) is
//! said to be, with the key name its checkpoint names (read, not
//! verified: `verify --key` verifies).

use serde::Serialize;

use crate::args::CheckArgs;
use crate::diagnose;
use crate::failure::{CliError, Status};
use crate::load::load;
use crate::report::{ErrorJson, counted, path_text};
use crate::ui::{Paint, Ui};
use crate::warnings::release_warnings;

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
    /// `*.journal.example` files not loaded (without `--examples`).
    skipped_examples: usize,
    /// Valid but discouraged things (deprecated license identifiers, empty
    /// blobs, stray files in a root with a ledger).
    warnings: Vec<String>,
    /// Revision files the root's ledger does not record (never loaded; a
    /// warning): record each with `nenjim-journal append <root> <file>`.
    unrecorded: Vec<String>,
    /// Entries of a root with a ledger that the layout rules refuse (a
    /// `README.txt`, a `latest.journal` …; never loaded; a warning), each
    /// `path: message`.
    stray: Vec<String>,
    /// A signed root (format section 10): the key name its checkpoint
    /// names (its origin) and the checkpoint's size; `null` when the root
    /// is not signed. Read, not verified: `verify --key` verifies.
    signed: Option<SignedJson>,
}

/// Who signs a root's checkpoint.
#[derive(Debug, Serialize)]
struct SignedJson {
    /// The signing key's name (the checkpoint's origin).
    key_name: String,
    /// The number of ledger entries the checkpoint covers.
    tree_size: u64,
}

/// The `--json` document of a failed check.
#[derive(Debug, Serialize)]
struct FailedDocument {
    command: &'static str,
    ok: bool,
    root: String,
    examples: bool,
    /// The first error (as every failure document has).
    error: ErrorJson,
    /// Every independent error found (at most `--max-errors`).
    errors: Vec<ErrorJson>,
    error_count: usize,
    /// Whether the check stopped at `--max-errors` before the end.
    truncated: bool,
}

pub fn run(args: &CheckArgs, ui: &Ui) -> Result<Status, CliError> {
    let loaded = match load(&args.root, ui) {
        Ok(loaded) => loaded,
        Err(error) if error.status() == Status::Trouble => return Err(error),
        Err(error) => return report_all(args, ui, error),
    };
    let service = &*loaded.service;
    let coordinates = service.coordinates()?;
    let mut revisions = 0;
    let mut releases = 0;
    let mut warnings = Vec::new();
    for coordinate in &coordinates {
        revisions += service.revisions(coordinate)?.len();
        if let Some(latest) = service.latest(coordinate)? {
            releases += latest.releases().len();
            warnings.extend(release_warnings(&latest));
        }
    }
    let skipped_examples = if args.root.examples {
        0
    } else {
        let address = crate::address::locate(&args.root.root)?;
        let (fs, root) = crate::address::file_system(&address);
        diagnose::count_examples(&*fs, root)
    };
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
        skipped_examples,
        warnings,
        unrecorded: unrecorded.iter().map(|p| path_text(p)).collect(),
        stray: super::unrecorded::stray(&args.root.root, args.root.examples)?,
        signed: signed(&args.root.root, ui),
    };
    for entry in &document.stray {
        ui.warn(&format!(
            "{entry}; the root's ledger never loads it: move it out of the root"
        ));
    }
    for file in &document.unrecorded {
        ui.eprintln(&format!(
            "{} {file}: not recorded by the root's ledger, so never loaded; record it with: nenjim-journal append {} {file}",
            ui.err(Paint::Warn, "warning:"),
            document.root
        ));
    }
    if args.json {
        ui.print_json(&document)?;
        return Ok(Status::Ok);
    }
    for warning in &document.warnings {
        ui.warn(warning);
    }
    let skipped = match skipped_examples {
        0 => String::new(),
        n => format!(
            "; skipped {} (pass --examples to load them)",
            counted(n, "example file")
        ),
    };
    let signed = match &document.signed {
        Some(s) => format!(
            "; signed by the key {} (checkpoint of {} entries; `nenjim-journal verify --key <vkey>` verifies it)",
            s.key_name, s.tree_size
        ),
        None => String::new(),
    };
    ui.summary(&format!(
        "{} {}{}: {}, {}, {} (loaded in {:.3} s){skipped}{signed}\n",
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
    Ok(Status::Ok)
}

/// Whether the root is signed, and by which key name (its checkpoint's
/// origin); a checkpoint that cannot be read is a warning.
fn signed(root: &std::path::Path, ui: &Ui) -> Option<SignedJson> {
    let tlog = super::tlog_root::TlogRoot::open(root).ok()?;
    match tlog.checkpoint_unverified() {
        Ok(checkpoint) => Some(SignedJson {
            key_name: checkpoint.origin().to_owned(),
            tree_size: checkpoint.size(),
        }),
        Err(e)
            if e.kind() == nenjim_journal_api::error::ErrorKind::CheckpointInvalid
                && e.message().starts_with("found no checkpoint") =>
        {
            None
        }
        Err(e) => {
            ui.warn(&format!("the root's checkpoint cannot be read: {e}"));
            None
        }
    }
}

/// The load failed with `first`: scan the root for every independent error
/// and report them all, with a count.
fn report_all(args: &CheckArgs, ui: &Ui, first: CliError) -> Result<Status, CliError> {
    let limit = args
        .max_errors
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(usize::MAX);
    let diagnosis = match diagnose::scan(&args.root.root, args.root.examples, limit) {
        Ok(diagnosis) if !diagnosis.errors.is_empty() => diagnosis,
        // The files scan found nothing the loader did: a root with a
        // ledger is read again by its ledger, going on after each error.
        _ => match diagnose::scan_ledger(&args.root.root, limit) {
            Ok(Some(diagnosis)) if !diagnosis.errors.is_empty() => diagnosis,
            // Neither found anything (or could run): the loader's error
            // is the report (its file named by URL for a root given by
            // URL, as the scan names them).
            _ => diagnose::Diagnosis {
                errors: match crate::address::locate(&args.root.root) {
                    Ok(address) => diagnose::named_for(&address, vec![first]),
                    Err(_) => vec![first],
                },
                truncated: false,
            },
        },
    };
    let diagnosis = diagnose::Diagnosis {
        errors: diagnosis
            .errors
            .into_iter()
            .map(|e| crate::store_errors::explained(e, &[&args.root.root]))
            .collect(),
        truncated: diagnosis.truncated,
    };
    let status = diagnosis
        .errors
        .iter()
        .map(CliError::status)
        .max()
        .unwrap_or(Status::Invalid);
    let count = diagnosis.errors.len();
    let root = path_text(&args.root.root);
    for error in &diagnosis.errors {
        ui.eprintln(&format!("{} {error}", ui.err(Paint::Bad, "error:")));
    }
    let stopped = if diagnosis.truncated {
        " (stopped early: --max-errors)"
    } else {
        ""
    };
    ui.eprintln(&format!(
        "{} {root}: {}{stopped}",
        ui.err(Paint::Bad, "failed"),
        counted(count, "error")
    ));
    if args.json {
        let errors: Vec<ErrorJson> = diagnosis.errors.iter().map(ErrorJson::of).collect();
        let first = diagnosis
            .errors
            .first()
            .map(ErrorJson::of)
            .unwrap_or_else(|| ErrorJson::of(&CliError::refused("Invalid", "invalid root")));
        ui.print_json(&FailedDocument {
            command: "check",
            ok: false,
            root,
            examples: args.root.examples,
            error: first,
            errors,
            error_count: count,
            truncated: diagnosis.truncated,
        })?;
    }
    Ok(status)
}
