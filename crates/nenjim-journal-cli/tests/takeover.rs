//! Issue 30, item 5: the takeover of a killed writer's lease, and a live
//! writer in another PID namespace never taken for dead.
//!
//! A writer is killed (SIGKILL) while it holds the lease (it blocks opening
//! a FIFO after its first append, and says so first); the next writer's
//! `--wait 10s` then succeeds on a directory, a bucket and a NATS root,
//! after a fence. A writer started in a PID namespace of its own
//! (`unshare --pid --fork --mount-proc`, where it is pid 1) is not taken
//! over while it runs, whatever this namespace's pid 1 is; killed, on a
//! NATS root it is taken over through the server (no connection answers on
//! its subject any more), while a directory or a bucket cannot tell and
//! waits for its expiry. Deadlines only bound how long a broken command may
//! hang.
#![allow(clippy::panic)] // a test fails by panicking

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use nenjim_journal_testkit::cli::{
    self, Lines, assert_code, exit_of, fifo, ledger_records, tempdir, write,
};
use nenjim_journal_testkit::moto::Moto;
use nenjim_journal_testkit::nats::NatsServer;
use serde_json::Value;

use crate::operators::{command, s3_at};

/// A genesis revision text.
fn genesis(coordinate: &str) -> String {
    format!(
        "FORMAT nenjim-journal/1\nARTIFACT {coordinate}\nJOURNAL_VERSION 20260101T000000Z\nPREDECESSOR GENESIS\nDESCRIPTION \"the {coordinate} artifact\"\n"
    )
}

/// The command with these arguments, in the environment of a root.
type MakeCommand = Box<dyn Fn(&[&dyn AsRef<OsStr>]) -> Command>;

/// How to run the command against one kind of root.
struct Backend {
    root: String,
    make: MakeCommand,
}

impl Backend {
    fn command(&self, args: &[&dyn AsRef<OsStr>]) -> Command {
        (self.make)(args)
    }

    #[track_caller]
    fn run_json(&self, args: &[&dyn AsRef<OsStr>], expected: i32) -> Value {
        let mut all = args.to_vec();
        all.push(&"--json");
        let output: Output = cli::output(&mut self.command(&all));
        assert_code(&output, expected);
        cli::json(&output)
    }
}

/// The child writer: appends the genesis of `name`, then blocks opening
/// the FIFO `b`, holding the lease (`wrap`: the program and arguments it
/// runs under).
fn holding_writer(backend: &Backend, dir: &Path, name: &str, wrap: &[&str]) -> (Child, Lines) {
    let first = dir.join("a.journal");
    write(&first, genesis(name).as_bytes());
    let blocked = dir.join("b.journal");
    fifo(&blocked);
    let writer = backend.command(&[&"append", &backend.root, &first, &blocked]);
    let mut command = match wrap.split_first() {
        None => writer,
        Some((program, args)) => {
            let mut wrapped = Command::new(program);
            wrapped
                .args(args)
                .arg(writer.get_program())
                .args(writer.get_args());
            for (key, value) in writer.get_envs() {
                match value {
                    Some(value) => wrapped.env(key, value),
                    None => wrapped.env_remove(key),
                };
            }
            if let Some(dir) = writer.get_current_dir() {
                wrapped.current_dir(dir);
            }
            wrapped
        }
    };
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {command:?}: {e}"));
    let mut stdout = Lines::stdout(&mut child);
    stdout.until("appended");
    (child, stdout)
}

/// The fields of the lease's holder id, from a refusal's message.
fn holder_in(refusal: &Value) -> Vec<String> {
    let message = refusal["error"]["message"].as_str().unwrap_or_default();
    let holder = message
        .split_whitespace()
        .skip_while(|w| *w != "writer")
        .nth(1)
        .unwrap_or_else(|| panic!("no holder in {refusal}"));
    holder.split('/').map(str::to_owned).collect()
}

/// This process's PID namespace number (`/proc/self/ns/pid`).
fn my_pid_namespace() -> String {
    let link = std::fs::read_link("/proc/self/ns/pid").unwrap_or_else(|e| panic!("{e}"));
    link.to_string_lossy()
        .trim_start_matches("pid:[")
        .trim_end_matches(']')
        .to_owned()
}

/// Kills the writer (SIGKILL), reaps it, and checks the next writer with
/// `--wait 10s` succeeds after a fence (the killed one appended 1).
fn killed_then_taken_over(backend: &Backend, dir: &Path, reap_first: bool) {
    let (mut child, _stdout) = holding_writer(backend, dir, "a", &[]);
    child.kill().unwrap_or_else(|e| panic!("SIGKILL: {e}"));
    if reap_first {
        child.wait().unwrap_or_else(|e| panic!("wait: {e}"));
    }
    // Not reaped: a zombie until this test waits for it, which is gone too.
    let next = dir.join("c.journal");
    write(&next, genesis("c").as_bytes());
    let doc = backend.run_json(&[&"append", &backend.root, &next, &"--wait", &"10s"], 0);
    assert_eq!(doc["appended"][0]["sequence"], 3, "2 is the fence: {doc}");
    child.wait().unwrap_or_else(|e| panic!("wait: {e}"));
}

fn directory(dir: &Path) -> Backend {
    let root = dir.join("journals");
    let backend = Backend {
        root: root.to_string_lossy().into_owned(),
        make: Box::new(|args| command(args)),
    };
    backend.run_json(&[&"init", &backend.root], 0);
    backend
}

fn nats(server: &NatsServer, name: &str) -> Backend {
    let backend = Backend {
        root: server.root(name),
        make: Box::new(|args| command(args)),
    };
    backend.run_json(&[&"init", &backend.root], 0);
    backend
}

#[test]
fn a_killed_writer_on_a_directory_is_taken_over_by_the_next_writers_wait() {
    for reaped in [true, false] {
        let dir = tempdir();
        let backend = directory(dir.path());
        killed_then_taken_over(&backend, dir.path(), reaped);
        let records = ledger_records(Path::new(&backend.root));
        assert!(records[1].contains(" FENCE "), "{records:?}");
    }
}

#[test]
fn a_killed_writer_on_a_bucket_is_taken_over_and_one_in_another_pid_namespace_is_not() {
    let moto = Moto::start();
    moto.create_bucket("journals");
    let dir = tempdir();
    let endpoint = moto.endpoint();
    let cwd = dir.path().to_path_buf();
    let backend = Backend {
        root: "s3://journals/main".to_owned(),
        make: Box::new(move |args| {
            let args: Vec<String> = args
                .iter()
                .map(|a| a.as_ref().to_string_lossy().into_owned())
                .collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            s3_at(&endpoint, &cwd, &args)
        }),
    };
    backend.run_json(&[&"init", &backend.root], 0);
    killed_then_taken_over(&backend, dir.path(), true);
    // A writer in another PID namespace holds it while it lives; killed, it
    // cannot be told from here: its lease runs until it expires.
    let other = tempdir();
    held_from_another_namespace(&backend, other.path());
    let refused = backend.run_json(
        &[&"create", &backend.root, &"d", &"--description", &"x"],
        75,
    );
    assert_eq!(refused["error"]["kind"], "LeaseHeld", "{refused}");
}

#[test]
fn a_killed_writer_on_a_nats_root_is_taken_over_by_the_next_writers_wait() {
    let server = NatsServer::start();
    for (name, reaped) in [("reaped", true), ("zombie", false)] {
        let dir = tempdir();
        let backend = nats(&server, name);
        killed_then_taken_over(&backend, dir.path(), reaped);
    }
}

/// The host pid of the one child of `parent` (the writer `unshare` forked).
fn only_child(parent: &Child) -> String {
    let pid = parent.id();
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_else(|e| panic!("children of {pid}: {e}"));
    let children: Vec<&str> = children.split_whitespace().collect();
    let [child] = children[..] else {
        panic!("expected one child of unshare, found {children:?}");
    };
    child.to_owned()
}

/// Starts a writer in a PID namespace of its own holding the root's lease,
/// checks another writer here is refused (`LeaseHeld`, the holder named as
/// pid 1 of another namespace), then kills it (SIGKILL) and reaps it.
fn held_from_another_namespace(backend: &Backend, dir: &Path) {
    let (mut unshare, _stdout) = holding_writer(
        backend,
        dir,
        "n",
        &["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"],
    );
    for wait in [None, Some("300ms")] {
        let mut args: Vec<&dyn AsRef<OsStr>> =
            vec![&"create", &backend.root, &"d", &"--description", &"x"];
        if let Some(wait) = &wait {
            args.extend([&"--wait" as &dyn AsRef<OsStr>, wait]);
        }
        let refused = backend.run_json(&args, 75);
        assert_eq!(refused["error"]["kind"], "LeaseHeld", "{refused}");
        let holder = holder_in(&refused);
        assert_eq!(holder.len(), 7, "{holder:?}");
        assert_eq!(holder[1], "1", "pid 1 of its namespace: {holder:?}");
        assert_ne!(holder[5], my_pid_namespace(), "{holder:?}");
    }
    let writer = only_child(&unshare);
    let killed = Command::new("kill")
        .args(["-KILL", &writer])
        .status()
        .unwrap_or_else(|e| panic!("kill: {e}"));
    assert!(killed.success(), "kill -KILL {writer}");
    let status = exit_of(&mut unshare);
    assert!(!status.success(), "the writer was killed: {status:?}");
}

#[test]
fn a_writer_in_another_pid_namespace_holds_a_directory_root_while_it_lives() {
    let dir = tempdir();
    let backend = directory(dir.path());
    held_from_another_namespace(&backend, dir.path());
    // Killed, it cannot be told from here: its lease runs until it expires.
    let refused = backend.run_json(
        &[&"create", &backend.root, &"d", &"--description", &"x"],
        75,
    );
    assert_eq!(refused["error"]["kind"], "LeaseHeld", "{refused}");
    assert_eq!(
        ledger_records(Path::new(&backend.root)).len(),
        1,
        "nothing written"
    );
}

#[test]
fn a_writer_in_another_pid_namespace_holds_a_nats_root_until_the_server_has_no_one_to_answer() {
    let server = NatsServer::start();
    let dir = tempdir();
    let backend = nats(&server, "namespaced");
    held_from_another_namespace(&backend, dir.path());
    // Killed: its connection is gone, so no one answers on its subject.
    let doc = backend.run_json(
        &[
            &"create",
            &backend.root,
            &"d",
            &"--description",
            &"x",
            &"--wait",
            &"10s",
        ],
        0,
    );
    assert_eq!(doc["sequence"], 3, "2 is the fence: {doc}");
}
