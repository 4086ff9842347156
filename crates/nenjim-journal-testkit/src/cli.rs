//! Running a built command in a test (the `nenjim-journal` binary of the CLI
//! tests): its output, exit code, text and JSON, each failing loudly with
//! what the command printed.
//!
//! The program is the test's `env!("CARGO_BIN_EXE_<name>")` (known only
//! inside the crate that builds it), so each test binary keeps a one-line
//! `run` that names it and chooses its environment.

use std::ffi::OsStr;
use std::io::Write as _;
use std::process::{Command, Output, Stdio};

/// `program` with `args`, not yet run.
pub fn command(program: &str, args: &[&dyn AsRef<OsStr>]) -> Command {
    let mut command = Command::new(program);
    command.args(args.iter().map(|a| a.as_ref()));
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
pub fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}):\n{}\nstderr:\n{}",
            stdout(output),
            stderr(output)
        )
    })
}

/// Asserts the exit code, showing both outputs when it differs.
///
/// # Panics
///
/// When the code is not `expected`.
pub fn assert_code(output: &Output, expected: i32) {
    assert_eq!(
        code(output),
        expected,
        "exit code; stdout:\n{}\nstderr:\n{}",
        stdout(output),
        stderr(output)
    );
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
