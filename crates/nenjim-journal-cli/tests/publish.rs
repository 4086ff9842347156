//! End-to-end tests of the commands that write a root: `append`,
//! `put-blob`, `create`, `release`, `yank`, `deprecate`, `recommend`,
//! `successor -o`, and `check`'s warning about unrecorded files.
#![allow(clippy::panic)] // a test fails by panicking

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

// ---------------------------------------------------------------- release

#[test]
fn release_puts_the_blob_then_appends_and_republishing_writes_nothing() {
    let f = fixture();
    let bytes = read(&f.blob);
    let blob_path = f.store.join("blobs/sha256").join(hex(&bytes));
    assert_eq!(read(&blob_path), bytes, "the blob was put");
    let head = history(&f.root, "left-pad");
    assert_eq!(head.iter().map(|(_, s)| *s).collect::<Vec<_>>(), vec![1, 2]);

    let before = snapshot(&f.root);
    let again = run_json(
        &[
            &"release",
            &f.root,
            &"left-pad",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &f.blob,
            &"--store",
            &f.store,
        ],
        0,
    );
    assert_eq!(again["new"], false);
    assert_eq!(again["sequence"], 2);
    assert_eq!(again["content"]["size"], bytes.len());
    assert_eq!(
        snapshot(&f.root),
        before,
        "an idempotent re-publish writes nothing"
    );

    let text = run(&[
        &"release",
        &f.root,
        &"left-pad",
        &"1.0.0",
        &"--license",
        &"MIT",
        &"--content",
        &f.blob,
        &"--store",
        &f.store,
    ]);
    assert_code(&text, 0);
    assert!(
        stdout(&text).contains("nothing written"),
        "{}",
        stdout(&text)
    );
}

#[test]
fn release_with_another_body_is_release_rewritten_and_writes_nothing() {
    let f = fixture();
    let other = f.dir.join("other.tgz");
    write(&other, b"other bytes");
    let before = snapshot(&f.root);
    let blobs_before = names(&f.store.join("blobs/sha256"));
    let doc = run_json(
        &[
            &"release",
            &f.root,
            &"left-pad",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &other,
            &"--store",
            &f.store,
        ],
        1,
    );
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["error"]["kind"], "ReleaseRewritten");
    // Located at the release in the head's file.
    let head = history(&f.root, "left-pad");
    let head_file = f
        .root
        .join("left-pad")
        .join(format!("{}.journal", head[1].0));
    assert_eq!(doc["error"]["path"], head_file.display().to_string());
    let head_text = String::from_utf8_lossy(&read(&head_file)).into_owned();
    let line = head_text
        .lines()
        .position(|l| l == "RELEASE 1.0.0")
        .map(|i| i + 1);
    assert_eq!(doc["error"]["line"].as_u64(), line.map(|l| l as u64));
    assert_eq!(snapshot(&f.root), before);
    assert_eq!(
        names(&f.store.join("blobs/sha256")),
        blobs_before,
        "no blob put"
    );

    let license = run(&[
        &"release",
        &f.root,
        &"left-pad",
        &"1.0.0",
        &"--license",
        &"Apache-2.0",
        &"--content",
        &f.blob,
        &"--store",
        &f.store,
    ]);
    assert_code(&license, 1);
    assert!(
        stderr(&license).contains("LICENSE `Apache-2.0`, was `MIT`"),
        "{}",
        stderr(&license)
    );
}

#[test]
fn release_keeps_precedence_policy_and_dependencies() {
    let f = fixture();
    assert_code(&run(&[&"recommend", &f.root, &"left-pad", &"1.0.0"]), 0);
    let old = f.dir.join("old.tgz");
    write(&old, b"0.9");
    let doc = run_json(
        &[
            &"release",
            &f.root,
            &"left-pad",
            &"0.9.0",
            &"--license",
            &"MIT OR Apache-2.0",
            &"--content",
            &old,
            &"--store",
            &f.store,
            &"--description",
            &"a backport",
            &"--depends",
            &"serde [1.0.0,2.0.0) \"derive\"",
            &"--excludes",
            &"openssl",
            &"--prefers",
            &"log 0.4.0",
        ],
        0,
    );
    assert_eq!(doc["sequence"], 4);
    let show = run_json(&[&"show", &f.root, &"left-pad"], 0);
    let releases = show["revision"]["releases"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let versions: Vec<&str> = releases
        .iter()
        .filter_map(|r| r["version"].as_str())
        .collect();
    assert_eq!(versions, vec!["0.9.0", "1.0.0"]);
    assert_eq!(releases[0]["dependencies"][0]["artifact"], "serde");
    assert_eq!(releases[0]["dependencies"][0]["description"], "derive");
    assert_eq!(releases[0]["exclusions"][0]["requirement"], Value::Null);
    assert_eq!(releases[0]["preferences"][0]["artifact"], "log");
    assert_eq!(releases[0]["description"], "a backport");
    assert_eq!(
        releases[1]["policy"]["recommended"], true,
        "the policy is kept"
    );
}

#[test]
fn release_refusals() {
    let f = fixture();
    let args = |coordinate: &'static str, extra: &'static str, value: &'static str| {
        run(&[
            &"release",
            &f.root,
            &coordinate,
            &"2.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &f.blob,
            &"--store",
            &f.store,
            &extra,
            &value,
        ])
    };
    let unknown = args("right-pad", "--description", "x");
    assert_code(&unknown, 1);
    assert!(
        stderr(&unknown).contains("UnknownArtifact")
            || stderr(&unknown).contains("found no artifact `right-pad`")
    );
    // A malformed --depends is a usage error; a semantic one is invalid.
    assert_code(&args("left-pad", "--depends", "serde"), 2);
    assert_code(&args("left-pad", "--depends", "serde [1.0.0"), 2);
    let own = args("left-pad", "--depends", "left-pad 1.0.0");
    assert_code(&own, 1);
    assert!(stderr(&own).contains("--depends"), "{}", stderr(&own));
    assert_code(
        &run(&[
            &"release",
            &f.root,
            &"left-pad",
            &"2.0.0",
            &"--license",
            &"NOT-A-LICENSE",
            &"--content",
            &f.blob,
            &"--store",
            &f.store,
        ]),
        2,
    );
    let missing = run(&[
        &"release",
        &f.root,
        &"left-pad",
        &"2.0.0",
        &"--license",
        &"MIT",
        &"--content",
        &f.dir.join("nope.tgz"),
        &"--store",
        &f.store,
    ]);
    assert_code(&missing, 2);
    assert_eq!(history(&f.root, "left-pad").len(), 2, "nothing appended");
}

// ---------------------------------------------------------------- policy

#[test]
fn yank_deprecate_recommend_append_one_change_each() {
    let f = fixture();
    let recommend = run_json(&[&"recommend", &f.root, &"left-pad", &"1.0.0"], 0);
    assert_eq!(
        (recommend["sequence"].as_u64(), recommend["new"].as_bool()),
        (Some(3), Some(true))
    );
    let again = run_json(&[&"recommend", &f.root, &"left-pad", &"1.0.0"], 0);
    assert_eq!(
        (again["sequence"].as_u64(), again["new"].as_bool()),
        (Some(3), Some(false))
    );

    // Yanking the recommended release is refused by the format's rules.
    let before = snapshot(&f.root);
    let refused = run_json(&[&"yank", &f.root, &"left-pad", &"1.0.0", &"broken"], 1);
    assert_eq!(refused["error"]["kind"], "Semantic");
    assert!(
        refused["error"]["diagnostic"]
            .as_str()
            .unwrap_or_default()
            .contains("left-pad/")
    );
    assert_eq!(snapshot(&f.root), before);
    let nothing = run_json(&[&"deprecate", &f.root, &"left-pad", &"9.9.9", &"why"], 1);
    assert_eq!(nothing["error"]["kind"], "Semantic");

    let deprecate = run_json(
        &[&"deprecate", &f.root, &"left-pad", &"*", &"use right-pad"],
        0,
    );
    assert_eq!(deprecate["sequence"], 4);
    let same = run_json(
        &[&"deprecate", &f.root, &"left-pad", &"*", &"use right-pad"],
        0,
    );
    assert_eq!(same["new"], false);

    let release = run_json(
        &[
            &"release",
            &f.root,
            &"left-pad",
            &"1.1.0",
            &"--license",
            &"MIT",
            &"--content",
            &f.blob,
            &"--store",
            &f.store,
        ],
        0,
    );
    assert_eq!(release["sequence"], 5);
    let moved = run_json(&[&"recommend", &f.root, &"left-pad", &"1.1.0"], 0);
    assert_eq!(moved["sequence"], 6);
    let yank = run_json(&[&"yank", &f.root, &"left-pad", &"1.0.0", &"broken"], 0);
    assert_eq!(yank["sequence"], 7);

    let show = run_json(&[&"show", &f.root, &"left-pad"], 0);
    let policy = show["revision"]["policy"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(policy.len(), 3, "{policy:?}");
    let release = run_json(&[&"show", &f.root, &"left-pad", &"--release", &"1.0.0"], 0);
    assert_eq!(release["release"]["policy"]["yanked"], "broken");
    assert_eq!(release["release"]["policy"]["deprecated"], "use right-pad");
    assert_eq!(release["release"]["policy"]["recommended"], false);

    let unknown = run(&[&"yank", &f.root, &"right-pad", &"*", &"x"]);
    assert_code(&unknown, 1);
    let text = run(&[&"yank", &f.root, &"left-pad", &"1.1.0", &"x"]);
    assert_code(&text, 1);
    // Sequences are the ledger's: history agrees with what was printed.
    let sequences: Vec<u64> = history(&f.root, "left-pad")
        .iter()
        .map(|(_, s)| *s)
        .collect();
    assert_eq!(sequences, vec![1, 2, 3, 4, 5, 6, 7]);
}

#[test]
fn a_new_revision_is_stamped_one_second_after_a_head_in_the_future() {
    let dir = tempdir();
    let root = dir.path().join("journals");
    let file = dir.path().join("future.journal");
    write(
        &file,
        genesis("clock", "20991231T235958Z", &[("1.0.0", b"x")]).as_bytes(),
    );
    fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir: {e}"));
    assert_code(&run(&[&"append", &root, &file]), 0);
    // successor without --at stamps the same way.
    let head = root.join("clock/20991231T235958Z.journal");
    let next = run(&[&"successor", &head]);
    assert_code(&next, 0);
    assert!(
        stdout(&next).contains("JOURNAL_VERSION 20991231T235959Z\n"),
        "{}",
        stdout(&next)
    );
    let doc = run_json(&[&"recommend", &root, &"clock", &"1.0.0"], 0);
    assert_eq!(doc["journal_version"], "20991231T235959Z");
    let doc = run_json(&[&"deprecate", &root, &"clock", &"*", &"old"], 0);
    assert_eq!(doc["journal_version"], "21000101T000000Z");
}

// ---------------------------------------------------------------- append

#[test]
fn append_records_files_in_order_with_sequences_and_is_idempotent() {
    let dir = tempdir();
    let root = dir.path().join("journals");
    fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let a = genesis("bbb", "20260101T000000Z", &[]);
    let b = genesis("aaa", "20250101T000000Z", &[]);
    let (fa, fb) = (dir.path().join("a.journal"), dir.path().join("b.journal"));
    write(&fa, a.as_bytes());
    write(&fb, b.as_bytes());
    let doc = run_json(&[&"append", &root, &fa, &fb], 0);
    let appended = doc["appended"].as_array().cloned().unwrap_or_default();
    let got: Vec<(String, u64, bool)> = appended
        .iter()
        .map(|e| {
            (
                e["coordinate"].as_str().unwrap_or_default().to_owned(),
                e["sequence"].as_u64().unwrap_or_default(),
                e["new"].as_bool().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![("bbb".to_owned(), 1, true), ("aaa".to_owned(), 2, true)],
        "the given order, not the load order"
    );
    assert_eq!(
        appended[0]["digest"],
        format!("sha256:{}", hex(a.as_bytes()))
    );
    assert_eq!(
        appended[0]["path"],
        root.join("bbb/20260101T000000Z.journal")
            .display()
            .to_string()
    );
    assert_eq!(
        read(&root.join("aaa/20250101T000000Z.journal")),
        b.as_bytes()
    );
    // The numbers are durable: every later load gives the same.
    assert_eq!(
        history(&root, "aaa"),
        vec![("20250101T000000Z".to_owned(), 2)]
    );
    assert_eq!(
        history(&root, "bbb"),
        vec![("20260101T000000Z".to_owned(), 1)]
    );

    let again = run(&[&"append", &root, &fb]);
    assert_code(&again, 0);
    assert!(stdout(&again).contains("sequence 2"), "{}", stdout(&again));
    assert!(
        stdout(&again).contains("recorded already"),
        "{}",
        stdout(&again)
    );
}

#[test]
fn append_stops_at_the_first_refusal_with_a_located_error() {
    let dir = tempdir();
    let root = dir.path().join("journals");
    fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let good = dir.path().join("good.journal");
    let bad = dir.path().join("bad.journal");
    let later = dir.path().join("later.journal");
    write(&good, genesis("good", "20260101T000000Z", &[]).as_bytes());
    write(
        &bad,
        b"FORMAT nenjim-journal/1\nARTIFACT bad\nJOURNAL_VERSION nope\n",
    );
    write(&later, genesis("later", "20260101T000000Z", &[]).as_bytes());
    let output = run(&[&"append", &root, &good, &bad, &later, &"--json"]);
    assert_code(&output, 1);
    let doc = json(&output);
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["appended"].as_array().map(Vec::len), Some(1));
    assert_eq!(doc["error"]["kind"], "Syntax");
    assert_eq!(doc["error"]["path"], bad.display().to_string());
    assert_eq!(
        (
            doc["error"]["line"].as_u64(),
            doc["error"]["column"].as_u64()
        ),
        (Some(3), Some(17))
    );
    assert!(
        stderr(&output).contains(&format!("{}:3:17:", bad.display())),
        "{}",
        stderr(&output)
    );
    let one = vec![
        "good/20260101T000000Z.journal".to_owned(),
        ".ledger/log/00000000000000000001".to_owned(),
    ];
    assert_eq!(snapshot(&root), one);

    // A chain refusal: a successor of an unknown predecessor.
    let orphan = dir.path().join("orphan.journal");
    let text = genesis("good", "20270101T000000Z", &[]).replace(
        "PREDECESSOR GENESIS",
        &format!("PREDECESSOR sha256:{}", hex(b"nothing")),
    );
    write(&orphan, text.as_bytes());
    let refused = run_json(&[&"append", &root, &orphan], 1);
    assert_eq!(refused["error"]["kind"], "UnknownPredecessor");
    assert_eq!(snapshot(&root), one);
    assert_code(
        &run(&[&"append", &root, &dir.path().join("absent.journal")]),
        2,
    );
}

#[test]
fn append_with_a_store_requires_the_blob_first() {
    let dir = tempdir();
    let root = dir.path().join("journals");
    let store = dir.path().join("store");
    fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir: {e}"));
    fs::create_dir(&store).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let blob: &[u8] = b"the release's bytes";
    let file = dir.path().join("r.journal");
    write(
        &file,
        genesis("pkg", "20260101T000000Z", &[("1.0.0", blob)]).as_bytes(),
    );
    let missing = run_json(&[&"append", &root, &file, &"--store", &store], 1);
    assert_eq!(missing["error"]["kind"], "BlobMissing");
    assert_eq!(
        snapshot(&root),
        Vec::<String>::new(),
        "nothing a Journal would load"
    );
    let loaded = run_json(&[&"check", &root], 0);
    assert_eq!(loaded["revisions"], 0);

    let blob_file = dir.path().join("blob");
    write(&blob_file, blob);
    let put = run(&[&"put-blob", &"--store", &store, &blob_file]);
    assert_code(&put, 0);
    assert_eq!(
        stdout(&put),
        format!("sha256:{} {}\n", hex(blob), blob.len())
    );
    let ok = run_json(&[&"append", &root, &file, &"--store", &store], 0);
    assert_eq!(ok["appended"][0]["sequence"], 1);
}

// ---------------------------------------------------------------- put-blob

#[test]
fn put_blob_is_idempotent_and_refuses_a_damaged_store() {
    let dir = tempdir();
    let store = dir.path().join("store");
    let file = dir.path().join("blob.bin");
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    write(&file, &bytes);
    let doc = run_json(&[&"put-blob", &"--store", &store, &"--create", &file], 0);
    let path = store.join("blobs/sha256").join(hex(&bytes));
    assert_eq!(
        doc["pointer"],
        format!("sha256:{} {}", hex(&bytes), bytes.len())
    );
    assert_eq!(doc["path"], path.display().to_string());
    assert_eq!(doc["new"], true);
    assert_eq!(read(&path), bytes);
    let again = run_json(&[&"put-blob", &"--store", &store, &file], 0);
    assert_eq!(again["new"], false);
    assert_eq!(
        names(&store.join("blobs/sha256")),
        vec![hex(&bytes)],
        "no temporary left"
    );

    write(&path, b"damaged");
    let damaged = run_json(&[&"put-blob", &"--store", &store, &file], 1);
    assert_eq!(damaged["error"]["kind"], "BlobMismatch");
    assert_eq!(
        read(&path),
        b"damaged",
        "an existing blob is never replaced"
    );
    assert_code(
        &run(&[&"put-blob", &"--store", &store, &dir.path().join("nope")]),
        2,
    );
    assert_code(&run(&[&"put-blob", &file]), 2);
}

#[test]
fn put_blob_takes_a_store_by_url() {
    let dir = tempdir();
    let file = dir.path().join("blob.bin");
    let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 249) as u8).collect();
    write(&file, &bytes);
    // file://: the local store, the same files as a path gives.
    let store = dir.path().join("store");
    let url = format!("file://{}", store.display());
    let doc = run_json(&[&"put-blob", &"--store", &url, &"--create", &file], 0);
    assert_eq!(doc["new"], true);
    let path = store.join("blobs/sha256").join(hex(&bytes));
    assert_eq!(read(&path), bytes);
    let again = run_json(&[&"put-blob", &"--store", &url, &file], 0);
    assert_eq!(again["new"], false);
    write(&path, b"damaged");
    let damaged = run_json(&[&"put-blob", &"--store", &url, &file], 1);
    assert_eq!(damaged["error"]["kind"], "BlobMismatch");
    assert_eq!(read(&path), b"damaged");
    // memory://: a store of the process's own (gone when it exits).
    let memory = run_json(
        &[
            &"put-blob",
            &"--store",
            &"memory://bucket/store",
            &"--create",
            &file,
        ],
        0,
    );
    assert_eq!(
        memory["pointer"],
        format!("sha256:{} {}", hex(&bytes), bytes.len())
    );
    assert_eq!(
        memory["path"],
        format!("memory://bucket/store/blobs/sha256/{}", hex(&bytes))
    );
    assert_eq!(memory["new"], true);
    // An unknown scheme is a usage of the wrong store (exit 2).
    assert_code(&run(&[&"put-blob", &"--store", &"ftp://x/y", &file]), 2);
}

// ---------------------------------------------------------------- successor -o

#[test]
fn successor_o_writes_a_new_file_only() {
    let f = fixture();
    let head = history(&f.root, "left-pad");
    let head_file = f
        .root
        .join("left-pad")
        .join(format!("{}.journal", head[1].0));
    let head_bytes = read(&head_file);

    // Never over an existing file, the source included (whatever --at says).
    let same = run(&[&"successor", &head_file, &"-o", &head_file]);
    assert_code(&same, 2);
    let same = run(&[
        &"successor",
        &head_file,
        &"--at",
        &"20991231T000000Z",
        &"-o",
        &head_file,
    ]);
    assert_code(&same, 2);
    assert!(
        stderr(&same).contains("never overwrites"),
        "{}",
        stderr(&same)
    );
    assert_eq!(read(&head_file), head_bytes);

    // A refused --at leaves no file at all.
    let out = f.root.join("left-pad/20991231T000000Z.journal");
    let refused = run(&[
        &"successor",
        &head_file,
        &"--at",
        &"20000101T000000Z",
        &"-o",
        &out,
    ]);
    assert_code(&refused, 1);
    assert!(!out.exists());
    let unparsable = f.dir.join("broken.journal");
    write(&unparsable, b"FORMAT nenjim-journal/1\n");
    assert_code(&run(&[&"successor", &unparsable, &"-o", &out]), 1);
    assert!(!out.exists());

    let wrote = run(&[
        &"successor",
        &head_file,
        &"--at",
        &"20991231T000000Z",
        &"-o",
        &out,
    ]);
    assert_code(&wrote, 0);
    let text = String::from_utf8_lossy(&read(&out)).into_owned();
    assert!(
        text.contains("JOURNAL_VERSION 20991231T000000Z\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!("PREDECESSOR sha256:{}\n", hex(&head_bytes))),
        "{text}"
    );
    let other = run(&[
        &"successor",
        &head_file,
        &"--at",
        &"20991231T000001Z",
        &"-o",
        &out,
    ]);
    assert_code(&other, 2);
    assert_eq!(
        read(&out),
        text.as_bytes(),
        "the existing file is untouched"
    );
    assert_eq!(
        names(&f.root.join("left-pad")).len(),
        3,
        "no temporary file left beside the revisions"
    );
}

// ---------------------------------------------------------------- check

#[test]
fn check_warns_about_files_the_ledger_does_not_record() {
    let f = fixture();
    let head = history(&f.root, "left-pad");
    let head_file = f
        .root
        .join("left-pad")
        .join(format!("{}.journal", head[1].0));
    let out = f.root.join("left-pad/20991231T000000Z.journal");
    assert_code(
        &run(&[
            &"successor",
            &head_file,
            &"--at",
            &"20991231T000000Z",
            &"-o",
            &out,
        ]),
        0,
    );

    let check = run(&[&"check", &f.root]);
    assert_code(&check, 0);
    assert!(stdout(&check).contains("2 revisions"), "{}", stdout(&check));
    // The same root by URL (an object store over the directory) is read
    // through that store, and finds the same file.
    let url = format!("file://{}", f.root.display());
    let by_url = run_json(&[&"check", &url], 0);
    let found: Vec<String> = by_url["unrecorded"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(found.len(), 1, "{by_url}");
    assert!(
        found[0].ends_with("left-pad/20991231T000000Z.journal"),
        "{found:?}"
    );
    let expected = format!(
        "nenjim-journal append {} {}",
        f.root.display(),
        out.display()
    );
    assert!(stderr(&check).contains("warning:"), "{}", stderr(&check));
    assert!(stderr(&check).contains(&expected), "{}", stderr(&check));
    let doc = run_json(&[&"check", &f.root], 0);
    assert_eq!(
        doc["unrecorded"],
        serde_json::json!([out.display().to_string()])
    );

    // The command it names records the file.
    let appended = run_json(&[&"append", &f.root, &out], 0);
    assert_eq!(appended["appended"][0]["sequence"], 3);
    assert_eq!(appended["appended"][0]["new"], true);
    let doc = run_json(&[&"check", &f.root], 0);
    assert_eq!(doc["unrecorded"], serde_json::json!([]));
    assert_eq!(doc["revisions"], 3);
    let quiet = run(&[&"check", &f.root]);
    assert!(!stderr(&quiet).contains("warning:"), "{}", stderr(&quiet));
}

// ---------------------------------------------------------------- the lease

#[test]
fn a_root_held_by_another_writer_is_refused_and_nothing_is_written() {
    use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

    let f = fixture();
    let holder = FsJournalWriter::open(
        &f.root,
        WriterOptions::new().lease_ttl(std::time::Duration::from_secs(3600)),
    )
    .unwrap_or_else(|e| panic!("open: {e}"));
    let before = snapshot(&f.root);
    // Refused for now (exit 75: retry later), not invalid content (1).
    let held = run_json(&[&"recommend", &f.root, &"left-pad", &"1.0.0"], 75);
    assert_eq!(held["error"]["kind"], "LeaseHeld");
    let file = f.dir.join("x.journal");
    write(&file, genesis("other", "20260101T000000Z", &[]).as_bytes());
    let append = run_json(&[&"append", &f.root, &file], 75);
    assert_eq!(append["error"]["kind"], "LeaseHeld");
    assert_eq!(append["appended"], serde_json::json!([]));
    assert_eq!(snapshot(&f.root), before);

    holder.close().unwrap_or_else(|e| panic!("close: {e}"));
    let doc = run_json(&[&"recommend", &f.root, &"left-pad", &"1.0.0"], 0);
    assert_eq!(doc["sequence"], 3);
}
