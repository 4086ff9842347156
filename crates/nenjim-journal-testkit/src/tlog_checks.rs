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
//!
//! [`tlog_tiles`] is the check of the fuzz target of the same name: the
//! hash tiles a verifier reads, damaged (see its docs).

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_tlog::checkpoint::Checkpoint;
use nenjim_journal_tlog::hash::{Hash, leaf_hash};
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

/// The largest tree `tlog_tiles` reads.
const TILES_MAX: u64 = 600;

/// The proof of an undamaged read of `tlog_tiles`, and the tiles it read.
type Undamaged = (Vec<Hash>, Vec<String>);

/// The tiles written by path, and the root of each tree size.
type Written = (std::collections::HashMap<String, Vec<u8>>, Vec<Hash>);

/// Every tile a writer committing one entry at a time stores up to a
/// tree of [`TILES_MAX`] leaves (full tiles, and a partial tile of each
/// width), by path, and the root of each tree size: built once.
fn written_tiles() -> &'static Written {
    use nenjim_journal_tlog::tree::TreeState;
    static TILES: std::sync::OnceLock<Written> = std::sync::OnceLock::new();
    TILES.get_or_init(|| {
        let mut tree = TreeState::new();
        let mut tiles = std::collections::HashMap::new();
        let mut roots = vec![tree.root()];
        for sequence in 1..=TILES_MAX {
            tree.append(format!("{sequence} FENCE 1").as_bytes())
                .expect("a short record");
            for written in tree.take_tiles() {
                tiles.insert(written.tile.path(), written.data);
            }
            roots.push(tree.root());
        }
        (tiles, roots)
    })
}

/// The fuzz target `tlog_tiles` (the hash tiles a verifier reads, through
/// `TileHashes`): the tiles a writer stores, one entry at a time, for a
/// tree of `new` leaves (up to 600), read for the consistency proof from
/// `old` to `new` and the root of `new`, after damage drawn from the bytes
/// to the tiles that read touches (a tile removed, cut, grown, a byte
/// flipped, two tiles' bytes swapped, a partial tile's bytes given to its
/// full tile). Nothing panics; the undamaged tiles give the tree's root
/// and a proof that verifies; damaged ones are refused
/// (`CheckpointMismatch`, or the reader's `Io`, naming the tile) or give
/// a proof that `verify_consistency` accepts exactly when it is the
/// tree's own (`Rollback` otherwise).
pub fn tlog_tiles(data: &[u8]) {
    use std::cell::RefCell;
    use std::collections::HashMap;

    use nenjim_journal_api::error::error;
    use nenjim_journal_tlog::tile::TileHashes;
    use nenjim_journal_tlog::tree::{prove_consistency, tree_root, verify_consistency};

    let (tiles, roots) = written_tiles();
    let mut choices = crate::checks::Choices::new(data);
    let old = 1 + (u64::from(choices.byte()) | u64::from(choices.byte()) << 8) % 400;
    let new = old + (u64::from(choices.byte()) | u64::from(choices.byte()) << 8) % 201;
    let (old_root, new_root) = (roots[old as usize], roots[new as usize]);
    // The store: the tiles written, under edits (`None`: removed).
    let read = |edits: &HashMap<String, Option<Vec<u8>>>, touched: &RefCell<Vec<String>>| {
        let mut hashes = TileHashes::new(new, |tile: &Tile| {
            let path = tile.path();
            touched.borrow_mut().push(path.clone());
            let found = match edits.get(&path) {
                Some(edited) => edited.clone(),
                None => tiles.get(&path).cloned(),
            };
            found.ok_or_else(|| error(ErrorKind::Io, format!("found no tile {path}, expected one")))
        });
        let proof = prove_consistency(&mut hashes, old, new)?;
        let root = tree_root(&mut hashes, new)?;
        Ok::<_, JournalError>((proof, root))
    };
    // The undamaged read, once per pair of sizes (the fuzzer revisits
    // them): the tree's root, a proof that verifies, the tiles it reads.
    thread_local! {
        static UNDAMAGED: RefCell<HashMap<(u64, u64), Undamaged>> = RefCell::new(HashMap::new());
    }
    let (proof, paths) = UNDAMAGED.with_borrow_mut(|cache| {
        if cache.len() >= 20_000 {
            cache.clear();
        }
        cache
            .entry((old, new))
            .or_insert_with(|| {
                let touched = RefCell::new(Vec::new());
                let (proof, root) =
                    read(&HashMap::new(), &touched).expect("the tiles a writer stores");
                assert_eq!(root, new_root, "the tiles hash to the tree's root");
                verify_consistency(old, new, &old_root, &new_root, &proof)
                    .expect("the tree's own proof");
                let mut paths = touched.into_inner();
                paths.sort();
                paths.dedup();
                (proof, paths)
            })
            .clone()
    });

    // Damage to the tiles the read touched.
    let current = |edits: &HashMap<String, Option<Vec<u8>>>, path: &str| match edits.get(path) {
        Some(edited) => edited.clone(),
        None => tiles.get(path).cloned(),
    };
    let mut edits: HashMap<String, Option<Vec<u8>>> = HashMap::new();
    for _ in 0..1 + choices.below(3) {
        let path = paths[choices.below(paths.len())].clone();
        let bytes = current(&edits, &path);
        let edited = match (choices.below(6), bytes) {
            (0, _) | (_, None) => None,
            (1, Some(mut bytes)) => {
                bytes.truncate(choices.below(bytes.len() + 1));
                Some(bytes)
            }
            (2, Some(mut bytes)) => {
                let extra = [0; 32].map(|_| choices.byte());
                bytes.extend_from_slice(&extra[..1 + choices.below(32)]);
                Some(bytes)
            }
            (3, Some(mut bytes)) => {
                let (at, bit) = (choices.byte(), choices.byte());
                if !bytes.is_empty() {
                    let at = usize::from(at) % bytes.len();
                    bytes[at] ^= 1 << (bit % 8);
                }
                Some(bytes)
            }
            (4, Some(bytes)) => {
                let other = paths[choices.below(paths.len())].clone();
                let swapped = current(&edits, &other);
                edits.insert(other, Some(bytes));
                swapped
            }
            (_, Some(bytes)) => {
                // A partial tile's bytes as its full tile.
                let full = path.split(".p/").next().unwrap_or(&path).to_owned();
                edits.insert(full, Some(bytes.clone()));
                Some(bytes)
            }
        };
        edits.insert(path, edited);
    }
    let unchanged = edits
        .iter()
        .all(|(path, edited)| *edited == tiles.get(path).cloned());
    match read(&edits, &RefCell::new(Vec::new())) {
        // (The root may be the tree's while the proof is not: a proof
        // reads hashes below a perfect subtree the root reads whole.)
        Ok((damaged_proof, _)) => {
            let verified = verify_consistency(old, new, &old_root, &new_root, &damaged_proof);
            assert_eq!(
                verified.is_ok(),
                damaged_proof == proof,
                "a proof from damaged tiles verifies exactly when it is the tree's"
            );
            if let Err(e) = verified {
                assert_eq!(e.kind(), ErrorKind::Rollback, "{e}");
            }
        }
        Err(e) => {
            assert!(
                matches!(e.kind(), ErrorKind::CheckpointMismatch | ErrorKind::Io),
                "{e}"
            );
            assert!(e.path().is_some(), "{e}: a tile's error names it");
            assert!(!unchanged, "the undamaged tiles refused: {e}");
        }
    }
}
