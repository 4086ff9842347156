//! Running a built command in a test (the `nenjim-journal` binary of the CLI
//! tests): its output, exit code, text and JSON, each failing loudly with
//! what the command printed; a root's files and ledger records as they are
//! on disk; and a child run in the background ([`Lines`] of its pipes,
//! [`signal`], [`exit_of`], a [`fifo`] to block it at a chosen point).
//!
//! The program is the test's `env!("CARGO_BIN_EXE_<name>")` (known only
//! inside the crate that builds it), so each test binary keeps a one-line
//! `run` that names it and chooses its environment.

use std::ffi::OsStr;
use std::io::Write as _;
use std::process::{Command, Output, Stdio};

/// `program` with `args`, not yet run; without the caller's `RUST_LOG`
/// (the command's tracing events on stderr: a test asks for them itself).
pub fn command(program: &str, args: &[&dyn AsRef<OsStr>]) -> Command {
    let mut command = Command::new(program);
    command
        .args(args.iter().map(|a| a.as_ref()))
        .env_remove("RUST_LOG");
    command
}

/// Runs `command` to its end and returns what it printed.
///
/// # Panics
///
/// When the command cannot be started.
pub fn output(command: &mut Command) -> Output {
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", command.get_program()))
}

/// Runs `command` with `input` on its standard input.
///
/// # Panics
///
/// When the command cannot be started or fed.
pub fn output_with_stdin(command: &mut Command, input: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", command.get_program()));
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.as_bytes())
            .unwrap_or_else(|e| panic!("stdin: {e}"));
    }
    child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("wait: {e}"))
}

/// The exit code (-1 for a command ended by a signal).
pub fn code(output: &Output) -> i32 {
    output.status.code().unwrap_or(-1)
}

/// The standard output, as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The standard error, as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The standard output as one JSON document.
///
/// # Panics
///
/// When it is not one, showing both outputs.
#[track_caller]
pub fn json(output: &Output) -> serde_json::Value {
    match serde_json::from_slice(&output.stdout) {
        Ok(document) => document,
        Err(e) => panic!(
            "stdout is not one JSON document ({e}):\n{}\nstderr:\n{}",
            stdout(output),
            stderr(output)
        ),
    }
}

/// Asserts the exit code, showing both outputs when it differs (the
/// standard error last, where the tail of a log keeps it), at the
/// caller's line.
///
/// # Panics
///
/// When the code is not `expected`.
#[track_caller]
pub fn assert_code(output: &Output, expected: i32) {
    let found = code(output);
    if found != expected {
        panic!(
            "found the exit code {found}, expected {expected}\nstdout:\n{}\nstderr:\n{}",
            stdout(output),
            stderr(output)
        );
    }
}

/// The lower-case hex SHA-256 of `bytes` (a blob's name in a content store),
/// computed by `sha2` itself, not by the code under test.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `sha256:<hex>` of `text` (a successor's PREDECESSOR).
pub fn digest_of(text: &str) -> String {
    format!("sha256:{}", sha256_hex(text.as_bytes()))
}

/// A new temporary directory (removed when dropped).
///
/// # Panics
///
/// When none can be made.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"))
}

/// Writes `bytes` at `path`, creating its directory.
///
/// # Panics
///
/// When either fails.
pub fn write(path: &std::path::Path, bytes: impl AsRef<[u8]>) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
    }
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Every file under `dir` (relative, sorted) but the lease, the writer's
/// temporaries and its write probe (which change on every open or are
/// removed): two trees equal before and after a command say it wrote
/// nothing.
pub fn tree(dir: &std::path::Path) -> Vec<String> {
    fn walk(base: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = path
                .strip_prefix(base)
                .map_or_else(|_| path.display().to_string(), |p| p.display().to_string());
            if name.ends_with("lease") || name.contains("/tmp") || name.contains("probe") {
                continue;
            }
            if path.is_dir() && !path.is_symlink() {
                walk(base, &path, out);
            } else {
                out.push(name);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The records of the ledger entries of the root `root` on disk, in order
/// (`1 REVISION …`, `2 FENCE 9` …): each entry is a symbolic link whose
/// target is its record.
///
/// # Panics
///
/// When the ledger's log cannot be read.
pub fn ledger_records(root: &std::path::Path) -> Vec<String> {
    let dir = root.join(".ledger/log");
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| {
            std::fs::read_link(p)
                .unwrap_or_else(|e| panic!("readlink {}: {e}", p.display()))
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

/// How long [`Lines::until`], [`Lines::rest`] and [`exit_of`] wait for a
/// child before the test fails: a bound on a broken command's hang, never
/// a timing the test depends on.
pub const DEADLINE: std::time::Duration = std::time::Duration::from_secs(20);

/// Sends `signal` (`INT`, `TERM`, `KILL`) to the child, by its pid.
///
/// # Panics
///
/// When `kill` cannot be run or fails.
pub fn signal(child: &std::process::Child, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap_or_else(|e| panic!("cannot run kill: {e}"));
    assert!(status.success(), "kill -{signal} {}", child.id());
}

/// Makes a FIFO at `path` (a file whose open blocks until a writer comes).
///
/// # Panics
///
/// When `mkfifo` cannot be run or fails.
pub fn fifo(path: &std::path::Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap_or_else(|e| panic!("cannot run mkfifo: {e}"));
    assert!(status.success(), "mkfifo {}", path.display());
}

/// The lines of a child's pipe, read on a thread of their own.
#[derive(Debug)]
pub struct Lines {
    lines: std::sync::mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Lines {
    /// The lines of `pipe`.
    pub fn of(pipe: impl std::io::Read + Send + 'static) -> Lines {
        use std::io::BufRead as _;
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Lines {
            lines,
            seen: Vec::new(),
        }
    }

    /// The lines of the child's standard output.
    ///
    /// # Panics
    ///
    /// When it is not piped (or already taken).
    pub fn stdout(child: &mut std::process::Child) -> Lines {
        let pipe = child
            .stdout
            .take()
            .unwrap_or_else(|| panic!("stdout not piped"));
        Lines::of(pipe)
    }

    /// The lines of the child's standard error.
    ///
    /// # Panics
    ///
    /// When it is not piped (or already taken).
    pub fn stderr(child: &mut std::process::Child) -> Lines {
        let pipe = child
            .stderr
            .take()
            .unwrap_or_else(|| panic!("stderr not piped"));
        Lines::of(pipe)
    }

    /// The next line that contains `wanted`.
    ///
    /// # Panics
    ///
    /// When none comes within [`DEADLINE`] (or the pipe ends first),
    /// showing the lines read so far.
    pub fn until(&mut self, wanted: &str) -> String {
        let deadline = std::time::Instant::now() + DEADLINE;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(wanted) {
                        return line;
                    }
                }
                Err(e) => panic!(
                    "no line with `{wanted}` ({e}); lines so far:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// The lines read so far, in order.
    pub fn seen(&self) -> &[String] {
        &self.seen
    }

    /// Everything read and left (after the child exited).
    pub fn rest(&mut self) -> String {
        let mut all = self.seen.clone();
        while let Ok(line) = self.lines.recv_timeout(DEADLINE) {
            all.push(line);
        }
        all.join("\n")
    }
}

/// Waits for the child to exit.
///
/// # Panics
///
/// When it has not exited within [`DEADLINE`] (it is then killed).
pub fn exit_of(child: &mut std::process::Child) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + DEADLINE;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the child did not exit within {DEADLINE:?}");
            }
            Err(e) => panic!("wait: {e}"),
        }
    }
}
