//! `lint <file>... [--json]`: parse and validate each file on its own (no
//! chain context, no file-name rules). Every file is checked and every
//! error printed; exit code 1 if any file is invalid, 2 if any could not be
//! read.

use std::path::Path;

use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::model::build::ErrorContext as _;
use serde::Serialize;

use super::read_text;
use crate::args::LintArgs;
use crate::failure::{CliError, Status};
use crate::report::{ErrorJson, counted, path_text};
use crate::ui::{Paint, Ui};

/// The `--json` document.
#[derive(Debug, Serialize)]
struct LintDocument {
    command: &'static str,
    ok: bool,
    files: Vec<FileJson>,
}

/// One file's verdict; the revision fields are `null` when it failed.
#[derive(Debug, Serialize)]
struct FileJson {
    path: String,
    ok: bool,
    coordinate: Option<String>,
    journal_version: Option<String>,
    digest: Option<String>,
    releases: Option<usize>,
    error: Option<ErrorJson>,
}

pub fn run(args: &LintArgs, ui: &Ui) -> Result<Status, CliError> {
    let mut status = Status::Ok;
    let mut files = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let verdict = lint_file(path);
        let shown = path_text(path);
        match &verdict {
            Ok(revision) => {
                if !args.json {
                    ui.print(&format!(
                        "{} {shown}: {} {} ({}, {})\n",
                        ui.out(Paint::Good, "ok"),
                        revision.coordinate(),
                        revision.journal_version(),
                        counted(revision.releases().len(), "release"),
                        revision.digest(),
                    ))?;
                }
            }
            Err(error) => {
                status = status.max(error.status());
                ui.eprintln(&format!("{} {error}", ui.err(Paint::Bad, "error:")));
            }
        }
        files.push(match verdict {
            Ok(revision) => FileJson {
                path: shown,
                ok: true,
                coordinate: Some(revision.coordinate().to_string()),
                journal_version: Some(revision.journal_version().to_string()),
                digest: Some(revision.digest().to_string()),
                releases: Some(revision.releases().len()),
                error: None,
            },
            Err(error) => FileJson {
                path: shown,
                ok: false,
                coordinate: None,
                journal_version: None,
                digest: None,
                releases: None,
                error: Some(ErrorJson::of(&error)),
            },
        });
    }
    if args.json {
        ui.print_json(&LintDocument {
            command: "lint",
            ok: status == Status::Ok,
            files,
        })?;
    }
    Ok(status)
}

/// Reads and parses one file; every error names the file.
fn lint_file(path: &Path) -> Result<JournalRevision, CliError> {
    parse_text(path, &read_text(path)?)
}

/// Parses the text of the file at `path`; the error names the file.
pub(super) fn parse_text(path: &Path, text: &str) -> Result<JournalRevision, CliError> {
    nenjim_journal_parser::parse(text).map_err(|e| CliError::Journal(e.with_path(path)))
}
