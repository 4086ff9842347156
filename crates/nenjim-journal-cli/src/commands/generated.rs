//! `completions <shell>` and `man`: texts generated from the clap
//! definition of the command ([`crate::args::Cli`]), so they never drift
//! from it.

use std::path::Path;

use clap::CommandFactory as _;
use serde::Serialize;

use crate::args::{Cli, CompletionsArgs, ManArgs};
use crate::failure::{CliError, Status};
use crate::ui::Ui;

/// The `--json` document: the generated text as one string.
#[derive(Debug, Serialize)]
struct GeneratedDocument {
    command: &'static str,
    ok: bool,
    /// The shell, for `completions`.
    shell: Option<String>,
    text: String,
}

pub fn completions(args: &CompletionsArgs, ui: &Ui) -> Result<Status, CliError> {
    let mut command = Cli::command();
    let mut bytes = Vec::new();
    clap_complete::generate(args.shell, &mut command, "nenjim-journal", &mut bytes);
    emit(
        ui,
        args.json,
        "completions",
        Some(args.shell.to_string()),
        bytes,
    )
}

pub fn man(args: &ManArgs, ui: &Ui) -> Result<Status, CliError> {
    let mut bytes = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut bytes)
        .map_err(|e| CliError::io(Path::new("<stdout>"), "cannot render the man page", e))?;
    emit(ui, args.json, "man", None, bytes)
}

fn emit(
    ui: &Ui,
    json: bool,
    command: &'static str,
    shell: Option<String>,
    bytes: Vec<u8>,
) -> Result<Status, CliError> {
    if json {
        ui.print_json(&GeneratedDocument {
            command,
            ok: true,
            shell,
            text: String::from_utf8_lossy(&bytes).into_owned(),
        })?;
    } else {
        ui.print_bytes(&bytes)?;
    }
    Ok(Status::Ok)
}
