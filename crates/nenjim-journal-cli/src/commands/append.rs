//! `append <root> <file>... [--store <dir>] [--json]`: append hand-written
//! revision files through the root's writer, in the given order.
//!
//! Each text is validated exactly as ingestion does, written durably to
//! `<root>/<coordinate>/<version>.journal` (a file already there with the
//! same bytes, placed by hand, is recorded as it is) and recorded in the
//! ledger; a text already recorded is a success that writes nothing. The
//! first refusal stops the command (exit 1, or 2 for I/O): the files before
//! it stay appended and are listed, the ones after it are not tried.

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::model::build::ErrorContext as _;
use serde::Serialize;

use super::publish::{revision_path, with_writer};
use super::read_text;
use crate::args::AppendArgs;
use crate::failure::{CliError, Status};
use crate::report::{ErrorJson, path_text};
use crate::ui::{Paint, Ui};

/// The `--json` document (printed whatever the outcome).
#[derive(Debug, Serialize)]
struct AppendDocument {
    command: &'static str,
    ok: bool,
    root: String,
    /// The files appended (or found recorded), in order, up to the first refusal.
    appended: Vec<AppendedJson>,
    /// The refusal that stopped the command, `null` when every file was appended.
    error: Option<ErrorJson>,
}

/// One appended file.
#[derive(Debug, Serialize)]
struct AppendedJson {
    /// The file as given.
    file: String,
    coordinate: String,
    journal_version: String,
    /// Its ledger sequence: the same in every later load of the root.
    sequence: u64,
    digest: String,
    /// Where the revision is in the root.
    path: String,
    /// False when the ledger already recorded this exact text.
    new: bool,
}

pub fn run(args: &AppendArgs, ui: &Ui) -> Result<Status, CliError> {
    let mut appended = Vec::with_capacity(args.files.len());
    let result = with_writer(&args.root, args.store.as_deref(), ui, |writer| {
        for file in &args.files {
            let text = read_text(file)?;
            let done = writer
                .append(&text)
                .map_err(|e| CliError::from(e.with_path(file)))?;
            let revision = done.revision();
            let entry = AppendedJson {
                file: path_text(file),
                coordinate: revision.coordinate().to_string(),
                journal_version: revision.journal_version().to_string(),
                sequence: done.sequence(),
                digest: revision.digest().to_string(),
                path: path_text(&revision_path(
                    &args.root,
                    revision.coordinate(),
                    revision.journal_version(),
                )),
                new: done.is_new(),
            };
            if !args.json {
                let verb = if entry.new {
                    ui.out(Paint::Good, "appended")
                } else {
                    ui.out(Paint::Good, "recorded already")
                };
                ui.print(&format!(
                    "{verb} {}: {} {}, sequence {}, {}, {}\n",
                    entry.file,
                    entry.coordinate,
                    entry.journal_version,
                    entry.sequence,
                    entry.digest,
                    entry.path
                ))?;
            }
            appended.push(entry);
        }
        Ok(())
    });
    let (status, error) = match result {
        Ok(()) => (Status::Ok, None),
        Err(error) => {
            ui.eprintln(&format!("{} {error}", ui.err(Paint::Bad, "error:")));
            (error.status(), Some(ErrorJson::of(&error)))
        }
    };
    if args.json {
        ui.print_json(&AppendDocument {
            command: "append",
            ok: status == Status::Ok,
            root: path_text(&args.root),
            appended,
            error,
        })?;
    }
    Ok(status)
}
