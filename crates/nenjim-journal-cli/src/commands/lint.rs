//! `lint <path>... [--json]`: parse and validate each file on its own (no
//! chain context, no file-name rules). A directory is searched recursively
//! for revision files; `-` reads more paths from stdin, one a line. Every
//! file is checked and every error printed, then a one-line summary (none
//! on success with `--quiet`); exit code 1 if any file is invalid, 2 if any
//! could not be read.

use std::path::{Path, PathBuf};

use nenjim_journal_api::error::ErrorContext as _;
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_fs::{EXAMPLE_SUFFIX, RUNTIME_SUFFIX};
use serde::Serialize;

use super::read_text;
use crate::args::LintArgs;
use crate::failure::{CliError, Status};
use crate::report::{ErrorJson, counted, path_text};
use crate::ui::{Paint, Ui};
use crate::warnings::release_warnings;

/// The `--json` document.
#[derive(Debug, Serialize)]
struct LintDocument {
    command: &'static str,
    ok: bool,
    /// How many files were checked, and how many of them are invalid.
    checked: usize,
    invalid: usize,
    files: Vec<FileJson>,
    /// Valid but discouraged things (deprecated license identifiers).
    warnings: Vec<String>,
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
    let paths = expand(&args.files)?;
    let mut status = Status::Ok;
    let mut files = Vec::with_capacity(paths.len());
    let mut warnings = Vec::new();
    for path in &paths {
        let verdict = lint_file(path);
        let shown = path_text(path);
        match &verdict {
            Ok(revision) => {
                for warning in release_warnings(revision) {
                    let warning = format!("{shown}: {warning}");
                    if !args.json {
                        ui.warn(&warning);
                    }
                    warnings.push(warning);
                }
                if !args.json {
                    ui.summary(&format!(
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
    let invalid = files.iter().filter(|f| !f.ok).count();
    if args.json {
        ui.print_json(&LintDocument {
            command: "lint",
            ok: status == Status::Ok,
            checked: files.len(),
            invalid,
            files,
            warnings,
        })?;
    } else if status == Status::Ok {
        ui.summary(&format!(
            "{} {} checked, all valid\n",
            ui.out(Paint::Good, "ok"),
            counted(files.len(), "file")
        ))?;
    } else {
        ui.eprintln(&format!(
            "{} {} checked, {invalid} invalid",
            ui.err(Paint::Bad, "failed"),
            counted(files.len(), "file")
        ));
    }
    Ok(status)
}

/// The files the arguments name: a file as it is, a directory's revision
/// files (recursively, in name order), and for `-` the paths read from
/// stdin, one a line (each expanded the same way).
fn expand(arguments: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut files = Vec::new();
    for argument in arguments {
        if argument.as_os_str() == "-" {
            let mut input = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin().lock(), &mut input)
                .map_err(|e| CliError::io(Path::new("<stdin>"), "cannot read the paths", e))?;
            for line in input.lines().map(|l| l.trim_end_matches('\r')) {
                if !line.is_empty() {
                    expand_one(Path::new(line), &mut files)?;
                }
            }
        } else {
            expand_one(argument, &mut files)?;
        }
    }
    Ok(files)
}

fn expand_one(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), CliError> {
    if !path.is_dir() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let found = files.len();
    walk(path, files)?;
    if files.len() == found {
        return Err(CliError::refused(
            "NoRevisionFiles",
            format!(
                "found no `*.journal` or `*.journal.example` file in the directory {}, expected revision files",
                path_text(path)
            ),
        ));
    }
    Ok(())
}

/// Every `*.journal` and `*.journal.example` file under `dir` (hidden entries
/// and symbolic links skipped).
fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| CliError::io(dir, "cannot list the directory", e))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(&entry.path(), files)?;
        } else if kind.is_file()
            && (name.ends_with(RUNTIME_SUFFIX) || name.ends_with(EXAMPLE_SUFFIX))
        {
            files.push(entry.path());
        }
    }
    Ok(())
}

/// Reads and parses one file; every error names the file.
fn lint_file(path: &Path) -> Result<JournalRevision, CliError> {
    parse_text(path, &read_text(path)?)
}

/// Parses the text of the file at `path`; the error names the file.
pub(super) fn parse_text(path: &Path, text: &str) -> Result<JournalRevision, CliError> {
    nenjim_journal_parser::parse(text).map_err(|e| CliError::Journal(e.with_path(path)))
}
