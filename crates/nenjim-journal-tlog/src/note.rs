//! C2SP signed notes and their keys, in the formats of Go's
//! `golang.org/x/mod/sumdb/note`.
//!
//! (This file is over 600 lines, 609 before its unit tests: one format, as
//! in Go's package; its two key strings, the note text, signing and
//! verifying share the key ID and the signature line.)
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

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
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

/// Splits a key string at its `+` fields: `name`, `hash`, `base64`
/// (which may itself contain `+`), checking each; the key bytes are the
/// type byte and 32 bytes.
fn key_fields<'a>(
    text: &'a str,
    fields: &'a str,
    kind: &str,
) -> Result<(&'a str, u32, Algorithm, [u8; 32]), JournalError> {
    let offset = text.len() - fields.len();
    let at = |part: &str| {
        column(
            text,
            offset + (part.as_ptr() as usize - fields.as_ptr() as usize),
        )
    };
    let mut parts = fields.splitn(3, '+');
    let name = parts.next().unwrap_or_default();
    let (Some(hash), Some(key64)) = (parts.next(), parts.next()) else {
        return Err(invalid(format!(
            "found {}, expected a {kind} `<name>+<8 hex digits>+<base64 key>`",
            error::shown(text)
        ))
        .at(1, 1));
    };
    if !is_valid_name(name) {
        return Err(invalid(format!(
            "found the key name {}, expected a non-empty name without spaces or `+`",
            error::shown(name)
        ))
        .at(1, at(name)));
    }
    let parsed = (hash.len() == 8 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| u32::from_str_radix(hash, 16).ok())
        .flatten();
    let Some(hash_value) = parsed else {
        return Err(invalid(format!(
            "found the key hash {}, expected 8 hex digits",
            error::shown(hash)
        ))
        .at(1, at(hash)));
    };
    let bytes = STANDARD.decode(key64).map_err(|_| {
        invalid(format!(
            "found the key {}, expected standard padded base64",
            error::shown(key64)
        ))
        .at(1, at(key64))
    })?;
    let Some((&type_byte, key)) = bytes.split_first() else {
        return Err(
            invalid("found an empty key, expected a type byte and 32 bytes").at(1, at(key64)),
        );
    };
    let Some(algorithm) = Algorithm::from_byte(type_byte) else {
        return Err(invalid(format!(
            "found the key type 0x{type_byte:02x}, expected 0x01 (Ed25519) or 0x04 (cosignature/v1)"
        ))
        .at(1, at(key64)));
    };
    let key: [u8; 32] = key.try_into().map_err(|_| {
        invalid(format!(
            "found a key of {} bytes after its type byte, expected 32",
            key.len()
        ))
        .at(1, at(key64))
    })?;
    Ok((name, hash_value, algorithm, key))
}

/// A note verifier key: a name, its key ID and an Ed25519 public key.
#[derive(Clone, PartialEq, Eq)]
pub struct VerifierKey {
    name: String,
    key_hash: u32,
    algorithm: Algorithm,
    key: VerifyingKey,
}

impl VerifierKey {
    /// Reads `<name>+<hash>+<base64(type ‖ public key)>` (as Go's
    /// `note.NewVerifier`), refusing a malformed one with
    /// `CheckpointInvalid` located at its column, or a hash that is not
    /// the key's.
    pub fn parse(text: &str) -> Result<VerifierKey, JournalError> {
        let (name, key_hash, algorithm, key) = key_fields(text, text, "verifier key")?;
        if self::key_hash(name, algorithm, &key) != key_hash {
            return Err(invalid(format!(
                "found the key hash {key_hash:08x}, expected {:08x}: the hash of the name and the key",
                self::key_hash(name, algorithm, &key)
            ))
            .at(1, 1));
        }
        let key = VerifyingKey::from_bytes(&key).map_err(|_| {
            invalid(
                "found a public key that is not an Ed25519 point, expected an Ed25519 public key",
            )
            .at(1, 1)
        })?;
        Ok(VerifierKey {
            name: name.to_owned(),
            key_hash,
            algorithm,
            key,
        })
    }

    /// The key name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key ID.
    pub fn key_hash(&self) -> u32 {
        self.key_hash
    }

    /// The signature type.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The 32 bytes of the public key.
    pub fn public_key(&self) -> [u8; 32] {
        self.key.to_bytes()
    }

    /// Whether `signature` is this key's (strict RFC 8032) over `message`.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        let Ok(signature) = Signature::from_slice(signature) else {
            return false;
        };
        self.key.verify_strict(message, &signature).is_ok()
    }
}

impl fmt::Display for VerifierKey {
    /// `<name>+<hash>+<base64>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut bytes = vec![self.algorithm.byte()];
        bytes.extend_from_slice(self.key.as_bytes());
        write!(
            f,
            "{}+{:08x}+{}",
            self.name,
            self.key_hash,
            STANDARD.encode(bytes)
        )
    }
}

impl fmt::Debug for VerifierKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VerifierKey({self})")
    }
}

/// A note signer key: a name, its key ID and an Ed25519 private key.
/// `Debug` shows the name and ID only.
#[derive(Clone)]
pub struct SignerKey {
    name: String,
    key_hash: u32,
    algorithm: Algorithm,
    key: SigningKey,
}

impl SignerKey {
    /// A new key of `name` from the operating system's randomness.
    pub fn generate(name: &str, algorithm: Algorithm) -> Result<SignerKey, JournalError> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| {
            error::error(
                ErrorKind::Io,
                format!("cannot read the operating system's randomness: {e}"),
            )
        })?;
        SignerKey::from_seed(name, algorithm, seed)
    }

    /// The key of `name` whose Ed25519 seed (RFC 8032 private key) is `seed`.
    pub fn from_seed(
        name: &str,
        algorithm: Algorithm,
        seed: [u8; 32],
    ) -> Result<SignerKey, JournalError> {
        if !is_valid_name(name) {
            return Err(invalid(format!(
                "found the key name {}, expected a non-empty name without spaces or `+`",
                error::shown(name)
            )));
        }
        let key = SigningKey::from_bytes(&seed);
        Ok(SignerKey {
            name: name.to_owned(),
            key_hash: key_hash(name, algorithm, key.verifying_key().as_bytes()),
            algorithm,
            key,
        })
    }

    /// Reads `PRIVATE+KEY+<name>+<hash>+<base64(type ‖ seed)>` (as Go's
    /// `note.NewSigner`), refusing a malformed one with
    /// `CheckpointInvalid`, or a hash that is not the key's.
    pub fn parse(text: &str) -> Result<SignerKey, JournalError> {
        let Some(fields) = text.strip_prefix("PRIVATE+KEY+") else {
            return Err(invalid(
                "found no `PRIVATE+KEY+` prefix, expected a signer key `PRIVATE+KEY+<name>+<hash>+<base64>`",
            )
            .at(1, 1));
        };
        let (name, hash, algorithm, seed) = key_fields(text, fields, "signer key")?;
        let key = SignerKey::from_seed(name, algorithm, seed)?;
        if key.key_hash != hash {
            return Err(invalid(format!(
                "found the key hash {hash:08x}, expected {:08x}: the hash of the name and the key",
                key.key_hash
            ))
            .at(1, 1));
        }
        Ok(key)
    }

    /// Reads the signer key of a key file: the key, with or without one
    /// line ending after it.
    pub fn from_file_text(text: &str) -> Result<SignerKey, JournalError> {
        let key = text
            .strip_suffix("\r\n")
            .or_else(|| text.strip_suffix('\n'))
            .unwrap_or(text);
        SignerKey::parse(key)
    }

    /// The key name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key ID.
    pub fn key_hash(&self) -> u32 {
        self.key_hash
    }

    /// The signature type.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The verifier key of this key.
    pub fn verifier(&self) -> VerifierKey {
        VerifierKey {
            name: self.name.clone(),
            key_hash: self.key_hash,
            algorithm: self.algorithm,
            key: self.key.verifying_key(),
        }
    }

    /// `PRIVATE+KEY+<name>+<hash>+<base64(type ‖ seed)>`: the secret, for
    /// a key file.
    pub fn to_key_string(&self) -> String {
        let mut bytes = vec![self.algorithm.byte()];
        bytes.extend_from_slice(self.key.as_bytes());
        format!(
            "PRIVATE+KEY+{}+{:08x}+{}",
            self.name,
            self.key_hash,
            STANDARD.encode(bytes)
        )
    }

    /// The Ed25519 signature of `message`.
    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        self.key.sign(message).to_bytes()
    }
}

impl fmt::Debug for SignerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SignerKey({}+{:08x})", self.name, self.key_hash)
    }
}

/// One signature line of a note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteSignature {
    /// The key name.
    pub name: String,
    /// The key ID (the first 4 bytes of the decoded signature).
    pub key_hash: u32,
    /// The signature bytes after the key ID.
    pub signature: Vec<u8>,
}

impl fmt::Display for NoteSignature {
    /// `— <name> <base64(key ID ‖ signature)>` without the newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut bytes = self.key_hash.to_be_bytes().to_vec();
        bytes.extend_from_slice(&self.signature);
        write!(f, "— {} {}", self.name, STANDARD.encode(bytes))
    }
}

/// A signed note: its text (ending in a newline) and its signature lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    text: String,
    signatures: Vec<NoteSignature>,
}

impl Note {
    /// A note of `text` without signatures yet; the text must end in a
    /// newline and hold no control character but newlines.
    pub fn new(text: impl Into<String>) -> Result<Note, JournalError> {
        let text = text.into();
        check_characters(&text)?;
        if !text.ends_with('\n') {
            return Err(invalid(
                "found a note text without a final newline, expected one",
            ));
        }
        Ok(Note {
            text,
            signatures: Vec::new(),
        })
    }

    /// Reads a signed note (syntax only: see [`Note::verify`]): valid UTF-8
    /// without control characters but newlines, the text up to the last
    /// blank line, then 1 to 100 lines `— <name> <base64>` whose base64
    /// holds a key ID and at least one byte. Errors are located at a line
    /// and column of the note.
    pub fn parse(bytes: &[u8]) -> Result<Note, JournalError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let (line, col) = locate(bytes, e.valid_up_to());
            invalid("found bytes that are not UTF-8, expected a UTF-8 note").at(line, col)
        })?;
        check_characters(text)?;
        let Some(split) = text.rfind("\n\n") else {
            return Err(invalid(
                "found no blank line, expected the note text, a blank line and signature lines",
            ));
        };
        let (body, sigs) = (&text[..=split], &text[split + 2..]);
        if sigs.is_empty() || !sigs.ends_with('\n') {
            let (line, col) = locate(bytes, text.len());
            return Err(invalid(
                "found no signature lines ending in a newline after the blank line, expected at least one",
            )
            .at(line, col));
        }
        let first_line = body.matches('\n').count() + 2;
        let mut signatures = Vec::new();
        for (i, line) in sigs[..sigs.len() - 1].split('\n').enumerate() {
            let at = first_line + i;
            if signatures.len() == MAX_SIGNATURES {
                return Err(invalid(format!(
                    "found more than {MAX_SIGNATURES} signature lines, expected at most {MAX_SIGNATURES}"
                ))
                .at(at, 1));
            }
            signatures.push(parse_signature(line).map_err(|(col, e)| e.at(at, col))?);
        }
        Ok(Note {
            text: body.to_owned(),
            signatures,
        })
    }

    /// The note text, ending in a newline.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The signature lines, in order.
    pub fn signatures(&self) -> &[NoteSignature] {
        &self.signatures
    }

    /// Adds a signature line, replacing one of the same name and key ID.
    pub fn add_signature(&mut self, signature: NoteSignature) {
        self.signatures.retain(|s| {
            (s.name.as_str(), s.key_hash) != (signature.name.as_str(), signature.key_hash)
        });
        self.signatures.push(signature);
    }

    /// Signs the text with an Ed25519 note key (type `0x01`) and adds the
    /// signature line.
    pub fn sign(&mut self, key: &SignerKey) -> Result<(), JournalError> {
        if key.algorithm() != Algorithm::Ed25519 {
            return Err(invalid(format!(
                "found the cosigner key {}, expected an Ed25519 note key to sign a note",
                key.name()
            )));
        }
        self.add_signature(NoteSignature {
            name: key.name().to_owned(),
            key_hash: key.key_hash(),
            signature: key.sign(self.text.as_bytes()).to_vec(),
        });
        Ok(())
    }

    /// The signature lines of `key` (its name and key ID; others are
    /// ignored, as C2SP requires).
    pub fn signatures_of<'a>(
        &'a self,
        key: &'a VerifierKey,
    ) -> impl Iterator<Item = &'a NoteSignature> {
        self.signatures
            .iter()
            .filter(move |s| s.name == key.name() && s.key_hash == key.key_hash())
    }

    /// Checks that the note carries a valid Ed25519 signature of `key`
    /// over its text, and no invalid one; `CheckpointInvalid` otherwise.
    pub fn verify(&self, key: &VerifierKey) -> Result<(), JournalError> {
        if key.algorithm() != Algorithm::Ed25519 {
            return Err(invalid(format!(
                "found the cosigner key {}, expected an Ed25519 note key to verify a note",
                key.name()
            )));
        }
        let mut found = false;
        for signature in self.signatures_of(key) {
            if !key.verify(self.text.as_bytes(), &signature.signature) {
                return Err(invalid(format!(
                    "found an invalid signature of the key {}+{:08x}, expected a valid one",
                    key.name(),
                    key.key_hash()
                )));
            }
            found = true;
        }
        if !found {
            return Err(invalid(format!(
                "found no signature of the key {}+{:08x}, expected one (signed by: {})",
                key.name(),
                key.key_hash(),
                self.signers()
            )));
        }
        Ok(())
    }

    fn signers(&self) -> String {
        let names: Vec<String> = self
            .signatures
            .iter()
            .map(|s| format!("{}+{:08x}", s.name, s.key_hash))
            .collect();
        names.join(", ")
    }
}

impl fmt::Display for Note {
    /// The text, the blank line and the signature lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)?;
        f.write_str("\n")?;
        for signature in &self.signatures {
            writeln!(f, "{signature}")?;
        }
        Ok(())
    }
}

/// The 1-based line and column of byte `at` in `bytes`.
fn locate(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at.min(bytes.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, col)
}

fn check_characters(text: &str) -> Result<(), JournalError> {
    if let Some((at, c)) = text.char_indices().find(|(_, c)| *c < ' ' && *c != '\n') {
        let (line, col) = locate(text.as_bytes(), at);
        return Err(invalid(format!(
            "found the control character {}, expected none but newlines in a note",
            c.escape_debug()
        ))
        .at(line, col));
    }
    Ok(())
}

/// The base64 of signature lines as Go's `base64.StdEncoding` reads it
/// (`note.Open`): padding required, but nonzero unused bits in the last
/// character allowed. A line another key wrote so must be ignored (C2SP:
/// signatures of unknown keys are ignored), not make the note malformed.
const SIGNATURE_BASE64: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    base64::engine::GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
);

fn parse_signature(line: &str) -> Result<NoteSignature, (usize, JournalError)> {
    let Some(rest) = line.strip_prefix("— ") else {
        return Err((
            1,
            invalid(format!(
                "found {}, expected a signature line `— <name> <base64>`",
                error::shown(line)
            )),
        ));
    };
    let (name, b64) = rest.split_once(' ').unwrap_or((rest, ""));
    if !is_valid_name(name) {
        return Err((
            3,
            invalid(format!(
                "found the key name {}, expected a non-empty name without spaces or `+`",
                error::shown(name)
            )),
        ));
    }
    let b64_col = 3 + name.chars().count() + 1;
    let bytes = SIGNATURE_BASE64.decode(b64).ok().filter(|b| b.len() >= 5);
    let Some(bytes) = bytes else {
        return Err((
            b64_col,
            invalid(format!(
                "found the signature {}, expected standard padded base64 of a 4-byte key ID and a signature",
                error::shown(b64)
            )),
        ));
    };
    Ok(NoteSignature {
        name: name.to_owned(),
        key_hash: u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
        signature: bytes[4..].to_vec(),
    })
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
