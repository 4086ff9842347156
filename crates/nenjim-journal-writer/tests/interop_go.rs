//! Interop of what the writer writes (format section 10) against the
//! reference implementation: the tlog crate's Go program
//! (`crates/nenjim-journal-tlog/tests/go/interop.go`, on Debian's
//! `golang-go` and `golang-golang-x-mod-dev`, GOPATH mode, no network)
//! checks, with `golang.org/x/mod/sumdb/note` and `sumdb/tlog`, the
//! checkpoint a signing writer left at `<root>/.ledger/tlog/checkpoint`
//! and an older one it left before, the tree hash over its entry bundles,
//! every hash tile byte for byte, inclusion and consistency proofs made
//! from its tiles, and a witness cosignature of its checkpoint. It fails,
//! never skips, without Go.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use nenjim_journal_api::append::JournalWriter;
use nenjim_journal_testkit::signed;
use nenjim_journal_testkit::texts::bare_genesis as genesis;
use nenjim_journal_tlog::checkpoint::cosign;
use nenjim_journal_tlog::hash::Hash;
use nenjim_journal_tlog::note::{Algorithm, Note, SignerKey};
use nenjim_journal_tlog::tile::{Tile, TileHashes};
use nenjim_journal_tlog::tree::{prove_consistency, prove_inclusion};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

/// Builds the tlog crate's Go program into `dir`; panics without Go.
fn build_go(dir: &Path) -> PathBuf {
    nenjim_journal_testkit::go::build(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../nenjim-journal-tlog/tests/go/interop.go"),
        dir,
        "interop",
        "golang.org/x/mod/sumdb/note/note.go",
    )
}

fn joined(proof: &[Hash]) -> String {
    if proof.is_empty() {
        return "-".to_owned();
    }
    let hashes: Vec<String> = proof.iter().map(Hash::to_base64).collect();
    hashes.join(",")
}

#[test]
fn go_sumdb_checks_the_checkpoint_and_tiles_a_signing_writer_wrote() {
    let work = tempfile::tempdir().unwrap();
    let go = build_go(work.path());
    let root = work.path().join("root");
    fs::create_dir(&root).unwrap();
    let (skey, vkey) = signed::key("hub.example/interop", 9);
    // Entries 1..=3 by a writer without a key, the rest signed (the tree
    // covers every entry from the first), a takeover's fence among them.
    let mut plain = FsJournalWriter::open(&root, WriterOptions::new()).unwrap();
    for i in 0..3 {
        plain
            .append(&genesis(&format!("u{i}"), "20260101T000000Z"))
            .unwrap();
    }
    plain.close().unwrap();
    let tlog = root.join(".ledger/tlog");
    let mut writer = FsJournalWriter::open(&root, WriterOptions::new().signing_key(&skey)).unwrap();
    let mut old = None;
    for i in 0..298 {
        writer
            .append(&genesis(&format!("s{i:03}"), "20260101T000000Z"))
            .unwrap();
        if i == 96 {
            old = Some(fs::read(tlog.join("checkpoint")).unwrap());
        }
    }
    writer.fence_to(writer.tip() + 1).unwrap();
    writer.close().unwrap();
    let (checkpoint, entries) =
        signed::checked(&nenjim_journal_fs::RealFileSystem, &root, &vkey).unwrap();
    let size = checkpoint.size();
    assert_eq!((size, entries.len() as u64), (302, 302));

    // The writer's checkpoint and tiles, byte for byte, beside the files
    // the Go program also reads.
    let dir = work.path().join("log");
    signed::copy_tree(&tlog, &dir).unwrap();
    fs::write(dir.join("checkpoint.old"), old.unwrap()).unwrap();
    fs::write(dir.join("vkey"), &vkey).unwrap();
    fs::write(dir.join("skey"), &skey).unwrap();
    let witness = SignerKey::generate("witness.example/w1", Algorithm::CosignatureV1).unwrap();
    let mut cosigned = Note::parse(&fs::read(tlog.join("checkpoint")).unwrap()).unwrap();
    cosigned.add_signature(cosign(&cosigned, &witness, 1_764_579_600).unwrap());
    fs::write(dir.join("cosigned"), cosigned.to_string()).unwrap();
    fs::write(dir.join("witness"), witness.verifier().to_string()).unwrap();
    let reader = |tile: &Tile| Ok(fs::read(tlog.join(tile.path())).unwrap());
    let mut hashes = TileHashes::new(size, reader);
    let mut proofs = String::new();
    for index in [0, 2, 3, 255, 256, 300, 301] {
        let proof = prove_inclusion(&mut hashes, size, index).unwrap();
        proofs.push_str(&format!("inclusion {index} {}\n", joined(&proof)));
    }
    let proof = prove_consistency(&mut hashes, 100, size).unwrap();
    proofs.push_str(&format!("consistency {}\n", joined(&proof)));
    fs::write(dir.join("proofs"), proofs).unwrap();

    let output = Command::new(&go).arg("check").arg(&dir).output().unwrap();
    let transcript = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "the Go program refused: {}{transcript}",
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{transcript}");
    for expected in [
        "ok note.Open verifies the checkpoint of hub.example/interop: size 302",
        "ok note.Open verifies the older checkpoint: size 100",
        "ok note.NewSigner reads the Rust signer key and signs the same note",
        "ok tlog.TreeHash over the 302 records of the entry bundles is both checkpoints' root",
        // tile/0/000, tile/0/001.p/46, tile/1/000.p/1.
        "ok tlog.ReadTileData gives the 3 hash tiles byte for byte",
        "ok tlog.TileHashReader reads the tiles and they hash to the checkpoint",
        "ok the cosignature/v1 of witness.example/w1 at 1764579600 verifies",
        "ok tlog.CheckRecord accepts the inclusion proof of record 301",
        "ok tlog.CheckTree accepts the consistency proof from 100 to 302",
        "ok 8 proofs",
    ] {
        assert!(
            transcript.contains(expected),
            "missing {expected:?} in:\n{transcript}"
        );
    }
}
