//! Issue 20, items 4 and 6: the operator's round, end to end. Checks at
//! publish time (warnings, `--strict`), "did you mean" for the write
//! commands, a hand-edited old revision, stray files, copying a root with
//! its sequences and blobs, a rewritten release, several versions in one
//! release, S3 errors (against moto's S3 server, started here), and the
//! smaller messages and layouts (`--at`, `check` above a root, `list`,
//! `versions` and `events` columns, `check --help`, empty blobs).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use nenjim_journal_testkit::cli::{
    self, assert_code, sha256_hex as hex, stderr, stdout, tempdir, tree, write,
};
use serde_json::Value;
use tempfile::TempDir;

// ---------------------------------------------------------------- helpers

fn run(args: &[&dyn AsRef<OsStr>]) -> Output {
    run_env(args, &[])
}

fn run_env(args: &[&dyn AsRef<OsStr>], env: &[(&str, &str)]) -> Output {
    let mut command = cli::command(env!("CARGO_BIN_EXE_nenjim-journal"), args);
    command
        .env("NO_COLOR", "1")
        .env_remove("AWS_ALLOW_HTTP")
        .env_remove("AWS_ENDPOINT_URL");
    for (key, value) in env {
        command.env(key, value);
    }
    cli::output(&mut command)
}

/// Runs with `--json`, checks the exit code, returns the document.
fn run_json(args: &[&dyn AsRef<OsStr>], expected: i32) -> Value {
    let mut all: Vec<&dyn AsRef<OsStr>> = args.to_vec();
    all.push(&"--json");
    let output = run(&all);
    assert_code(&output, expected);
    cli::json(&output)
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// A root `journals` beside a store `store` and some blobs, in a temporary
/// directory.
struct Hub {
    dir: TempDir,
    root: PathBuf,
    store: PathBuf,
}

impl Hub {
    fn new() -> Hub {
        let dir = tempdir();
        let root = dir.path().join("journals");
        fs::create_dir(&root).unwrap();
        // A store that does not exist is refused (unless `--create`).
        let store = dir.path().join("store");
        fs::create_dir(&store).unwrap();
        Hub { dir, root, store }
    }

    /// A file with `bytes` in the hub's directory.
    fn blob(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.path().join(name);
        write(&path, bytes);
        path
    }

    fn create(&self, coordinate: &str) {
        let doc = run_json(
            &[
                &"create",
                &self.root,
                &coordinate,
                &"--description",
                &"an artifact",
            ],
            0,
        );
        assert_eq!(doc["new"], true);
    }

    /// `release` with one version and its own blob.
    fn release(&self, coordinate: &str, version: &str, extra: &[&str]) -> Output {
        let blob = self.blob(
            &format!("{coordinate}-{version}.tgz"),
            format!("the bytes of {coordinate} {version}").as_bytes(),
        );
        let mut args: Vec<&dyn AsRef<OsStr>> = vec![
            &"release",
            &self.root,
            &coordinate,
            &version,
            &"--content",
            &blob,
            &"--store",
            &self.store,
        ];
        if !extra.contains(&"--license") {
            args.push(&"--license");
            args.push(&"MIT");
        }
        for e in extra {
            args.push(e);
        }
        run(&args)
    }
}

/// `acme-logo` with 1.0.0 (yanked) and 2.0.0, and `acme-logger` created.
fn acme() -> Hub {
    let hub = Hub::new();
    hub.create("acme-logo");
    assert_code(&hub.release("acme-logo", "1.0.0", &[]), 0);
    assert_code(&hub.release("acme-logo", "2.0.0", &[]), 0);
    assert_code(
        &run(&[
            &"yank",
            &hub.root,
            &"acme-logo",
            &"1.0.0",
            &"it leaked memory",
        ]),
        0,
    );
    hub.create("acme-logger");
    hub
}

// ---------------------------------------------------------------- 4: checks at publish time

/// Each check of publish time: the `release` arguments, and what its
/// warning must say.
const PUBLISH_CHECKS: &[(&[&str], &[&str])] = &[
    (
        &["--depends", "acme-lgo 1.0.0"],
        &[
            "DEPENDS acme-lgo 1.0.0",
            "found no artifact `acme-lgo`",
            "did you mean `acme-logo`?",
        ],
    ),
    (
        &["--depends", "acme-logo [3.0.0,4.0.0)"],
        &[
            "found no release of `acme-logo` matching `[3.0.0,4.0.0)`",
            "its releases: 1.0.0, 2.0.0",
        ],
    ),
    (
        &["--depends", "acme-logo 1.0.0"],
        &["found only yanked releases of `acme-logo` matching `1.0.0` (1.0.0)"],
    ),
    (
        &["--prefers", "acme-lgo 1.0.0"],
        &["PREFERS acme-lgo 1.0.0", "did you mean `acme-logo`?"],
    ),
    (
        &["--license", "GPL-3.0"],
        &[
            "`GPL-3.0` is a deprecated SPDX identifier",
            "use `GPL-3.0-only` or `GPL-3.0-or-later`",
        ],
    ),
];

#[test]
fn release_warns_at_publish_time_in_text_and_json_and_strict_refuses_writing_nothing() {
    for (index, (extra, expected)) in PUBLISH_CHECKS.iter().enumerate() {
        let hub = acme();
        let version = format!("1.{index}.0");
        let mut strict: Vec<&str> = extra.to_vec();
        strict.push("--strict");
        // --strict: refused, nothing written (no revision, no ledger entry, no blob).
        let before = (tree(&hub.root), tree(&hub.store));
        let refused = hub.release("acme-logger", &version, &strict);
        assert_code(&refused, 1);
        for s in *expected {
            assert!(stderr(&refused).contains(s), "{s}: {}", stderr(&refused));
        }
        assert!(stderr(&refused).contains("nothing written"));
        assert_eq!((tree(&hub.root), tree(&hub.store)), before, "{extra:?}");
        let mut strict_json = strict.clone();
        strict_json.push("--json");
        let doc: Value =
            serde_json::from_slice(&hub.release("acme-logger", &version, &strict_json).stdout)
                .unwrap();
        assert_eq!(doc["error"]["kind"], "Strict", "{doc}");
        // Without it: written, with the warning in text (stderr) …
        let warned = hub.release("acme-logger", &version, extra);
        assert_code(&warned, 0);
        assert!(stdout(&warned).contains("appended"), "{}", stdout(&warned));
        let said = stderr(&warned);
        let warnings: Vec<&str> = said
            .lines()
            .filter(|l| l.starts_with("warning: "))
            .collect();
        assert_eq!(warnings.len(), 1, "{extra:?}: {}", stderr(&warned));
        for s in *expected {
            assert!(warnings[0].contains(s), "{s}: {}", warnings[0]);
        }
        assert!(
            warnings[0].contains(&format!("acme-logger {version}")),
            "{}",
            warnings[0]
        );
        // … and in JSON, for another version.
        let mut json = extra.to_vec();
        json.push("--json");
        let next = format!("1.{index}.1");
        let out = hub.release("acme-logger", &next, &json);
        assert_code(&out, 0);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let listed = strings(&doc["warnings"]);
        assert_eq!(listed.len(), 1, "{doc}");
        for s in *expected {
            assert!(listed[0].contains(s), "{s}: {}", listed[0]);
        }
    }
    // A release that none of the checks concerns has no warning.
    let hub = acme();
    let out = hub.release(
        "acme-logger",
        "1.0.0",
        &["--depends", "acme-logo 2.0.0", "--strict", "--json"],
    );
    assert_code(&out, 0);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["warnings"], serde_json::json!([]), "{doc}");
}

#[test]
fn an_empty_blob_is_warned_about_by_release_put_blob_and_check() {
    let hub = acme();
    let empty = hub.blob("empty.tgz", b"");
    let release = |strict: bool| {
        let mut args: Vec<&dyn AsRef<OsStr>> = vec![
            &"release",
            &hub.root,
            &"acme-logger",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &empty,
            &"--store",
            &hub.store,
        ];
        if strict {
            args.push(&"--strict");
        }
        run(&args)
    };
    let before = tree(&hub.root);
    assert_code(&release(true), 1);
    assert_eq!(tree(&hub.root), before);
    let warned = release(false);
    assert_code(&warned, 0);
    assert!(
        stderr(&warned).contains("is an empty (0-byte) blob"),
        "{}",
        stderr(&warned)
    );
    // put-blob says the same of an empty file, in text and JSON.
    let put = run(&[&"put-blob", &"--store", &hub.store, &empty]);
    assert_code(&put, 0);
    assert!(
        stderr(&put).contains("empty (0-byte) blob"),
        "{}",
        stderr(&put)
    );
    let doc = run_json(&[&"put-blob", &"--store", &hub.store, &empty], 0);
    assert_eq!(strings(&doc["warnings"]).len(), 1, "{doc}");
    let full = hub.blob("full.tgz", b"bytes");
    let doc = run_json(&[&"put-blob", &"--store", &hub.store, &full], 0);
    assert_eq!(doc["warnings"], serde_json::json!([]));
    // check warns about it afterwards, by the same rule.
    let check = run_json(&[&"check", &hub.root], 0);
    let warnings = strings(&check["warnings"]);
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("acme-logger 1.0.0: CONTENT") && w.contains("empty (0-byte)")),
        "{warnings:?}"
    );
}

#[test]
fn check_and_release_share_the_deprecated_license_rule() {
    let hub = acme();
    let out = hub.release("acme-logger", "1.0.0", &["--license", "GPL-2.0+", "--json"]);
    assert_code(&out, 0);
    let published = strings(&serde_json::from_slice::<Value>(&out.stdout).unwrap()["warnings"]);
    let checked = strings(&run_json(&[&"check", &hub.root], 0)["warnings"]);
    assert_eq!(published.len(), 1, "{published:?}");
    assert_eq!(checked, published, "check warns exactly as release did");
}

#[test]
fn append_checks_a_files_new_releases_and_strict_refuses() {
    let hub = acme();
    let head = run_json(&[&"history", &hub.root, &"acme-logger"], 0);
    let digest = head["revisions"][0]["digest"].as_str().unwrap().to_owned();
    let next = "20991231T000000Z";
    let blob = b"the bytes";
    fs::create_dir_all(hub.store.join("blobs/sha256")).unwrap();
    write(&hub.store.join("blobs/sha256").join(hex(blob)), blob);
    let text = format!(
        "FORMAT nenjim-journal/1\nARTIFACT acme-logger\nJOURNAL_VERSION {next}\nPREDECESSOR {digest}\nDESCRIPTION \"an artifact\"\n\nRELEASE 1.0.0\n  LICENSE MIT\n  CONTENT sha256:{} {}\n  DEPENDS acme-lgo 1.0.0\n",
        hex(blob),
        blob.len()
    );
    let file = hub.blob("next.journal", text.as_bytes());
    let before = tree(&hub.root);
    let refused = run_json(&[&"append", &hub.root, &file, &"--strict"], 1);
    assert_eq!(refused["error"]["kind"], "Strict", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `acme-logo`?"),
        "{refused}"
    );
    assert_eq!(tree(&hub.root), before, "nothing written");
    let doc = run_json(&[&"append", &hub.root, &file], 0);
    let warnings = strings(&doc["appended"][0]["warnings"]);
    assert_eq!(warnings.len(), 1, "{doc}");
    assert!(warnings[0].contains("found no artifact `acme-lgo`"));
}

#[test]
fn write_commands_offer_close_names_for_a_mistyped_coordinate() {
    let hub = acme();
    let blob = hub.blob("x.tgz", b"x");
    let commands: Vec<Vec<&dyn AsRef<OsStr>>> = vec![
        vec![&"yank", &hub.root, &"acme-loger", &"1.0.0", &"why"],
        vec![&"deprecate", &hub.root, &"acme-loger", &"1.0.0", &"why"],
        vec![&"recommend", &hub.root, &"acme-loger", &"1.0.0"],
        vec![
            &"release",
            &hub.root,
            &"acme-loger",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &blob,
            &"--store",
            &hub.store,
        ],
    ];
    for args in commands {
        let out = run(&args);
        assert_code(&out, 1);
        assert!(
            stderr(&out).contains("did you mean `acme-logger`"),
            "{}",
            stderr(&out)
        );
    }
    // A name close to nothing still says how to create it.
    let out = run(&[&"yank", &hub.root, &"zzzzzzzz", &"1.0.0", &"why"]);
    assert_code(&out, 1);
    assert!(!stderr(&out).contains("did you mean"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nenjim-journal create"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_slash_between_licenses_suggests_or() {
    let hub = acme();
    let out = hub.release("acme-logger", "1.0.0", &["--license", "MIT/Apache-2.0"]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("did you mean `MIT OR Apache-2.0`?"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("did you mean `Apache-2.0`"));
}

// ---------------------------------------------------------------- 6: a hand-edited old revision

#[test]
fn a_hand_edited_old_revision_is_to_be_restored_and_read_commands_name_its_artifact() {
    for with_ledger in [true, false] {
        let hub = acme();
        hub.create("serde");
        let dir = hub.root.join("acme-logo");
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert_eq!(files.len(), 4, "genesis, 1.0.0, 2.0.0, the yank");
        if !with_ledger {
            fs::remove_dir_all(hub.root.join(".ledger")).unwrap();
        }
        // The middle revision, edited by hand.
        let text = fs::read_to_string(&files[1]).unwrap();
        write(
            &files[1],
            text.replace("an artifact", "an edited artifact").as_bytes(),
        );
        let check = run(&[&"check", &hub.root]);
        assert_code(&check, 1);
        let said = stderr(&check);
        assert!(said.contains("restore it"), "{said}");
        assert!(
            !said.contains("names the wrong predecessor") && !said.contains("expected sha256"),
            "check must not invite editing a second revision: {said}"
        );
        for args in [
            vec![&"list" as &dyn AsRef<OsStr>, &hub.root],
            vec![&"show", &hub.root, &"serde"],
            vec![&"versions", &hub.root, &"acme-logo"],
        ] {
            let out = run(&args);
            assert_code(&out, 1);
            assert!(
                stderr(&out).contains("until artifact `acme-logo` is repaired"),
                "{}",
                stderr(&out)
            );
            assert!(
                stderr(&out).contains("nenjim-journal check"),
                "{}",
                stderr(&out)
            );
        }
    }
}

// ---------------------------------------------------------------- 6: stray files

#[test]
fn check_warns_about_each_stray_file_in_a_root_with_a_ledger() {
    let hub = acme();
    write(&hub.root.join("README.txt"), b"notes");
    write(&hub.root.join("acme-logo/latest.journal"), b"x");
    write(&hub.root.join("acme-logo/x.journal.bak"), b"x");
    let check = run(&[&"check", &hub.root]);
    assert_code(&check, 0);
    let said = stderr(&check);
    let warnings: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(warnings.len(), 3, "{}", stderr(&check));
    for name in [
        "README.txt",
        "acme-logo/latest.journal",
        "acme-logo/x.journal.bak",
    ] {
        let warning = warnings
            .iter()
            .find(|w| w.contains(name))
            .unwrap_or_else(|| panic!("no warning about {name}: {warnings:?}"));
        assert!(warning.contains("move it out of the root"), "{warning}");
    }
    let doc = run_json(&[&"check", &hub.root], 0);
    assert_eq!(strings(&doc["stray"]).len(), 3, "{doc}");
    // A stray entry that sorts first hides no unrecorded revision file.
    write(&hub.root.join("acme-logo/1.journal"), b"x");
    write(&hub.root.join("acme-logo/20991231T000000Z.journal"), b"x");
    let doc = run_json(&[&"check", &hub.root], 0);
    assert_eq!(strings(&doc["stray"]).len(), 4, "{doc}");
    let unrecorded = strings(&doc["unrecorded"]);
    assert_eq!(unrecorded.len(), 1, "{doc}");
    assert!(unrecorded[0].ends_with("acme-logo/20991231T000000Z.journal"));
    // The same files fail a root without a ledger.
    fs::remove_dir_all(hub.root.join(".ledger")).unwrap();
    assert_code(&run(&[&"check", &hub.root]), 1);
}

// ---------------------------------------------------------------- 6: copying a root

/// A source root whose ledger has fences at 2 and 4 (as two takeovers
/// leave), its revisions at 1, 3 and 5, and its blob in `source-store`.
fn fenced_source(hub: &Hub) -> (PathBuf, PathBuf) {
    let source = hub.dir.path().join("source");
    let store = hub.dir.path().join("source-store");
    fs::create_dir(&source).unwrap();
    let fence = |sequence: u64| {
        std::os::unix::fs::symlink(
            format!("{sequence} FENCE 9"),
            source.join(format!(".ledger/log/{sequence:020}")),
        )
        .unwrap();
    };
    run_json(
        &[&"create", &source, &"left-pad", &"--description", &"pads"],
        0,
    );
    fence(2);
    let blob = hub.blob("left-pad-1.0.0.tgz", b"left-pad 1.0.0");
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
            &"--store",
            &store,
            &"--create",
        ],
        0,
    );
    assert_eq!(doc["sequence"], 3);
    fence(4);
    let doc = run_json(
        &[
            &"create",
            &source,
            &"serde",
            &"--description",
            &"serializes",
        ],
        0,
    );
    assert_eq!(doc["sequence"], 5);
    (source, store)
}

#[test]
fn copying_a_root_keeps_its_sequences_and_copies_its_blobs() {
    let hub = Hub::new();
    let (source, source_store) = fenced_source(&hub);
    // Without the source's store, the blob is missing, and the message says
    // how to copy it.
    let missing = run(&[&"append", &hub.root, &source, &"--store", &hub.store]);
    assert_code(&missing, 1);
    assert!(stderr(&missing).contains("BlobMissing") || stderr(&missing).contains("found no blob"));
    assert!(
        stderr(&missing).contains("--source-store"),
        "{}",
        stderr(&missing)
    );
    // With both stores: every revision at the source's sequence.
    let doc = run_json(
        &[
            &"append",
            &hub.root,
            &source,
            &"--store",
            &hub.store,
            &"--source-store",
            &source_store,
        ],
        0,
    );
    let sequences: Vec<u64> = doc["appended"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(sequences, [1, 3, 5], "{doc}");
    // A consumer switching over with its old --after sees the same events.
    for after in 0..=5u64 {
        let events = |root: &Path| {
            let out = run(&[&"events", &root, &"--after", &after.to_string(), &"--json"]);
            assert_code(&out, 0);
            stdout(&out)
        };
        assert_eq!(events(&hub.root), events(&source), "after {after}");
    }
    // The blob is in the destination's store.
    assert_code(
        &run(&[&"verify-content", &hub.root, &"--store", &hub.store]),
        0,
    );
    let blob = b"left-pad 1.0.0";
    assert!(hub.store.join("blobs/sha256").join(hex(blob)).is_file());
    // Copying again writes nothing.
    let before = tree(&hub.root);
    let again = run_json(
        &[
            &"append",
            &hub.root,
            &source,
            &"--store",
            &hub.store,
            &"--source-store",
            &source_store,
        ],
        0,
    );
    assert!(
        again["appended"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["new"] == false),
        "{again}"
    );
    assert_eq!(tree(&hub.root), before);
    // --source-store names the source's store: it needs --store.
    assert_code(
        &run(&[
            &"append",
            &hub.root,
            &source,
            &"--source-store",
            &source_store,
        ]),
        2,
    );
}

#[test]
fn copying_a_root_into_an_incompatible_destination_is_refused_with_why() {
    let hub = Hub::new();
    let (source, _) = fenced_source(&hub);
    hub.create("tokio");
    let before = tree(&hub.root);
    let out = run_json(&[&"append", &hub.root, &source], 1);
    assert_eq!(out["error"]["kind"], "CopyRefused", "{out}");
    let message = out["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot keep the source's sequences"),
        "{message}"
    );
    assert!(
        message.contains("expected an empty destination root"),
        "{message}"
    );
    assert_eq!(tree(&hub.root), before, "nothing written");
}

// ---------------------------------------------------------------- 6: a rewritten release

#[test]
fn republishing_a_release_with_other_values_says_what_to_do() {
    let hub = acme();
    let out = hub.release("acme-logo", "2.0.0", &["--license", "Apache-2.0"]);
    assert_code(&out, 1);
    let said = stderr(&out);
    assert!(
        said.contains("ReleaseRewritten") || said.contains("already published"),
        "{said}"
    );
    assert!(
        said.contains("publish the change as a new version"),
        "{said}"
    );
    assert!(said.contains("nenjim-journal yank"), "{said}");
    assert!(
        said.contains("has LICENSE `Apache-2.0`, was `MIT`"),
        "{said}"
    );
    // Every revision it names was written.
    let written: Vec<String> = fs::read_dir(hub.root.join("acme-logo"))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .replace(".journal", "")
        })
        .collect();
    let named: Vec<&str> = said
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() == 16 && w.as_bytes().get(8) == Some(&b'T') && w.ends_with('Z'))
        .collect();
    assert!(!named.is_empty(), "{said}");
    for version in named {
        assert!(
            written.iter().any(|w| w == version),
            "{version} was never written: {said}"
        );
    }
    // A hand-written successor that changes the release says the same.
    let mut files: Vec<PathBuf> = fs::read_dir(hub.root.join("acme-logo"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let head = files.last().unwrap();
    let out = run(&[&"successor", head, &"--at", &"20991231T000000Z"]);
    assert_code(&out, 0);
    let edited = stdout(&out).replace("LICENSE MIT", "LICENSE Apache-2.0");
    let file = hub.blob("edited.journal", edited.as_bytes());
    let out = run(&[&"append", &hub.root, &file]);
    assert_code(&out, 1);
    assert!(stderr(&out).contains("rewritten"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("publish the change as a new version"),
        "{}",
        stderr(&out)
    );
}

// ---------------------------------------------------------------- 6: several versions in one revision

#[test]
fn release_takes_several_versions_in_one_revision_and_documents_the_resolution() {
    let hub = acme();
    let a = hub.blob("a.tgz", b"a");
    let b = hub.blob("b.tgz", b"b");
    let doc = run_json(
        &[
            &"release",
            &hub.root,
            &"acme-logger",
            &"1.1.0",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--license",
            &"Apache-2.0",
            &"--content",
            &a,
            &"--content",
            &b,
            &"--store",
            &hub.store,
        ],
        0,
    );
    let released: Vec<(String, u64)> = doc["releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["version"].as_str().unwrap().to_owned(),
                r["content"]["size"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(released, [("1.1.0".to_owned(), 1), ("1.0.0".to_owned(), 1)]);
    let history = run_json(&[&"history", &hub.root, &"acme-logger"], 0);
    assert_eq!(
        history["revisions"].as_array().unwrap().len(),
        2,
        "one revision"
    );
    let versions = run_json(&[&"versions", &hub.root, &"acme-logger"], 0);
    let listed: Vec<(String, String)> = versions["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["version"].as_str().unwrap().to_owned(),
                v["license"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("1.0.0".to_owned(), "Apache-2.0".to_owned()),
            ("1.1.0".to_owned(), "MIT".to_owned())
        ]
    );
    // Each version needs its content.
    let out = run(&[
        &"release",
        &hub.root,
        &"acme-logger",
        &"2.0.0",
        &"2.1.0",
        &"--license",
        &"MIT",
        &"--content",
        &a,
        &"--store",
        &hub.store,
    ]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("one --content per version"),
        "{}",
        stderr(&out)
    );
    let help = stdout(&run(&[&"release", &"--help"]));
    assert!(help.contains("resolution of one second"), "{help}");
}

// ---------------------------------------------------------------- 6: S3 errors

#[test]
fn s3_errors_name_the_setting_keep_urls_and_never_dump_xml() {
    let moto = nenjim_journal_testkit::moto::Moto::start();
    moto.create_bucket("journals");
    let endpoint = moto.endpoint();
    let base = [
        ("AWS_ENDPOINT_URL", endpoint.as_str()),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "us-east-1"),
    ];
    // An http:// endpoint without AWS_ALLOW_HTTP.
    let out = run_env(
        &[
            &"create",
            &"s3://journals/main",
            &"x",
            &"--description",
            &"y",
        ],
        &base,
    );
    assert_code(&out, 2);
    let said = stderr(&out);
    assert!(said.contains("AWS_ALLOW_HTTP=true"), "{said}");
    assert!(said.contains("s3://journals/main"), "{said}");
    // A bucket that does not exist.
    let mut allowed = base.to_vec();
    allowed.push(("AWS_ALLOW_HTTP", "true"));
    for args in [
        vec![&"list" as &dyn AsRef<OsStr>, &"s3://nobucket/main"],
        vec![
            &"create",
            &"s3://nobucket/main",
            &"x",
            &"--description",
            &"y",
        ],
        vec![
            &"put-blob",
            &"--store",
            &"s3://nobucket/store",
            &"Cargo.toml",
        ],
    ] {
        let out = run_env(&args, &allowed);
        assert_code(&out, 2);
        let said = stderr(&out);
        assert!(!said.contains('<'), "raw XML: {said}");
        assert!(said.contains("NoSuchBucket"), "{said}");
        assert!(said.contains("create bucket `nobucket` first"), "{said}");
        assert!(said.contains("s3://nobucket/"), "{said}");
    }
    // A missing root keeps its URL.
    let out = run_env(&[&"list", &"s3://journals/nothing"], &allowed);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("s3://journals/nothing"),
        "{}",
        stderr(&out)
    );
}

// ---------------------------------------------------------------- 6: the smaller things

#[test]
fn at_a_date_without_an_exact_revision_suggests_as_of() {
    let hub = acme();
    let out = run(&[&"show", &hub.root, &"acme-logo", &"--at", &"2999-12-01"]);
    assert_code(&out, 1);
    assert!(
        stderr(&out).contains("use --as-of 29991201T000000Z"),
        "{}",
        stderr(&out)
    );
    let out = run(&[&"versions", &hub.root, &"acme-logo", &"--at", &"2000-01-01"]);
    assert_code(&out, 1);
    assert!(stderr(&out).contains("--as-of"), "{}", stderr(&out));
}

#[test]
fn check_one_level_above_a_root_says_pass_the_root() {
    let hub = acme();
    let out = run(&[&"check", &hub.dir.path()]);
    assert_code(&out, 1);
    assert!(stderr(&out).contains("pass the root"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("nenjim-journal check {}", hub.root.display())),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("1 error"), "{}", stderr(&out));
}

#[test]
fn list_counts_one_release_and_offers_close_names() {
    let hub = acme();
    assert_code(&hub.release("acme-logger", "1.0.0", &[]), 0);
    let out = run(&[&"list", &hub.root]);
    assert_code(&out, 0);
    assert!(
        stdout(&out).contains("1 release, latest 1.0.0"),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("1 releases"), "{}", stdout(&out));
    assert!(stdout(&out).contains("2 releases"), "{}", stdout(&out));
    let out = run(&[&"list", &hub.root, &"acmee"]);
    assert_code(&out, 1);
    assert!(stderr(&out).contains("did you mean"), "{}", stderr(&out));
    assert!(stderr(&out).contains("`acme-logger`"), "{}", stderr(&out));
}

/// The character offsets at which each line's columns (runs of text
/// separated by two spaces) start.
fn column_starts(line: &str, columns: usize) -> Vec<usize> {
    let mut starts = vec![line.len() - line.trim_start().len()];
    let mut rest = line;
    let mut offset = 0;
    while starts.len() < columns {
        let Some(gap) = rest.trim_start().find("  ") else {
            break;
        };
        let lead = rest.len() - rest.trim_start().len();
        let after = &rest[lead + gap..];
        let spaces = after.len() - after.trim_start().len();
        offset += lead + gap + spaces;
        starts.push(offset);
        rest = &rest[lead + gap + spaces..];
    }
    starts
}

#[test]
fn the_columns_of_versions_and_events_line_up() {
    let hub = Hub::new();
    // Ten artifacts: sequences 9 and 10 differ in width.
    let names = [
        "a",
        "bb",
        "ccc",
        "dddd",
        "eeeee",
        "ffffff",
        "ggggggg",
        "hhhhhhhh",
        "iiiiiiiii",
        "jj",
    ];
    for name in names {
        hub.create(name);
    }
    assert_code(&hub.release("jj", "1.0.0", &["--license", "MIT"]), 0);
    assert_code(
        &hub.release("jj", "1.10.0", &["--license", "Apache-2.0 OR MIT"]),
        0,
    );
    assert_code(&run(&[&"recommend", &hub.root, &"jj", &"1.0.0"]), 0);
    let versions = stdout(&run(&[&"versions", &hub.root, &"jj"]));
    let rows: Vec<Vec<usize>> = versions.lines().map(|l| column_starts(l, 3)).collect();
    assert_eq!(rows.len(), 2, "{versions}");
    assert_eq!(rows[0][..2], rows[1][..2], "{versions}");
    assert!(versions.lines().next().unwrap().ends_with("recommended"));
    let recommended_at = versions
        .lines()
        .next()
        .unwrap()
        .find("recommended")
        .unwrap();
    assert_eq!(
        recommended_at,
        "1.10.0  Apache-2.0 OR MIT  ".len(),
        "{versions}"
    );
    let events = stdout(&run(&[&"events", &hub.root]));
    let rows: Vec<Vec<usize>> = events.lines().map(|l| column_starts(l, 4)).collect();
    assert!(rows.len() >= 12, "{events}");
    for row in &rows {
        assert_eq!(row.len(), 4, "{events}");
        assert_eq!(row[1..], rows[rows.len() - 1][1..], "{events}");
    }
    assert!(
        events.lines().next().unwrap().starts_with(" 1  "),
        "{events}"
    );
}

#[test]
fn check_help_says_it_reports_every_independent_error() {
    let help = stdout(&run(&[&"check", &"--help"]));
    assert!(help.contains("every independent error"), "{help}");
    assert!(!help.contains("the first error"), "{help}");
}
