//! C2SP signed notes and their keys, in the formats of Go's
//! `golang.org/x/mod/sumdb/note`.
//!
//! One format, as in Go's package, in three files: this one holds what
//! the key strings and the note text share (the key type, the key ID,
//! key names, the error and column helpers); `key.rs` the two key strings
//! (verifier and signer) and their parsing; `text.rs` the note text, its
//! signature lines, signing and verifying.
//!
//! - A verifier key is `<name>+<hash>+<base64(type ‖ public key)>`, a
//!   signer key `PRIVATE+KEY+<name>+<hash>+<base64(type ‖ seed)>`, where
//!   `<hash>` is the 8 hex digits of the key ID, the first 4 bytes of
//!   `SHA-256(name ‖ 0x0A ‖ type ‖ public key)`. The type is `0x01`
//!   (Ed25519 note signatures) or `0x04` (Ed25519 `cosignature/v1`, whose
//!   signer key string has the same shape: Go's package has no signer
//!   string for it).
//! - A note is a text ending in a newline, a blank line, and signature
//!   lines `— <name> <base64(key ID ‖ signature)>`.

mod key;
mod text;

pub use key::{SignerKey, VerifierKey};
pub use text::{Note, NoteSignature};

use nenjim_journal_api::error::{self, ErrorKind, JournalError};
use sha2::{Digest, Sha256};

/// The most signature lines a note may carry (C2SP: at least 16; Go: 100).
pub const MAX_SIGNATURES: usize = 100;

/// The signature type of a key (its first key byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// `0x01`: Ed25519 over the note text (a log's checkpoint signature).
    Ed25519,
    /// `0x04`: timestamped Ed25519 `cosignature/v1` (a witness).
    CosignatureV1,
}

impl Algorithm {
    /// The type byte.
    pub fn byte(self) -> u8 {
        match self {
            Algorithm::Ed25519 => 0x01,
            Algorithm::CosignatureV1 => 0x04,
        }
    }

    fn from_byte(byte: u8) -> Option<Algorithm> {
        match byte {
            0x01 => Some(Algorithm::Ed25519),
            0x04 => Some(Algorithm::CosignatureV1),
            _ => None,
        }
    }
}

/// Whether `name` may name a key: non-empty, no Unicode space, no `+`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(|c| c.is_whitespace() || c == '+')
}

/// The key ID: the first 4 bytes (big-endian) of
/// `SHA-256(name ‖ 0x0A ‖ type ‖ public key)`.
pub fn key_hash(name: &str, algorithm: Algorithm, public_key: &[u8; 32]) -> u32 {
    let mut h = Sha256::new();
    h.update(name.as_bytes());
    h.update([b'\n', algorithm.byte()]);
    h.update(public_key);
    let digest = h.finalize();
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

fn invalid(message: impl Into<String>) -> JournalError {
    error::error(ErrorKind::CheckpointInvalid, message)
}

/// The 1-based column of the byte offset `at` in a one-line `text`.
fn column(text: &str, at: usize) -> usize {
    text.get(..at).map_or(1, |s| s.chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_c2sp_example_verifies() {
        // The example of c2sp.org/signed-note.
        let vkey = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
        let note = "This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";
        let key = VerifierKey::parse(vkey).map_err(|e| e.to_string());
        assert_eq!(
            key.as_ref().map(ToString::to_string).ok().as_deref(),
            Some(vkey)
        );
        let note = Note::parse(note.as_bytes()).map_err(|e| e.to_string());
        let verified = match (&key, &note) {
            (Ok(key), Ok(note)) => note.verify(key).map_err(|e| e.to_string()),
            (k, n) => Err(format!("{k:?} {n:?}")),
        };
        assert_eq!(verified, Ok(()));
    }
}
