//! Interop against the reference implementation: a Go program
//! (`tests/go/interop.go`) on Debian's `golang-go` and
//! `golang-golang-x-mod-dev` checks, with Go's `golang.org/x/mod/sumdb/note`
//! and `sumdb/tlog`, what this crate writes: a signed checkpoint
//! (`note.Open` with this crate's verifier key; `note.NewSigner` on its
//! signer key signs the same bytes), the tree hash over the records of the
//! entry bundles (`tlog.StoredHashes`, `tlog.TreeHash`), every hash tile
//! byte for byte (`tlog.ReadTileData`), the tiles as Go's verified
//! `tlog.TileHashReader` reads them, inclusion proofs (`tlog.CheckRecord`,
//! and equal to `tlog.ProveRecord`'s) and a consistency proof
//! (`tlog.CheckTree`, equal to `tlog.ProveTree`'s), a witness's
//! `cosignature/v1` (checked with `crypto/ed25519` by the C2SP text, as
//! x/mod has no cosignatures); and the other way, a
//! key pair from `note.GenerateKey` and a note Go signed with it, which
//! this crate reads, verifies and signs identically.
//!
//! It fails, never skips, without Go or the x/mod sources: install them
//! with `apt-get install golang-go golang-golang-x-mod-dev` (`cargo xtask
//! ci` provisions them). No network: the program builds in GOPATH mode
//! against `/usr/share/gocode`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_tlog::checkpoint::{Checkpoint, cosign};
use nenjim_journal_tlog::note::{Algorithm, Note, SignerKey, VerifierKey};
use nenjim_journal_tlog::tile::{Tile, TileHashes};
use nenjim_journal_tlog::tree::{TreeState, prove_consistency, prove_inclusion};

fn from_b64(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("the Go program prints base64")
}

/// Builds the Go program into `dir`; panics (the test fails) without Go.
fn build_go(dir: &Path) -> PathBuf {
    nenjim_journal_testkit::go::build(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/interop.go"),
        dir,
        "interop",
        "golang.org/x/mod/sumdb/note/note.go",
    )
}

fn run(binary: &Path, args: &[&str]) -> String {
    let output = Command::new(binary)
        .args(args)
        .output()
        .expect("run the Go program");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "the Go program refused: {}{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The record of ledger entry `seq` (format section 10): a fence every
/// thousand entries, revisions otherwise.
fn record(seq: u64) -> String {
    if seq % 1000 == 1 {
        format!("{seq} FENCE {}", seq / 1000 + 1)
    } else {
        format!(
            "{seq} REVISION org.example/lib-{} 20261201T{:06}Z {} sha256:{:064x}",
            seq % 97,
            seq % 240000,
            300 + seq % 5000,
            seq * 7919
        )
    }
}

fn write_tiles(root: &Path, state: &mut TreeState) {
    for t in state.take_tiles() {
        let path = root.join(t.tile.path());
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        if t.tile.is_full() {
            assert!(!path.exists(), "a full tile is written once: {}", t.tile);
        }
        fs::write(&path, &t.data).unwrap();
    }
}

fn file_reader(root: &Path) -> impl FnMut(&Tile) -> Result<Vec<u8>, JournalError> + '_ {
    move |tile: &Tile| {
        let path = root.join(tile.path());
        fs::read(&path).map_err(|e| {
            error::error(ErrorKind::Io, "cannot read the tile")
                .with_path(&path)
                .with_source(e)
        })
    }
}

fn joined(proof: &[nenjim_journal_tlog::hash::Hash]) -> String {
    if proof.is_empty() {
        "-".to_owned()
    } else {
        proof
            .iter()
            .map(|h| h.to_base64())
            .collect::<Vec<_>>()
            .join(",")
    }
}

#[test]
fn go_sumdb_note_and_tlog_accept_what_this_crate_writes() {
    let work = tempfile::tempdir().unwrap();
    let go = build_go(work.path());
    let dir = work.path().join("log");
    fs::create_dir_all(&dir).unwrap();

    // A key pair and note from Go, read and verified here, and signed
    // again here with Go's signer key: the same bytes (Ed25519 is
    // deterministic).
    let text = "example.org/from-go\n7\nhello from Go\n";
    let out = run(&go, &["genkey", "example.org/from-go", text]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let go_signer = SignerKey::parse(lines[0]).unwrap();
    let go_verifier = VerifierKey::parse(lines[1]).unwrap();
    assert_eq!(go_signer.verifier().to_string(), lines[1]);
    let go_note_bytes = from_b64(lines[2]);
    let go_note = Note::parse(&go_note_bytes).unwrap();
    go_note.verify(&go_verifier).unwrap();
    assert_eq!(go_note.text(), text);
    let mut resigned = Note::new(text).unwrap();
    resigned.sign(&go_signer).unwrap();
    assert_eq!(resigned.to_string().as_bytes(), &go_note_bytes[..]);
    // A note signed by a key Go generated verifies; another key does not.
    let other = SignerKey::generate("example.org/from-go", Algorithm::Ed25519).unwrap();
    assert!(go_note.verify(&other.verifier()).is_err());
    println!("ok this crate reads note.GenerateKey's keys and verifies and re-signs its note");

    // A tree grown in batches, its tiles written as a writer writes them,
    // two checkpoints signed here.
    let key = SignerKey::generate("example.org/nenjim-interop", Algorithm::Ed25519).unwrap();
    let mut state = TreeState::new();
    let mut old = None;
    for size in [1000u64, 1001, 5000, 65_536, 65_600] {
        while state.size() < size {
            state.append(record(state.size() + 1).as_bytes()).unwrap();
        }
        write_tiles(&dir, &mut state);
        let signed = Checkpoint::new(key.name(), state.size(), state.root())
            .unwrap()
            .sign(&key)
            .unwrap();
        if size == 1000 {
            old = Some((size, state.root()));
            fs::write(dir.join("checkpoint.old"), signed.to_string()).unwrap();
        }
        fs::write(dir.join("checkpoint"), signed.to_string()).unwrap();
    }
    let (old_size, _) = old.unwrap();
    fs::write(dir.join("vkey"), key.verifier().to_string()).unwrap();
    fs::write(dir.join("skey"), key.to_key_string()).unwrap();
    // A witness cosigns the newest checkpoint.
    let witness = SignerKey::generate("witness.example/w1", Algorithm::CosignatureV1).unwrap();
    let mut cosigned = Note::parse(&fs::read(dir.join("checkpoint")).unwrap()).unwrap();
    cosigned.add_signature(cosign(&cosigned, &witness, 1_764_579_600).unwrap());
    fs::write(dir.join("cosigned"), cosigned.to_string()).unwrap();
    fs::write(dir.join("witness"), witness.verifier().to_string()).unwrap();

    // Proofs from the tiles alone, as a verifier with static files makes them.
    let size = state.size();
    let mut hashes = TileHashes::new(size, file_reader(&dir));
    let mut proofs = String::new();
    for index in [0, 1, 255, 256, 999, 1000, 4242, 65_535, 65_536, 65_599] {
        let proof = prove_inclusion(&mut hashes, size, index).unwrap();
        proofs.push_str(&format!("inclusion {index} {}\n", joined(&proof)));
    }
    let proof = prove_consistency(&mut hashes, old_size, size).unwrap();
    proofs.push_str(&format!("consistency {}\n", joined(&proof)));
    fs::write(dir.join("proofs"), proofs).unwrap();

    let transcript = run(&go, &["check", dir.to_str().unwrap()]);
    println!("{transcript}");
    for expected in [
        "ok note.Open verifies the checkpoint of example.org/nenjim-interop: size 65600",
        "ok note.Open verifies the older checkpoint: size 1000",
        "ok note.NewSigner reads the Rust signer key and signs the same note",
        "ok tlog.TreeHash over the 65600 records of the entry bundles is both checkpoints' root",
        // 256 + 1 level-0 tiles, one level-1 tile, one level-2 tile of width 1.
        "ok tlog.ReadTileData gives the 259 hash tiles byte for byte",
        "ok tlog.TileHashReader reads the tiles and they hash to the checkpoint",
        "ok the cosignature/v1 of witness.example/w1 at 1764579600 verifies",
        "ok tlog.CheckRecord accepts the inclusion proof of record 65599",
        "ok tlog.CheckTree accepts the consistency proof from 1000 to 65600",
        "ok 11 proofs",
    ] {
        assert!(
            transcript.contains(expected),
            "missing {expected:?} in:\n{transcript}"
        );
    }
}

#[test]
fn go_refuses_a_checkpoint_this_crate_would_refuse() {
    // The check has teeth: one flipped root byte in the signed checkpoint
    // (signed again, so only the tree is wrong) fails Go's TreeHash check.
    let work = tempfile::tempdir().unwrap();
    let go = build_go(work.path());
    let dir = work.path().join("log");
    fs::create_dir_all(&dir).unwrap();
    let key = SignerKey::generate("example.org/nenjim-interop", Algorithm::Ed25519).unwrap();
    let mut state = TreeState::new();
    for seq in 1..=300 {
        state.append(record(seq).as_bytes()).unwrap();
    }
    write_tiles(&dir, &mut state);
    let mut root = state.root();
    root.0[0] ^= 1;
    let signed = Checkpoint::new(key.name(), state.size(), root)
        .unwrap()
        .sign(&key)
        .unwrap();
    fs::write(dir.join("checkpoint"), signed.to_string()).unwrap();
    fs::write(dir.join("checkpoint.old"), signed.to_string()).unwrap();
    fs::write(dir.join("vkey"), key.verifier().to_string()).unwrap();
    fs::write(dir.join("skey"), key.to_key_string()).unwrap();
    fs::write(dir.join("proofs"), "consistency -\n").unwrap();
    let output = Command::new(&go).arg("check").arg(&dir).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("FAIL: TreeHash over the records"),
        "{stderr}"
    );
}
