//! The two key strings of a note: a verifier key
//! `<name>+<hash>+<base64(type ‖ public key)>` and a signer key
//! `PRIVATE+KEY+<name>+<hash>+<base64(type ‖ seed)>`, which share their
//! `+` fields ([`key_fields`]). Apart from the note text (`text.rs`), as
//! a key is read, shown and used without any note.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};

use super::{Algorithm, column, invalid, is_valid_name, key_hash};

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
        if super::key_hash(name, algorithm, &key) != key_hash {
            return Err(invalid(format!(
                "found the key hash {key_hash:08x}, expected {:08x}: the hash of the name and the key",
                super::key_hash(name, algorithm, &key)
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
