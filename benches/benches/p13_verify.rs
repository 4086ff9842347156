//! P13 `verify` of a signed root costs reading and hashing its files
//! (issue 23).
//!
//! - `p13_verify/verify` against `p13_verify/floor`: the built command
//!   `nenjim-journal verify <root> --key <vkey>` (a child process, as a
//!   mirror runs it) on a signed root of `NENJIM_BENCH_VERIFY_FILES`
//!   revisions (default 100 000), against listing the same root and
//!   reading and SHA-256-hashing every revision file on one thread (the
//!   command verifies on one). Target <= 1.3x: `verify` streams and hashes
//!   each file once, and hashes the ledger's records into the tree in the
//!   same pass.
//!
//! The root is the P3/P11 corpus of that size with a ledger
//! (`setup::ledger_copy`), copied (`cp -al`: files hard-linked, ledger
//! entries kept as symbolic links) and signed by a writer opened on it
//! with a signing key (which writes the tiles and the checkpoint of the
//! whole ledger). The command is built first (`cargo build --release -p
//! nenjim-journal-cli`).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // a bench with a broken setup fails loudly

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use nenjim_journal_benches::{floor, setup};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

/// The release build of the command.
fn command() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "-j2", "-p", "nenjim-journal-cli"])
        .status()
        .unwrap();
    assert!(status.success(), "cannot build nenjim-journal");
    let binary = setup::target_dir().join("release/nenjim-journal");
    assert!(binary.is_file(), "no {}", binary.display());
    binary
}

/// The signed copy of the ledger root of `files` revisions, and its
/// verifier key.
fn signed_root(files: usize) -> (PathBuf, String) {
    let plain = setup::cached_root(&setup::large_root_spec(files)).unwrap();
    let ledger = setup::ledger_copy(&plain).unwrap();
    let root = setup::bench_dir().join("p13").join(format!("root-{files}"));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(root.parent().unwrap()).unwrap();
    let status = Command::new("cp")
        .arg("-al")
        .arg(&ledger)
        .arg(&root)
        .status()
        .unwrap();
    assert!(status.success(), "cp -al {}", ledger.display());
    let _ = fs::remove_file(root.join(".ledger/lease"));
    let key = nenjim_journal_tlog::note::SignerKey::from_seed(
        "bench.example/journal",
        nenjim_journal_tlog::note::Algorithm::Ed25519,
        [12; 32],
    )
    .unwrap();
    let writer = FsJournalWriter::open(
        &root,
        WriterOptions::new().signing_key(&key.to_key_string()),
    )
    .unwrap();
    writer.close().unwrap();
    assert!(
        root.join(".ledger/tlog/checkpoint").is_file(),
        "the writer signed nothing"
    );
    (root, key.verifier().to_string())
}

fn verify(binary: &Path, root: &Path, vkey: &str) {
    let out = Command::new(binary)
        .arg("--quiet")
        .arg("verify")
        .arg(root)
        .arg("--key")
        .arg(vkey)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "verify: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn p12(c: &mut Criterion) {
    let files = setup::env_usize("NENJIM_BENCH_VERIFY_FILES", 100_000);
    let binary = command();
    let (root, vkey) = signed_root(files);
    verify(&binary, &root, &vkey);
    let revisions = floor::journal_files(&root).unwrap();
    let bytes = floor::total_bytes(&revisions).unwrap();
    if let Err(e) = setup::record(
        "p13_verify",
        &serde_json::json!({ "files": revisions.len(), "bytes": bytes }),
    ) {
        eprintln!("cannot record the P13 sizes: {e}");
    }
    let mut group = c.benchmark_group("p13_verify");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    group.bench_function("verify", |b| b.iter(|| verify(&binary, &root, &vkey)));
    group.bench_function("floor", |b| {
        b.iter(|| floor::read_and_hash(&root, 1).unwrap())
    });
    group.finish();
}

criterion_group!(benches, p12);
criterion_main!(benches);
