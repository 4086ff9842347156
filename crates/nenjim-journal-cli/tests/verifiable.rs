//! The verifiable ledger from the command line (issue 23, format section
//! 10): `checkpoint`, `verify` (signature, tree, files, `--since`,
//! `--witness`/`--quorum`), `prove` (its JSON checked with the tlog crate
//! and with Go's `tlog.CheckRecord`) and `witness` (cosigns a consistent
//! extension, refuses a rollback), each with its refusals.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use nenjim_journal_testkit::cli::{assert_code, command, json, output, stderr, stdout, tempdir};
use nenjim_journal_tlog::checkpoint::{Checkpoint, count_cosignatures};
use nenjim_journal_tlog::hash::{Hash, leaf_hash};
use nenjim_journal_tlog::note::{Note, SignerKey, VerifierKey};
use nenjim_journal_tlog::tree::verify_inclusion;
use serde_json::Value;

fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    output(&mut command(env!("CARGO_BIN_EXE_nenjim-journal"), args))
}

fn ok(args: &[&dyn AsRef<std::ffi::OsStr>]) -> String {
    let out = run(args);
    assert_code(&out, 0);
    stdout(&out)
}

/// Asserts a refusal: exit `code` and the error kind named on stderr.
fn refused(args: &[&dyn AsRef<std::ffi::OsStr>], code: i32, kind: &str) -> String {
    let out = run(args);
    assert_code(&out, code);
    let err = stderr(&out);
    assert!(err.contains(kind), "expected {kind} in: {err}");
    err
}

/// A log key pair made by `keygen`: the key file and the verifier key.
fn keygen(dir: &Path, name: &str, witness: bool) -> (PathBuf, String) {
    let file = dir.join(format!("{}.key", name.replace('/', "_")));
    let out = if witness {
        ok(&[&"keygen", &name, &"--witness", &"--out", &file])
    } else {
        ok(&[&"keygen", &name, &"--out", &file])
    };
    (file, out.trim_end().to_owned())
}

/// The ledger's records, from its entries (symbolic links) on disk.
fn records(root: &Path) -> Vec<String> {
    nenjim_journal_testkit::cli::ledger_records(root)
}

/// A new root made by `init --signing-key` (signed by `key` from the
/// start) with `n` artifacts.
fn root_with(dir: &Path, n: usize, key: &Path) -> PathBuf {
    let root = dir.join("root");
    ok(&[&"init", &root, &"--signing-key", &key]);
    add(&root, 0, n, key);
    root
}

fn add(root: &Path, from: usize, to: usize, key: &Path) {
    add_named(root, "lib", from, to, key);
}

/// Appends the genesis revisions of `<prefix>-<from>` … `<prefix>-<to - 1>`,
/// in that order, with one `append --signing-key`.
fn add_named(root: &Path, prefix: &str, from: usize, to: usize, key: &Path) {
    let scratch = tempdir();
    let mut files = Vec::new();
    for i in from..to {
        let file = scratch.path().join(format!("{prefix}-{i}.journal"));
        let text = format!(
            "FORMAT nenjim-journal/1\nARTIFACT {prefix}-{i}\nJOURNAL_VERSION 20261129T101530Z\n\
             PREDECESSOR GENESIS\nDESCRIPTION \"a library\"\n"
        );
        fs::write(&file, text).unwrap();
        files.push(file);
    }
    if files.is_empty() {
        return;
    }
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"append", &root, &"--signing-key", &key];
    args.extend(files.iter().map(|f| f as &dyn AsRef<std::ffi::OsStr>));
    ok(&args);
}

fn checkpoint_of(root: &Path) -> String {
    fs::read_to_string(root.join(".ledger/tlog/checkpoint")).unwrap()
}

/// Copies the directory `from` to `to` as it is (symbolic links kept).
fn copy_root(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

fn revision_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in fs::read_dir(root).unwrap() {
        let dir = dir.unwrap().path();
        if dir.file_name().unwrap().to_string_lossy().starts_with('.') || !dir.is_dir() {
            continue;
        }
        for file in fs::read_dir(&dir).unwrap() {
            files.push(file.unwrap().path());
        }
    }
    files.sort();
    files
}

#[test]
fn every_writing_command_signs_with_signing_key_and_a_signed_root_needs_it() {
    let dir = tempdir();
    let (key, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = dir.path().join("root");
    let store = dir.path().join("store");
    ok(&[
        &"init",
        &root,
        &"--store",
        &store,
        &"--create",
        &"--signing-key",
        &key,
    ]);
    let sk: &dyn AsRef<std::ffi::OsStr> = &"--signing-key";
    ok(&[
        &"create",
        &root,
        &"serde",
        &"--description",
        &"serializes",
        sk,
        &key,
    ]);
    let tgz = dir.path().join("serde-1.0.0.tgz");
    fs::write(&tgz, b"the release").unwrap();
    ok(&[
        &"release",
        &root,
        &"serde",
        &"1.0.0",
        &"--license",
        &"MIT",
        &"--content",
        &tgz,
        sk,
        &key,
    ]);
    ok(&[
        &"release",
        &root,
        &"serde",
        &"1.0.1",
        &"--license",
        &"MIT",
        &"--content",
        &tgz,
        sk,
        &key,
    ]);
    ok(&[&"yank", &root, &"serde", &"1.0.0", &"broken", sk, &key]);
    ok(&[
        &"deprecate",
        &root,
        &"serde",
        &"[1.0.0,1.0.1)",
        &"old",
        sk,
        &key,
    ]);
    ok(&[&"recommend", &root, &"serde", &"1.0.1", sk, &key]);
    let doc = json(&run(&[&"verify", &root, &"--key", &vkey, &"--json"]));
    assert_eq!(doc["tree_size"], Value::from(6));
    assert_eq!(doc["revisions"], Value::from(6));

    // A writer without the key, or with another, is refused, nothing written.
    let before = nenjim_journal_testkit::cli::tree(&root);
    let checkpoint = checkpoint_of(&root);
    let err = refused(
        &[&"create", &root, &"other", &"--description", &"x"],
        1,
        "expected a writer holding its signing key",
    );
    assert!(err.contains("nothing was written"), "{err}");
    let other_dir = tempdir();
    let (other, _) = keygen(other_dir.path(), "example.org/journal", false);
    refused(
        &[
            &"create",
            &root,
            &"other",
            &"--description",
            &"x",
            sk,
            &other,
        ],
        1,
        "does not sign this root",
    );
    assert_eq!(nenjim_journal_testkit::cli::tree(&root), before);
    assert_eq!(checkpoint_of(&root), checkpoint);
    // A file that is no signer key is refused before anything is opened.
    let bad = dir.path().join("bad.key");
    fs::write(&bad, "not a key\n").unwrap();
    refused(
        &[&"create", &root, &"other", &"--description", &"x", sk, &bad],
        1,
        "expected a signer key",
    );
    assert_eq!(nenjim_journal_testkit::cli::tree(&root), before);
}

#[test]
fn checkpoint_prints_the_stored_note_exactly_and_refuses_an_unsigned_root() {
    let dir = tempdir();
    let plain = dir.path().join("plain");
    ok(&[&"init", &plain]);
    refused(&[&"checkpoint", &plain], 1, "CheckpointInvalid");
    let (key, _) = keygen(dir.path(), "example.org/journal", false);
    let root = root_with(dir.path(), 2, &key);
    let note = checkpoint_of(&root);
    let out = run(&[&"checkpoint", &root]);
    assert_code(&out, 0);
    assert_eq!(out.stdout, note.as_bytes());
    assert!(note.starts_with("example.org/journal\n2\n"), "{note}");
    // check says the root is signed, and by which key name.
    let text = ok(&[&"check", &root]);
    assert!(
        text.contains("signed by the key example.org/journal (checkpoint of 2 entries"),
        "{text}"
    );
    let doc = json(&run(&[&"check", &root, &"--json"]));
    assert_eq!(
        doc["signed"]["key_name"],
        Value::from("example.org/journal")
    );
    assert_eq!(doc["signed"]["tree_size"], Value::from(2));
    let doc = json(&run(&[&"check", &plain, &"--json"]));
    assert_eq!(doc["signed"], Value::Null);
    assert!(!ok(&[&"check", &plain]).contains("signed"));
    // A missing root is an I/O problem (exit 2).
    refused(
        &[&"checkpoint", &dir.path().join("nothing")],
        2,
        "cannot read the root",
    );
}

#[test]
fn verify_accepts_a_signed_root_and_names_what_is_wrong() {
    let dir = tempdir();
    let (key, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = root_with(dir.path(), 3, &key);

    let text = ok(&[&"verify", &root, &"--key", &vkey]);
    assert!(
        text.contains("checkpoint of 3 entries signed by example.org/journal")
            && text.contains("3 revision files match"),
        "{text}"
    );
    let doc = json(&run(&[&"verify", &root, &"--key", &vkey, &"--json"]));
    assert_eq!(doc["ok"], Value::Bool(true));
    assert_eq!(doc["tree_size"], Value::from(3));
    assert_eq!(doc["revisions"], Value::from(3));
    // The key may be given as the file keygen's output was saved to.
    let vkey_file = dir.path().join("journal.vkey");
    fs::write(&vkey_file, format!("{vkey}\n")).unwrap();
    ok(&[&"verify", &root, &"--key", &vkey_file]);

    // Another key of the same name: the signature does not verify.
    let other_dir = tempdir();
    let (_, other) = keygen(other_dir.path(), "example.org/journal-x", false);
    refused(
        &[&"verify", &root, &"--key", &other],
        1,
        "CheckpointInvalid",
    );
    let (_, same_name) = keygen(other_dir.path(), "example.org/journal", false);
    refused(
        &[&"verify", &root, &"--key", &same_name],
        1,
        "CheckpointInvalid",
    );
    // A malformed key is refused as such.
    refused(
        &[&"verify", &root, &"--key", &"example.org/journal+0+AAAA"],
        1,
        "CheckpointInvalid",
    );

    // A write the checkpoint does not cover: the ledger is longer.
    let behind = checkpoint_of(&root);
    add(&root, 3, 4, &key);
    // A crash between the commit and its checkpoint leaves the older one.
    fs::write(root.join(".ledger/tlog/checkpoint"), &behind).unwrap();
    let err = refused(
        &[&"verify", &root, &"--key", &vkey],
        1,
        "CheckpointMismatch",
    );
    assert!(
        err.contains("expected the 4 entries of the ledger"),
        "{err}"
    );
    // The next writer brings it forward.
    add(&root, 4, 5, &key);
    ok(&[&"verify", &root, &"--key", &vkey]);

    // One flipped byte of a revision file.
    let file = revision_files(&root)[1].clone();
    let original = fs::read(&file).unwrap();
    let mut flipped = original.clone();
    let last = flipped.len() - 2;
    flipped[last] ^= 0x01;
    fs::write(&file, &flipped).unwrap();
    let err = refused(&[&"verify", &root, &"--key", &vkey], 1, "LedgerMismatch");
    assert!(err.contains(&file.display().to_string()), "{err}");
    // A missing one.
    fs::remove_file(&file).unwrap();
    refused(&[&"verify", &root, &"--key", &vkey], 1, "LedgerMismatch");
    fs::write(&file, &original).unwrap();
    ok(&[&"verify", &root, &"--key", &vkey]);

    // A damaged hash tile: the tiles no longer lead to the signed root.
    let tile = root.join(".ledger/tlog/tile/0/000.p/5");
    let mut bytes = fs::read(&tile).unwrap();
    bytes[0] ^= 0x80;
    fs::write(&tile, &bytes).unwrap();
    refused(
        &[&"verify", &root, &"--key", &vkey],
        1,
        "CheckpointMismatch",
    );
}

#[test]
fn verify_since_accepts_an_extension_and_detects_a_rollback_and_a_fork() {
    let dir = tempdir();
    let (key_file, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = root_with(dir.path(), 3, &key_file);
    // A mirror saves the checkpoint it verified.
    let saved = dir.path().join("seen.checkpoint");
    fs::write(&saved, ok(&[&"checkpoint", &root])).unwrap();
    let old_copy = dir.path().join("old-copy");
    copy_root(&root, &old_copy);

    // The hub publishes more; the mirror checks the new state extends the old.
    add(&root, 3, 260, &key_file);
    let text = ok(&[&"verify", &root, &"--key", &vkey, &"--since", &saved]);
    assert!(
        text.contains("consistent with the checkpoint of 3 entries"),
        "{text}"
    );
    // Equal sizes are consistent too.
    let newest = dir.path().join("newest.checkpoint");
    fs::write(&newest, ok(&[&"checkpoint", &root])).unwrap();
    ok(&[&"verify", &root, &"--key", &vkey, &"--since", &newest]);

    // Rollback: someone serves the older copy again.
    let err = refused(
        &[&"verify", &old_copy, &"--key", &vkey, &"--since", &newest],
        1,
        "Rollback",
    );
    assert!(err.contains(&newest.display().to_string()), "{err}");

    // A fork: another history of the same size, signed by the same key.
    let fork_dir = tempdir();
    let fork = root_with(fork_dir.path(), 0, &key_file);
    add_named(&fork, "fork", 0, 3, &key_file);
    refused(
        &[&"verify", &fork, &"--key", &vkey, &"--since", &saved],
        1,
        "Rollback",
    );
    // A larger fork is not an extension either.
    add_named(&fork, "fork", 3, 4, &key_file);
    refused(
        &[&"verify", &fork, &"--key", &vkey, &"--since", &saved],
        1,
        "Rollback",
    );

    // An older checkpoint signed by another key is refused as such.
    let other = SignerKey::generate(
        "example.org/journal",
        nenjim_journal_tlog::note::Algorithm::Ed25519,
    )
    .unwrap();
    let forged = dir.path().join("forged.checkpoint");
    let note = Checkpoint::new(other.name(), 1, Hash([7; 32]))
        .unwrap()
        .sign(&other)
        .unwrap();
    fs::write(&forged, note.to_string()).unwrap();
    refused(
        &[&"verify", &root, &"--key", &vkey, &"--since", &forged],
        1,
        "CheckpointInvalid",
    );
}

/// Builds the Go checker of `prove`'s JSON (tests/go/checkrecord.go) with
/// Debian's golang-go and golang-golang-x-mod-dev; panics without them.
fn build_go(dir: &Path) -> PathBuf {
    nenjim_journal_testkit::go::build(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/checkrecord.go"),
        dir,
        "checkrecord",
        "golang.org/x/mod/sumdb/tlog/tlog.go",
    )
}

fn hash_of(value: &Value) -> Hash {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(value.as_str().unwrap())
        .unwrap();
    Hash(bytes.try_into().unwrap())
}

#[test]
fn prove_prints_an_inclusion_proof_that_the_tlog_crate_and_go_accept() {
    let dir = tempdir();
    let (key, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = root_with(dir.path(), 600, &key);
    let note = checkpoint_of(&root);
    let (checkpoint, _) =
        Checkpoint::open(note.as_bytes(), &VerifierKey::parse(&vkey).unwrap()).unwrap();
    let records = records(&root);
    let go = build_go(dir.path());
    fs::write(dir.path().join("checkpoint"), &note).unwrap();

    for i in [0usize, 1, 255, 256, 257, 511, 599] {
        let fields: Vec<&str> = records[i].split(' ').collect();
        let (coordinate, version) = (fields[2], fields[3]);
        let out = run(&[&"prove", &root, &coordinate, &version, &"--json"]);
        assert_code(&out, 0);
        let doc = json(&out);
        assert_eq!(doc["index"], Value::from(i as u64));
        assert_eq!(doc["tree_size"], Value::from(600));
        assert_eq!(doc["root"], Value::from(checkpoint.root().to_base64()));
        assert_eq!(doc["record"], Value::from(records[i].clone()));
        let proof: Vec<Hash> = doc["proof"]
            .as_array()
            .unwrap()
            .iter()
            .map(hash_of)
            .collect();
        verify_inclusion(
            &leaf_hash(records[i].as_bytes()),
            i as u64,
            600,
            checkpoint.root(),
            &proof,
        )
        .unwrap();
        // Any altered hash fails.
        let mut altered = proof.clone();
        altered[0].0[3] ^= 1;
        assert!(
            verify_inclusion(
                &leaf_hash(records[i].as_bytes()),
                i as u64,
                600,
                checkpoint.root(),
                &altered
            )
            .is_err()
        );
        // Go's tlog.CheckRecord, against the checkpoint Go verified with note.Open.
        let proof_file = dir.path().join(format!("proof-{i}.json"));
        fs::write(&proof_file, &out.stdout).unwrap();
        let checked = Command::new(&go)
            .arg(dir.path().join("checkpoint"))
            .arg(&vkey)
            .arg(&proof_file)
            .output()
            .unwrap();
        assert!(
            checked.status.success(),
            "Go refused the proof of index {i}: {}",
            String::from_utf8_lossy(&checked.stderr)
        );
        println!("{}", String::from_utf8_lossy(&checked.stdout).trim_end());
    }
    // Go refuses a proof whose record was changed (the check is real).
    let first = records[5].split(' ').collect::<Vec<_>>();
    let out = run(&[&"prove", &root, &first[2], &first[3], &"--json"]);
    let mut doc = json(&out);
    doc["record"] = Value::from(records[6].clone());
    let bad = dir.path().join("bad.json");
    fs::write(&bad, doc.to_string()).unwrap();
    let checked = Command::new(&go)
        .arg(dir.path().join("checkpoint"))
        .arg(&vkey)
        .arg(&bad)
        .output()
        .unwrap();
    assert!(
        !checked.status.success(),
        "Go accepted a proof of another record"
    );

    // The text form carries the same proof.
    let text = ok(&[&"prove", &root, &first[2], &first[3]]);
    assert!(text.contains(&format!("record {}\n", records[5])), "{text}");
    // An unknown revision, an unknown artifact.
    refused(
        &[&"prove", &root, &first[2], &"20000101T000000Z", &"--json"],
        1,
        "UnknownRevision",
    );
    refused(
        &[&"prove", &root, &"nothing-here", &first[3]],
        1,
        "UnknownRevision",
    );
    // A revision the checkpoint does not cover yet.
    let covered = checkpoint_of(&root);
    add(&root, 600, 601, &key);
    fs::write(root.join(".ledger/tlog/checkpoint"), &covered).unwrap();
    let last = nenjim_journal_testkit::cli::ledger_records(&root)
        .pop()
        .unwrap();
    let fields: Vec<&str> = last.split(' ').collect();
    refused(
        &[&"prove", &root, &fields[2], &fields[3], &"--json"],
        1,
        "CheckpointMismatch",
    );
    // A missing tile is named.
    fs::remove_file(root.join(".ledger/tlog/tile/0/000")).unwrap();
    refused(
        &[&"prove", &root, &first[2], &first[3], &"--json"],
        1,
        "CheckpointMismatch",
    );
    // An unsigned root.
    let unsigned = tempdir();
    let plain = unsigned.path().join("plain");
    ok(&[&"init", &plain]);
    ok(&[&"create", &plain, &"lib-0", &"--description", &"a library"]);
    refused(
        &[&"prove", &plain, &"lib-0", &"20000101T000000Z"],
        1,
        "CheckpointInvalid",
    );
}

fn cosignature_count(root: &Path, witnesses: &[&str]) -> usize {
    let bytes = fs::read(root.join(".ledger/tlog/checkpoint.witnessed")).unwrap();
    let note = Note::parse(&bytes).unwrap();
    let keys: Vec<VerifierKey> = witnesses
        .iter()
        .map(|w| VerifierKey::parse(w).unwrap())
        .collect();
    count_cosignatures(&note, &keys)
}

#[test]
fn witness_cosigns_a_consistent_extension_and_refuses_a_rollback() {
    let dir = tempdir();
    let (key_file, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = root_with(dir.path(), 2, &key_file);
    let (w1, w1v) = keygen(dir.path(), "witness.example/one", true);
    let state = dir.path().join("w1-state");

    // The first time, the witness needs the log's key.
    refused(
        &[&"witness", &root, &"--key", &w1, &"--state", &state],
        2,
        "--log-key",
    );
    // A log key is no witness key.
    let log_key_file = dir.path().join("example.org_journal.key");
    refused(
        &[
            &"witness",
            &root,
            &"--key",
            &log_key_file,
            &"--state",
            &state,
            &"--log-key",
            &vkey,
        ],
        1,
        "cosignature/v1",
    );
    let doc = json(&run(&[
        &"witness",
        &root,
        &"--key",
        &w1,
        &"--state",
        &state,
        &"--log-key",
        &vkey,
        &"--json",
    ]));
    assert_eq!(doc["tree_size"], Value::from(2));
    assert_eq!(doc["previous_size"], Value::Null);
    assert_eq!(cosignature_count(&root, &[&w1v]), 1);
    // The witnessed copy is the checkpoint, with the log's signature kept.
    let witnessed = fs::read(root.join(".ledger/tlog/checkpoint.witnessed")).unwrap();
    Checkpoint::open(&witnessed, &VerifierKey::parse(&vkey).unwrap()).unwrap();
    let old_copy = dir.path().join("old-copy");
    copy_root(&root, &old_copy);
    let old_state = dir.path().join("w1-old-state");
    copy_root(&state, &old_state);

    // A consistent extension: cosigned, without --log-key (kept in the state).
    add(&root, 2, 280, &key_file);
    let doc = json(&run(&[
        &"witness", &root, &"--key", &w1, &"--state", &state, &"--json",
    ]));
    assert_eq!(doc["tree_size"], Value::from(280));
    assert_eq!(doc["previous_size"], Value::from(2));
    assert_eq!(cosignature_count(&root, &[&w1v]), 1);
    let note =
        Note::parse(&fs::read(root.join(".ledger/tlog/checkpoint.witnessed")).unwrap()).unwrap();
    assert_eq!(
        note.signatures().len(),
        2,
        "the log's signature and one cosignature"
    );

    // A rollback: the older copy is served again. Nothing is cosigned, the
    // state is unchanged.
    let state_before = fs::read(state.join("example.org%2Fjournal.checkpoint")).unwrap();
    let copy_before = fs::read(old_copy.join(".ledger/tlog/checkpoint.witnessed")).unwrap();
    let err = refused(
        &[&"witness", &old_copy, &"--key", &w1, &"--state", &state],
        1,
        "Rollback",
    );
    assert!(err.contains("cosigns nothing"), "{err}");
    assert_eq!(
        fs::read(state.join("example.org%2Fjournal.checkpoint")).unwrap(),
        state_before
    );
    assert_eq!(
        fs::read(old_copy.join(".ledger/tlog/checkpoint.witnessed")).unwrap(),
        copy_before
    );

    // A fork of a larger size, signed by the log key, for a witness that
    // cosigned the 2 entries before: refused as well.
    let fork_dir = tempdir();
    let fork = root_with(fork_dir.path(), 0, &key_file);
    add_named(&fork, "fork", 0, 3, &key_file);
    refused(
        &[&"witness", &fork, &"--key", &w1, &"--state", &old_state],
        1,
        "Rollback",
    );
    assert!(!fork.join(".ledger/tlog/checkpoint.witnessed").exists());
    // The same state accepts the real extension.
    ok(&[&"witness", &root, &"--key", &w1, &"--state", &old_state]);

    // Another log key given for a log the state knows: refused.
    let other = tempdir();
    let (_, other_vkey) = keygen(other.path(), "example.org/journal", false);
    refused(
        &[
            &"witness",
            &root,
            &"--key",
            &w1,
            &"--state",
            &state,
            &"--log-key",
            &other_vkey,
        ],
        1,
        "CheckpointInvalid",
    );
}

#[test]
fn verify_quorum_counts_only_valid_cosignatures_of_the_named_keys() {
    let dir = tempdir();
    let (key_file, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = root_with(dir.path(), 3, &key_file);
    let (w1, w1v) = keygen(dir.path(), "witness.example/one", true);
    let (w2, w2v) = keygen(dir.path(), "witness.example/two", true);
    let (_, w3v) = keygen(dir.path(), "witness.example/three", true);
    for (w, state) in [(&w1, "s1"), (&w2, "s2")] {
        ok(&[
            &"witness",
            &root,
            &"--key",
            w,
            &"--state",
            &dir.path().join(state),
            &"--log-key",
            &vkey,
        ]);
    }
    assert_eq!(cosignature_count(&root, &[&w1v, &w2v]), 2);

    let text = ok(&[
        &"verify",
        &root,
        &"--key",
        &vkey,
        &"--witness",
        &w1v,
        &"--witness",
        &w2v,
        &"--quorum",
        &"2",
    ]);
    assert!(text.contains("cosigned by 2 of 2 witnesses"), "{text}");
    // A key that did not cosign does not count.
    refused(
        &[
            &"verify",
            &root,
            &"--key",
            &vkey,
            &"--witness",
            &w1v,
            &"--witness",
            &w3v,
            &"--quorum",
            &"2",
        ],
        1,
        "CheckpointInvalid",
    );
    ok(&[
        &"verify",
        &root,
        &"--key",
        &vkey,
        &"--witness",
        &w1v,
        &"--witness",
        &w3v,
        &"--quorum",
        &"1",
    ]);
    // A key named twice counts once.
    refused(
        &[
            &"verify",
            &root,
            &"--key",
            &vkey,
            &"--witness",
            &w1v,
            &"--witness",
            &w1v,
            &"--quorum",
            &"2",
        ],
        1,
        "CheckpointInvalid",
    );

    // A forged cosignature line (w2's, one bit changed) does not count.
    let path = root.join(".ledger/tlog/checkpoint.witnessed");
    let good = fs::read_to_string(&path).unwrap();
    let note = Note::parse(good.as_bytes()).unwrap();
    let mut forged = Note::new(note.text()).unwrap();
    for line in note.signatures() {
        let mut line = line.clone();
        if line.name == "witness.example/two" {
            let n = line.signature.len() - 1;
            line.signature[n] ^= 1;
        }
        forged.add_signature(line);
    }
    fs::write(&path, forged.to_string()).unwrap();
    let err = refused(
        &[
            &"verify",
            &root,
            &"--key",
            &vkey,
            &"--witness",
            &w1v,
            &"--witness",
            &w2v,
            &"--quorum",
            &"2",
        ],
        1,
        "CheckpointInvalid",
    );
    assert!(err.contains("found 1 valid cosignatures"), "{err}");
    fs::write(&path, &good).unwrap();

    // A new checkpoint the witnesses have not cosigned yet: no quorum.
    add(&root, 3, 4, &key_file);
    let err = refused(
        &[
            &"verify",
            &root,
            &"--key",
            &vkey,
            &"--witness",
            &w1v,
            &"--quorum",
            &"1",
        ],
        1,
        "CheckpointInvalid",
    );
    assert!(err.contains("not cosigned it yet"), "{err}");
    // Once both cosign again the quorum holds; w1 keeps one line, not two.
    for (w, state) in [(&w1, "s1"), (&w2, "s2")] {
        ok(&[
            &"witness",
            &root,
            &"--key",
            w,
            &"--state",
            &dir.path().join(state),
        ]);
    }
    ok(&[
        &"verify",
        &root,
        &"--key",
        &vkey,
        &"--witness",
        &w1v,
        &"--witness",
        &w2v,
        &"--quorum",
        &"2",
    ]);
    let note = Note::parse(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(note.signatures().len(), 3);
    // --quorum needs --witness, and the other way round (usage, exit 2).
    assert_code(
        &run(&[&"verify", &root, &"--key", &vkey, &"--quorum", &"1"]),
        2,
    );
}
