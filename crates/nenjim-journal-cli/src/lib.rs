//! The `nenjim-journal` command: check, inspect, author, publish and verify Journal roots.
//!
//! A library with one entry point, [`run`] (the binary's `main` calls it),
//! so that tests run the command in-process: on the test kit's `testmem://`
//! roots, which live in this process's memory.
//!
//! # Brief overview
//!
//! `main` parses the arguments (`args::Cli`), hands the chosen subcommand
//! to its module under `commands`, and turns the outcome into an exit code
//! (`failure::Status`): 0 when everything is valid, 1 when the journal or
//! the content is invalid, 2 for a usage or I/O problem, 75 for a write
//! refused for now (the lease is held, the tip moved: retry later), 130
//! for a writing command stopped by SIGINT or SIGTERM (`interrupt`). Results go to
//! stdout (text, or one JSON document with `--json`, see `report`);
//! errors and progress go to stderr (`ui::Ui`).
//!
//! Every read goes through the reference Journal
//! (`nenjim_journal_ref::JournalAssembly`) and the public API
//! (`nenjim_journal_api`), so the command sees a root exactly as a service
//! that calls `start()` does; `lint` and `successor` use the parser alone.
//! Every write (`init`, `append`, `create`, `release`, `yank`, `deprecate`,
//! `recommend`) goes through the root's one writer,
//! `nenjim_journal_writer::FsJournalWriter` (its lease and ledger), see
//! `commands/publish.rs`; `put-blob` and `successor -o` create new files
//! only, through the storage seam's create-if-absent
//! (`BlobStore::put_by_digest` and `BlobStore::put_if_absent` of
//! `nenjim_journal_store`).
#![forbid(unsafe_code)]

mod address;
mod args;
mod atom;
mod cache;
mod commands;
mod failure;
mod interrupt;
mod load;
mod report;
mod store_errors;
mod ui;
mod warnings;

use std::ffi::OsString;

use clap::Parser as _;

/// Runs the command with `args` (the first is the program's name, as in
/// `std::env::args_os`) and returns its exit code. A malformed command line
/// prints clap's message and is its exit code (2; 0 for `--help`).
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match args::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return u8::try_from(error.exit_code()).unwrap_or(2);
        }
    };
    ui::show_tracing(cli.verbose);
    let ui = ui::Ui::from_environment(cli.color, cli.quiet, !cli.no_pager);
    let status = match commands::run(&cli.command, &ui) {
        Ok(status) => status,
        Err(error) => {
            let recorded = store_errors::recorded(&cli.command);
            let mut addresses = store_errors::addresses(&cli.command);
            addresses.extend(recorded.as_deref());
            let error = store_errors::explained(error, &addresses);
            let json = match &cli.command {
                args::Command::Events(_) if cli.command.json() => ui::Json::Lines,
                command if command.json() => ui::Json::Document,
                _ => ui::Json::None,
            };
            ui.report_failure(cli.command.name(), json, &error);
            error.status()
        }
    };
    status.code()
}
