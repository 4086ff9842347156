//! End-to-end tests: the built `nenjim-journal` binary on temporary roots.
#![allow(clippy::panic)] // a test fails by panicking

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use nenjim_journal_testkit::cli::{
    assert_code, code, command, digest_of, json, output, sha256_hex as hex, stderr, stdout, tempdir,
};
use serde_json::Value;
use tempfile::TempDir;

mod people;
mod warnings;

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

// ---------------------------------------------------------------- check

#[test]
fn check_reports_a_summary() {
    let f = fixture();
    let out = run(&[&"check", &f.root()]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(text.starts_with("ok "), "{text}");
    assert!(
        text.contains("2 artifacts, 4 revisions, 4 releases"),
        "{text}"
    );
    assert!(text.contains("loaded in"), "{text}");
    assert!(
        !text.contains('\x1b'),
        "no colour when not a terminal: {text:?}"
    );
}

#[test]
fn check_json_shape() {
    let f = fixture();
    let out = run(&[&"check", &f.root(), &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["command"], "check");
    assert_eq!(v["ok"], true);
    assert_eq!(v["root"], f.root().to_string_lossy().as_ref());
    assert_eq!(v["examples"], false);
    assert_eq!(v["artifacts"], 2);
    assert_eq!(v["revisions"], 4);
    assert_eq!(v["releases"], 4);
    assert!(v["elapsed_ms"].is_u64());
}

#[test]
fn check_diagnostic_points_at_the_file_and_line() {
    let f = fixture();
    // Line 7 (the first release's LICENSE) holds an unknown license.
    let bad = journal("zlib", T1, None, &[release("1.0.0")], &[])
        .replace("LICENSE MIT", "LICENSE NOT-A-LICENSE");
    assert_eq!(bad.lines().nth(6), Some("  LICENSE NOT-A-LICENSE"));
    put(&f.root(), "zlib", T1, ".journal", &bad);

    let out = run(&[&"check", &f.root()]);
    assert_code(&out, 1);
    assert!(out.stdout.is_empty(), "results only on success");
    let err = stderr(&out);
    let located = format!("zlib/{T1}.journal:7:");
    assert!(err.contains(&located), "{err}");

    let out = run(&[&"check", &f.root(), &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    assert_eq!(v["command"], "check");
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["kind"], "Semantic");
    assert_eq!(v["error"]["line"], 7);
    assert!(v["error"]["column"].is_u64());
    let path = v["error"]["path"].as_str().unwrap_or_default();
    assert!(path.ends_with(&format!("zlib/{T1}.journal")), "{path}");
    let diagnostic = v["error"]["diagnostic"].as_str().unwrap_or_default();
    assert!(diagnostic.contains(&located), "{diagnostic}");
    assert!(v["error"]["message"].is_string());
}

#[test]
fn check_syntax_error_line() {
    let f = fixture();
    let mut bad = journal("zlib", T1, None, &[release("1.0.0")], &[]);
    bad.push_str("RELEASE 1.0.1+build\n  LICENSE MIT\n");
    put(&f.root(), "zlib", T1, ".journal", &bad);
    let out = run(&[&"check", &f.root(), &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    assert_eq!(v["error"]["kind"], "Syntax");
    assert_eq!(v["error"]["line"], 9);
}

#[test]
fn check_chain_error_exits_1() {
    let f = fixture();
    let orphan = journal(
        "left-pad",
        T3,
        Some(&digest_of("not a stored revision")),
        &[release("0.1.0")],
        &[],
    );
    put(&f.root(), "left-pad", T3, ".journal", &orphan);
    let out = run(&[&"check", &f.root(), &"--json"]);
    assert_code(&out, 1);
    assert_eq!(json(&out)["error"]["kind"], "UnknownPredecessor");
    assert!(stderr(&out).contains(&format!("left-pad/{T3}.journal")));
}

#[test]
fn check_missing_root_exits_2() {
    let dir = tempdir();
    let missing = dir.path().join("nowhere");
    let out = run(&[&"check", &missing]);
    assert_code(&out, 2);
    assert!(stderr(&out).contains("nowhere"), "{}", stderr(&out));

    let out = run(&[&"check", &missing, &"--json"]);
    assert_code(&out, 2);
    let v = json(&out);
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["kind"], "RootMissing");
}

#[test]
fn check_root_that_is_a_file_exits_2() {
    let dir = tempdir();
    let file = dir.path().join("file");
    fs::write(&file, "x").unwrap_or_else(|e| panic!("{e}"));
    let out = run(&[&"check", &file, &"--json"]);
    assert_code(&out, 2);
    assert_eq!(json(&out)["error"]["kind"], "RootNotDirectory");
}

#[test]
fn check_examples_are_loaded_only_when_asked() {
    let dir = tempdir();
    let root = dir.path();
    let text = journal("demo", T1, None, &[release("1.0.0")], &[]);
    put(root, "demo", T1, ".journal.example", &text);

    let out = run(&[&"check", &root, &"--json"]);
    assert_code(&out, 0);
    assert_eq!(json(&out)["artifacts"], 0);

    let out = run(&[&"check", &root, &"--examples", &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["examples"], true);
    assert_eq!(v["artifacts"], 1);
    assert_eq!(v["revisions"], 1);
    assert_eq!(v["releases"], 1);
    // Nothing on disk changed.
    let names: Vec<String> = fs::read_dir(root.join("demo"))
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec![format!("{T1}.journal.example")]);
}

// ---------------------------------------------------------------- usage

#[test]
fn usage_errors_exit_2() {
    let f = fixture();
    for args in [
        vec!["frobnicate".to_owned()],
        vec![],
        vec!["check".to_owned()],
        vec![
            "show".to_owned(),
            f.root().to_string_lossy().into_owned(),
            "Not_A_Coordinate!".to_owned(),
        ],
        vec![
            "show".to_owned(),
            f.root().to_string_lossy().into_owned(),
            "serde".to_owned(),
            "--at".to_owned(),
            "2026-13-45".to_owned(),
        ],
        vec![
            "show".to_owned(),
            f.root().to_string_lossy().into_owned(),
            "serde".to_owned(),
            "--at".to_owned(),
            T1.to_owned(),
            "--as-of".to_owned(),
            T2.to_owned(),
        ],
        vec![
            "successor".to_owned(),
            "x".to_owned(),
            "--at".to_owned(),
            "soon".to_owned(),
        ],
        vec!["successor".to_owned(), "x".to_owned(), "--json".to_owned()],
        vec![
            "verify-content".to_owned(),
            f.root().to_string_lossy().into_owned(),
        ],
    ] {
        let args: Vec<&dyn AsRef<std::ffi::OsStr>> = args
            .iter()
            .map(|a| a as &dyn AsRef<std::ffi::OsStr>)
            .collect();
        let out = run(&args);
        assert_code(&out, 2);
        assert!(out.stdout.is_empty());
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn every_subcommand_has_help() {
    let out = run(&[&"--help"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    for name in [
        "check",
        "lint",
        "digest",
        "successor",
        "history",
        "show",
        "verify-content",
    ] {
        assert!(text.contains(name), "{name} missing from --help:\n{text}");
        let out = run(&[&name, &"--help"]);
        assert_code(&out, 0);
        assert!(stdout(&out).contains("Usage: nenjim-journal"));
    }
}

/// The subcommands that take a root (`<ROOT>`): api.md, "The command":
/// each takes a directory, a bucket URL or a NATS root.
const TAKES_A_ROOT: [&str; 19] = [
    "check",
    "history",
    "events",
    "show",
    "verify-content",
    "list",
    "versions",
    "diff",
    "init",
    "append",
    "create",
    "release",
    "yank",
    "deprecate",
    "recommend",
    "checkpoint",
    "verify",
    "prove",
    "witness",
];

/// The subcommands `nenjim-journal --help` lists (clap's `help` aside).
fn subcommands() -> Vec<String> {
    let top = stdout(&run(&[&"--help"]));
    top.lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_help_of_every_subcommand_that_takes_a_root_names_nats_roots() {
    let all = subcommands();
    assert!(all.len() > TAKES_A_ROOT.len(), "{all:?}");
    for name in &all {
        let help = stdout(&run(&[name, &"--help"]));
        let takes_a_root = help
            .lines()
            .any(|line| line.starts_with("Usage:") && line.contains("<ROOT>"));
        assert_eq!(
            takes_a_root,
            TAKES_A_ROOT.contains(&name.as_str()),
            "the table of subcommands that take a root is out of date for `{name}`:\n{help}"
        );
    }
    for name in TAKES_A_ROOT {
        for flag in ["--help", "-h"] {
            let out = run(&[&name, &flag]);
            assert_code(&out, 0);
            let text = stdout(&out);
            for kind in [
                "a directory",
                "s3://bucket/prefix",
                "nats://host:port/<name>",
                "nats://h1:p1,h2:p2,…/<name>",
            ] {
                assert!(
                    text.contains(kind),
                    "`{name} {flag}` does not name {kind}:\n{text}"
                );
            }
        }
    }
    // A content store may be a NATS root's own bucket too.
    let put_blob = stdout(&run(&[&"put-blob", &"--help"]));
    assert!(put_blob.contains("nats://"), "{put_blob}");
}

#[test]
fn init_help_says_what_init_does_on_a_nats_root() {
    let out = run(&[&"init", &"--help"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    // The description, not only the option's own line.
    let description: String = text
        .lines()
        .take_while(|line| !line.starts_with("Usage:"))
        .collect();
    for said in [
        "nats://",
        "NENJIM_<name>",
        "`--replicas N`",
        "`--store`",
        "NATS_CREDS",
        "exit 75",
    ] {
        assert!(
            description.contains(said),
            "`init --help` does not say {said}:\n{text}"
        );
    }
    assert!(text.contains("--replicas <N>"), "{text}");
    assert!(stdout(&run(&[&"init", &"-h"])).contains("--replicas <N>"));
}

#[test]
fn the_top_level_help_and_the_man_page_name_nats_roots() {
    let help = stdout(&run(&[&"--help"]));
    let out = run(&[&"man"]);
    assert_code(&out, 0);
    // roff escapes every `-` as `\-`.
    let page = stdout(&out).replace("\\-", "-");
    for text in [&help, &page] {
        for said in [
            "nats://host:port/<name>",
            "nats://h1:p1,h2:p2,…/<name>",
            "--replicas N",
            "NATS_CREDS",
            "NATS_NKEY",
            "NATS_USER",
            "NATS_PASSWORD",
            "NATS_TOKEN",
            "NATS_CA",
            "NATS_CERT",
            "NATS_KEY",
            "75",
        ] {
            assert!(text.contains(said), "{said} missing from:\n{text}");
        }
    }
    // The man page's list of subcommands says what init makes on NATS.
    assert!(page.contains("on NATS: its stream and buckets"), "{page}");
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

// ---------------------------------------------------------------- successor

#[test]
fn successor_is_accepted_as_the_new_head() {
    let f = fixture();
    let head = f.root().join("serde").join(format!("{T3}.journal"));
    let next = "20260401T000000Z";
    let out = run(&[&"successor", &head, &"--at", &next]);
    assert_code(&out, 0);
    let text = stdout(&out);
    let expected = f.serde[2]
        .replace(
            &format!("JOURNAL_VERSION {T3}"),
            &format!("JOURNAL_VERSION {next}"),
        )
        .replace(
            &format!("PREDECESSOR {}", digest_of(&f.serde[1])),
            &format!("PREDECESSOR {}", digest_of(&f.serde[2])),
        );
    assert_eq!(text, expected);

    // Author: add a release, then check the root accepts it as the head.
    let authored = text.replace(
        "YANK",
        &format!(
            "RELEASE 2.0.0\n  LICENSE MIT\n  CONTENT sha256:{} 3\nYANK",
            hex(b"new")
        ),
    );
    put(&f.root(), "serde", next, ".journal", &authored);
    let out = run(&[&"check", &f.root(), &"--json"]);
    assert_code(&out, 0);
    assert_eq!(json(&out)["revisions"], 5);

    let out = run(&[&"show", &f.root(), &"serde", &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["revision"]["journal_version"], next);
    assert_eq!(v["revision"]["predecessor"], digest_of(&f.serde[2]));
    assert_eq!(v["revision"]["releases"].as_array().map(Vec::len), Some(4));
}

#[test]
fn successor_keeps_crlf_comments_and_spacing() {
    let dir = tempdir();
    let source = "# first revision\r\nFORMAT nenjim-journal/1\r\nARTIFACT serde\r\nJOURNAL_VERSION 20260101T000000Z\r\nPREDECESSOR GENESIS\r\nDESCRIPTION \"x\"\r\n\r\n# releases\nRELEASE 1.0.0\n  LICENSE MIT\r\n  CONTENT sha256:0000000000000000000000000000000000000000000000000000000000000000 0\r\n";
    let path = dir.path().join(format!("{T1}.journal"));
    fs::write(&path, source).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&[&"successor", &path, &"--at", &T2]);
    assert_code(&out, 0);
    let expected = source
        .replace(
            "JOURNAL_VERSION 20260101T000000Z\r\n",
            &format!("JOURNAL_VERSION {T2}\r\n"),
        )
        .replace(
            "PREDECESSOR GENESIS\r\n",
            &format!("PREDECESSOR {}\r\n", digest_of(source)),
        );
    assert_eq!(stdout(&out), expected);
}

#[test]
fn successor_without_at_uses_now() {
    let f = fixture();
    let head = f.root().join("serde").join(format!("{T3}.journal"));
    let out = run(&[&"successor", &head]);
    assert_code(&out, 0);
    let text = stdout(&out);
    let version = text
        .lines()
        .find_map(|l| l.strip_prefix("JOURNAL_VERSION "))
        .unwrap_or_default()
        .to_owned();
    assert_eq!(version.len(), 16, "{version}");
    assert!(version.as_str() > T3);
    put(&f.root(), "serde", &version, ".journal", &text);
    assert_code(&run(&[&"check", &f.root()]), 0);
}

#[test]
fn successor_refuses_a_timestamp_not_after_the_source() {
    let f = fixture();
    let head = f.root().join("serde").join(format!("{T3}.journal"));
    for at in [T3, T1] {
        let out = run(&[&"successor", &head, &"--at", &at]);
        assert_code(&out, 1);
        assert!(out.stdout.is_empty());
        assert!(stderr(&out).contains(T3), "{}", stderr(&out));
    }
}

#[test]
fn successor_requires_a_valid_source() {
    let dir = tempdir();
    let path = dir.path().join("bad.journal");
    fs::write(&path, "FORMAT nenjim-journal/2\n").unwrap_or_else(|e| panic!("{e}"));
    let out = run(&[&"successor", &path, &"--at", &T2]);
    assert_code(&out, 1);
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains(&format!("{}:1:", path.display())));

    let out = run(&[&"successor", &dir.path().join("missing"), &"--at", &T2]);
    assert_code(&out, 2);
}

// ---------------------------------------------------------------- history

#[test]
fn history_text() {
    let f = fixture();
    let out = run(&[&"history", &f.root(), &"serde"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(text.starts_with("serde: 3 revisions\n"), "{text}");
    assert!(text.contains(&digest_of(&f.serde[0])), "{text}");
    assert!(text.contains("+ RELEASE 2.0.0-rc.1"), "{text}");
    assert!(text.contains("+ YANK 1.0.0 \"broken build\""), "{text}");
    assert!(text.contains("- RECOMMEND 1.0.0"), "{text}");
}

#[test]
fn history_json_shape() {
    let f = fixture();
    let out = run(&[&"history", &f.root(), &"serde", &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["command"], "history");
    assert_eq!(v["ok"], true);
    assert_eq!(v["coordinate"], "serde");
    let revs = v["revisions"].as_array().cloned().unwrap_or_default();
    assert_eq!(revs.len(), 3);

    assert_eq!(revs[0]["journal_version"], T1);
    assert_eq!(revs[0]["digest"], digest_of(&f.serde[0]));
    assert!(revs[0]["predecessor"].is_null());
    assert!(revs[0]["sequence"].as_u64().is_some_and(|s| s >= 1));
    assert_eq!(revs[0]["releases"], 1);
    assert_eq!(revs[0]["releases_added"], serde_json::json!(["1.0.0"]));
    assert_eq!(
        revs[0]["policy_added"],
        serde_json::json!([{"kind": "recommend", "version": "1.0.0"}])
    );
    assert_eq!(revs[0]["policy_removed"], serde_json::json!([]));

    assert_eq!(revs[1]["predecessor"], digest_of(&f.serde[0]));
    assert_eq!(revs[1]["releases_added"], serde_json::json!(["1.1.0"]));
    assert_eq!(
        revs[1]["policy_added"],
        serde_json::json!([{"kind": "recommend", "version": "1.1.0"}])
    );
    assert_eq!(
        revs[1]["policy_removed"],
        serde_json::json!([{"kind": "recommend", "version": "1.0.0"}])
    );
    assert!(revs[1]["sequence"].as_u64() > revs[0]["sequence"].as_u64());

    assert_eq!(revs[2]["releases"], 3);
    assert_eq!(revs[2]["releases_added"], serde_json::json!(["2.0.0-rc.1"]));
    assert_eq!(
        revs[2]["policy_added"],
        serde_json::json!([
            {"kind": "yank", "requirement": "1.0.0", "reason": "broken build"},
            {"kind": "deprecate", "requirement": "[1.1.0,2.0.0)", "reason": "use 2.x"}
        ])
    );
    assert_eq!(revs[2]["policy_removed"], serde_json::json!([]));
}

#[test]
fn history_unknown_coordinate_exits_1() {
    let f = fixture();
    let out = run(&[&"history", &f.root(), &"tokio"]);
    assert_code(&out, 1);
    let err = stderr(&out);
    assert!(
        err.contains("tokio") && err.contains("left-pad, serde"),
        "{err}"
    );
    let out = run(&[&"history", &f.root(), &"tokio", &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    assert_eq!(v["command"], "history");
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["kind"], "UnknownArtifact");
}

// ---------------------------------------------------------------- show

#[test]
fn show_latest_worldview() {
    let f = fixture();
    let out = run(&[&"show", &f.root(), &"serde"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(text.starts_with(&format!("serde {T3}")), "{text}");
    assert!(text.contains("yanked       yes \"broken build\""), "{text}");
    assert!(
        text.contains("DEPRECATE [1.1.0,2.0.0) \"use 2.x\""),
        "{text}"
    );

    let out = run(&[&"show", &f.root(), &"serde", &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["command"], "show");
    assert_eq!(v["ok"], true);
    let r = &v["revision"];
    assert_eq!(r["coordinate"], "serde");
    assert_eq!(r["journal_version"], T3);
    assert_eq!(r["digest"], digest_of(&f.serde[2]));
    assert_eq!(r["predecessor"], digest_of(&f.serde[1]));
    assert_eq!(r["description"], "the serde artifact");
    assert!(r["information"].is_null());
    assert!(r["sequence"].is_u64());
    let releases = r["releases"].as_array().cloned().unwrap_or_default();
    let versions: Vec<&str> = releases
        .iter()
        .filter_map(|x| x["version"].as_str())
        .collect();
    assert_eq!(versions, ["1.0.0", "1.1.0", "2.0.0-rc.1"]);
    assert_eq!(releases[0]["license"], "MIT");
    assert_eq!(
        releases[0]["content"]["digest"],
        format!("sha256:{}", hex(b"blob of 1.0.0"))
    );
    assert_eq!(releases[0]["content"]["size"], 13);
    assert_eq!(releases[0]["policy"]["yanked"], "broken build");
    assert!(releases[0]["policy"]["deprecated"].is_null());
    assert_eq!(releases[0]["policy"]["recommended"], false);
    assert_eq!(releases[1]["policy"]["deprecated"], "use 2.x");
    assert_eq!(releases[1]["policy"]["recommended"], true);
    assert_eq!(
        r["policy"][2],
        serde_json::json!({"kind": "recommend", "version": "1.1.0"})
    );
}

#[test]
fn show_at_and_as_of() {
    let f = fixture();
    let out = run(&[&"show", &f.root(), &"serde", &"--at", &T2, &"--json"]);
    assert_code(&out, 0);
    assert_eq!(json(&out)["revision"]["journal_version"], T2);

    let out = run(&[
        &"show",
        &f.root(),
        &"serde",
        &"--as-of",
        &"20260215T000000Z",
        &"--json",
    ]);
    assert_code(&out, 0);
    assert_eq!(json(&out)["revision"]["journal_version"], T2);

    let out = run(&[&"show", &f.root(), &"serde", &"--at", &"20260215T000000Z"]);
    assert_code(&out, 1);
    assert!(stderr(&out).contains(T2), "{}", stderr(&out));

    let out = run(&[
        &"show",
        &f.root(),
        &"serde",
        &"--as-of",
        &"20251231T235959Z",
        &"--json",
    ]);
    assert_code(&out, 1);
    assert_eq!(json(&out)["error"]["kind"], "UnknownRevision");
}

#[test]
fn show_one_release_with_policy_context() {
    let dir = tempdir();
    let text = "FORMAT nenjim-journal/1\nARTIFACT com.example.hub\nJOURNAL_VERSION 20260101T000000Z\nPREDECESSOR GENESIS\nDESCRIPTION \"hub\"\nINFORMATION https://example.org/hub\nRELEASE 1.0.0\n  LICENSE Apache-2.0 OR MIT\n  CONTENT sha256:1e0a5b9c3d2f4a6b8c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d 48213\n  DESCRIPTION \"first\"\n  DEPENDS com.example.valuetypes [1.2.0,2.0.0)\n  DEPENDS org.slf4j 2.0.9 \"logging facade\"\n  EXCLUDES commons-logging\n  PREFERS com.example.valuetypes [1.4.0,1.5.0) \"tested\"\nRELEASE 1.1.0\n  LICENSE MIT\n  CONTENT sha256:2b1c6d0e4f3a5b7c9d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c 1\nDEPRECATE 1.0.0 \"maintenance only\"\nRECOMMEND 1.0.0\n";
    put(dir.path(), "com.example.hub", T1, ".journal", text);

    let out = run(&[
        &"show",
        &dir.path(),
        &"com.example.hub",
        &"--release",
        &"1.0.0",
    ]);
    assert_code(&out, 0);
    let shown = stdout(&out);
    assert!(
        shown.starts_with("com.example.hub 1.0.0 (revision 20260101T000000Z"),
        "{shown}"
    );
    assert!(shown.contains("license      Apache-2.0 OR MIT"), "{shown}");
    assert!(
        shown.contains("depends      org.slf4j 2.0.9 \"logging facade\""),
        "{shown}"
    );
    assert!(
        shown.contains("deprecated   yes \"maintenance only\""),
        "{shown}"
    );
    assert!(shown.contains("recommended  yes"), "{shown}");

    let out = run(&[
        &"show",
        &dir.path(),
        &"com.example.hub",
        &"--release",
        &"1.0.0",
        &"--json",
    ]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["command"], "show");
    assert_eq!(v["in_revision"]["coordinate"], "com.example.hub");
    assert_eq!(v["in_revision"]["journal_version"], T1);
    assert_eq!(v["in_revision"]["digest"], digest_of(text));
    let r = &v["release"];
    assert_eq!(r["version"], "1.0.0");
    assert_eq!(r["license"], "Apache-2.0 OR MIT");
    assert_eq!(r["content"]["size"], 48213);
    assert_eq!(r["description"], "first");
    assert_eq!(
        r["dependencies"],
        serde_json::json!([
            {"artifact": "com.example.valuetypes", "requirement": "[1.2.0,2.0.0)", "description": null},
            {"artifact": "org.slf4j", "requirement": "2.0.9", "description": "logging facade"}
        ])
    );
    assert_eq!(
        r["exclusions"],
        serde_json::json!([{"artifact": "commons-logging", "requirement": null, "description": null}])
    );
    assert_eq!(
        r["preferences"],
        serde_json::json!([{"artifact": "com.example.valuetypes", "requirement": "[1.4.0,1.5.0)", "description": "tested"}])
    );
    assert_eq!(
        r["policy"],
        serde_json::json!({"yanked": null, "deprecated": "maintenance only", "recommended": true})
    );

    let out = run(&[&"show", &dir.path(), &"com.example.hub", &"--json"]);
    assert_eq!(
        json(&out)["revision"]["information"],
        "https://example.org/hub"
    );
}

#[test]
fn show_unknown_things_exit_1() {
    let f = fixture();
    let out = run(&[&"show", &f.root(), &"tokio", &"--json"]);
    assert_code(&out, 1);
    assert_eq!(json(&out)["error"]["kind"], "UnknownArtifact");

    let out = run(&[&"show", &f.root(), &"serde", &"--release", &"3.0.0"]);
    assert_code(&out, 1);
    let err = stderr(&out);
    assert!(
        err.contains("3.0.0") && err.contains("1.0.0, 1.1.0, 2.0.0-rc.1"),
        "{err}"
    );

    // A release that exists later but not in the chosen revision.
    let out = run(&[
        &"show",
        &f.root(),
        &"serde",
        &"--at",
        &T1,
        &"--release",
        &"1.1.0",
        &"--json",
    ]);
    assert_code(&out, 1);
    assert_eq!(json(&out)["error"]["kind"], "UnknownRelease");
}

// ---------------------------------------------------------------- verify-content

/// A root whose releases point at `blobs`, and a store holding them.
fn content_fixture(blobs: &[(&str, Vec<u8>)]) -> (TempDir, PathBuf, PathBuf) {
    let dir = tempdir();
    let root = dir.path().join("journals");
    let store = dir.path().join("store");
    let releases: Vec<Release<'_>> = blobs
        .iter()
        .map(|(v, b)| release_with_blob(v, b.clone()))
        .collect();
    put(
        &root,
        "app",
        T1,
        ".journal",
        &journal("app", T1, None, &releases, &[]),
    );
    let sha = store.join("blobs").join("sha256");
    fs::create_dir_all(&sha).unwrap_or_else(|e| panic!("{e}"));
    for (_, blob) in blobs {
        fs::write(sha.join(hex(blob)), blob).unwrap_or_else(|e| panic!("{e}"));
    }
    (dir, root, store)
}

fn big_blob(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[test]
fn verify_content_all_good() {
    let (_dir, root, store) = content_fixture(&[
        ("1.0.0", big_blob(1, 200_000)),
        ("1.1.0", big_blob(2, 10)),
        ("1.2.0", Vec::new()),
    ]);
    let out = run(&[&"verify-content", &root, &"--store", &store]);
    assert_code(&out, 0);
    assert!(
        stdout(&out).contains("ok 3 blobs verified"),
        "{}",
        stdout(&out)
    );

    let out = run(&[
        &"verify-content",
        &root,
        &"--store",
        &store,
        &"--all-revisions",
        &"--json",
    ]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["command"], "verify-content");
    assert_eq!(v["ok"], true);
    assert_eq!(v["all_revisions"], true);
    assert_eq!(v["checked"], 3);
    assert_eq!(v["failed"], 0);
    assert!(
        v["blobs"]
            .as_array()
            .is_some_and(|b| b.iter().all(|x| x["status"] == "ok"))
    );
}

#[test]
fn verify_content_catches_missing_truncated_and_flipped_blobs() {
    let good = big_blob(1, 100_000);
    let missing = big_blob(2, 5000);
    let truncated = big_blob(3, 70_000);
    let flipped = big_blob(4, 70_000);
    let (_dir, root, store) = content_fixture(&[
        ("1.0.0", good.clone()),
        ("1.1.0", missing.clone()),
        ("1.2.0", truncated.clone()),
        ("1.3.0", flipped.clone()),
    ]);
    let sha = store.join("blobs").join("sha256");
    fs::remove_file(sha.join(hex(&missing))).unwrap_or_else(|e| panic!("{e}"));
    fs::write(sha.join(hex(&truncated)), &truncated[..69_999]).unwrap_or_else(|e| panic!("{e}"));
    let mut bad = flipped.clone();
    bad[65_537] ^= 0x01;
    fs::write(sha.join(hex(&flipped)), &bad).unwrap_or_else(|e| panic!("{e}"));

    let out = run(&[&"verify-content", &root, &"--store", &store]);
    assert_code(&out, 1);
    let text = stdout(&out);
    assert!(
        text.contains(&format!("missing      sha256:{}", hex(&missing))),
        "{text}"
    );
    assert!(
        text.contains(&format!("wrong-size   sha256:{}", hex(&truncated))),
        "{text}"
    );
    assert!(text.contains("found 69999 bytes, expected 70000"), "{text}");
    assert!(
        text.contains(&format!("wrong-digest sha256:{}", hex(&flipped))),
        "{text}"
    );
    assert!(
        text.contains(&format!("found sha256:{}", hex(&bad))),
        "{text}"
    );
    assert!(text.contains("used by app 1.3.0"), "{text}");
    assert!(text.contains("3 of 4 blobs failed"), "{text}");

    let out = run(&[&"verify-content", &root, &"--store", &store, &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    assert_eq!(v["ok"], false);
    assert_eq!(v["checked"], 4);
    assert_eq!(v["failed"], 3);
    let blobs = v["blobs"].as_array().cloned().unwrap_or_default();
    let find = |blob: &[u8]| {
        blobs
            .iter()
            .find(|b| b["digest"] == format!("sha256:{}", hex(blob)))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let b = find(&good);
    assert_eq!(b["status"], "ok");
    assert_eq!(b["size"], 100_000);
    assert_eq!(
        b["releases"],
        serde_json::json!([{"coordinate": "app", "version": "1.0.0"}])
    );
    let b = find(&missing);
    assert_eq!(b["status"], "missing");
    assert!(b["actual_size"].is_null());
    assert!(
        b["path"]
            .as_str()
            .is_some_and(|p| p.ends_with(&hex(&missing)))
    );
    let b = find(&truncated);
    assert_eq!(b["status"], "wrong-size");
    assert_eq!(b["size"], 70_000);
    assert_eq!(b["actual_size"], 69_999);
    let b = find(&flipped);
    assert_eq!(b["status"], "wrong-digest");
    assert_eq!(b["actual_size"], 70_000);
    assert_eq!(b["actual_digest"], format!("sha256:{}", hex(&bad)));
    assert!(b["message"].is_null());
}

#[test]
fn verify_content_checks_a_shared_blob_once() {
    let shared = big_blob(9, 1234);
    let (_dir, root, store) =
        content_fixture(&[("1.0.0", shared.clone()), ("1.0.1", shared.clone())]);
    let out = run(&[&"verify-content", &root, &"--store", &store, &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["checked"], 1);
    assert_eq!(
        v["blobs"][0]["releases"],
        serde_json::json!([
            {"coordinate": "app", "version": "1.0.0"},
            {"coordinate": "app", "version": "1.0.1"}
        ])
    );
}

#[test]
fn verify_content_missing_store_exits_2() {
    let f = fixture();
    let out = run(&[
        &"verify-content",
        &f.root(),
        &"--store",
        &f.dir.path().join("no-store"),
        &"--json",
    ]);
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

#[test]
fn shipped_examples_check_and_history() {
    let root = shipped_root();
    let out = run(&[&"check", &root, &"--examples", &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["ok"], true);
    let coordinate =
        shipped_coordinate().unwrap_or_else(|| panic!("no example artifact in {}", root.display()));
    assert!(v["artifacts"].as_u64().is_some_and(|n| n >= 1));

    let out = run(&[&"history", &root, &coordinate, &"--examples"]);
    assert_code(&out, 0);
    assert!(stdout(&out).starts_with(&format!("{coordinate}: ")));

    let out = run(&[&"history", &root, &coordinate, &"--examples", &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["coordinate"], coordinate.as_str());
    let revisions = v["revisions"].as_array().cloned().unwrap_or_default();
    assert!(!revisions.is_empty());
    assert!(
        revisions[0]["predecessor"].is_null(),
        "the first is the genesis"
    );
}

// ---------------------------------------------------------------- events

const T4: &str = "20260401T000000Z";

/// The fixture plus a fourth `serde` revision that changes only its header
/// (description and information) and a fifth that changes nothing.
fn events_fixture() -> Fixture {
    let f = fixture();
    let s4 = journal(
        "serde",
        T4,
        Some(&digest_of(&f.serde[2])),
        &[release("1.0.0"), release("1.1.0"), release("2.0.0-rc.1")],
        &[
            "YANK 1.0.0 \"broken build\"",
            "DEPRECATE [1.1.0,2.0.0) \"use 2.x\"",
            "RECOMMEND 1.1.0",
        ],
    )
    .replace(
        "DESCRIPTION \"the serde artifact\"\n",
        "DESCRIPTION \"serialization & <more>\"\nINFORMATION https://serde.rs\n",
    );
    put(&f.root(), "serde", T4, ".journal", &s4);
    let s5 = format!(
        "# nothing changes\n{}",
        s4.replace(T4, "20260501T000000Z")
            .replace(&digest_of(&f.serde[2]), &digest_of(&s4))
    );
    put(&f.root(), "serde", "20260501T000000Z", ".journal", &s5);
    f
}

/// Every line of the feed, with the root's own events.
const EVENT_LINES: &[&str] = &[
    "1  20260201T000000Z  left-pad  * created",
    "1  20260201T000000Z  left-pad  + RELEASE 0.1.0",
    "2  20260101T000000Z  serde     * created",
    "2  20260101T000000Z  serde     + RELEASE 1.0.0",
    "2  20260101T000000Z  serde     + RECOMMEND 1.0.0",
    "3  20260201T000000Z  serde     + RELEASE 1.1.0",
    "3  20260201T000000Z  serde     - RECOMMEND 1.0.0",
    "3  20260201T000000Z  serde     + RECOMMEND 1.1.0",
    "4  20260301T120000Z  serde     + RELEASE 2.0.0-rc.1",
    "4  20260301T120000Z  serde     + YANK 1.0.0 \"broken build\"",
    "4  20260301T120000Z  serde     + DEPRECATE [1.1.0,2.0.0) \"use 2.x\"",
    "5  20260401T000000Z  serde     ~ DESCRIPTION \"serialization & <more>\"",
    "5  20260401T000000Z  serde     ~ INFORMATION https://serde.rs",
];

fn lines(output: &Output) -> Vec<String> {
    stdout(output).lines().map(str::to_owned).collect()
}

#[test]
fn events_text_lists_every_event_in_order() {
    let f = events_fixture();
    let out = run(&[&"events", &f.root()]);
    assert_code(&out, 0);
    // Sequence 6 changes nothing: no line.
    assert_eq!(lines(&out), EVENT_LINES);
}

#[test]
fn events_resume_after_a_sequence() {
    let f = events_fixture();
    for after in 0..=6u64 {
        let out = run(&[&"events", &f.root(), &"--after", &after.to_string()]);
        assert_code(&out, 0);
        let expected: Vec<&str> = EVENT_LINES
            .iter()
            .copied()
            .filter(|l| l.split(' ').next().and_then(|s| s.parse::<u64>().ok()) > Some(after))
            .collect();
        assert_eq!(lines(&out), expected, "after {after}");
    }
}

#[test]
fn events_filters_by_coordinate_kind_and_limit() {
    let f = events_fixture();
    let out = run(&[&"events", &f.root(), &"--coordinate", &"left-pad"]);
    assert_code(&out, 0);
    assert_eq!(lines(&out), EVENT_LINES[..2]);

    let out = run(&[
        &"events",
        &f.root(),
        &"--kind",
        &"release",
        &"--kind",
        &"created",
    ]);
    assert_code(&out, 0);
    let expected: Vec<&str> = EVENT_LINES
        .iter()
        .copied()
        .filter(|l| l.contains("* created") || l.contains("+ RELEASE"))
        .collect();
    assert_eq!(lines(&out), expected);

    let out = run(&[&"events", &f.root(), &"--kind", &"header"]);
    assert_eq!(lines(&out), EVENT_LINES[11..]);

    let out = run(&[
        &"events",
        &f.root(),
        &"--kind",
        &"policy",
        &"--coordinate",
        &"serde",
        &"--coordinate",
        &"left-pad",
        &"--after",
        &"2",
    ]);
    assert_eq!(
        lines(&out),
        [
            EVENT_LINES[6],
            EVENT_LINES[7],
            EVENT_LINES[9],
            EVENT_LINES[10]
        ]
    );

    // --limit keeps the newest of the selected events, oldest first.
    let out = run(&[&"events", &f.root(), &"--limit", &"3"]);
    assert_eq!(lines(&out), EVENT_LINES[10..]);

    // An unknown coordinate is refused with the known ones; a bad kind is usage.
    let out = run(&[&"events", &f.root(), &"--coordinate", &"tokio"]);
    assert_code(&out, 1);
    assert!(stderr(&out).contains("left-pad, serde"), "{}", stderr(&out));
    let out = run(&[&"events", &f.root(), &"--coordinate", &"tokio", &"--json"]);
    assert_code(&out, 1);
    assert_eq!(json(&out)["error"]["kind"], "UnknownArtifact");
    let out = run(&[&"events", &f.root(), &"--kind", &"yank"]);
    assert_code(&out, 2);
    let out = run(&[&"events", &f.root(), &"--json", &"--format", &"atom"]);
    assert_code(&out, 2);
}

#[test]
fn events_json_lines_shape() {
    let f = events_fixture();
    let out = run(&[&"events", &f.root(), &"--json"]);
    assert_code(&out, 0);
    let same = run(&[&"events", &f.root(), &"--format", &"json"]);
    assert_eq!(out.stdout, same.stdout);
    let events: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(events.len(), EVENT_LINES.len());
    for e in &events {
        let mut keys: Vec<&str> = e
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "change",
                "coordinate",
                "journal_version",
                "kind",
                "sequence"
            ]
        );
    }
    assert_eq!(
        events[0],
        serde_json::json!({"sequence": 1, "coordinate": "left-pad",
            "journal_version": T2, "kind": "artifact_created", "change": {}})
    );
    assert_eq!(events[1]["kind"], "release_published");
    assert_eq!(events[1]["change"]["release"]["version"], "0.1.0");
    assert_eq!(events[1]["change"]["release"]["license"], "MIT");
    assert_eq!(
        events[1]["change"]["release"]["content"]["digest"],
        format!("sha256:{}", hex(b"blob of 0.1.0"))
    );
    assert_eq!(
        events[1]["change"]["release"]["policy"],
        serde_json::json!({"yanked": null, "deprecated": null, "recommended": false})
    );
    assert_eq!(
        events[6],
        serde_json::json!({"sequence": 3, "coordinate": "serde",
            "journal_version": T2, "kind": "policy_withdrawn",
            "change": {"statement": {"kind": "recommend", "version": "1.0.0"}}})
    );
    assert_eq!(events[9]["kind"], "policy_stated");
    assert_eq!(
        events[9]["change"]["statement"],
        serde_json::json!({"kind": "yank", "requirement": "1.0.0", "reason": "broken build"})
    );
    assert_eq!(
        events[11]["change"],
        serde_json::json!({"description": "serialization & <more>"})
    );
    assert_eq!(events[11]["kind"], "description_changed");
    assert_eq!(
        events[12]["change"],
        serde_json::json!({"information": "https://serde.rs"})
    );
}

/// What python's `feedparser` makes of an Atom document: a JSON summary.
/// Fails (never skips) when python3 or feedparser is missing: CI installs it.
fn parse_feed(xml: &[u8]) -> Value {
    use std::io::Write as _;
    const SCRIPT: &str = r#"
import json, sys, time
import feedparser
d = feedparser.parse(sys.stdin.buffer.read())
print(json.dumps({
    "bozo": int(d.bozo),
    "bozo_exception": str(d.get("bozo_exception", "")),
    "version": d.version,
    "title": d.feed.get("title"),
    "id": d.feed.get("id"),
    "updated": d.feed.get("updated"),
    "updated_parsed": bool(d.feed.get("updated_parsed")),
    "entries": [{
        "id": e.get("id"),
        "title": e.get("title"),
        "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", e.updated_parsed),
        "category": [t.term for t in e.get("tags", [])],
        "content": [c.value for c in e.get("content", [])],
    } for e in d.entries],
}))
"#;
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python3 is required to check the Atom feed: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(xml)
            .unwrap_or_else(|e| panic!("writing to python3: {e}"));
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("python3: {e}"));
    assert!(
        out.status.success(),
        "python3 with feedparser is required to check the Atom feed \
         (`python3 -m pip install 'feedparser==6.0.11'`):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("feedparser summary: {e}"))
}

#[test]
fn events_atom_is_a_valid_feed_of_the_newest_events() {
    let f = events_fixture();
    let out = run(&[&"events", &f.root(), &"--format", &"atom", &"--limit", &"4"]);
    assert_code(&out, 0);
    let feed = parse_feed(&out.stdout);
    assert_eq!(feed["bozo"], 0, "{feed}");
    assert_eq!(feed["version"], "atom10");
    assert!(
        feed["title"]
            .as_str()
            .is_some_and(|t| t.contains("journals"))
    );
    assert!(
        feed["id"]
            .as_str()
            .is_some_and(|i| i.starts_with("urn:nenjim-journal:feed:"))
    );
    assert_eq!(feed["updated"], "2026-04-01T00:00:00Z");
    assert_eq!(feed["updated_parsed"], true);
    let entries = feed["entries"].as_array().cloned().unwrap_or_default();
    // The 4 newest events, newest first.
    let ids: Vec<&str> = entries.iter().filter_map(|e| e["id"].as_str()).collect();
    assert_eq!(
        ids,
        [
            "urn:nenjim-journal:event:serde:20260401T000000Z:1",
            "urn:nenjim-journal:event:serde:20260401T000000Z:0",
            "urn:nenjim-journal:event:serde:20260301T120000Z:2",
            "urn:nenjim-journal:event:serde:20260301T120000Z:1",
        ]
    );
    assert_eq!(entries[0]["title"], "serde: information changed");
    assert_eq!(
        entries[0]["category"],
        serde_json::json!(["information_changed"])
    );
    assert_eq!(entries[0]["updated"], "2026-04-01T00:00:00Z");
    // Escaped text comes back as written.
    let content = entries[1]["content"][0].as_str().unwrap_or_default();
    assert!(
        content.starts_with("~ DESCRIPTION \"serialization & <more>\""),
        "{content}"
    );
    assert_eq!(entries[3]["title"], "serde: YANK 1.0.0 \"broken build\"");
    assert_eq!(entries[3]["updated"], "2026-03-01T12:00:00Z");

    // By default the 50 newest: here every event; the ids do not depend on filters.
    let out = run(&[&"events", &f.root(), &"--format", &"atom"]);
    let feed = parse_feed(&out.stdout);
    assert_eq!(feed["bozo"], 0, "{feed}");
    let all = feed["entries"].as_array().cloned().unwrap_or_default();
    assert_eq!(all.len(), EVENT_LINES.len());
    let out = run(&[
        &"events",
        &f.root(),
        &"--format",
        &"atom",
        &"--kind",
        &"release",
    ]);
    let feed = parse_feed(&out.stdout);
    let releases = feed["entries"].as_array().cloned().unwrap_or_default();
    assert_eq!(releases.len(), 4);
    assert_eq!(
        releases[0]["id"],
        "urn:nenjim-journal:event:serde:20260301T120000Z:0"
    );
    assert_eq!(releases[0]["title"], "serde 2.0.0-rc.1 published");

    // An empty selection is still a valid feed.
    let out = run(&[
        &"events",
        &f.root(),
        &"--format",
        &"atom",
        &"--after",
        &"99",
    ]);
    let feed = parse_feed(&out.stdout);
    assert_eq!(feed["bozo"], 0, "{feed}");
    assert_eq!(feed["entries"], serde_json::json!([]));
}

#[test]
fn history_is_a_view_of_the_events_with_header_changes() {
    let f = events_fixture();
    let out = run(&[&"history", &f.root(), &"serde"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains(
            "  ~ DESCRIPTION \"serialization & <more>\"\n  ~ INFORMATION https://serde.rs\n"
        ),
        "{text}"
    );
    let out = run(&[&"history", &f.root(), &"serde", &"--json"]);
    let v = json(&out);
    let revisions = v["revisions"].as_array().cloned().unwrap_or_default();
    assert_eq!(revisions.len(), 5);
    // Each revision lists exactly the feed's events of its sequence.
    let feed = run(&[&"events", &f.root(), &"--json", &"--coordinate", &"serde"]);
    let feed: Vec<Value> = stdout(&feed)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let listed: Vec<Value> = revisions
        .iter()
        .flat_map(|r| r["events"].as_array().cloned().unwrap_or_default())
        .collect();
    assert_eq!(listed, feed);
    assert_eq!(revisions[4]["events"], serde_json::json!([]));
    assert_eq!(revisions[3]["releases_added"], serde_json::json!([]));
}

#[test]
fn shipped_examples_events() {
    let root = shipped_root();
    let out = run(&[&"events", &root, &"--examples"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(text.starts_with("1  "), "{text}");
    assert!(text.contains("* created"), "{text}");
    let out = run(&[&"events", &root, &"--examples", &"--format", &"atom"]);
    assert_code(&out, 0);
    let feed = parse_feed(&out.stdout);
    assert_eq!(feed["bozo"], 0, "{feed}");
    assert!(!feed["entries"].as_array().is_none_or(Vec::is_empty));
}

/// Issue 20: a root whose ledger has fences (takeovers of expired leases)
/// has gaps in its sequences; `events --after N` in every format gives
/// exactly the events of the revisions after N, before, at and after each
/// gap. The root is made with the publishing commands: aaa (1), a fence (2),
/// bbb (3), ccc (4), a fence (5), ddd (6).
#[test]
fn events_after_resumes_exactly_across_fence_gaps() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let root = dir.path().join("journals");
    fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let create = |coordinate: &str| {
        let out = run(&[&"create", &root, &coordinate, &"--description", &"made"]);
        assert_code(&out, 0);
    };
    create("aaa");
    nenjim_journal_testkit::feeds::expire_lease_of(&root);
    create("bbb");
    create("ccc");
    nenjim_journal_testkit::feeds::expire_lease_of(&root);
    create("ddd");
    let sequences = [(1, "aaa"), (3, "bbb"), (4, "ccc"), (6, "ddd")];
    for after in 0..=7u64 {
        let expected: Vec<(u64, &str)> = sequences
            .iter()
            .copied()
            .filter(|(s, _)| *s > after)
            .collect();
        // Text lines: `<sequence>  <version>  <coordinate>  * created`.
        let out = run(&[&"events", &root, &"--after", &after.to_string()]);
        assert_code(&out, 0);
        let got: Vec<(u64, String)> = lines(&out)
            .iter()
            .map(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                (words[0].parse().unwrap_or(0), words[2].to_owned())
            })
            .collect();
        let want: Vec<(u64, String)> = expected
            .iter()
            .map(|(s, c)| (*s, (*c).to_owned()))
            .collect();
        assert_eq!(got, want, "text after {after}");
        // JSON lines.
        let out = run(&[&"events", &root, &"--after", &after.to_string(), &"--json"]);
        assert_code(&out, 0);
        let got: Vec<(u64, String)> = stdout(&out)
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
                (
                    v["sequence"].as_u64().unwrap_or(0),
                    v["coordinate"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        assert_eq!(got, want, "JSON after {after}");
        // Atom: the same events, newest first, read by a real feed parser.
        let out = run(&[
            &"events",
            &root,
            &"--after",
            &after.to_string(),
            &"--format",
            &"atom",
        ]);
        assert_code(&out, 0);
        let feed = parse_feed(&out.stdout);
        assert_eq!(feed["bozo"], 0, "{feed}");
        let ids: Vec<String> = feed["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .filter_map(|e| e["id"].as_str().map(str::to_owned))
            .collect();
        let want_ids: Vec<String> = expected
            .iter()
            .rev()
            .map(|(_, c)| format!("urn:nenjim-journal:event:{c}:"))
            .collect();
        assert_eq!(ids.len(), want_ids.len(), "Atom after {after}: {ids:?}");
        for (id, prefix) in ids.iter().zip(&want_ids) {
            assert!(
                id.starts_with(prefix.as_str()),
                "Atom after {after}: {id} vs {prefix}"
            );
        }
    }
}
