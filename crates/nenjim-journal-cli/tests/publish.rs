//! End-to-end tests of the commands that write a root: `append`,
//! `put-blob`, `create`, `release`, `yank`, `deprecate`, `recommend`,
//! `successor -o`, and `check`'s warning about unrecorded files.
//!
//! This file holds the fixtures the children share and `create`; the
//! `release` child holds `release` and the changes (`yank`, `deprecate`,
//! `recommend`), `append` the `append` command and a root another writer
//! holds, `files` `put-blob`, `successor -o` and unrecorded files.
#![allow(clippy::panic)] // a test fails by panicking

mod append;
mod files;
mod release;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use nenjim_journal_testkit::cli::{
    assert_code, command, json, output, sha256_hex as hex, stderr, stdout, tempdir, write,
};
use serde_json::Value;
use tempfile::TempDir;

// ---------------------------------------------------------------- helpers

fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    output(command(env!("CARGO_BIN_EXE_nenjim-journal"), args).env("NO_COLOR", "1"))
}

/// Runs with `--json`, checks the exit code, returns the document.
#[track_caller]
fn run_json(args: &[&dyn AsRef<std::ffi::OsStr>], expected: i32) -> Value {
    let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = args.to_vec();
    all.push(&"--json");
    let output = run(&all);
    assert_code(&output, expected);
    json(&output)
}

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The names in `dir`, sorted (empty when it does not exist).
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The revision files under the root (dot-entries aside) and the ledger's
/// entries, for "nothing was written" checks.
fn snapshot(root: &Path) -> Vec<String> {
    let mut all = Vec::new();
    for artifact in names(root).into_iter().filter(|n| !n.starts_with('.')) {
        for name in names(&root.join(&artifact)) {
            all.push(format!("{artifact}/{name}"));
        }
    }
    for entry in names(&root.join(".ledger/log")) {
        all.push(format!(".ledger/log/{entry}"));
    }
    all
}

/// A root with `left-pad` created and `1.0.0` released (blob in `store`).
struct Fixture {
    _dir: TempDir,
    root: PathBuf,
    store: PathBuf,
    blob: PathBuf,
    dir: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempdir();
    let base = dir.path().to_path_buf();
    let root = base.join("journals");
    fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let blob = base.join("left-pad-1.0.0.tgz");
    write(&blob, b"the bytes of left-pad 1.0.0");
    let store = base.join("store");
    // A content store must exist (or be asked for with --create).
    fs::create_dir(&store).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let created = run_json(
        &[
            &"create",
            &root,
            &"left-pad",
            &"--description",
            &"pads strings",
        ],
        0,
    );
    assert_eq!(created["sequence"], 1);
    let released = run_json(
        &[
            &"release",
            &root,
            &"left-pad",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &blob,
            &"--store",
            &store,
        ],
        0,
    );
    assert_eq!(released["sequence"], 2);
    Fixture {
        _dir: dir,
        root,
        store,
        blob,
        dir: base,
    }
}

/// `history --json` of `coordinate`: (journal version, sequence) of each revision.
fn history(root: &Path, coordinate: &str) -> Vec<(String, u64)> {
    let doc = run_json(&[&"history", &root, &coordinate], 0);
    doc["revisions"]
        .as_array()
        .map(|revisions| {
            revisions
                .iter()
                .map(|r| {
                    (
                        r["journal_version"].as_str().unwrap_or_default().to_owned(),
                        r["sequence"].as_u64().unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn genesis(coordinate: &str, version: &str, releases: &[(&str, &[u8])]) -> String {
    let mut text = format!(
        "FORMAT nenjim-journal/1\nARTIFACT {coordinate}\nJOURNAL_VERSION {version}\nPREDECESSOR GENESIS\nDESCRIPTION \"the {coordinate} artifact\"\n"
    );
    for (v, blob) in releases {
        text.push_str(&format!(
            "RELEASE {v}\n  LICENSE MIT\n  CONTENT sha256:{} {}\n",
            hex(blob),
            blob.len()
        ));
    }
    text
}

// ---------------------------------------------------------------- create

#[test]
fn create_appends_a_genesis_and_refuses_a_second_one() {
    let dir = tempdir();
    let root = dir.path().join("journals");
    fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let doc = run_json(
        &[
            &"create",
            &root,
            &"left-pad",
            &"--description",
            &"pads \"strings\"",
            &"--information",
            &"https://example.org/left-pad",
        ],
        0,
    );
    assert_eq!(doc["command"], "create");
    assert_eq!(
        (doc["sequence"].as_u64(), doc["new"].as_bool()),
        (Some(1), Some(true))
    );
    assert_eq!(doc["predecessor"], Value::Null);
    let path = PathBuf::from(doc["path"].as_str().unwrap_or_default());
    let text = String::from_utf8_lossy(&read(&path)).into_owned();
    assert!(
        text.contains("DESCRIPTION \"pads \\\"strings\\\"\"\n"),
        "{text}"
    );
    assert!(
        text.contains("INFORMATION https://example.org/left-pad\n"),
        "{text}"
    );
    assert!(text.contains("PREDECESSOR GENESIS\n"), "{text}");

    let before = snapshot(&root);
    let again = run(&[&"create", &root, &"left-pad", &"--description", &"again"]);
    assert_code(&again, 1);
    assert!(
        stderr(&again).contains("DuplicateGenesis") || stderr(&again).contains("already created")
    );
    assert!(
        stderr(&again).contains(&path.display().to_string()),
        "{}",
        stderr(&again)
    );
    assert_eq!(snapshot(&root), before, "a refusal writes nothing");

    let text_output = run(&[&"create", &root, &"right-pad", &"--description", &"pads"]);
    assert_code(&text_output, 0);
    assert!(
        stdout(&text_output).contains("sequence 2"),
        "{}",
        stdout(&text_output)
    );
}

#[test]
fn create_refuses_bad_arguments_as_usage_errors() {
    let dir = tempdir();
    let root = dir.path();
    assert_code(
        &run(&[&"create", &root, &"Not A Name", &"--description", &"x"]),
        2,
    );
    assert_code(
        &run(&[&"create", &root, &"left-pad", &"--description", &"   "]),
        2,
    );
    assert_code(&run(&[&"create", &root, &"left-pad"]), 2);
    let missing = run_json(
        &[
            &"create",
            &root.join("nope"),
            &"left-pad",
            &"--description",
            &"x",
        ],
        2,
    );
    assert_eq!(missing["error"]["kind"], "RootMissing");
}
