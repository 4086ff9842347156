//! The verifiable ledger from the command line (issue 23, format section
//! 10): `checkpoint`, `verify` (signature, tree, files, `--since`,
//! `--witness`/`--quorum`), `prove` (its JSON checked with the tlog crate
//! and with Go's `tlog.CheckRecord`) and `witness` (cosigns a consistent
//! extension, refuses a rollback), each with its refusals.
//!
//! This file holds the helpers, signing by every writing command and
//! `checkpoint`; the children: `verify` (`verify`, its count of entries
//! the checkpoint does not cover yet, a missing tile, `--since`,
//! `--quorum`), `prove_witness` (`prove` checked by the tlog crate and Go,
//! `witness`), `cadence` (`--checkpoint-interval`, `append --prove`).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

mod cadence;
mod prove_witness;
mod verify;

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

fn cosignature_count(root: &Path, witnesses: &[&str]) -> usize {
    let bytes = fs::read(root.join(".ledger/tlog/checkpoint.witnessed")).unwrap();
    let note = Note::parse(&bytes).unwrap();
    let keys: Vec<VerifierKey> = witnesses
        .iter()
        .map(|w| VerifierKey::parse(w).unwrap())
        .collect();
    count_cosignatures(&note, &keys)
}
