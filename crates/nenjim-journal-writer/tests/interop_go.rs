//! Interop of what the writer writes (format section 10) against the
//! reference implementation: the tlog crate's Go program
//! (`crates/nenjim-journal-tlog/tests/go/interop.go`, on Debian's
//! `golang-go` and `golang-golang-x-mod-dev`, GOPATH mode, no network)
//! checks, with `golang.org/x/mod/sumdb/note` and `sumdb/tlog`, the
//! checkpoint a signing writer left at `<root>/.ledger/tlog/checkpoint`
//! and an older one it left before, the tree hash over its entry bundles,
//! every hash tile byte for byte, inclusion and consistency proofs made
//! from its tiles, and a witness cosignature of its checkpoint; and the
//! same of a log whose checkpoint lags its ledger (a writer at a
//! checkpoint interval, still open), then after that writer's close. It
//! fails, never skips, without Go.
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

/// Copies the log `tlog` (its checkpoint and tiles, byte for byte) to
/// `dir` beside what the Go program also reads: the checkpoint `old`
/// before it, the keys `(signer, verifier)`, the checkpoint cosigned by a
/// witness, and the inclusion proofs of `indexes` and the consistency
/// proof from `old` computed from the tiles. Runs `interop check` on it:
/// its transcript, the test failing when Go refuses.
fn go_check(
    go: &Path,
    dir: &Path,
    tlog: &Path,
    old: &[u8],
    (skey, vkey): (&str, &str),
    indexes: &[u64],
) -> String {
    signed::copy_tree(tlog, dir).unwrap();
    fs::write(dir.join("checkpoint.old"), old).unwrap();
    fs::write(dir.join("vkey"), vkey).unwrap();
    fs::write(dir.join("skey"), skey).unwrap();
    let key = nenjim_journal_tlog::note::VerifierKey::parse(vkey).unwrap();
    let open = |bytes: &[u8]| {
        nenjim_journal_tlog::checkpoint::Checkpoint::open(bytes, &key)
            .unwrap()
            .0
    };
    let checkpoint = fs::read(tlog.join("checkpoint")).unwrap();
    let (size, old_size) = (open(&checkpoint).size(), open(old).size());
    let witness = SignerKey::generate("witness.example/w1", Algorithm::CosignatureV1).unwrap();
    let mut cosigned = Note::parse(&checkpoint).unwrap();
    cosigned.add_signature(cosign(&cosigned, &witness, 1_764_579_600).unwrap());
    fs::write(dir.join("cosigned"), cosigned.to_string()).unwrap();
    fs::write(dir.join("witness"), witness.verifier().to_string()).unwrap();
    let reader = |tile: &Tile| Ok(fs::read(tlog.join(tile.path())).unwrap());
    let mut hashes = TileHashes::new(size, reader);
    let mut proofs = String::new();
    for &index in indexes {
        let proof = prove_inclusion(&mut hashes, size, index).unwrap();
        proofs.push_str(&format!("inclusion {index} {}\n", joined(&proof)));
    }
    let proof = prove_consistency(&mut hashes, old_size, size).unwrap();
    proofs.push_str(&format!("consistency {}\n", joined(&proof)));
    fs::write(dir.join("proofs"), proofs).unwrap();

    let output = Command::new(go).arg("check").arg(dir).output().unwrap();
    let transcript = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "the Go program refused: {}{transcript}",
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{transcript}");
    transcript
}

fn assert_said(transcript: &str, expected: &[&str]) {
    for expected in expected {
        assert!(
            transcript.contains(expected),
            "missing {expected:?} in:\n{transcript}"
        );
    }
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

    let transcript = go_check(
        &go,
        &work.path().join("log"),
        &tlog,
        &old.unwrap(),
        (&skey, &vkey),
        &[0, 2, 3, 255, 256, 300, 301],
    );
    assert_said(
        &transcript,
        &[
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
        ],
    );
}

/// A log whose checkpoint lags its ledger (format section 10, "Writing"):
/// writer A, at interval zero, covers its 100 entries and closes; writer
/// B, at an interval of an hour, appends 201 more (past a full tile) and
/// publishes nothing while it is open. Go checks the root as it is then
/// (the checkpoint of 100 entries, its tiles and bundles, proofs against
/// an older checkpoint of A's), and again after B's close (its checkpoint
/// of 301 entries, consistent with the lagging one).
#[test]
fn go_sumdb_checks_a_log_whose_checkpoint_lags_at_an_interval_and_after_the_close() {
    let work = tempfile::tempdir().unwrap();
    let go = build_go(work.path());
    let root = work.path().join("root");
    fs::create_dir(&root).unwrap();
    let (skey, vkey) = signed::key("hub.example/cadence", 10);
    let tlog = root.join(".ledger/tlog");
    let texts: Vec<String> = (0..301)
        .map(|i| genesis(&format!("c{i:03}"), "20260101T000000Z"))
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let signing = |interval| {
        WriterOptions::new()
            .signing_key(&skey)
            .checkpoint_interval(interval)
    };
    let mut a = FsJournalWriter::open(&root, signing(std::time::Duration::ZERO)).unwrap();
    a.append_batch(&texts[..40]).unwrap();
    let older = fs::read(tlog.join("checkpoint")).unwrap();
    a.append_batch(&texts[40..100]).unwrap();
    a.close().unwrap();
    let lagging = fs::read(tlog.join("checkpoint")).unwrap();

    let hour = std::time::Duration::from_secs(3600);
    let mut b = FsJournalWriter::open(&root, signing(hour)).unwrap();
    b.append_batch(&texts[100..300]).unwrap();
    b.append(texts[300]).unwrap();
    assert_eq!((b.tip(), b.checkpoint_covers()), (301, Some(100)));
    let (checkpoint, entries) =
        signed::checked(&nenjim_journal_fs::RealFileSystem, &root, &vkey).unwrap();
    assert_eq!((checkpoint.size(), entries.len()), (100, 301));
    assert_eq!(fs::read(tlog.join("checkpoint")).unwrap(), lagging);
    let transcript = go_check(
        &go,
        &work.path().join("lagging"),
        &tlog,
        &older,
        (&skey, &vkey),
        &[0, 39, 40, 99],
    );
    assert_said(
        &transcript,
        &[
            "ok note.Open verifies the checkpoint of hub.example/cadence: size 100",
            "ok note.Open verifies the older checkpoint: size 40",
            "ok tlog.TreeHash over the 100 records of the entry bundles is both checkpoints' root",
            // tile/0/000.p/100.
            "ok tlog.ReadTileData gives the 1 hash tiles byte for byte",
            "ok tlog.TileHashReader reads the tiles and they hash to the checkpoint",
            "ok tlog.CheckRecord accepts the inclusion proof of record 99",
            "ok tlog.CheckTree accepts the consistency proof from 40 to 100",
            "ok 5 proofs",
        ],
    );

    b.close().unwrap();
    let (checkpoint, _) =
        signed::checked(&nenjim_journal_fs::RealFileSystem, &root, &vkey).unwrap();
    assert_eq!(checkpoint.size(), 301);
    let transcript = go_check(
        &go,
        &work.path().join("closed"),
        &tlog,
        &lagging,
        (&skey, &vkey),
        &[0, 99, 100, 255, 256, 300],
    );
    assert_said(
        &transcript,
        &[
            "ok note.Open verifies the checkpoint of hub.example/cadence: size 301",
            "ok note.Open verifies the older checkpoint: size 100",
            "ok tlog.TreeHash over the 301 records of the entry bundles is both checkpoints' root",
            // tile/0/000, tile/0/001.p/45, tile/1/000.p/1.
            "ok tlog.ReadTileData gives the 3 hash tiles byte for byte",
            "ok tlog.TileHashReader reads the tiles and they hash to the checkpoint",
            "ok tlog.CheckRecord accepts the inclusion proof of record 300",
            "ok tlog.CheckTree accepts the consistency proof from 100 to 301",
            "ok 7 proofs",
        ],
    );
}
