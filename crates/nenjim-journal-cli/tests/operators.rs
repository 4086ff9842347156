//! End-to-end tests of what an operator runs unattended (issue 20): the
//! lease and its waits, the exit code of a refusal to retry later, signals
//! between appends, the takeover of a dead writer's lease, `init` and the
//! store a root records, and `events --follow`.
//!
//! Nothing here depends on timing: a child is signalled at a point the test
//! controls (it blocks opening a FIFO, or waits for a lease the test holds,
//! and says so on a pipe first), a holder is made dead by naming a pid that
//! cannot exist or by SIGKILL and a wait. Deadlines (20 s) only bound how
//! long a broken command may hang before the test fails.
//!
//! This file holds the helpers other test files use too (`command`, `run`,
//! `run_json`, `s3_at`, and `Proxy` from `proxy.rs`) and the lease: waits,
//! signals, takeovers. The children: `init` (`init` and the store a root
//! records), `follow` (bucket roots and `events --follow`), `proxy` (an
//! S3 proxy that counts GETs and can lose a write's answer).
#![allow(clippy::panic)] // a test fails by panicking

mod follow;
mod init;
mod proxy;

pub(crate) use proxy::Proxy;

use std::fs;
use std::io::{BufRead as _, BufReader, Read, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{SystemTime, UNIX_EPOCH};

use nenjim_journal_testkit::cli::{
    self, Lines, assert_code, exit_of, fifo, ledger_records, signal, tempdir, write,
};
use nenjim_journal_testkit::moto::Moto;
use serde_json::Value;
use tempfile::TempDir;

// ---------------------------------------------------------------- helpers

pub(crate) fn command(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Command {
    let mut command = cli::command(env!("CARGO_BIN_EXE_nenjim-journal"), args);
    command.env("NO_COLOR", "1");
    command
}

pub(crate) fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    cli::output(&mut command(args))
}

/// Runs with `--json`, checks the exit code, returns the document.
#[track_caller]
pub(crate) fn run_json(args: &[&dyn AsRef<std::ffi::OsStr>], expected: i32) -> Value {
    let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = args.to_vec();
    all.push(&"--json");
    let output = run(&all);
    assert_code(&output, expected);
    cli::json(&output)
}

fn read_text(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// A genesis revision text.
fn genesis(coordinate: &str, version: &str) -> String {
    format!(
        "FORMAT nenjim-journal/1\nARTIFACT {coordinate}\nJOURNAL_VERSION {version}\nPREDECESSOR GENESIS\nDESCRIPTION \"the {coordinate} artifact\"\n"
    )
}

/// This host's name, as the writer names it in a lease holder.
fn host_name() -> String {
    let name = read_text(Path::new("/proc/sys/kernel/hostname"));
    let name = name.trim().to_owned();
    assert!(!name.is_empty(), "this host has no name");
    name
}

fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The lease file's fields: (holder, epoch, expires).
fn lease(root: &Path) -> (String, u64, u64) {
    let text = read_text(&root.join(".ledger/lease"));
    let field = |key: &str| -> String {
        text.lines()
            .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
            .unwrap_or_else(|| panic!("no {key} in the lease:\n{text}"))
            .to_owned()
    };
    let number = |key: &str| -> u64 {
        field(key)
            .parse()
            .unwrap_or_else(|e| panic!("{key} in the lease: {e}\n{text}"))
    };
    (field("holder"), number("epoch"), number("expires"))
}

/// A holder id of this host, boot and PID namespace whose pid no process
/// can have: a dead writer's.
fn dead_holder() -> String {
    let boot = read_text(Path::new("/proc/sys/kernel/random/boot_id"));
    let namespace = fs::read_link("/proc/self/ns/pid").unwrap_or_else(|e| panic!("{e}"));
    let namespace = namespace.to_string_lossy();
    let namespace = namespace.trim_start_matches("pid:[").trim_end_matches(']');
    format!(
        "{}/4294967295/{}/-/gone/{namespace}/-",
        host_name(),
        boot.trim()
    )
}

/// Writes the lease by hand, atomically (a rename), as another writer would.
fn hold_lease(root: &Path, holder: &str, epoch: u64, expires: u64) {
    let tmp = root.join(".ledger/lease.by-hand");
    write(
        &tmp,
        format!("nenjim-lease/1\nholder {holder}\nepoch {epoch}\nexpires {expires}\n").as_bytes(),
    );
    fs::rename(&tmp, root.join(".ledger/lease")).unwrap_or_else(|e| panic!("rename: {e}"));
}

/// A root made by `init` (without a store) in a new temporary directory.
fn initialized() -> (TempDir, PathBuf) {
    let dir = tempdir();
    let root = dir.path().join("journals");
    let doc = run_json(&[&"init", &root], 0);
    assert_eq!(doc["created_root"], true, "{doc}");
    (dir, root)
}

// ---------------------------------------------------------------- the lease

#[test]
fn a_held_lease_exits_75_and_wait_writes_once_it_is_released() {
    let (_dir, root) = initialized();
    // Another writer of this host holds the lease for an hour: this test's
    // own process, alive, so it is not taken over.
    let epoch = lease(&root).1 + 1;
    let holder = format!("{}/{}/-/-/test", host_name(), std::process::id());
    hold_lease(&root, &holder, epoch, now_millis() + 3_600_000);

    let held = run_json(&[&"create", &root, &"a", &"--description", &"x"], 75);
    assert_eq!(held["error"]["kind"], "LeaseHeld", "{held}");
    let message = held["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(&holder), "{message}");
    assert!(message.contains("--wait"), "{message}");
    // A wait that runs out is the same refusal, saying it waited.
    let waited = run_json(
        &[
            &"create",
            &root,
            &"a",
            &"--description",
            &"x",
            &"--wait",
            &"300ms",
        ],
        75,
    );
    assert!(
        waited["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("waited")),
        "{waited}"
    );
    assert_eq!(
        ledger_records(&root),
        Vec::<String>::new(),
        "nothing written"
    );

    // A writer that waits: it says so, then writes once the lease is given back.
    let mut child = command(&[
        &"create",
        &root,
        &"a",
        &"--description",
        &"x",
        &"--wait",
        &"1h",
        &"--json",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut stderr = Lines::stderr(&mut child);
    let line = stderr.until("waiting for the lease");
    assert!(line.contains("1h"), "{line}");
    hold_lease(&root, &holder, epoch, 0);
    let status = exit_of(&mut child);
    let mut out = String::new();
    if let Some(mut pipe) = child.stdout.take() {
        pipe.read_to_string(&mut out)
            .unwrap_or_else(|e| panic!("read stdout: {e}"));
    }
    assert_eq!(status.code(), Some(0), "{out}\n{}", stderr.rest());
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(doc["sequence"], 1, "{doc}");
    // A released lease is taken as it is: no fence.
    assert_eq!(
        ledger_records(&root).len(),
        1,
        "{:?}",
        ledger_records(&root)
    );
}

#[test]
fn a_lease_whose_holder_process_cannot_exist_is_taken_over_at_once_and_fenced() {
    let (_dir, root) = initialized();
    run_json(&[&"create", &root, &"a", &"--description", &"x"], 0);
    let epoch = lease(&root).1 + 1;
    let dead = dead_holder();
    hold_lease(&root, &dead, epoch, now_millis() + 3_600_000);
    let doc = run_json(&[&"create", &root, &"b", &"--description", &"y"], 0);
    assert_eq!(doc["sequence"], 3, "2 is the fence: {doc}");
    let records = ledger_records(&root);
    assert_eq!(records[1], format!("2 FENCE {}", epoch + 1), "{records:?}");
    let (holder, new_epoch, expires) = lease(&root);
    assert_eq!(
        (new_epoch, expires),
        (epoch + 1, 0),
        "taken over, then released"
    );
    assert_ne!(holder, dead);
    // Another host's holder is never taken for dead: its lease runs out first.
    hold_lease(
        &root,
        "elsewhere.invalid/4294967295/-/-/x",
        new_epoch + 1,
        now_millis() + 3_600_000,
    );
    let held = run_json(&[&"create", &root, &"c", &"--description", &"z"], 75);
    assert_eq!(held["error"]["kind"], "LeaseHeld", "{held}");
}

#[test]
fn a_writer_killed_with_sigkill_leaves_a_lease_that_is_taken_over_at_once() {
    let (dir, root) = initialized();
    let first = dir.path().join("a.journal");
    write(&first, genesis("a", "20260101T000000Z").as_bytes());
    let blocked = dir.path().join("b.journal");
    fifo(&blocked);
    // The child appends a.journal, then blocks opening the FIFO, holding the lease.
    let mut child = command(&[&"append", &root, &first, &blocked])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut stdout = Lines::stdout(&mut child);
    stdout.until("appended");
    let (holder, epoch, expires) = lease(&root);
    let parts: Vec<&str> = holder.split('/').collect();
    assert_eq!(
        parts.len(),
        7,
        "host/pid/boot/start/nonce/namespace/answers: {holder}"
    );
    assert_eq!(parts[0], host_name(), "{holder}");
    assert_eq!(parts[1], child.id().to_string(), "{holder}");
    assert!(expires > now_millis(), "held");
    child.kill().unwrap_or_else(|e| panic!("SIGKILL: {e}"));
    child.wait().unwrap_or_else(|e| panic!("wait: {e}"));

    // At once, without waiting for the 30 s of its lease.
    let doc = run_json(&[&"create", &root, &"c", &"--description", &"z"], 0);
    assert_eq!(doc["sequence"], 3, "{doc}");
    let records = ledger_records(&root);
    assert_eq!(records[1], format!("2 FENCE {}", epoch + 1), "{records:?}");
}

// ---------------------------------------------------------------- signals

#[test]
fn sigint_between_appends_gives_the_lease_back_and_says_how_to_resume() {
    let (dir, root) = initialized();
    let first = dir.path().join("a.journal");
    write(&first, genesis("a", "20260101T000000Z").as_bytes());
    let second = dir.path().join("b.journal");
    fifo(&second);
    let third = dir.path().join("c.journal");
    write(&third, genesis("c", "20260101T000000Z").as_bytes());
    let mut child = command(&[&"append", &root, &first, &second, &third])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut stdout = Lines::stdout(&mut child);
    let mut stderr = Lines::stderr(&mut child);
    stdout.until("appended");
    // The child is blocked opening the FIFO: interrupt it there, then let it read.
    signal(&child, "INT");
    let mut pipe = fs::OpenOptions::new()
        .write(true)
        .open(&second)
        .unwrap_or_else(|e| panic!("open the FIFO: {e}"));
    pipe.write_all(genesis("b", "20260101T000000Z").as_bytes())
        .unwrap_or_else(|e| panic!("write the FIFO: {e}"));
    drop(pipe);
    let status = exit_of(&mut child);
    let errors = stderr.rest();
    assert_eq!(status.code(), Some(130), "{errors}");
    assert!(
        errors.contains("1 of 3 appended; re-run to resume"),
        "{errors}"
    );
    assert_eq!(
        ledger_records(&root).len(),
        1,
        "b was abandoned, c not tried"
    );
    assert_eq!(lease(&root).2, 0, "the lease was given back");

    // Re-running the same command resumes: a is recorded already, b and c appended.
    fs::remove_file(&second).unwrap_or_else(|e| panic!("rm: {e}"));
    write(&second, genesis("b", "20260101T000000Z").as_bytes());
    let doc = run_json(&[&"append", &root, &first, &second, &third], 0);
    let new: Vec<bool> = doc["appended"]
        .as_array()
        .map(|a| a.iter().map(|e| e["new"] == true).collect())
        .unwrap_or_default();
    assert_eq!(new, vec![false, true, true], "{doc}");
}

#[test]
fn sigterm_ends_a_wait_for_the_lease_with_nothing_written() {
    let (_dir, root) = initialized();
    let holder = format!("{}/{}/-/-/test", host_name(), std::process::id());
    let epoch = lease(&root).1 + 1;
    hold_lease(&root, &holder, epoch, now_millis() + 3_600_000);
    let mut child = command(&[
        &"create",
        &root,
        &"a",
        &"--description",
        &"x",
        &"--wait",
        &"1h",
    ])
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut stderr = Lines::stderr(&mut child);
    stderr.until("waiting for the lease");
    signal(&child, "TERM");
    let status = exit_of(&mut child);
    let errors = stderr.rest();
    assert_eq!(status.code(), Some(130), "{errors}");
    assert!(
        errors.contains("0 of 1 appended; re-run to resume"),
        "{errors}"
    );
    assert_eq!(ledger_records(&root), Vec::<String>::new());
    assert_eq!(lease(&root).0, holder, "another's lease is left as it is");
}

// ---------------------------------------------------------------- S3

fn s3(moto: &Moto, dir: &Path, args: &[&str]) -> Command {
    s3_at(&moto.endpoint(), dir, args)
}

/// The command with `args` in `dir`, against the S3 server at `endpoint`
/// (plain HTTP allowed, moto's test credentials), its default cache
/// `dir/.cache/nenjim-journal` (never the user's: a moto server of another
/// run may have had the same port and bucket).
pub(crate) fn s3_at(endpoint: &str, dir: &Path, args: &[&str]) -> Command {
    let args: Vec<&dyn AsRef<std::ffi::OsStr>> = args.iter().map(|a| a as _).collect();
    let mut command = cli::command(env!("CARGO_BIN_EXE_nenjim-journal"), &args);
    command
        .current_dir(dir)
        .env("AWS_ENDPOINT_URL", endpoint)
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .env("NO_COLOR", "1")
        .env("XDG_CACHE_HOME", dir.join(".cache"));
    command
}

fn s3_run(moto: &Moto, dir: &Path, args: &[&str], expected: i32) -> Output {
    let output = cli::output(&mut s3(moto, dir, args));
    assert_code(&output, expected);
    output
}
