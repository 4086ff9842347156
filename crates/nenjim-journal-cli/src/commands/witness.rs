//! `witness <root> --key <witness signer key file> --state <dir>
//! [--log-key <vkey>] [--json]`: a witness of a signed root (C2SP
//! tlog-witness's rules, over static files), so that one compromised hub
//! key is not enough to show two histories.
//!
//! 1. The root's checkpoint is verified with the log's verifier key
//!    (`--log-key`, kept in the state the first time; `CheckpointInvalid`).
//! 2. It must be consistent with the last checkpoint this witness cosigned
//!    for that log (kept in `--state`): a larger or equal size, and an RFC
//!    6962 consistency proof computed from the root's tiles; a smaller or
//!    inconsistent one is refused with `Rollback`, cosigning nothing.
//! 3. The state is updated (written before anything is published: a
//!    witness never cosigns something inconsistent with what it cosigned),
//!    then the witness's C2SP `cosignature/v1` is added to the copy
//!    published beside the checkpoint, `.ledger/tlog/checkpoint.witnessed`
//!    (the checkpoint note with the log's signature and every witness's
//!    cosignature of that same checkpoint; a copy of an older checkpoint is
//!    replaced). The copy is replaced only if unchanged since it was read,
//!    so witnesses running at once do not drop each other's lines.
//!
//! The checking and cosigning are the library's
//! `nenjim_journal_root::witness::cosign`.
//!
//! The state directory holds, per log origin (escaped into a file name),
//! `<origin>.vkey` (the log's verifier key) and `<origin>.checkpoint` (the
//! last checkpoint note cosigned).

use std::fs;
use std::path::PathBuf;

use clap::Args;
use nenjim_journal_api::error::ErrorContext as _;
use nenjim_journal_root::witness::{self, WitnessState};
use nenjim_journal_tlog::checkpoint::Checkpoint;
use serde::Serialize;

use super::verify::verifier_key;
use crate::failure::{CliError, Status};
use crate::report::path_text;
use crate::ui::{Paint, Ui};

/// `witness <root> --key <file> --state <dir> [--log-key <vkey>] [--json]`
#[derive(Debug, Args)]
pub struct WitnessArgs {
    /// The Journal root: a directory, a bucket URL (`s3://bucket/prefix`, `gs://…`,
    /// `az://…`, `file://…`, `memory://`) or a NATS root
    /// (`nats://host:port/<name>`, or `nats://h1:p1,h2:p2,…/<name>` for a
    /// cluster).
    pub root: PathBuf,
    /// The witness's signer key file (a `cosignature/v1` key, from
    /// `keygen <name> --witness --out <file>`).
    #[arg(long, value_name = "FILE")]
    pub key: PathBuf,
    /// The witness's own directory: the log's key and the last checkpoint
    /// it cosigned, per log (created if missing).
    #[arg(long, value_name = "DIR")]
    pub state: PathBuf,
    /// The log's verifier key (or a file holding it): required the first
    /// time a state sees a log, then kept there (and must match).
    #[arg(long, value_name = "VKEY")]
    pub log_key: Option<String>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The `--json` document.
#[derive(Debug, Serialize)]
struct WitnessDocument {
    command: &'static str,
    ok: bool,
    root: String,
    origin: String,
    witness: String,
    tree_size: u64,
    previous_size: Option<u64>,
    timestamp: u64,
    published: String,
}

pub fn run(args: &WitnessArgs, ui: &Ui) -> Result<Status, CliError> {
    let text = fs::read_to_string(&args.key)
        .map_err(|e| CliError::io(&args.key, "cannot read the witness key", e))?;
    let witness = witness::witness_key(&text).map_err(|e| e.with_path(&args.key))?;
    let root = crate::address::signed(&args.root)?;
    let origin = root.checkpoint_unverified()?.origin().to_owned();
    let state = WitnessState::new(&args.state, &origin);
    let given = args.log_key.as_deref().map(verifier_key);
    let Some(log_key) = state.log_key(given.transpose()?)? else {
        return Err(CliError::usage(
            "Usage",
            format!(
                "found no key of this log in the witness state {}, expected --log-key <vkey> the first time",
                path_text(state.dir())
            ),
        ));
    };
    let witnessed = witness::cosign(&root, &witness, &state, &log_key)?;
    let checkpoint = witnessed.checkpoint();
    let document = WitnessDocument {
        command: "witness",
        ok: true,
        root: path_text(&args.root),
        origin: checkpoint.origin().to_owned(),
        witness: witness.name().to_owned(),
        tree_size: checkpoint.size(),
        previous_size: witnessed.previous().map(Checkpoint::size),
        timestamp: witnessed.timestamp(),
        published: path_text(witnessed.published()),
    };
    if args.json {
        ui.print_json(&document)?;
        return Ok(Status::Ok);
    }
    let since = match document.previous_size {
        Some(n) => format!(", consistent with the {n} entries cosigned before"),
        None => ", the first checkpoint of this log this witness cosigns".to_owned(),
    };
    ui.summary(&format!(
        "{} {} cosigned the checkpoint of {} entries of {}{since}; published {}\n",
        ui.out(Paint::Good, "ok"),
        document.witness,
        document.tree_size,
        document.origin,
        document.published,
    ))?;
    Ok(Status::Ok)
}
