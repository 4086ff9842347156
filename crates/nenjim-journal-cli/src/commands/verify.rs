//! `verify <root> --key <vkey> [--since <checkpoint file>] [--witness
//! <vkey>]... [--quorum N] [--json]`: what a mirror, a CDN or an auditor
//! checks of a signed root (format section 10), offline, trusting one
//! public key.
//!
//! 1. The checkpoint's signature by `--key` (`CheckpointInvalid`).
//! 2. Every revision file against its ledger record: size and SHA-256 of
//!    its exact bytes, each file streamed and hashed once
//!    (`LedgerMismatch`).
//! 3. The tree over the records the checkpoint covers (a prefix of the
//!    ledger), in the same pass: its size and root hash are the
//!    checkpoint's, and so is the root of the hash tiles
//!    (`CheckpointMismatch`, naming a missing tile). The entries after
//!    the checkpoint (a writer at a checkpoint interval, or one that died
//!    before its publication) are not wrong: they are counted as
//!    uncovered, waiting for the next checkpoint (their files are checked
//!    all the same).
//! 4. With `--since`, an older checkpoint (signed by the same key) is
//!    consistent with the current one, by an RFC 6962 consistency proof
//!    computed from the tiles (`Rollback`).
//! 5. With `--witness` (repeatable) and `--quorum N`, the witnessed copy
//!    `checkpoint.witnessed` is the current checkpoint, signed by the log,
//!    with at least N valid `cosignature/v1` lines of the named witnesses
//!    (`CheckpointInvalid`).
//!
//! Steps 1 to 3 are the library's `nenjim_journal_root::verify::verify`,
//! 4 and 5 its `SignedRoot::check_consistent` and `verify::cosignatures`.
//!
//! Exit code 0 when all of it holds; 1 with the kind of the first that
//! does not; 2 when the root cannot be read.

use std::path::{Path, PathBuf};

use clap::Args;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind};
use nenjim_journal_root::verify;
use nenjim_journal_tlog::note::VerifierKey;
use serde::Serialize;

use crate::failure::{CliError, Status};
use crate::report::path_text;
use crate::ui::{Paint, Ui};

/// `verify <root> --key <vkey> [--since <file>] [--witness <vkey>]... [--quorum N] [--json]`
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The Journal root: a directory, a bucket URL (`s3://bucket/prefix`, `gs://…`,
    /// `az://…`, `file://…`, `memory://`) or a NATS root
    /// (`nats://host:port/<name>`, or `nats://h1:p1,h2:p2,…/<name>` for a
    /// cluster).
    pub root: PathBuf,
    /// The log's verifier key (`<name>+<hash>+<base64>`, as `keygen`
    /// prints it), or a file holding it.
    #[arg(long, value_name = "VKEY")]
    pub key: String,
    /// An older checkpoint of the same log, saved earlier (a file): it must
    /// be consistent with the current one (no rollback, no fork).
    #[arg(long, value_name = "FILE")]
    pub since: Option<PathBuf>,
    /// A witness's verifier key (a `cosignature/v1` key, as `keygen
    /// --witness` prints it), or a file holding it; repeat for several.
    #[arg(long = "witness", value_name = "VKEY", requires = "quorum")]
    pub witnesses: Vec<String>,
    /// How many of the `--witness` keys must have cosigned the current
    /// checkpoint (in `.ledger/tlog/checkpoint.witnessed`).
    #[arg(long, value_name = "N", requires = "witnesses")]
    pub quorum: Option<usize>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The `--json` document.
#[derive(Debug, Serialize)]
struct VerifyDocument {
    command: &'static str,
    ok: bool,
    root: String,
    origin: String,
    tree_size: u64,
    root_hash: String,
    revisions: usize,
    /// Ledger entries after the checkpoint's, waiting for the next one.
    uncovered: u64,
    since_size: Option<u64>,
    cosignatures: Option<usize>,
}

/// A verifier key given as text, or as a file holding it.
pub fn verifier_key(value: &str) -> Result<VerifierKey, CliError> {
    let path = Path::new(value);
    if !value.contains('+') || path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::io(path, "cannot read the verifier key", e))?;
        return VerifierKey::parse(text.trim()).map_err(|e| e.with_path(path).into());
    }
    Ok(VerifierKey::parse(value.trim())?)
}

pub fn run(args: &VerifyArgs, ui: &Ui) -> Result<Status, CliError> {
    let key = verifier_key(&args.key)?;
    let witnesses = args
        .witnesses
        .iter()
        .map(|w| verifier_key(w))
        .collect::<Result<Vec<_>, _>>()?;
    let older = args
        .since
        .as_deref()
        .map(|file| verify::read_checkpoint(file, &key).map(|c| (c, file.to_path_buf())))
        .transpose()?;
    let root = crate::address::signed(&args.root)?;
    let verified = verify::verify(&root, &key)?;
    let checkpoint = verified.checkpoint();
    let revisions = verified.revisions();
    if let Some((older, file)) = &older {
        root.check_consistent(older, checkpoint)
            .map_err(|e| e.note(format!("the older checkpoint is {}", path_text(file))))?;
    }
    let cosignatures = match args.quorum {
        Some(quorum) => {
            let count = verify::cosignatures(&root, checkpoint, &key, &witnesses, quorum)?;
            if count < quorum {
                return Err(error::error(
                    ErrorKind::CheckpointInvalid,
                    format!(
                        "found {count} valid cosignatures of the {} named witnesses, expected at least {quorum} (--quorum)",
                        witnesses.len()
                    ),
                )
                .with_path(root.path(verify::WITNESSED))
                .into());
            }
            Some(count)
        }
        None => None,
    };
    let document = VerifyDocument {
        command: "verify",
        ok: true,
        root: path_text(&args.root),
        origin: checkpoint.origin().to_owned(),
        tree_size: checkpoint.size(),
        root_hash: checkpoint.root().to_base64(),
        revisions,
        uncovered: verified.uncovered(),
        since_size: older.as_ref().map(|(c, _)| c.size()),
        cosignatures,
    };
    if args.json {
        ui.print_json(&document)?;
        return Ok(Status::Ok);
    }
    let since = match &older {
        Some((c, file)) => format!(
            "; consistent with the checkpoint of {} entries in {}",
            c.size(),
            path_text(file)
        ),
        None => String::new(),
    };
    let uncovered = match document.uncovered {
        0 => String::new(),
        1 => "; 1 ledger entry follows it and waits for the next checkpoint".to_owned(),
        n => format!("; {n} ledger entries follow it and wait for the next checkpoint"),
    };
    let cosigned = match cosignatures {
        Some(n) => format!("; cosigned by {n} of {} witnesses", witnesses.len()),
        None => String::new(),
    };
    ui.summary(&format!(
        "{} {}: checkpoint of {} entries signed by {}, root {}; {} revision files match their records{uncovered}{since}{cosigned}\n",
        ui.out(Paint::Good, "ok"),
        document.root,
        document.tree_size,
        document.origin,
        document.root_hash,
        revisions,
    ))?;
    Ok(Status::Ok)
}
