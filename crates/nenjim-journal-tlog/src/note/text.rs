//! A note's text and its signature lines: reading one (`Note::parse`),
//! signing it with a [`SignerKey`](super::SignerKey) and verifying it
//! with a [`VerifierKey`](super::VerifierKey), through the keys' public
//! methods only (`key.rs`).

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use nenjim_journal_api::error::{self, ErrorContext as _, JournalError};

use super::{Algorithm, MAX_SIGNATURES, SignerKey, VerifierKey, invalid, is_valid_name};

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
