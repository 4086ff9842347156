//! C2SP tlog-checkpoint (`<origin>\n<N>\n<base64 root>\n` and optional
//! extension lines, signed by the key named `<origin>`) and C2SP
//! tlog-cosignature `cosignature/v1` (a witness's timestamped signature
//! over `cosignature/v1\ntime <unix>\n` and the checkpoint text).

use std::fmt;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};

use crate::hash::Hash;
use crate::note::{Algorithm, Note, NoteSignature, SignerKey, VerifierKey, is_valid_name};

fn invalid(message: impl Into<String>) -> JournalError {
    error::error(ErrorKind::CheckpointInvalid, message)
}

/// A checkpoint: the log's origin, its tree size and root hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    origin: String,
    size: u64,
    root: Hash,
    extensions: Vec<String>,
}

impl Checkpoint {
    /// The checkpoint of the tree of `size` leaves with `root`, for the
    /// log `origin` (a key name: non-empty, no spaces, no `+`).
    pub fn new(origin: &str, size: u64, root: Hash) -> Result<Checkpoint, JournalError> {
        if !is_valid_name(origin) {
            return Err(invalid(format!(
                "found the origin {}, expected a non-empty key name without spaces or `+`",
                error::shown(origin)
            )));
        }
        Ok(Checkpoint {
            origin: origin.to_owned(),
            size,
            root,
            extensions: Vec::new(),
        })
    }

    /// The origin line.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The tree size.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The root hash.
    pub fn root(&self) -> &Hash {
        &self.root
    }

    /// The extension lines (opaque, non-empty), usually none.
    pub fn extensions(&self) -> &[String] {
        &self.extensions
    }

    /// Reads a checkpoint's note text: the origin, the size in decimal
    /// without leading zeroes, the canonical base64 of 32 bytes, then
    /// non-empty extension lines, each line ending in a newline. Errors
    /// are `CheckpointInvalid` at a line and column of the text.
    pub fn parse_text(text: &str) -> Result<Checkpoint, JournalError> {
        let Some(body) = text.strip_suffix('\n') else {
            return Err(invalid(
                "found a checkpoint without a final newline, expected one",
            ));
        };
        let lines: Vec<&str> = body.split('\n').collect();
        let [origin, size, root, extensions @ ..] = lines.as_slice() else {
            return Err(invalid(format!(
                "found {} lines, expected at least 3: origin, tree size, root hash",
                lines.len()
            ))
            .at(lines.len(), 1));
        };
        if origin.is_empty() {
            return Err(invalid("found an empty origin line, expected the log's origin").at(1, 1));
        }
        let size_value = (!size.is_empty()
            && size.bytes().all(|b| b.is_ascii_digit())
            && (size.len() == 1 || !size.starts_with('0')))
        .then(|| size.parse::<u64>().ok())
        .flatten()
        .ok_or_else(|| {
            invalid(format!(
                "found the tree size {}, expected a decimal number without leading zeroes",
                error::shown(size)
            ))
            .at(2, 1)
        })?;
        let root = Hash::from_base64(root).ok_or_else(|| {
            invalid(format!(
                "found the root hash {}, expected the standard base64 of 32 bytes",
                error::shown(root)
            ))
            .at(3, 1)
        })?;
        if let Some(i) = extensions.iter().position(|l| l.is_empty()) {
            return Err(
                invalid("found an empty extension line, expected none or non-empty ones")
                    .at(4 + i, 1),
            );
        }
        Ok(Checkpoint {
            origin: (*origin).to_owned(),
            size: size_value,
            root,
            extensions: extensions.iter().map(|l| (*l).to_owned()).collect(),
        })
    }

    /// The note text: `<origin>\n<size>\n<base64 root>\n` and the
    /// extension lines.
    pub fn text(&self) -> String {
        let mut out = format!(
            "{}\n{}\n{}\n",
            self.origin,
            self.size,
            self.root.to_base64()
        );
        for line in &self.extensions {
            out.push_str(line);
            out.push('\n');
        }
        out
    }

    /// The signed note of this checkpoint, signed by `key`, whose name
    /// must be the origin.
    pub fn sign(&self, key: &SignerKey) -> Result<Note, JournalError> {
        if key.name() != self.origin {
            return Err(invalid(format!(
                "found the signer key {}, expected the key named by the origin {}",
                key.name(),
                self.origin
            )));
        }
        let mut note = Note::new(self.text())?;
        note.sign(key)?;
        Ok(note)
    }

    /// Reads a signed checkpoint and checks it: the note's syntax, a valid
    /// signature of `key` (its name must be the origin), the checkpoint
    /// text. Signatures of other keys (witnesses) are kept, unchecked.
    pub fn open(bytes: &[u8], key: &VerifierKey) -> Result<(Checkpoint, Note), JournalError> {
        let note = Note::parse(bytes)?;
        let checkpoint = Checkpoint::parse_text(note.text())?;
        if checkpoint.origin != key.name() {
            return Err(invalid(format!(
                "found the origin {}, expected the name of the verifier key {}",
                error::shown(&checkpoint.origin),
                key.name()
            ))
            .at(1, 1));
        }
        note.verify(key)?;
        Ok((checkpoint, note))
    }
}

impl Checkpoint {
    /// Checks that this checkpoint covers at most the `held` entries a
    /// ledger holds (format section 10, reading: the entries after it
    /// wait for a later checkpoint); `CheckpointMismatch` for one that
    /// covers more.
    pub fn check_within(&self, held: u64) -> Result<(), JournalError> {
        if self.size > held {
            return Err(error::error(
                ErrorKind::CheckpointMismatch,
                format!(
                    "found a checkpoint of {} entries, expected at most the {held} entries of the ledger",
                    self.size
                ),
            ));
        }
        Ok(())
    }

    /// Checks that this checkpoint covers exactly a ledger of `size`
    /// entries whose records hash to `root` (format section 10, reading);
    /// `CheckpointMismatch` otherwise.
    pub fn check_tree(&self, size: u64, root: &Hash) -> Result<(), JournalError> {
        if self.size != size {
            return Err(error::error(
                ErrorKind::CheckpointMismatch,
                format!(
                    "found a checkpoint of {} entries, expected the {size} entries of the ledger",
                    self.size
                ),
            ));
        }
        if self.root != *root {
            return Err(error::error(
                ErrorKind::CheckpointMismatch,
                format!(
                    "found the root hash {} in the checkpoint, expected {root}, the hash of the ledger's {size} records",
                    self.root
                ),
            ));
        }
        Ok(())
    }

    /// Checks that `newer` extends this checkpoint: the same origin, a
    /// size at least this one's, and `proof` an RFC 6962 consistency proof
    /// between the two trees (empty for equal sizes, which need equal
    /// roots); `Rollback` otherwise (format section 10: a refresh, a
    /// writer replacing the checkpoint, a witness).
    pub fn check_extension(&self, newer: &Checkpoint, proof: &[Hash]) -> Result<(), JournalError> {
        if newer.origin != self.origin {
            return Err(error::error(
                ErrorKind::Rollback,
                format!(
                    "found a checkpoint of the origin {}, expected {}",
                    error::shown(&newer.origin),
                    error::shown(&self.origin)
                ),
            ));
        }
        if newer.size < self.size {
            return Err(error::error(
                ErrorKind::Rollback,
                format!(
                    "found a checkpoint of {} entries, expected at least the {} of the one already verified",
                    newer.size, self.size
                ),
            ));
        }
        crate::tree::verify_consistency(self.size, newer.size, &self.root, &newer.root, proof)
    }
}

impl fmt::Display for Checkpoint {
    /// The note text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// The largest cosignature timestamp (`2^63 - 1`).
pub const MAX_TIMESTAMP: u64 = i64::MAX as u64;

/// The message a `cosignature/v1` signs: `cosignature/v1\ntime <unix>\n`
/// and the checkpoint's whole note text.
pub fn cosigned_message(note_text: &str, timestamp: u64) -> String {
    format!("cosignature/v1\ntime {timestamp}\n{note_text}")
}

/// The witness's cosignature of a checkpoint note at `timestamp` (POSIX
/// seconds): a signature line whose bytes are the key ID, the 8-byte
/// big-endian timestamp and the Ed25519 signature. `key` must be a
/// `cosignature/v1` key (type `0x04`).
pub fn cosign(note: &Note, key: &SignerKey, timestamp: u64) -> Result<NoteSignature, JournalError> {
    if key.algorithm() != Algorithm::CosignatureV1 {
        return Err(invalid(format!(
            "found the note key {}, expected a cosignature/v1 key (type 0x04) to cosign",
            key.name()
        )));
    }
    if timestamp > MAX_TIMESTAMP {
        return Err(invalid(format!(
            "found the timestamp {timestamp}, expected at most 2^63 - 1"
        )));
    }
    let message = cosigned_message(note.text(), timestamp);
    let mut signature = timestamp.to_be_bytes().to_vec();
    signature.extend_from_slice(&key.sign(message.as_bytes()));
    Ok(NoteSignature {
        name: key.name().to_owned(),
        key_hash: key.key_hash(),
        signature,
    })
}

/// Checks the `cosignature/v1` of the witness `key` on a checkpoint note
/// and returns its timestamp; `CheckpointInvalid` when the note has none
/// of that key, or an invalid one.
pub fn verify_cosignature(note: &Note, key: &VerifierKey) -> Result<u64, JournalError> {
    if key.algorithm() != Algorithm::CosignatureV1 {
        return Err(invalid(format!(
            "found the note key {}, expected a cosignature/v1 key (type 0x04)",
            key.name()
        )));
    }
    let mut valid = None;
    for line in note.signatures_of(key) {
        let (timestamp, signature) = line
            .signature
            .split_first_chunk::<8>()
            .map(|(t, s)| (u64::from_be_bytes(*t), s))
            .unwrap_or((0, &[]));
        let message = cosigned_message(note.text(), timestamp);
        if timestamp > MAX_TIMESTAMP || !key.verify(message.as_bytes(), signature) {
            return Err(invalid(format!(
                "found an invalid cosignature of the witness {}+{:08x}, expected a valid one",
                key.name(),
                key.key_hash()
            )));
        }
        valid = Some(timestamp);
    }
    valid.ok_or_else(|| {
        invalid(format!(
            "found no cosignature of the witness {}+{:08x}, expected one",
            key.name(),
            key.key_hash()
        ))
    })
}

/// How many of the `witnesses` (distinct keys) carry a valid
/// `cosignature/v1` on the note: what a `--quorum N` compares with `N`.
/// A witness with no line, or an invalid one, does not count; a key
/// listed twice counts once.
pub fn count_cosignatures(note: &Note, witnesses: &[VerifierKey]) -> usize {
    let mut counted: Vec<(&str, u32)> = Vec::new();
    for witness in witnesses {
        let id = (witness.name(), witness.key_hash());
        if !counted.contains(&id) && verify_cosignature(note, witness).is_ok() {
            counted.push(id);
        }
    }
    counted.len()
}
