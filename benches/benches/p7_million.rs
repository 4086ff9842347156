//! P7 a million revisions (not criterion: one start of the full root takes
//! seconds, so each measure is timed `NENJIM_BENCH_P7_RUNS` times and the
//! median is recorded for `cargo xtask bench-report`; a start and its
//! floor are timed in turns, after one unmeasured read of the root).
//!
//! On the `NENJIM_BENCH_MILLION` root (default 1 000 000 revision files,
//! 200 000 artifacts x 5 revisions, the corpus shape of P3) and on a copy
//! of it with a ledger (`setup::ledger_copy`):
//!
//! - start() against the read+hash floor, both on every core (<= 1.5x);
//! - growth: start() of the full root against a root of a tenth of its
//!   files (between 9x and 11x), beside the read+hash floor's own growth
//!   over the same tenfold (report only: what the machine does to any
//!   reader of ten times the files);
//! - peak RSS of a fresh process after start() (the `rss` binary) against
//!   the journal bytes (<= 0.5x);
//! - refresh() of the unchanged root against the floor (<= 1.2x).
//!
//! The roots are generated (or reused from the cache under
//! `<target>/nenjim-bench/corpora`) before anything is timed; `cargo xtask
//! corpus` writes the same root. Never part of CI (`cargo test` does not run
//! benches).
#![allow(clippy::panic)] // a bench with a broken setup fails loudly

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use nenjim_journal_benches::floor;
use nenjim_journal_benches::setup::{self, Timed, median_ns};
use nenjim_journal_ref::JournalAssembly;

fn floor_once(root: &Path, cores: usize) -> u128 {
    let t = Instant::now();
    if let Err(e) = floor::read_and_hash(root, cores) {
        panic!("floor failed on {}: {e}", root.display());
    }
    t.elapsed().as_nanos()
}

fn start_once(root: &Path) -> u128 {
    let assembly = JournalAssembly::new(root);
    let t = Instant::now();
    if let Err(e) = assembly.process().start() {
        panic!("start failed on {}: {e}", root.display());
    }
    let elapsed = t.elapsed().as_nanos();
    drop(assembly); // dropped outside the measurement
    elapsed
}

/// The read+hash floor and start() of `root`, `runs` times each, in
/// turns (floor, start, floor, start, ...), after one unmeasured read of
/// every file: both are measured on a warm page cache (a cold one times
/// the disk, not either reader; session 41's floor ran cold at 124 s,
/// 31 s, 15 s), and whatever else the host does in the meantime falls on
/// both alike ([`setup::in_turns`]). Returns (floor, start).
fn floor_and_start(root: &Path, cores: usize, runs: usize) -> (Timed, Timed) {
    floor_once(root, cores);
    setup::in_turns(runs, || floor_once(root, cores), || start_once(root))
}

fn refresh_ns(root: &Path, files: usize, runs: usize) -> Timed {
    let assembly = JournalAssembly::new(root);
    if let Err(e) = assembly.process().start() {
        panic!("start failed on {}: {e}", root.display());
    }
    let manager = assembly.manager();
    median_ns(runs, || {
        let t = Instant::now();
        match manager.refresh() {
            Ok(report) if report.unchanged() == files && report.ingested() == 0 => {}
            Ok(report) => panic!(
                "refresh of an unchanged root: {} ingested, {} unchanged of {files}",
                report.ingested(),
                report.unchanged()
            ),
            Err(e) => panic!("refresh failed on {}: {e}", root.display()),
        }
        t.elapsed().as_nanos()
    })
}

/// The `rss` binary's report on `root`, in a fresh process.
fn rss(root: &Path) -> serde_json::Value {
    let out = match Command::new(env!("CARGO_BIN_EXE_rss")).arg(root).output() {
        Ok(out) => out,
        Err(e) => panic!("cannot run rss: {e}"),
    };
    if !out.status.success() {
        panic!(
            "rss on {}: {}",
            root.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => panic!("unreadable rss output: {e}"),
    }
}

fn root_of(files: usize) -> PathBuf {
    match setup::cached_root(&setup::large_root_spec(files)) {
        Ok(root) => root,
        Err(e) => panic!("cannot generate the P7 root of {files} files: {e}"),
    }
}

fn main() -> ExitCode {
    if !setup::selected("p7_million") {
        return ExitCode::SUCCESS;
    }
    let full = setup::million();
    let tenth = full / 10;
    let runs = setup::env_usize("NENJIM_BENCH_P7_RUNS", 3).max(1);
    let cores = floor::cores();

    // Everything generated before anything is timed.
    let generated = Instant::now();
    let small_root = root_of(tenth);
    let plain = root_of(full);
    // A root whose ledger cannot be made is reported (its rows say why),
    // not a reason to lose the plain root's figures.
    let ledger = setup::ledger_copy(&plain).map_err(|e| e.to_string());
    if let Err(e) = &ledger {
        eprintln!("p7_million: no ledger root: {e}");
    }
    let list = floor::journal_files(&plain).unwrap_or_default();
    let files = list.len();
    let bytes = floor::total_bytes(&list).unwrap_or(0);
    drop(list);
    eprintln!(
        "p7_million: roots ready in {:.1} s ({files} files, {bytes} bytes)",
        generated.elapsed().as_secs_f64()
    );

    // The floor at a tenth of the size too: the growth target is about
    // start()'s own scaling, and the floor's growth shows what the machine
    // (page cache, inode and dentry caches, one directory of 200 000
    // artifacts) does to any reader of ten times the files.
    let ((small_floor, small_floor_all), (small_start, small_all)) =
        floor_and_start(&small_root, cores, runs);
    let mut roots = Vec::new();
    for (name, root) in [("plain", Ok(&plain)), ("ledger", ledger.as_ref())] {
        let root = match root {
            Ok(root) => root,
            Err(e) => {
                roots.push(serde_json::json!({ "name": name, "error": e }));
                continue;
            }
        };
        let ((floor, floor_all), (start, start_all)) = floor_and_start(root, cores, runs);
        let (refresh, refresh_all) = refresh_ns(root, files, runs);
        let memory = rss(root);
        eprintln!(
            "p7_million/{name}: floor {:.3} s, start {:.3} s ({:.2}x), refresh {:.3} s ({:.2}x), peak RSS {:.3}x",
            floor / 1e9,
            start / 1e9,
            start / floor,
            refresh / 1e9,
            refresh / floor,
            memory["ratio_peak"].as_f64().unwrap_or(f64::NAN),
        );
        roots.push(serde_json::json!({
            "name": name,
            "floor_ns": floor, "floor_runs_ns": floor_all,
            "start_ns": start, "start_runs_ns": start_all,
            "refresh_ns": refresh, "refresh_runs_ns": refresh_all,
            "rss": memory,
        }));
    }
    eprintln!(
        "p7_million: start at {tenth} files {:.3} s (growth {:.2}x), floor {:.3} s (growth {:.2}x)",
        small_start / 1e9,
        roots[0]["start_ns"].as_f64().unwrap_or(f64::NAN) / small_start,
        small_floor / 1e9,
        roots[0]["floor_ns"].as_f64().unwrap_or(f64::NAN) / small_floor
    );
    let report = serde_json::json!({
        "files": files,
        "bytes": bytes,
        "artifacts": setup::large_root_spec(full).artifacts,
        "small_files": tenth,
        "small_start_ns": small_start,
        "small_start_runs_ns": small_all,
        "small_floor_ns": small_floor,
        "small_floor_runs_ns": small_floor_all,
        "cores": cores,
        "runs": runs,
        "roots": roots,
    });
    if let Err(e) = setup::record("p7_million", &report) {
        eprintln!("p7_million: cannot record: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
