//! What the fuzz target `tlog_parsers` checks (and its stable twin,
//! `crates/nenjim-journal-tlog/tests/hardening_fuzz.rs`): the parsers of
//! the verifiable ledger's formats never panic, refuse with
//! `CheckpointInvalid` located inside the input, and whatever they accept
//! writes back to the same text (a signature line up to the unused bits
//! of its last base64 character); a signed checkpoint edited anywhere opens
//! only as the checkpoint that was signed.
//!
//! The first byte picks the input: even, the rest as it is (a note, a
//! checkpoint text, a key, a tile path); odd, edits of a valid signed
//! checkpoint, two bytes each (a position and a byte: replaced, inserted
//! or removed by the byte's low bits).

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_tlog::checkpoint::Checkpoint;
use nenjim_journal_tlog::hash::leaf_hash;
use nenjim_journal_tlog::note::{Algorithm, Note, SignerKey, VerifierKey};
use nenjim_journal_tlog::tile::Tile;

/// The origin and key name of the mutated checkpoint.
pub const ORIGIN: &str = "example.org/fuzz";

/// The fixed signer key of the mutated checkpoint.
pub fn key() -> SignerKey {
    SignerKey::from_seed(ORIGIN, Algorithm::Ed25519, [42; 32]).expect("a valid name")
}

/// The signed checkpoint the odd inputs edit.
pub fn signed_checkpoint() -> (Checkpoint, String) {
    let checkpoint = Checkpoint::new(ORIGIN, 1234, leaf_hash(b"fuzz")).expect("a valid origin");
    let note = checkpoint.sign(&key()).expect("the key of the origin");
    (checkpoint, note.to_string())
}

fn assert_located(error: &JournalError, text: &[u8]) {
    assert_eq!(error.kind(), ErrorKind::CheckpointInvalid, "{error}");
    if let Some(line) = error.line() {
        let lines = text.iter().filter(|b| **b == b'\n').count() + 1;
        assert!(line >= 1 && line <= lines, "{error}: line past the input");
        assert!(error.column().is_some_and(|c| c >= 1), "{error}");
        assert!(
            error.to_string().starts_with(&format!("{line}:")),
            "{error}"
        );
    }
}

/// Runs every parser on `data` (see the module docs).
pub fn tlog_parsers(data: &[u8]) {
    match data.split_first() {
        Some((first, rest)) if first % 2 == 1 => mutated_checkpoint(rest),
        Some((_, rest)) => raw(rest),
        None => raw(data),
    }
}

fn raw(data: &[u8]) {
    match Note::parse(data) {
        Ok(note) => {
            // A note writes back as read, but for the unused low bits of
            // a signature's last base64 character, which reading ignores
            // (as Go's note.Open does) and writing clears.
            let written = note.to_string();
            assert_eq!(
                Note::parse(written.as_bytes()).ok().as_ref(),
                Some(&note),
                "a note reads back as written"
            );
            assert_eq!(written.len(), data.len(), "a note writes back as read");
            assert!(
                data.starts_with(format!("{}\n", note.text()).as_bytes()),
                "a note's text writes back as read"
            );
            assert!(note.text().ends_with('\n'));
            let mut signed = Note::new(note.text()).expect("an accepted text");
            signed.sign(&key()).expect("an Ed25519 key");
            signed.verify(&key().verifier()).expect("its own signature");
            if let Ok(checkpoint) = Checkpoint::parse_text(note.text()) {
                assert_eq!(checkpoint.text(), note.text());
            }
        }
        Err(e) => assert_located(&e, data),
    }
    let text = String::from_utf8_lossy(data);
    match Checkpoint::parse_text(&text) {
        Ok(checkpoint) => assert_eq!(checkpoint.text(), text, "a checkpoint writes back as read"),
        Err(e) => assert_located(&e, text.as_bytes()),
    }
    match VerifierKey::parse(&text) {
        Ok(vkey) => {
            let written = vkey.to_string();
            assert_eq!(VerifierKey::parse(&written).ok(), Some(vkey));
            // Only the hash's hex digits may change case.
            assert!(written.eq_ignore_ascii_case(&text));
            assert_eq!(written.len(), text.len());
        }
        Err(e) => assert_located(&e, text.as_bytes()),
    }
    match SignerKey::parse(&text) {
        Ok(skey) => {
            let written = skey.to_key_string();
            assert!(written.eq_ignore_ascii_case(&text));
            let again = SignerKey::parse(&written).expect("a written key reads back");
            assert_eq!(again.verifier(), skey.verifier());
        }
        Err(e) => assert_located(&e, text.as_bytes()),
    }
    match Tile::parse_path(&text) {
        Ok(tile) => assert_eq!(tile.path(), text, "a tile path writes back as read"),
        Err(e) => assert_eq!(e.kind(), ErrorKind::CheckpointInvalid),
    }
}

/// Applies two-byte edits to the signed checkpoint.
pub fn mutate(edits: &[u8]) -> Vec<u8> {
    let (_, signed) = signed_checkpoint();
    let mut bytes = signed.into_bytes();
    for edit in edits.chunks_exact(2) {
        let at = usize::from(edit[0]) % (bytes.len() + 1);
        match edit[1] & 0b11 {
            0 if at < bytes.len() => bytes[at] = edit[1],
            1 => bytes.insert(at, edit[1] >> 2 | 0x20),
            2 if at < bytes.len() => {
                bytes.remove(at);
            }
            _ if at < bytes.len() => bytes[at] ^= 1 << (edit[1] >> 5),
            _ => bytes.push(edit[1]),
        }
    }
    bytes
}

fn mutated_checkpoint(edits: &[u8]) {
    let (checkpoint, _) = signed_checkpoint();
    let bytes = mutate(edits);
    match Checkpoint::open(&bytes, &key().verifier()) {
        // Edits can only add or change what the signature does not cover
        // (lines of other keys): what opens is what was signed.
        Ok((opened, note)) => {
            assert_eq!(opened, checkpoint);
            assert_eq!(note.text(), checkpoint.text());
        }
        Err(e) => assert_located(&e, &bytes),
    }
    raw(&bytes);
}
