//! Issue 20, where its two halves meet (s20-writers' `init`, recorded
//! store, signals and `--follow`; s20-checks' root copies, `--strict`,
//! several versions in one release, aligned event columns), end to end.
//!
//! Nothing here depends on timing: a child is signalled at a point the test
//! controls (it blocks opening a FIFO, whose opening the test waits for),
//! and a follow's new line is waited for. Deadlines (20 s) only bound how
//! long a broken command may hang before the test fails.
#![allow(clippy::panic)] // a test fails by panicking

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use nenjim_journal_testkit::cli::{
    self, Lines, assert_code, exit_of, fifo, ledger_records, sha256_hex as hex, signal, tempdir,
    tree, write,
};
use serde_json::Value;
use tempfile::TempDir;

// ---------------------------------------------------------------- helpers

fn command(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Command {
    let mut command = cli::command(env!("CARGO_BIN_EXE_nenjim-journal"), args);
    command.env("NO_COLOR", "1");
    command
}

fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    cli::output(&mut command(args))
}

/// Runs with `--json`, checks the exit code, returns the document.
fn run_json(args: &[&dyn AsRef<std::ffi::OsStr>], expected: i32) -> Value {
    let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = args.to_vec();
    all.push(&"--json");
    let output = run(&all);
    assert_code(&output, expected);
    cli::json(&output)
}

fn sequences(doc: &Value) -> Vec<u64> {
    doc["appended"]
        .as_array()
        .map(|a| a.iter().filter_map(|e| e["sequence"].as_u64()).collect())
        .unwrap_or_default()
}

/// A temporary directory with a root `journals` made by `init`, recording
/// the store `store` (created).
struct Hub {
    dir: TempDir,
    root: PathBuf,
    store: PathBuf,
}

impl Hub {
    fn new() -> Hub {
        let dir = tempdir();
        let root = dir.path().join("journals");
        let store = dir.path().join("store");
        let doc = run_json(&[&"init", &root, &"--store", &store, &"--create"], 0);
        assert_eq!(doc["created_store"], true, "{doc}");
        Hub { dir, root, store }
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.path().join(name);
        write(&path, bytes);
        path
    }

    fn create(&self, root: &Path, coordinate: &str) -> Value {
        run_json(
            &[
                &"create",
                &root,
                &coordinate,
                &"--description",
                &"made here",
            ],
            0,
        )
    }
}

/// A source root (made by `init`, recording `source-store`) whose ledger
/// has a fence at 2 (as a takeover leaves): `left-pad` at 1, its release
/// 1.0.0 at 3 (blob in the source's store), `serde` at 4.
fn fenced_source(hub: &Hub) -> (PathBuf, PathBuf) {
    let source = hub.dir.path().join("source");
    let store = hub.dir.path().join("source-store");
    run_json(&[&"init", &source, &"--store", &store, &"--create"], 0);
    assert_eq!(hub.create(&source, "left-pad")["sequence"], 1);
    std::os::unix::fs::symlink("2 FENCE 9", source.join(".ledger/log/00000000000000000002"))
        .unwrap_or_else(|e| panic!("fence: {e}"));
    let blob = hub.file("left-pad-1.0.0.tgz", b"left-pad 1.0.0");
    let doc = run_json(
        &[
            &"release",
            &source,
            &"left-pad",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &blob,
        ],
        0,
    );
    assert_eq!(doc["sequence"], 3, "{doc}");
    assert_eq!(hub.create(&source, "serde")["sequence"], 4);
    (source, store)
}

// ---------------------------------------------------------------- a copy and signals

#[test]
fn a_copy_interrupted_between_revisions_says_how_many_and_a_rerun_resumes_at_the_same_sequences() {
    let hub = Hub::new();
    let (source, source_store) = fenced_source(&hub);
    // The copy of left-pad 1.0.0 opens its blob in the source's store: a
    // FIFO, so the child blocks there, after the check before revision 3.
    let bytes = b"left-pad 1.0.0";
    let blob = source_store.join("blobs/sha256").join(hex(bytes));
    fs::remove_file(&blob).unwrap_or_else(|e| panic!("rm: {e}"));
    fifo(&blob);
    // The destination's store is the one it records (no --store).
    let mut child = command(&[
        &"append",
        &hub.root,
        &source,
        &"--source-store",
        &source_store,
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut stdout = Lines::of(child.stdout.take().unwrap_or_else(|| panic!("stdout")));
    let mut stderr = Lines::of(child.stderr.take().unwrap_or_else(|| panic!("stderr")));
    // Opening the FIFO for writing returns once the child opened it to read.
    let mut pipe = fs::OpenOptions::new()
        .write(true)
        .open(&blob)
        .unwrap_or_else(|e| panic!("open the FIFO: {e}"));
    signal(&child, "INT");
    pipe.write_all(bytes)
        .unwrap_or_else(|e| panic!("write the FIFO: {e}"));
    drop(pipe);
    let status = exit_of(&mut child);
    let errors = stderr.rest();
    assert_eq!(status.code(), Some(130), "{errors}");
    assert!(
        errors.contains("2 of 3 appended; re-run to resume"),
        "{errors}"
    );
    let out = stdout.rest();
    assert_eq!(out.matches("appended ").count(), 2, "{out}");
    // The revision begun was finished, at its sequence; serde was not tried.
    let records = ledger_records(&hub.root);
    assert_eq!(records.len(), 3, "{records:?}");
    assert!(records[0].starts_with("1 REVISION left-pad"), "{records:?}");
    assert!(records[1].starts_with("2 FENCE"), "{records:?}");
    assert!(records[2].starts_with("3 REVISION left-pad"), "{records:?}");
    assert!(
        hub.store.join("blobs/sha256").join(hex(bytes)).is_file(),
        "the blob was copied into the recorded store"
    );

    // The same command again: the first two found, serde at its sequence 4.
    fs::remove_file(&blob).unwrap_or_else(|e| panic!("rm: {e}"));
    write(&blob, bytes);
    let doc = run_json(
        &[
            &"append",
            &hub.root,
            &source,
            &"--source-store",
            &source_store,
        ],
        0,
    );
    assert_eq!(sequences(&doc), [1, 3, 4], "{doc}");
    let new: Vec<bool> = doc["appended"]
        .as_array()
        .map(|a| a.iter().map(|e| e["new"] == true).collect())
        .unwrap_or_default();
    assert_eq!(new, [false, false, true], "{doc}");
    // The copy serves what the source serves, after any sequence.
    for after in 0..=4u64 {
        let events = |root: &Path| {
            let out = run(&[&"events", &root, &"--after", &after.to_string(), &"--json"]);
            assert_code(&out, 0);
            cli::stdout(&out)
        };
        assert_eq!(events(&hub.root), events(&source), "after {after}");
    }
    // verify-content uses the recorded store.
    assert_code(&run(&[&"verify-content", &hub.root]), 0);
}

#[test]
fn source_store_without_any_destination_store_is_a_usage_error_writing_nothing() {
    let hub = Hub::new();
    let (source, source_store) = fenced_source(&hub);
    let bare = hub.dir.path().join("bare");
    run_json(&[&"init", &bare], 0);
    let before = tree(&bare);
    let doc = run_json(
        &[&"append", &bare, &source, &"--source-store", &source_store],
        2,
    );
    assert_eq!(doc["error"]["kind"], "StoreMissing", "{doc}");
    let message = doc["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("--store"), "{message}");
    assert_eq!(tree(&bare), before);
}

// ---------------------------------------------------------------- checks with the recorded store

#[test]
fn strict_and_warnings_work_with_the_recorded_store() {
    let hub = Hub::new();
    hub.create(&hub.root, "left-pad");
    let empty = hub.file("empty.tgz", b"");
    let release = |strict: bool, version: &str| -> Output {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![
            &"release",
            &hub.root,
            &"left-pad",
            &version,
            &"--license",
            &"GPL-3.0",
            &"--content",
            &empty,
            &"--json",
        ];
        if strict {
            args.push(&"--strict");
        }
        run(&args)
    };
    // --strict refuses, writing nothing (no blob put in the recorded store).
    let before = (tree(&hub.root), tree(&hub.store));
    let refused = release(true, "1.0.0");
    assert_code(&refused, 1);
    let doc: Value = serde_json::from_slice(&refused.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["error"]["kind"], "Strict", "{doc}");
    let message = doc["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("deprecated"), "{message}");
    assert!(message.contains("empty"), "{message}");
    assert_eq!((tree(&hub.root), tree(&hub.store)), before);
    // Without it: written into the recorded store, with the warnings.
    let written = release(false, "1.0.0");
    assert_code(&written, 0);
    let doc: Value = serde_json::from_slice(&written.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["new"], true, "{doc}");
    assert_eq!(doc["warnings"].as_array().map(Vec::len), Some(2), "{doc}");
    assert!(hub.store.join("blobs/sha256").join(hex(b"")).is_file());

    // append --strict of a hand-written file, its blob in the recorded store.
    let mut heads: Vec<PathBuf> = fs::read_dir(hub.root.join("left-pad"))
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    heads.sort();
    let path = heads.last().cloned().unwrap_or_default();
    let next = hub.dir.path().join("next.journal");
    assert_code(&run(&[&"successor", &path, &"-o", &next]), 0);
    let mut successor = fs::read_to_string(&next).unwrap_or_else(|e| panic!("{e}"));
    successor.push_str(&format!(
        "\nRELEASE 1.1.0\n  LICENSE MIT\n  CONTENT sha256:{} 0\n  DEPENDS lfet-pad [1.0.0,2.0.0)\n",
        hex(b"")
    ));
    fs::write(&next, &successor).unwrap_or_else(|e| panic!("{e}"));
    let root_before = tree(&hub.root);
    let doc = run_json(&[&"append", &hub.root, &next, &"--strict"], 1);
    assert_eq!(doc["error"]["kind"], "Strict", "{doc}");
    assert_eq!(tree(&hub.root), root_before);
    let doc = run_json(&[&"append", &hub.root, &next], 0);
    let warnings = doc["appended"][0]["warnings"].to_string();
    assert!(warnings.contains("lfet-pad"), "{doc}");
    assert!(warnings.contains("left-pad"), "did you mean: {doc}");

    // The ledger's own files (the store record, its lock) are no stray files.
    assert!(hub.root.join(".ledger/store").is_file());
    let check = run_json(&[&"check", &hub.root], 0);
    assert_eq!(check["stray"].as_array().map(Vec::len), Some(0), "{check}");
    assert_eq!(
        check["unrecorded"].as_array().map(Vec::len),
        Some(0),
        "{check}"
    );
}

#[test]
fn several_versions_in_one_release_go_to_the_recorded_store() {
    let hub = Hub::new();
    hub.create(&hub.root, "left-pad");
    let a = hub.file("a.tgz", b"left-pad 1.0.0");
    let b = hub.file("b.tgz", b"left-pad 1.1.0");
    let doc = run_json(
        &[
            &"release",
            &hub.root,
            &"left-pad",
            &"1.0.0",
            &"1.1.0",
            &"--license",
            &"MIT",
            &"--content",
            &a,
            &"--content",
            &b,
        ],
        0,
    );
    assert_eq!(doc["sequence"], 2, "one revision: {doc}");
    let versions: Vec<&str> = doc["releases"]
        .as_array()
        .map(|r| r.iter().filter_map(|x| x["version"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(versions, ["1.0.0", "1.1.0"], "{doc}");
    for bytes in [&b"left-pad 1.0.0"[..], &b"left-pad 1.1.0"[..]] {
        assert!(
            hub.store.join("blobs/sha256").join(hex(bytes)).is_file(),
            "in the recorded store"
        );
    }
    assert_code(&run(&[&"verify-content", &hub.root]), 0);
    // A root with no recorded store and no --store names both remedies.
    let bare = hub.dir.path().join("bare");
    run_json(&[&"init", &bare], 0);
    hub.create(&bare, "left-pad");
    let doc = run_json(
        &[
            &"release",
            &bare,
            &"left-pad",
            &"1.0.0",
            &"1.1.0",
            &"--license",
            &"MIT",
            &"--content",
            &a,
            &"--content",
            &b,
        ],
        2,
    );
    assert_eq!(doc["error"]["kind"], "StoreMissing", "{doc}");
}

// ---------------------------------------------------------------- follow, aligned

#[test]
fn follow_prints_its_text_lines_in_the_listings_columns() {
    let hub = Hub::new();
    hub.create(&hub.root, "a");
    hub.create(&hub.root, "long-name");
    let mut child = command(&[&"events", &hub.root, &"--follow", &"--interval", &"0.1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut stdout = Lines::of(child.stdout.take().unwrap_or_else(|| panic!("stdout")));
    let backlog = stdout.until(" long-name ");
    // Another process creates `b`: its line has the backlog's columns.
    hub.create(&hub.root, "b");
    let followed = stdout.until(" b ");
    // A longer name than any before widens the columns, never narrows them.
    hub.create(&hub.root, "a-much-longer-name");
    let widest = stdout.until("a-much-longer-name");
    signal(&child, "INT");
    let status = exit_of(&mut child);
    assert_eq!(status.code(), Some(0));
    let mark = |line: &str| line.find("* created");
    assert!(mark(&backlog).is_some(), "{backlog}");
    assert_eq!(mark(&followed), mark(&backlog), "\n{backlog}\n{followed}");
    let first = stdout.seen().first().cloned().unwrap_or_default();
    assert_eq!(mark(&first), mark(&backlog), "\n{first}\n{backlog}");
    assert!(widest.contains("a-much-longer-name  * created"), "{widest}");
}
