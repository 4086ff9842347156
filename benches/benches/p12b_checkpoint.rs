//! P12b and P12's barriers: figures of a signed directory root that are
//! not criterion times (issue 35).
//!
//! - `p12b_latency`: a writer appends the 10 kB revisions of P12, one
//!   after the other at their natural rate, to a signed root at a 1 s
//!   checkpoint interval for `NENJIM_BENCH_P12B_SECS` (default 25 s).
//!   For each append, the latency is the time from its `append`
//!   returning to the writer's [`checkpoint_covers`] first showing a
//!   checkpoint that covers its ledger entry. The writer is polled on
//!   the appending thread (an append takes `&mut` the writer, so no other
//!   thread can wait on it meanwhile) after every append, and every
//!   millisecond once the appends stop, until the last is covered: a
//!   coverage is seen at most one append (or 1 ms) late, which is why
//!   the appends' own p50 and p99 are recorded beside it. Target p99 <=
//!   1.1 s. p50, p99 (nearest rank) and the max are recorded for `cargo
//!   xtask bench-report`, with the publications seen and the longest
//!   gap between two.
//! - `p12_barriers`: the durability barriers (`fsync`, `fdatasync`,
//!   `syncfs`, `sync_file_range`) per append, signed vs unsigned, counted
//!   by `strace -f -c` around this bench run again as a child that opens
//!   a fresh root, appends N revisions and closes it: the count of a run
//!   of 210 appends minus that of a run of 10, over 200 (so the writer's
//!   open and close cancel out). At interval zero and, for the signed
//!   root, at a 1 s interval (there the count depends on how many
//!   publications fell in the child's run, itself slowed by strace: the
//!   child reports its appends, seconds and publications). Skipped, with
//!   a message, without `strace`.
//!
//! [`checkpoint_covers`]: nenjim_journal_writer::FsJournalWriter::checkpoint_covers
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // a bench with a broken setup fails loudly

use std::collections::VecDeque;
use std::fs;
use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use nenjim_journal_benches::{corpus, setup};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

use corpus::{append_body as body, append_revision as revision};

/// Set in a child run under `strace`: `signed|unsigned,<interval ms>,<appends>,<dir>`.
const CHILD: &str = "NENJIM_BENCH_P12_BARRIERS_CHILD";

/// The syscalls counted as barriers.
const BARRIERS: [&str; 4] = ["fsync", "fdatasync", "syncfs", "sync_file_range"];

/// The nearest-rank `p`-th percentile of `sorted` (ascending, non-empty).
fn percentile(sorted: &[u64], p: f64) -> u64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn options(signed: bool, interval: Duration) -> WriterOptions {
    if signed {
        let (skey, _) = setup::signing_key();
        WriterOptions::new()
            .signing_key(&skey)
            .checkpoint_interval(interval)
    } else {
        WriterOptions::new()
    }
}

fn open_fresh(root: &Path, options: WriterOptions) -> FsJournalWriter {
    let _ = fs::remove_dir_all(root);
    fs::create_dir_all(root).unwrap();
    FsJournalWriter::open(root, options).unwrap()
}

fn main() -> ExitCode {
    if let Ok(spec) = std::env::var(CHILD) {
        return child(&spec);
    }
    if setup::selected("p12b_latency") {
        latency();
    }
    if setup::selected("p12_barriers") {
        barriers();
    }
    ExitCode::SUCCESS
}

fn latency() {
    let seconds = setup::env_usize("NENJIM_BENCH_P12B_SECS", 25).max(3) as u64;
    let interval = Duration::from_secs(1);
    let body = body();
    let root = setup::bench_dir().join("p12b").join("signed");
    let mut writer = open_fresh(&root, options(true, interval));
    let mut head = None;
    let mut pending: VecDeque<(u64, Instant)> = VecDeque::new();
    let mut latencies = Vec::new();
    let mut append_ns = Vec::new();
    let mut covers = writer.checkpoint_covers().unwrap();
    let mut seen: Vec<Instant> = Vec::new();
    // Takes the appends a coverage seen `at` covers off `pending`.
    let mut covered = |covers: u64, at: Instant, pending: &mut VecDeque<(u64, Instant)>| {
        while pending
            .front()
            .is_some_and(|(sequence, _)| *sequence <= covers)
        {
            let (_, returned) = pending.pop_front().unwrap();
            latencies.push(at.saturating_duration_since(returned).as_nanos() as u64);
        }
    };
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    while Instant::now() < until {
        let took = corpus::timed_append(&mut writer, &mut head, &body).unwrap();
        let returned = Instant::now();
        append_ns.push(took.as_nanos() as u64);
        pending.push_back((writer.tip(), returned));
        let now = writer.checkpoint_covers().unwrap();
        if now != covers {
            let at = Instant::now();
            seen.push(at);
            covers = now;
            covered(covers, at, &mut pending);
        }
    }
    let appending = started.elapsed();
    while !pending.is_empty() {
        std::thread::sleep(Duration::from_millis(1));
        let now = writer.checkpoint_covers().unwrap();
        if now != covers {
            let at = Instant::now();
            seen.push(at);
            covers = now;
            covered(covers, at, &mut pending);
        }
        assert!(
            started.elapsed() < appending + Duration::from_secs(30),
            "no checkpoint covered the last appends within 30 s"
        );
    }
    writer.close().unwrap();
    latencies.sort_unstable();
    append_ns.sort_unstable();
    let gap = seen
        .windows(2)
        .map(|w| (w[1] - w[0]).as_nanos() as u64)
        .max()
        .unwrap_or(0);
    let mean = latencies.iter().sum::<u64>() as f64 / latencies.len() as f64;
    let report = serde_json::json!({
        "bytes": revision("append-bench", 0, None, &body).len(),
        "interval_ms": interval.as_millis() as u64,
        "appends": latencies.len(),
        "seconds": appending.as_secs_f64(),
        "publications": seen.len(),
        "max_gap_ns": gap,
        "p50_ns": percentile(&latencies, 50.0),
        "p99_ns": percentile(&latencies, 99.0),
        "max_ns": latencies[latencies.len() - 1],
        "mean_ns": mean,
        "append_p50_ns": percentile(&append_ns, 50.0),
        "append_p99_ns": percentile(&append_ns, 99.0),
    });
    eprintln!("p12b_latency: {report}");
    if let Err(e) = setup::record("p12b_latency", &report) {
        eprintln!("p12b_latency: cannot record: {e}");
    }
}

/// The child run under `strace`: a fresh root, N appends, the close; prints
/// its appends, seconds and the publications it saw (JSON, stdout).
fn child(spec: &str) -> ExitCode {
    let parts: Vec<&str> = spec.splitn(4, ',').collect();
    let [kind, interval, appends, dir] = parts[..] else {
        eprintln!("{CHILD}: expected kind,interval_ms,appends,dir, found {spec}");
        return ExitCode::FAILURE;
    };
    let interval = Duration::from_millis(interval.parse().unwrap());
    let appends: u64 = appends.parse().unwrap();
    let mut writer = open_fresh(Path::new(dir), options(kind == "signed", interval));
    let body = body();
    let mut head = None;
    let mut covers = writer.checkpoint_covers();
    let mut publications = 0u64;
    let started = Instant::now();
    for _ in 0..appends {
        corpus::timed_append(&mut writer, &mut head, &body).unwrap();
        let now = writer.checkpoint_covers();
        if now != covers {
            publications += 1;
            covers = now;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    writer.close().unwrap();
    println!(
        "{}",
        serde_json::json!({ "appends": appends, "seconds": seconds, "publications": publications })
    );
    ExitCode::SUCCESS
}

/// Runs this bench as a child under `strace -f -c`: the barriers it made,
/// and what it printed.
fn traced(kind: &str, interval_ms: u64, appends: u64) -> Option<(u64, serde_json::Value)> {
    let exe = std::env::current_exe().ok()?;
    let dir = setup::bench_dir().join("p12_barriers");
    fs::create_dir_all(&dir).ok()?;
    let root = dir.join(format!("{kind}-{interval_ms}-{appends}"));
    let counts = dir.join(format!("{kind}-{interval_ms}-{appends}.strace"));
    let out = Command::new("strace")
        .args(["-f", "-qq", "--seccomp-bpf", "-c", "-o"])
        .arg(&counts)
        .arg("-e")
        .arg(format!("trace={}", BARRIERS.join(",")))
        .arg(&exe)
        .env(
            CHILD,
            format!("{kind},{interval_ms},{appends},{}", root.display()),
        )
        .output();
    let out = match out {
        Ok(out) if out.status.success() => out,
        Ok(out) => {
            eprintln!(
                "p12_barriers: the traced run failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            return None;
        }
        Err(e) => {
            eprintln!("p12_barriers: cannot run strace ({e}): barriers not counted");
            return None;
        }
    };
    let _ = fs::remove_dir_all(&root);
    // `% time  seconds  usecs/call  calls  [errors]  syscall`: calls is the
    // fourth column whether errors is empty or not.
    let text = fs::read_to_string(&counts).ok()?;
    let barriers = text
        .lines()
        .filter_map(|line| {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let name = cols.last()?;
            BARRIERS
                .contains(name)
                .then(|| cols.get(3)?.parse::<u64>().ok())
                .flatten()
        })
        .sum();
    let printed = serde_json::from_slice(&out.stdout).ok()?;
    Some((barriers, printed))
}

fn barriers() {
    const FEW: u64 = 10;
    const MANY: u64 = 210;
    let mut report = serde_json::Map::new();
    for (name, kind, interval_ms, many) in [
        ("unsigned", "unsigned", 0, MANY),
        ("signed_zero", "signed", 0, MANY),
        // At 1 s, long enough for several publications.
        ("signed_1s", "signed", 1000, 10 * MANY),
    ] {
        let (Some((few_count, _)), Some((many_count, run))) = (
            traced(kind, interval_ms, FEW),
            traced(kind, interval_ms, many),
        ) else {
            return;
        };
        let per_append = many_count.saturating_sub(few_count) as f64 / (many - FEW) as f64;
        eprintln!(
            "p12_barriers: {name}: {per_append:.2} per append ({many_count} in {many} appends, {few_count} in {FEW}; {run})"
        );
        report.insert(
            name.to_owned(),
            serde_json::json!({
                "per_append": per_append,
                "few": FEW,
                "few_barriers": few_count,
                "many": many,
                "many_barriers": many_count,
                "run": run,
            }),
        );
    }
    if let Err(e) = setup::record("p12_barriers", &serde_json::Value::Object(report)) {
        eprintln!("p12_barriers: cannot record: {e}");
    }
}
