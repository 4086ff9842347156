//! End-to-end tests: the built `nenjim-journal` binary on temporary roots.
//!
//! This file holds the fixtures the read commands share (`journal`,
//! `fixture`, the shipped root), `-v`, `lint` and `digest`; each child
//! one command or concern: `check`, `help` (usage errors and help texts),
//! `successor`, `history` (`history` and `show`), `content`
//! (`verify-content`), `events`, `people` and `warnings`.
#![allow(clippy::panic)] // a test fails by panicking

mod check;
mod content;
mod events;
mod help;
mod history;
mod people;
mod successor;
mod warnings;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use nenjim_journal_testkit::cli::{
    assert_code, code, command, digest_of, json, output, sha256_hex as hex, stderr, stdout, tempdir,
};
use serde_json::Value;
use tempfile::TempDir;

// ---------------------------------------------------------------- helpers

/// A release block: its version and the blob its CONTENT points at.
struct Release<'a> {
    version: &'a str,
    blob: Vec<u8>,
}

fn release(version: &str) -> Release<'_> {
    Release {
        version,
        blob: format!("blob of {version}").into_bytes(),
    }
}

fn release_with_blob(version: &str, blob: Vec<u8>) -> Release<'_> {
    Release { version, blob }
}

/// A revision text in the Journal format.
fn journal(
    coordinate: &str,
    version: &str,
    predecessor: Option<&str>,
    releases: &[Release<'_>],
    policy: &[&str],
) -> String {
    let mut text = format!(
        "FORMAT nenjim-journal/1\nARTIFACT {coordinate}\nJOURNAL_VERSION {version}\nPREDECESSOR {}\nDESCRIPTION \"the {coordinate} artifact\"\n",
        predecessor.unwrap_or("GENESIS")
    );
    for r in releases {
        text.push_str(&format!(
            "RELEASE {}\n  LICENSE MIT\n  CONTENT sha256:{} {}\n",
            r.version,
            hex(&r.blob),
            r.blob.len()
        ));
    }
    for p in policy {
        text.push_str(p);
        text.push('\n');
    }
    text
}

/// Writes `<root>/<coordinate>/<version>.journal` (or `.journal.example`).
fn put(root: &Path, coordinate: &str, version: &str, suffix: &str, text: &str) -> PathBuf {
    let dir = root.join(coordinate);
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
    let path = dir.join(format!("{version}{suffix}"));
    fs::write(&path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    path
}

fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    output(command(env!("CARGO_BIN_EXE_nenjim-journal"), args).env_remove("NO_COLOR"))
}

const T1: &str = "20260101T000000Z";

const T2: &str = "20260201T000000Z";

const T3: &str = "20260301T120000Z";

/// A root with `serde` (3 revisions, policy changes) and `left-pad` (1 revision).
struct Fixture {
    dir: TempDir,
    serde: [String; 3],
}

impl Fixture {
    fn root(&self) -> PathBuf {
        self.dir.path().join("journals")
    }
}

fn fixture() -> Fixture {
    let dir = tempdir();
    let root = dir.path().join("journals");
    let s1 = journal("serde", T1, None, &[release("1.0.0")], &["RECOMMEND 1.0.0"]);
    let s2 = journal(
        "serde",
        T2,
        Some(&digest_of(&s1)),
        &[release("1.0.0"), release("1.1.0")],
        &["RECOMMEND 1.1.0"],
    );
    let s3 = journal(
        "serde",
        T3,
        Some(&digest_of(&s2)),
        &[release("1.0.0"), release("1.1.0"), release("2.0.0-rc.1")],
        &[
            "YANK 1.0.0 \"broken build\"",
            "DEPRECATE [1.1.0,2.0.0) \"use 2.x\"",
            "RECOMMEND 1.1.0",
        ],
    );
    put(&root, "serde", T1, ".journal", &s1);
    put(&root, "serde", T2, ".journal", &s2);
    put(&root, "serde", T3, ".journal", &s3);
    let l1 = journal("left-pad", T2, None, &[release("0.1.0")], &[]);
    put(&root, "left-pad", T2, ".journal", &l1);
    Fixture {
        dir,
        serde: [s1, s2, s3],
    }
}

// ---------------------------------------------------------------- -v / RUST_LOG

/// `-v` shows the libraries' tracing events on stderr: the root's start,
/// with its counts and time, at info (and nothing at debug); `-vv` shows
/// debug events too, `RUST_LOG` chooses by target; with neither, stderr is
/// exactly what it was without tracing, and stdout never changes.
#[test]
fn verbose_prints_the_start_event_on_stderr_and_nothing_without_it() {
    let f = fixture();
    let root = f.root();
    let plain = run(&[&"list", &root]);
    assert_code(&plain, 0);
    assert_eq!(stderr(&plain), "", "no flag, no event");

    let verbose = run(&[&"list", &root, &"-v"]);
    assert_code(&verbose, 0);
    assert_eq!(stdout(&verbose), stdout(&plain));
    let err = stderr(&verbose);
    let started: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("nenjim_journal_ref: started"))
        .collect();
    assert_eq!(started.len(), 1, "{err}");
    for said in [
        " INFO ",
        "artifacts=2",
        "revisions=4",
        "last_sequence=4",
        "elapsed_ms=",
        &format!("root={}", root.display()),
    ] {
        assert!(started[0].contains(said), "{said} missing: {err}");
    }
    assert!(!err.contains("DEBUG"), "-v is info: {err}");

    // The global flag goes anywhere; -vv adds debug.
    let mut appended = command(
        env!("CARGO_BIN_EXE_nenjim-journal"),
        &[&"-vv", &"list", &root],
    );
    let debug = output(&mut appended);
    assert_code(&debug, 0);
    assert!(
        stderr(&debug).contains("nenjim_journal_ref: started"),
        "{}",
        stderr(&debug)
    );

    // RUST_LOG alone, by target: this crate's events and no other.
    let mut by_env = command(env!("CARGO_BIN_EXE_nenjim-journal"), &[&"list", &root]);
    by_env.env("RUST_LOG", "nenjim_journal_ref=info");
    let env = output(&mut by_env);
    assert_code(&env, 0);
    assert_eq!(stdout(&env), stdout(&plain));
    assert!(
        stderr(&env).contains("nenjim_journal_ref: started"),
        "{}",
        stderr(&env)
    );
    let mut other = command(env!("CARGO_BIN_EXE_nenjim-journal"), &[&"list", &root]);
    other.env("RUST_LOG", "nenjim_journal_writer=trace");
    let other = output(&mut other);
    assert_eq!(stderr(&other), "", "no event of that target");

    // A failed command's stderr is its message alone without -v.
    let missing = run(&[&"list", &root.join("nowhere")]);
    let with_v = run(&[&"list", &root.join("nowhere"), &"-v"]);
    assert_eq!(code(&missing), code(&with_v));
    assert!(
        !stderr(&missing).contains("nenjim_journal_ref"),
        "{}",
        stderr(&missing)
    );
    assert!(
        stderr(&with_v).contains("start failed"),
        "{}",
        stderr(&with_v)
    );
}

// ---------------------------------------------------------------- lint

#[test]
fn lint_checks_every_file_and_prints_every_error() {
    let dir = tempdir();
    let good = dir.path().join("good.journal");
    fs::write(&good, journal("serde", T1, None, &[release("1.0.0")], &[]))
        .unwrap_or_else(|e| panic!("{e}"));
    let bad = dir.path().join("bad.journal");
    fs::write(
        &bad,
        journal("serde", T1, None, &[release("1.0.0")], &["RECOMMEND 9.9.9"]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let binary = dir.path().join("binary.journal");
    fs::write(&binary, b"FORMAT nenjim-journal/1\nARTIFACT s\xffrde\n")
        .unwrap_or_else(|e| panic!("{e}"));

    let out = run(&[&"lint", &good, &bad, &binary]);
    assert_code(&out, 1);
    let text = stdout(&out);
    assert!(
        text.contains("good.journal: serde 20260101T000000Z"),
        "{text}"
    );
    let err = stderr(&out);
    assert!(err.contains(&format!("{}:9:", bad.display())), "{err}");
    assert!(
        err.contains(&format!("{}:2:11:", binary.display())),
        "{err}"
    );

    let out = run(&[&"lint", &good, &bad, &binary, &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    assert_eq!(v["command"], "lint");
    assert_eq!(v["ok"], false);
    let files = v["files"].as_array().cloned().unwrap_or_default();
    assert_eq!(files.len(), 3);
    assert_eq!(files[0]["path"], good.to_string_lossy().as_ref());
    assert_eq!(files[0]["ok"], true);
    assert_eq!(files[0]["coordinate"], "serde");
    assert_eq!(files[0]["journal_version"], T1);
    assert_eq!(files[0]["releases"], 1);
    assert!(
        files[0]["digest"]
            .as_str()
            .is_some_and(|d| d.starts_with("sha256:"))
    );
    assert!(files[0]["error"].is_null());
    assert_eq!(files[1]["ok"], false);
    assert_eq!(files[1]["error"]["kind"], "Semantic");
    assert_eq!(files[1]["error"]["line"], 9);
    assert!(files[1]["coordinate"].is_null());
    assert_eq!(files[2]["error"]["kind"], "InvalidUtf8");
    assert_eq!(files[2]["error"]["line"], 2);
}

#[test]
fn lint_valid_files_exit_0_and_missing_file_exits_2() {
    let dir = tempdir();
    let good = dir.path().join("good.journal");
    fs::write(&good, journal("serde", T1, None, &[], &[])).unwrap_or_else(|e| panic!("{e}"));
    assert_code(&run(&[&"lint", &good]), 0);

    let missing = dir.path().join("missing.journal");
    let out = run(&[&"lint", &good, &missing, &"--json"]);
    assert_code(&out, 2);
    let v = json(&out);
    assert_eq!(v["files"][0]["ok"], true);
    assert_eq!(v["files"][1]["error"]["kind"], "Io");
}

// ---------------------------------------------------------------- digest

#[test]
fn digest_hashes_the_exact_bytes() {
    let dir = tempdir();
    let path = dir.path().join("any.bin");
    let bytes = b"not even a journal\r\n\xff".to_vec();
    fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&[&"digest", &path]);
    assert_code(&out, 0);
    assert_eq!(stdout(&out), format!("sha256:{}\n", hex(&bytes)));

    let out = run(&[&"digest", &path, &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["command"], "digest");
    assert_eq!(v["ok"], true);
    assert_eq!(v["path"], path.to_string_lossy().as_ref());
    assert_eq!(v["digest"], format!("sha256:{}", hex(&bytes)));
    assert_eq!(v["size"], bytes.len());

    let out = run(&[&"digest", &dir.path().join("missing"), &"--json"]);
    assert_code(&out, 2);
    assert_eq!(json(&out)["error"]["kind"], "Io");
}

// ---------------------------------------------------------------- shipped examples

fn shipped_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/nenjim/journals")
}

/// The first artifact directory holding an example, if any is shipped yet.
fn shipped_coordinate() -> Option<String> {
    let mut names: Vec<String> = fs::read_dir(shipped_root())
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names.into_iter().next()
}
