//! Witnessing a signed root (C2SP tlog-witness's rules, over static
//! files), so that one compromised hub key is not enough to show two
//! histories: the command's `witness`.
//!
//! [`cosign`]:
//!
//! 1. verifies the root's checkpoint with the log's verifier key
//!    (`CheckpointInvalid`);
//! 2. checks it is consistent with the last checkpoint this witness
//!    cosigned for that log (kept in its [`WitnessState`]): a larger or
//!    equal size, and an RFC 6962 consistency proof computed from the
//!    root's tiles; a smaller or inconsistent one is refused with
//!    `Rollback`, cosigning nothing;
//! 3. updates the state (written before anything is published: a witness
//!    never cosigns something inconsistent with what it cosigned), then
//!    adds the witness's `cosignature/v1` to the copy published beside the
//!    checkpoint, `.ledger/tlog/checkpoint.witnessed` (the checkpoint note
//!    with the log's signature and every witness's cosignature of that
//!    same checkpoint; a copy of an older checkpoint is replaced). The
//!    copy is replaced only if unchanged since it was read, so witnesses
//!    running at once do not drop each other's lines.
//!
//! A witness's state is a directory holding, per log origin (escaped into
//! a file name), `<origin>.vkey` (the log's verifier key) and
//! `<origin>.checkpoint` (the last checkpoint note cosigned).

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_tlog::checkpoint::{self, Checkpoint};
use nenjim_journal_tlog::note::{Algorithm, Note, SignerKey, VerifierKey};

use crate::verify::{CHECKPOINT, SignedRoot, WITNESSED};

/// How many times the witnessed copy is re-read when another witness
/// replaced it in between.
const PUBLISH_TRIES: usize = 8;

/// A witness's signer key from the text of its key file: a
/// `cosignature/v1` key (`CheckpointInvalid` for a log's Ed25519 key).
pub fn witness_key(text: &str) -> Result<SignerKey, JournalError> {
    let witness = SignerKey::from_file_text(text)?;
    if witness.algorithm() != Algorithm::CosignatureV1 {
        return Err(error::error(
            ErrorKind::CheckpointInvalid,
            format!(
                "found the Ed25519 note key {}, expected a cosignature/v1 witness key (`nenjim-journal keygen <name> --witness --out <file>`)",
                witness.name()
            ),
        ));
    }
    Ok(witness)
}

/// A witness's state for one log: the log's key and the last checkpoint
/// it cosigned, in a directory of its own (created when first saved).
#[derive(Clone, Debug)]
pub struct WitnessState {
    dir: PathBuf,
    stem: String,
}

impl WitnessState {
    /// The state in `dir` of the log named `origin` (a checkpoint's first
    /// line).
    pub fn new(dir: &Path, origin: &str) -> WitnessState {
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
        WitnessState {
            dir: dir.to_path_buf(),
            stem,
        }
    }

    /// The state's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file keeping the log's verifier key.
    pub fn key_path(&self) -> PathBuf {
        self.dir.join(format!("{}.vkey", self.stem))
    }

    /// The file keeping the last checkpoint cosigned.
    pub fn checkpoint_path(&self) -> PathBuf {
        self.dir.join(format!("{}.checkpoint", self.stem))
    }

    /// The log's key: the one kept, or `given` (which must be the same:
    /// `CheckpointInvalid` otherwise); `None` when there is neither.
    pub fn log_key(&self, given: Option<VerifierKey>) -> Result<Option<VerifierKey>, JournalError> {
        let path = self.key_path();
        let kept = match fs::read_to_string(&path) {
            Ok(text) => Some(VerifierKey::parse(text.trim()).map_err(|e| e.with_path(&path))?),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(error::io_error(&path, "cannot read the witness state", e)),
        };
        match (kept, given) {
            (Some(kept), Some(given)) if kept.to_string() != given.to_string() => Err(error::error(
                ErrorKind::CheckpointInvalid,
                format!(
                    "found the log key {given} given, expected the key {kept} this witness keeps for the log"
                ),
            )
            .with_path(path)),
            (Some(key), _) | (None, Some(key)) => Ok(Some(key)),
            (None, None) => Ok(None),
        }
    }

    /// The last checkpoint cosigned (verified then; read as text now).
    pub fn last(&self) -> Result<Option<Checkpoint>, JournalError> {
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
    fn save(&self, key: &VerifierKey, checkpoint: &[u8]) -> Result<(), JournalError> {
        fs::create_dir_all(&self.dir)
            .map_err(|e| error::io_error(&self.dir, "cannot create the witness state", e))?;
        replace(&self.key_path(), format!("{key}\n").as_bytes())?;
        replace(&self.checkpoint_path(), checkpoint)
    }
}

/// What [`cosign`] did.
#[derive(Clone, Debug)]
pub struct Witnessed {
    checkpoint: Checkpoint,
    previous: Option<Checkpoint>,
    timestamp: u64,
    published: PathBuf,
}

impl Witnessed {
    /// The checkpoint cosigned.
    pub fn checkpoint(&self) -> &Checkpoint {
        &self.checkpoint
    }

    /// The checkpoint this witness cosigned before, if any.
    pub fn previous(&self) -> Option<&Checkpoint> {
        self.previous.as_ref()
    }

    /// The cosignature's time, in seconds since the Unix epoch.
    pub fn timestamp(&self) -> u64 {
        self.timestamp
    }

    /// Where the witnessed copy was published (in the root's store).
    pub fn published(&self) -> &Path {
        &self.published
    }
}

/// Cosigns the checkpoint of `root` as `witness`, after verifying it with
/// `log_key` and checking it extends the last one `state` kept (see the
/// module's docs); the state is saved before the copy is published.
pub fn cosign(
    root: &SignedRoot,
    witness: &SignerKey,
    state: &WitnessState,
    log_key: &VerifierKey,
) -> Result<Witnessed, JournalError> {
    let bytes = root.checkpoint_bytes()?;
    let at = root.path(CHECKPOINT);
    let (checkpoint, note) = Checkpoint::open(&bytes, log_key).map_err(|e| e.with_path(&at))?;
    let previous = state.last()?;
    if let Some(previous) = &previous {
        root.check_consistent(previous, &checkpoint).map_err(|e| {
            e.note(format!(
                "this witness cosigned a checkpoint of {} entries ({}): it cosigns nothing inconsistent with it",
                previous.size(),
                state.checkpoint_path().display()
            ))
        })?;
    }
    // The state first: once it moves, this witness never cosigns an
    // older or forked tree, whatever happens to the publication.
    state.save(log_key, &bytes)?;
    let timestamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let line = checkpoint::cosign(&note, witness, timestamp)?;
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
                .with_path(root.path(WITNESSED)));
            }
        }
        copy.add_signature(line.clone());
        if root.publish_witnessed(
            copy.to_string().as_bytes(),
            existing.as_ref().map(|(_, v)| v),
        )? {
            return Ok(Witnessed {
                checkpoint,
                previous,
                timestamp,
                published: root.path(WITNESSED),
            });
        }
    }
    Err(error::error(
        ErrorKind::TipMoved,
        "found the witnessed checkpoint replaced by other witnesses at every try: run the witness again",
    )
    .with_path(root.path(WITNESSED)))
}

/// Replaces `path` with `bytes` durably.
fn replace(path: &Path, bytes: &[u8]) -> Result<(), JournalError> {
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
    written.map_err(|e| error::io_error(path, "cannot write the witness state", e))
}
