//! P4 memory (not criterion): runs the `rss` binary in a fresh process on
//! the `NENJIM_BENCH_FILES` root and records its peak RSS after `start()`
//! against the journal bytes. Target <= 0.5x.

use std::process::{Command, ExitCode};

use nenjim_journal_benches::setup;

fn main() -> ExitCode {
    if !setup::selected("p4_memory") {
        return ExitCode::SUCCESS;
    }
    let files = setup::files();
    let out = match Command::new(env!("CARGO_BIN_EXE_rss"))
        .args(["--files", &files.to_string()])
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            eprintln!("p4_memory: cannot run rss: {e}");
            return ExitCode::FAILURE;
        }
    };
    if !out.status.success() {
        eprintln!("p4_memory: {}", String::from_utf8_lossy(&out.stderr));
        return ExitCode::FAILURE;
    }
    let report: serde_json::Value = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("p4_memory: unreadable rss output: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "p4_memory/peak_rss_vs_journal_bytes: {:.3}x (peak {} B over {} B of journals; {:.3}x above the pre-start RSS)",
        report["ratio_peak"].as_f64().unwrap_or(f64::NAN),
        report["vm_hwm_after"],
        report["journal_bytes"],
        report["ratio_peak_minus_baseline"]
            .as_f64()
            .unwrap_or(f64::NAN),
    );
    if let Err(e) = setup::record("p4_memory", &report) {
        eprintln!("p4_memory: cannot record: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
