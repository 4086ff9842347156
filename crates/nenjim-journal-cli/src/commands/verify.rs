//! `verify <root> --key <vkey> [--since <checkpoint file>] [--witness
//! <vkey>]... [--quorum N] [--json]`: what a mirror, a CDN or an auditor
//! checks of a signed root (format section 10), offline, trusting one
//! public key.
//!
//! 1. The checkpoint's signature by `--key` (`CheckpointInvalid`).
//! 2. Every revision file against its ledger record: size and SHA-256 of
//!    its exact bytes, each file streamed and hashed once
//!    (`LedgerMismatch`).
//! 3. The tree over every record, in the same pass: its size and root
//!    hash are the checkpoint's, and so is the root of the hash tiles
//!    (`CheckpointMismatch`).
//! 4. With `--since`, an older checkpoint (signed by the same key) is
//!    consistent with the current one, by an RFC 6962 consistency proof
//!    computed from the tiles (`Rollback`).
//! 5. With `--witness` (repeatable) and `--quorum N`, the witnessed copy
//!    `checkpoint.witnessed` is the current checkpoint, signed by the log,
//!    with at least N valid `cosignature/v1` lines of the named witnesses
//!    (`CheckpointInvalid`).
//!
//! Exit code 0 when all of it holds; 1 with the kind of the first that
//! does not; 2 when the root cannot be read.

use std::path::{Path, PathBuf};

use clap::Args;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_tlog::checkpoint::{Checkpoint, count_cosignatures};
use nenjim_journal_tlog::hash::TreeHasher;
use nenjim_journal_tlog::note::{Note, VerifierKey};
use serde::Serialize;

use super::tlog_root::{NOTE_MAX, TlogRoot, WITNESSED};
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
        .map(|file| read_checkpoint_file(file, &key))
        .transpose()?;
    let root = TlogRoot::open(&args.root)?;
    let located = |e: JournalError| e.with_path(root.path(super::tlog_root::CHECKPOINT));
    let (checkpoint, _) = Checkpoint::open(&root.checkpoint_bytes()?, &key).map_err(located)?;

    // One pass over the ledger: each record into the tree, each revision
    // file streamed and hashed once.
    let entries = root.entries()?;
    let mut tree = TreeHasher::new();
    let mut revisions = 0;
    for entry in &entries {
        tree.push_record(entry.to_string().as_bytes());
        if let Some(pointer) = entry.revision() {
            check_revision(&root, entry.sequence(), pointer)?;
            revisions += 1;
        }
    }
    checkpoint
        .check_tree(tree.size(), &tree.root())
        .map_err(located)?;
    let tiles = root.tiles_root(checkpoint.size())?;
    if tiles != *checkpoint.root() {
        return Err(error::error(
            ErrorKind::CheckpointMismatch,
            format!(
                "found the hash tiles of root {tiles}, expected the checkpoint's root {}",
                checkpoint.root()
            ),
        )
        .with_path(root.path("tile"))
        .into());
    }
    if let Some((older, file)) = &older {
        root.check_consistent(older, &checkpoint)
            .map_err(|e| e.note(format!("the older checkpoint is {}", path_text(file))))?;
    }
    let cosignatures = match args.quorum {
        Some(quorum) => Some(check_quorum(&root, &checkpoint, &key, &witnesses, quorum)?),
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
    let cosigned = match cosignatures {
        Some(n) => format!("; cosigned by {n} of {} witnesses", witnesses.len()),
        None => String::new(),
    };
    ui.summary(&format!(
        "{} {}: checkpoint of {} entries signed by {}, root {}; {} revision files match their records{since}{cosigned}\n",
        ui.out(Paint::Good, "ok"),
        document.root,
        document.tree_size,
        document.origin,
        document.root_hash,
        revisions,
    ))?;
    Ok(Status::Ok)
}

/// An older checkpoint saved in `file`, checked against the log's key.
fn read_checkpoint_file(file: &Path, key: &VerifierKey) -> Result<(Checkpoint, PathBuf), CliError> {
    let bytes = read_limited(file)?;
    let (checkpoint, _) = Checkpoint::open(&bytes, key).map_err(|e| e.with_path(file))?;
    Ok((checkpoint, file.to_path_buf()))
}

/// A note file of at most [`NOTE_MAX`] bytes.
pub fn read_limited(file: &Path) -> Result<Vec<u8>, CliError> {
    use std::io::Read as _;
    let opened = std::fs::File::open(file)
        .map_err(|e| CliError::io(file, "cannot open the checkpoint", e))?;
    let mut bytes = Vec::new();
    opened
        .take(NOTE_MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::io(file, "cannot read the checkpoint", e))?;
    if bytes.len() as u64 > NOTE_MAX {
        return Err(error::error(
            ErrorKind::CheckpointInvalid,
            format!("found a file over {NOTE_MAX} bytes, expected a checkpoint note"),
        )
        .with_path(file)
        .into());
    }
    Ok(bytes)
}

/// Streams the revision file of ledger entry `sequence` and compares its
/// size and SHA-256 with the record (`LedgerMismatch`, a missing file too).
fn check_revision(
    root: &TlogRoot,
    sequence: u64,
    pointer: &nenjim_journal_store::ledger::RevisionPointer,
) -> Result<(), JournalError> {
    let path = root.revision_path(pointer);
    let mismatch = |found: String| {
        error::error(
            ErrorKind::LedgerMismatch,
            format!(
                "found {found}, expected the {} bytes with {} of ledger entry {sequence}",
                pointer.size(),
                pointer.digest()
            ),
        )
        .with_path(&path)
    };
    let reader = match root.open_revision(sequence, pointer) {
        Ok(reader) => reader,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(mismatch("no revision file".to_owned()));
        }
        Err(e) => return Err(error::io_error(&path, "cannot open the revision file", e)),
    };
    let (size, digest) = super::hash_stream(reader)
        .map_err(|e| error::io_error(&path, "cannot read the revision file", e))?;
    if size != pointer.size() || digest != *pointer.digest().as_bytes() {
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        return Err(mismatch(format!("{size} bytes with sha256:{hex}")));
    }
    Ok(())
}

/// Checks the witnessed copy: the current checkpoint's text, the log's
/// signature, and at least `quorum` valid cosignatures of `witnesses`.
fn check_quorum(
    root: &TlogRoot,
    checkpoint: &Checkpoint,
    key: &VerifierKey,
    witnesses: &[VerifierKey],
    quorum: usize,
) -> Result<usize, JournalError> {
    let path = root.path(WITNESSED);
    let invalid =
        |message: String| error::error(ErrorKind::CheckpointInvalid, message).with_path(&path);
    let Some((bytes, _)) = root.witnessed()? else {
        return Err(invalid(format!(
            "found no witnessed checkpoint, expected the current one cosigned by at least {quorum} of the named witnesses (`nenjim-journal witness`)"
        )));
    };
    let (witnessed, _) = Checkpoint::open(&bytes, key).map_err(|e| e.with_path(&path))?;
    if witnessed.text() != checkpoint.text() {
        return Err(invalid(format!(
            "found a witnessed checkpoint of {} entries, expected the current checkpoint of {} entries: the witnesses have not cosigned it yet",
            witnessed.size(),
            checkpoint.size()
        )));
    }
    let note = Note::parse(&bytes).map_err(|e| e.with_path(&path))?;
    let count = count_cosignatures(&note, witnesses);
    if count < quorum {
        return Err(invalid(format!(
            "found {count} valid cosignatures of the {} named witnesses, expected at least {quorum} (--quorum)",
            witnesses.len()
        )));
    }
    Ok(count)
}
