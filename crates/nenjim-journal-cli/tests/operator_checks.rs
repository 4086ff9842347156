//! Issue 20, items 4 and 6: the operator's round, end to end. Checks at
//! publish time (warnings, `--strict`), "did you mean" for the write
//! commands, a hand-edited old revision, stray files, copying a root with
//! its sequences and blobs, a rewritten release, several versions in one
//! release, S3 errors (against moto's S3 server, started here), and the
//! smaller messages and layouts (`--at`, `check` above a root, `list`,
//! `versions` and `events` columns, `check --help`, empty blobs).
//!
//! This file holds the helpers (`Hub`, `acme`, `PUBLISH_CHECKS`); the
//! children: `publish_time` (checks and "did you mean" when publishing),
//! `roots` (stray files, copying a root), `messages` (what the commands say:
//! a rewritten release, several versions, S3 errors, the smaller messages
//! and layouts).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

mod messages;
mod publish_time;
mod roots;

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
#[track_caller]
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
