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
#![allow(clippy::panic)] // a test fails by panicking

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

// ---------------------------------------------------------------- init

#[test]
fn init_records_the_store_that_later_commands_use() {
    let dir = tempdir();
    let root = dir.path().join("journals");
    let store = dir.path().join("store");
    // A store that does not exist is refused, and nothing is created.
    let refused = run_json(&[&"init", &root, &"--store", &store], 2);
    assert_eq!(refused["error"]["kind"], "StoreMissing", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("--create")),
        "{refused}"
    );
    assert!(!root.exists() && !store.exists());
    // Writing into a root that does not exist says to run init.
    let file = dir.path().join("a.journal");
    write(&file, genesis("a", "20260101T000000Z").as_bytes());
    for args in [
        vec![&"append" as &dyn AsRef<std::ffi::OsStr>, &root, &file],
        vec![&"create", &root, &"a", &"--description", &"x"],
    ] {
        let output = run(&args);
        assert_code(&output, 2);
        let errors = cli::stderr(&output);
        assert!(errors.contains("nenjim-journal init"), "{errors}");
    }

    let doc = run_json(&[&"init", &root, &"--store", &store, &"--create"], 0);
    assert_eq!(
        (&doc["created_root"], &doc["created_store"]),
        (&Value::Bool(true), &Value::Bool(true)),
        "{doc}"
    );
    let absolute = std::path::absolute(&store).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["store"], absolute.display().to_string());
    assert_eq!(
        read_text(&root.join(".ledger/store")),
        format!("nenjim-store/1\nstore {}\n", absolute.display())
    );
    assert!(
        root.join(".ledger/LEDGER").is_file(),
        "init creates the ledger"
    );

    // release and verify-content use the recorded store.
    run_json(&[&"create", &root, &"a", &"--description", &"x"], 0);
    let blob = dir.path().join("a-1.0.0.tgz");
    write(&blob, b"the bytes of a 1.0.0");
    let released = run_json(
        &[
            &"release",
            &root,
            &"a",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &blob,
        ],
        0,
    );
    let digest = released["content"]["digest"].as_str().unwrap_or_default();
    let hex = digest.strip_prefix("sha256:").unwrap_or_default();
    assert!(store.join("blobs/sha256").join(hex).is_file(), "{released}");
    let verified = run_json(&[&"verify-content", &root], 0);
    assert_eq!(
        verified["store"],
        absolute.display().to_string(),
        "{verified}"
    );
    // A mistyped --store is refused, and nothing is written.
    let typo = dir.path().join("stroe");
    let before = ledger_records(&root);
    let refused = run_json(
        &[
            &"release",
            &root,
            &"a",
            &"1.1.0",
            &"--license",
            &"MIT",
            &"--content",
            &blob,
            &"--store",
            &typo,
        ],
        2,
    );
    assert_eq!(refused["error"]["kind"], "StoreMissing", "{refused}");
    assert!(!typo.exists());
    assert_eq!(ledger_records(&root), before);
    // init again on the existing root records another store.
    let other = dir.path().join("other");
    let again = run_json(&[&"init", &root, &"--store", &other, &"--create"], 0);
    assert_eq!(again["created_root"], false, "{again}");
    assert!(read_text(&root.join(".ledger/store")).contains("other"));
}

#[test]
fn init_of_a_root_in_a_bucket_and_writes_into_a_missing_one() {
    // memory:// is a store of the process's own: created by this init…
    let doc = run_json(
        &[
            &"init",
            &"memory://b/root",
            &"--store",
            &"memory://b/store",
            &"--create",
        ],
        0,
    );
    assert_eq!(
        (&doc["created_root"], &doc["created_store"], &doc["store"]),
        (
            &Value::Bool(true),
            &Value::Bool(true),
            &Value::from("memory://b/store")
        ),
        "{doc}"
    );
    // … and so missing for the next process: writing into it says to run init.
    let refused = run(&[&"create", &"memory://b/root", &"a", &"--description", &"x"]);
    assert_code(&refused, 2);
    let errors = cli::stderr(&refused);
    assert!(
        errors.contains("nenjim-journal init memory://b/root"),
        "{errors}"
    );
    let store = run_json(
        &[&"init", &"memory://b/root", &"--store", &"memory://b/s"],
        2,
    );
    assert_eq!(store["error"]["kind"], "StoreMissing", "{store}");
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

#[test]
fn a_bucket_root_knows_its_store_and_follow_prints_what_another_process_appends() {
    let moto = Moto::start();
    moto.create_bucket("journals");
    let dir = tempdir();
    let d = dir.path();
    let missing = s3_run(
        &moto,
        d,
        &["create", "s3://journals/main", "a", "--description", "x"],
        2,
    );
    assert!(
        cli::stderr(&missing).contains("nenjim-journal init s3://journals/main"),
        "{}",
        cli::stderr(&missing)
    );
    let refused = s3_run(
        &moto,
        d,
        &[
            "init",
            "s3://journals/main",
            "--store",
            "s3://journals/store",
        ],
        2,
    );
    assert!(
        cli::stderr(&refused).contains("--create"),
        "{}",
        cli::stderr(&refused)
    );
    s3_run(
        &moto,
        d,
        &[
            "init",
            "s3://journals/main",
            "--store",
            "s3://journals/store",
            "--create",
        ],
        0,
    );
    s3_run(
        &moto,
        d,
        &["create", "s3://journals/main", "a", "--description", "x"],
        0,
    );
    write(&d.join("a.tgz"), b"the bytes of a 1.0.0");
    s3_run(
        &moto,
        d,
        &[
            "release",
            "s3://journals/main",
            "a",
            "1.0.0",
            "--license",
            "MIT",
            "--content",
            "a.tgz",
        ],
        0,
    );
    let verified = s3_run(
        &moto,
        d,
        &["verify-content", "s3://journals/main", "--json"],
        0,
    );
    let doc: Value = serde_json::from_slice(&verified.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["store"], "s3://journals/store", "{doc}");

    // Follow the bucket root from after sequence 1: the release, then a new
    // artifact created by another process.
    let mut child = s3(
        &moto,
        d,
        &[
            "events",
            "s3://journals/main",
            "--follow",
            "--json",
            "--after",
            "1",
            "--interval",
            "0.2",
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut stdout = Lines::stdout(&mut child);
    let backlog = stdout.until("\"sequence\"");
    assert!(
        backlog.contains("\"sequence\":2") && backlog.contains("release_published"),
        "{backlog}"
    );
    s3_run(
        &moto,
        d,
        &["create", "s3://journals/main", "b", "--description", "y"],
        0,
    );
    let new = stdout.until("\"coordinate\":\"b\"");
    let event: Value = serde_json::from_str(&new).unwrap_or_else(|e| panic!("{e}: {new}"));
    assert_eq!(event["sequence"], 3, "{event}");
    assert_eq!(event["kind"], "artifact_created", "{event}");
    signal(&child, "INT");
    let status = exit_of(&mut child);
    assert_eq!(
        status.code(),
        Some(0),
        "{}",
        Lines::stderr(&mut child).rest()
    );
}

// ---------------------------------------------------------------- follow

#[test]
fn follow_prints_each_new_event_from_after_and_ends_cleanly_on_sigint() {
    let (dir, root) = initialized();
    run_json(&[&"create", &root, &"a", &"--description", &"x"], 0);
    // A takeover of a dead holder's lease: sequence 2 is a FENCE, b is 3.
    let epoch = lease(&root).1 + 1;
    let dead = dead_holder();
    hold_lease(&root, &dead, epoch, now_millis() + 3_600_000);
    run_json(&[&"create", &root, &"b", &"--description", &"y"], 0);
    let mut child = command(&[
        &"events",
        &root,
        &"--follow",
        &"--json",
        &"--after",
        &"2",
        &"--interval",
        &"0.1",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut stdout = Lines::stdout(&mut child);
    // The backlog resumes exactly after sequence 2 (across the fence's gap).
    let first = stdout.until("\"sequence\"");
    let event: Value = serde_json::from_str(&first).unwrap_or_else(|e| panic!("{e}: {first}"));
    assert_eq!(
        (&event["sequence"], &event["coordinate"]),
        (&Value::from(3), &Value::from("b"))
    );
    // An append by another process is printed as it is ingested.
    let file = dir.path().join("c.journal");
    write(&file, genesis("c", "20260101T000000Z").as_bytes());
    run_json(&[&"append", &root, &file], 0);
    let new = stdout.until("\"coordinate\":\"c\"");
    let event: Value = serde_json::from_str(&new).unwrap_or_else(|e| panic!("{e}: {new}"));
    assert_eq!(event["sequence"], 4, "{event}");
    signal(&child, "INT");
    let status = exit_of(&mut child);
    assert_eq!(
        status.code(),
        Some(0),
        "{}",
        Lines::stderr(&mut child).rest()
    );
    assert_eq!(stdout.rest().lines().count(), 2, "no line twice");

    // The help says it polls; Atom cannot be followed.
    let help = run(&[&"events", &"--help"]);
    assert!(
        cli::stdout(&help).contains("polls"),
        "{}",
        cli::stdout(&help)
    );
    let atom = run(&[&"events", &root, &"--follow", &"--format", &"atom"]);
    assert_code(&atom, 2);
}

// ---------------------------------------------------------------- a write that timed out

/// An HTTP proxy in front of the S3 server that counts the GETs of
/// objects it forwards (`cache`'s tests) and, once armed, never answers a
/// PUT of a ledger entry (and never forwards it): the writer's request
/// times out, as on a network that lost it.
pub(crate) struct Proxy {
    pub(crate) endpoint: String,
    armed: Arc<AtomicBool>,
    held: Arc<AtomicUsize>,
    /// The GETs of an object (not of a listing) forwarded so far.
    pub(crate) gets: Arc<AtomicUsize>,
}

impl Proxy {
    pub(crate) fn start(upstream: &str) -> Proxy {
        let listener =
            TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind a proxy: {e}"));
        let port = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("proxy address: {e}"))
            .port();
        let upstream = upstream.trim_start_matches("http://").to_owned();
        let armed = Arc::new(AtomicBool::new(false));
        let held = Arc::new(AtomicUsize::new(0));
        let gets = Arc::new(AtomicUsize::new(0));
        let (a, h, g) = (Arc::clone(&armed), Arc::clone(&held), Arc::clone(&gets));
        thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                let (upstream, a, h, g) = (
                    upstream.clone(),
                    Arc::clone(&a),
                    Arc::clone(&h),
                    Arc::clone(&g),
                );
                thread::spawn(move || {
                    let _ = serve(client, &upstream, &a, &h, &g);
                });
            }
        });
        Proxy {
            endpoint: format!("http://127.0.0.1:{port}"),
            armed,
            held,
            gets,
        }
    }
}

/// Serves the requests of one client connection, each over a connection of
/// its own to `upstream` (`Connection: close`, so a response ends at EOF).
fn serve(
    client: TcpStream,
    upstream: &str,
    armed: &AtomicBool,
    held: &AtomicUsize,
    gets: &AtomicUsize,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(client.try_clone()?);
    let mut client = client;
    loop {
        let mut head: Vec<String> = Vec::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line)? == 0 {
                return Ok(());
            }
            if line == "\r\n" {
                break;
            }
            head.push(line);
        }
        let request = head.first().cloned().unwrap_or_default();
        let mut words = request.split(' ');
        let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        let length: usize = head
            .iter()
            .find_map(|h| {
                let (name, value) = h.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())?
            })
            .unwrap_or(0);
        let mut body = vec![0u8; length];
        reader.read_exact(&mut body)?;
        if armed.load(Ordering::SeqCst) && method == "PUT" && target.contains("/.ledger/log/") {
            held.fetch_add(1, Ordering::SeqCst);
            // Never answered: hold the connection until the client drops it.
            let mut sink = [0u8; 1024];
            while reader.read(&mut sink)? > 0 {}
            return Ok(());
        }
        if method == "GET" && !target.contains("list-type=") {
            gets.fetch_add(1, Ordering::SeqCst);
        }
        let mut up = TcpStream::connect(upstream)?;
        let mut forwarded = String::new();
        for line in &head {
            let name = line.split(':').next().unwrap_or("");
            if !name.eq_ignore_ascii_case("connection") {
                forwarded.push_str(line);
            }
        }
        forwarded.push_str("Connection: close\r\n\r\n");
        up.write_all(forwarded.as_bytes())?;
        up.write_all(&body)?;
        let mut response = Vec::new();
        up.read_to_end(&mut response)?;
        client.write_all(&response)?;
        client.flush()?;
    }
}

#[test]
fn a_bucket_write_that_timed_out_says_that_rerunning_the_same_command_settles_it() {
    let moto = Moto::start();
    moto.create_bucket("journals");
    let proxy = Proxy::start(&moto.endpoint());
    let dir = tempdir();
    let d = dir.path();
    let run_at = |args: &[&str]| -> Output {
        s3_at(&proxy.endpoint, d, args)
            .env("AWS_TIMEOUT", "1s")
            .output()
            .unwrap_or_else(|e| panic!("cannot run nenjim-journal: {e}"))
    };
    assert_code(&run_at(&["init", "s3://journals/main"]), 0);
    assert_code(
        &run_at(&["create", "s3://journals/main", "a", "--description", "x"]),
        0,
    );

    proxy.armed.store(true, Ordering::SeqCst);
    let create = ["create", "s3://journals/main", "b", "--description", "y"];
    let lost = run_at(&create);
    assert_code(&lost, 2);
    assert_eq!(
        proxy.held.load(Ordering::SeqCst),
        1,
        "the entry's PUT timed out"
    );
    let errors = cli::stderr(&lost);
    assert!(
        errors.contains("re-running the same command settles it"),
        "{errors}"
    );

    proxy.armed.store(false, Ordering::SeqCst);
    let doc: Value = serde_json::from_slice(&run_at(&[&create[..], &["--json"]].concat()).stdout)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (&doc["ok"], &doc["sequence"]),
        (&Value::Bool(true), &Value::from(2)),
        "{doc}"
    );
    let again = run_at(&create);
    assert_code(&again, 1); // b exists now: DuplicateGenesis, nothing written twice
    let list = run_at(&["list", "s3://journals/main", "--json"]);
    assert_code(&list, 0);
    let listed: Value = serde_json::from_slice(&list.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        listed["artifacts"].as_array().map(Vec::len),
        Some(2),
        "{listed}"
    );
}

#[test]
fn check_of_a_ledger_root_reports_each_changed_recorded_file() {
    let (_dir, root) = initialized();
    for coordinate in ["left-pad", "right-pad"] {
        run_json(
            &[&"create", &root, &coordinate, &"--description", &"pads"],
            0,
        );
    }
    // Both recorded files changed into other valid texts: the files alone
    // are fine, only their records tell.
    let mut changed = Vec::new();
    for coordinate in ["left-pad", "right-pad"] {
        let dir = root.join(coordinate);
        let file = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{e}"))
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "journal"))
            .unwrap_or_else(|| panic!("no revision file in {}", dir.display()));
        let text = read_text(&file).replace("pads", "pads, changed");
        let mut permissions = fs::metadata(&file)
            .unwrap_or_else(|e| panic!("{e}"))
            .permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        permissions.set_readonly(false);
        fs::set_permissions(&file, permissions).unwrap_or_else(|e| panic!("{e}"));
        fs::write(&file, text).unwrap_or_else(|e| panic!("{e}"));
        changed.push(file);
    }
    let out = run(&[&"check", &root, &"--json"]);
    assert_code(&out, 1);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["error_count"], 2, "{doc}");
    let errors = doc["errors"].as_array().cloned().unwrap_or_default();
    for (error, file) in errors.iter().zip(&changed) {
        assert_eq!(error["kind"], "LedgerMismatch", "{doc}");
        let path = error["path"].as_str().unwrap_or_default();
        assert_eq!(path, file.to_string_lossy(), "{doc}");
    }
}
