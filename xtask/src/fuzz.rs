//! `cargo xtask fuzz [--seconds N] [TARGET …]`: runs each cargo-fuzz target
//! of `fuzz/` for N seconds (default 60) and reports its executions.
//!
//! The targets need libFuzzer's instrumentation flags, which are nightly
//! only: the task uses `cargo +nightly fuzz` when a nightly toolchain is
//! installed, and otherwise the stable toolchain with `RUSTC_BOOTSTRAP=1`
//! (the known workaround), and says which. `cargo-fuzz` itself comes from
//! crates.io: `cargo install cargo-fuzz`.
//!
//! Each target starts from the checked-in corpus `fuzz/corpus/<target>/`
//! and grows a working corpus under `target/fuzz-corpus/<target>/` (never
//! the checked-in one); crashes are written to `target/fuzz-artifacts/`.
//! The parser targets get the dictionary `fuzz/journal.dict`, the ledger
//! record and lease targets `fuzz/ledger.dict`.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

/// The targets, in the order they run.
pub const TARGETS: [&str; 9] = [
    "parse_bytes",
    "parse_mutated",
    "chain_ingest",
    "tlog_parsers",
    "tlog_tiles",
    "ledger_records",
    "ledger_segments",
    "lease_records",
    "nats_records",
];

/// How the fuzz targets get built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Toolchain {
    /// `cargo +nightly fuzz …`.
    Nightly,
    /// `RUSTC_BOOTSTRAP=1 cargo fuzz …` on the default (stable) toolchain.
    StableBootstrap,
}

fn succeeds(command: &mut Command) -> bool {
    command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn pick_toolchain() -> Result<Toolchain, String> {
    if !succeeds(Command::new("cargo").args(["fuzz", "--version"])) {
        return Err(
            "cargo-fuzz is not installed: run `cargo install cargo-fuzz` (from crates.io)".into(),
        );
    }
    if succeeds(Command::new("cargo").args(["+nightly", "--version"])) {
        Ok(Toolchain::Nightly)
    } else {
        Ok(Toolchain::StableBootstrap)
    }
}

/// Runs the task with its arguments.
pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let mut seconds: u64 = 60;
    let mut targets: Vec<&str> = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                let value = args.next().ok_or("--seconds needs a number")?;
                seconds = value
                    .parse()
                    .map_err(|_| format!("--seconds: `{value}` is not a number of seconds"))?;
            }
            target if TARGETS.contains(&target) => targets.push(target),
            other => {
                return Err(format!(
                    "fuzz: unknown argument `{other}`, expected --seconds N or a target ({})",
                    TARGETS.join(", ")
                ));
            }
        }
    }
    if targets.is_empty() {
        targets = TARGETS.to_vec();
    }
    let toolchain = pick_toolchain()?;
    match toolchain {
        Toolchain::Nightly => eprintln!("xtask: fuzz: using `cargo +nightly fuzz`"),
        Toolchain::StableBootstrap => eprintln!(
            "xtask: fuzz: no nightly toolchain, using the stable one with RUSTC_BOOTSTRAP=1"
        ),
    }
    let mut summary = Vec::new();
    for target in targets {
        let executions = run_target(root, toolchain, target, seconds)?;
        summary.push(format!(
            "{target}: {executions} executions in {seconds} s, no crash"
        ));
    }
    for line in summary {
        eprintln!("xtask: fuzz: {line}");
    }
    Ok(())
}

/// The libFuzzer dictionary of `target`: the format's keywords and tokens
/// for the two parser targets, the ledger's and the lease's for theirs.
fn dictionary(target: &str) -> Option<&'static str> {
    match target {
        t if t.starts_with("parse") => Some("-dict=journal.dict"),
        "ledger_records" | "lease_records" => Some("-dict=ledger.dict"),
        _ => None,
    }
}

/// Runs one target; returns libFuzzer's count of executed inputs.
fn run_target(
    root: &Path,
    toolchain: Toolchain,
    target: &str,
    seconds: u64,
) -> Result<u64, String> {
    let fuzz_dir = root.join("fuzz");
    let corpus = root.join("target/fuzz-corpus").join(target);
    let artifacts = root.join("target/fuzz-artifacts");
    for dir in [&corpus, &artifacts] {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut command = Command::new("cargo");
    if toolchain == Toolchain::Nightly {
        command.arg("+nightly");
    } else {
        command.env("RUSTC_BOOTSTRAP", "1");
    }
    command
        .args(["fuzz", "run", target])
        .arg(&corpus)
        .arg(fuzz_dir.join("corpus").join(target))
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!(
            "-artifact_prefix={}/{target}-",
            artifacts.display()
        ))
        .args(["-timeout=10", "-rss_limit_mb=2048", "-print_final_stats=1"])
        .args(dictionary(target))
        .current_dir(&fuzz_dir)
        .stderr(Stdio::piped());
    eprintln!("xtask: fuzz: {target} for {seconds} s");
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot run cargo fuzz: {e}"))?;
    let mut executions = None;
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(n) = line.strip_prefix("stat::number_of_executed_units:") {
                executions = n.trim().parse::<u64>().ok();
            }
            if !line.starts_with('#') || line.contains("NEW_FUNC") {
                eprintln!("{line}");
            }
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("cargo fuzz run {target}: {e}"))?;
    if !status.success() {
        return Err(format!(
            "fuzz target {target} failed ({status}): the crashing input is in {}",
            artifacts.display()
        ));
    }
    executions.ok_or_else(|| format!("fuzz target {target}: libFuzzer reported no statistics"))
}
