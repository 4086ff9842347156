//! The `nenjim-journal` command (see the library, `nenjim_journal_cli::run`).
#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(nenjim_journal_cli::run(std::env::args_os()))
}
