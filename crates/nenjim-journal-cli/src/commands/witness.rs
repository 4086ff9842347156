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
//! The state directory holds, per log origin (escaped into a file name),
//! `<origin>.vkey` (the log's verifier key) and `<origin>.checkpoint` (the
//! last checkpoint note cosigned).

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use clap::Args;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_tlog::checkpoint::{Checkpoint, cosign};
use nenjim_journal_tlog::note::{Algorithm, Note, SignerKey, VerifierKey};
use serde::Serialize;

use super::tlog_root::TlogRoot;
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

/// How many times the witnessed copy is re-read when another witness
/// replaced it in between.
const PUBLISH_TRIES: usize = 8;

pub fn run(args: &WitnessArgs, ui: &Ui) -> Result<Status, CliError> {
    let text = fs::read_to_string(&args.key)
        .map_err(|e| CliError::io(&args.key, "cannot read the witness key", e))?;
    let witness = SignerKey::from_file_text(&text).map_err(|e| e.with_path(&args.key))?;
    if witness.algorithm() != Algorithm::CosignatureV1 {
        return Err(error::error(
            ErrorKind::CheckpointInvalid,
            format!(
                "found the Ed25519 note key {}, expected a cosignature/v1 witness key (`nenjim-journal keygen <name> --witness --out <file>`)",
                witness.name()
            ),
        )
        .with_path(&args.key)
        .into());
    }
    let root = TlogRoot::open(&args.root)?;
    let bytes = root.checkpoint_bytes()?;
    let origin = root.checkpoint_unverified()?.origin().to_owned();
    let state = State::new(&args.state, &origin);
    let log_key = state.log_key(args.log_key.as_deref())?;
    let at = root.path(super::tlog_root::CHECKPOINT);
    let (checkpoint, note) = Checkpoint::open(&bytes, &log_key).map_err(|e| e.with_path(&at))?;
    let previous = state.last()?;
    if let Some(previous) = &previous {
        root.check_consistent(previous, &checkpoint).map_err(|e| {
            e.note(format!(
                "this witness cosigned a checkpoint of {} entries ({}): it cosigns nothing inconsistent with it",
                previous.size(),
                path_text(&state.checkpoint_path())
            ))
        })?;
    }
    // The state first: once it moves, this witness never cosigns an
    // older or forked tree, whatever happens to the publication.
    state.save(&log_key, &bytes)?;
    let timestamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let line = cosign(&note, &witness, timestamp)?;
    let mut published = false;
    for _ in 0..PUBLISH_TRIES {
        let existing = root.witnessed()?;
        let mut copy = note.clone();
        if let Some((old, _)) = &existing
            && let Ok(old) = Note::parse(old)
        {
            if old.text() == note.text() {
                copy = Note::new(old.text())?;
                for other in old.signatures() {
                    if !(other.name == witness.name() && other.key_hash == witness.key_hash()) {
                        copy.add_signature(other.clone());
                    }
                }
            } else if Checkpoint::parse_text(old.text()).is_ok_and(|c| c.size() > checkpoint.size())
            {
                return Err(error::error(
                    ErrorKind::TipMoved,
                    "found a witnessed checkpoint newer than the one cosigned: the root moved on meanwhile; run the witness again",
                )
                .with_path(root.path(super::tlog_root::WITNESSED))
                .into());
            }
        }
        copy.add_signature(line.clone());
        if root.publish_witnessed(
            copy.to_string().as_bytes(),
            existing.as_ref().map(|(_, v)| v),
        )? {
            published = true;
            break;
        }
    }
    if !published {
        return Err(error::error(
            ErrorKind::TipMoved,
            "found the witnessed checkpoint replaced by other witnesses at every try: run the witness again",
        )
        .with_path(root.path(super::tlog_root::WITNESSED))
        .into());
    }
    let document = WitnessDocument {
        command: "witness",
        ok: true,
        root: path_text(&args.root),
        origin: checkpoint.origin().to_owned(),
        witness: witness.name().to_owned(),
        tree_size: checkpoint.size(),
        previous_size: previous.as_ref().map(Checkpoint::size),
        timestamp,
        published: path_text(&root.path(super::tlog_root::WITNESSED)),
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

/// A witness's state for one log.
struct State {
    dir: PathBuf,
    stem: String,
}

impl State {
    fn new(dir: &Path, origin: &str) -> State {
        let stem = origin
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_' {
                    char::from(b).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        State {
            dir: dir.to_path_buf(),
            stem,
        }
    }

    fn key_path(&self) -> PathBuf {
        self.dir.join(format!("{}.vkey", self.stem))
    }

    fn checkpoint_path(&self) -> PathBuf {
        self.dir.join(format!("{}.checkpoint", self.stem))
    }

    /// The log's key: the one kept, or `given` (which must be the same).
    fn log_key(&self, given: Option<&str>) -> Result<VerifierKey, CliError> {
        let path = self.key_path();
        let kept = match fs::read_to_string(&path) {
            Ok(text) => Some(VerifierKey::parse(text.trim()).map_err(|e| e.with_path(&path))?),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(CliError::io(&path, "cannot read the witness state", e)),
        };
        let given = given.map(verifier_key).transpose()?;
        match (kept, given) {
            (Some(kept), Some(given)) if kept.to_string() != given.to_string() => Err(error::error(
                ErrorKind::CheckpointInvalid,
                format!(
                    "found the log key {given} given, expected the key {kept} this witness keeps for the log"
                ),
            )
            .with_path(path)
            .into()),
            (Some(key), _) | (None, Some(key)) => Ok(key),
            (None, None) => Err(CliError::usage(
                "Usage",
                format!(
                    "found no key of this log in the witness state {}, expected --log-key <vkey> the first time",
                    path_text(&self.dir)
                ),
            )),
        }
    }

    /// The last checkpoint cosigned (verified then; read as text now).
    fn last(&self) -> Result<Option<Checkpoint>, JournalError> {
        let path = self.checkpoint_path();
        match fs::read(&path) {
            Ok(bytes) => {
                let note = Note::parse(&bytes).map_err(|e| e.with_path(&path))?;
                Ok(Some(
                    Checkpoint::parse_text(note.text()).map_err(|e| e.with_path(&path))?,
                ))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(error::io_error(&path, "cannot read the witness state", e)),
        }
    }

    /// Keeps the log's key and the checkpoint about to be cosigned,
    /// durably (a temporary file renamed over the old one).
    fn save(&self, key: &VerifierKey, checkpoint: &[u8]) -> Result<(), CliError> {
        fs::create_dir_all(&self.dir)
            .map_err(|e| CliError::io(&self.dir, "cannot create the witness state", e))?;
        replace(&self.key_path(), format!("{key}\n").as_bytes())?;
        replace(&self.checkpoint_path(), checkpoint)
    }
}

/// Replaces `path` with `bytes` durably.
fn replace(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let written = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)?;
        if let Some(dir) = path.parent()
            && let Ok(dir) = fs::File::open(dir)
        {
            dir.sync_all()?;
        }
        Ok(())
    })();
    written.map_err(|e| CliError::io(path, "cannot write the witness state", e))
}
