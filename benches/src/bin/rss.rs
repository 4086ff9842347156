//! P4 memory: peak RSS after `start()` against the total bytes of the
//! root's journal files. Target <= 0.5x.
//!
//! `rss <root>` starts a Journal over an existing root and prints one JSON
//! object: `vm_hwm`/`vm_rss` (bytes, from `/proc/self/status`) before and
//! after `start()`, the journal bytes and files, and the ratios. `rss
//! --files N` first generates (or reuses) the cached bench root of N files
//! in a child process, so that generation never counts in this process's
//! peak. The journal files are listed and their bytes counted in a child
//! process too (`rss --count <root>`): the 100 000 paths of that listing
//! once stayed in this process's RSS (21 MB before `start()` at 100 000
//! files, counted in the peak as if the Journal held them).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use nenjim_journal_benches::{floor, setup};
use nenjim_journal_ref::JournalAssembly;

/// `VmHWM` and `VmRSS` of this process, in bytes.
fn status() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn run(args: &[String]) -> Result<(), String> {
    let root: PathBuf = match args {
        [flag, n] if flag == "--generate" => {
            let n: usize = n.parse().map_err(|e| format!("--generate {n}: {e}"))?;
            let root = setup::cached_root(&setup::large_root_spec(n))
                .map_err(|e| format!("cannot generate: {e}"))?;
            println!("{}", root.display());
            return Ok(());
        }
        [flag, n] if flag == "--files" => {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            let out = Command::new(exe)
                .args(["--generate", n])
                .output()
                .map_err(|e| e.to_string())?;
            if !out.status.success() {
                return Err(String::from_utf8_lossy(&out.stderr).into_owned());
            }
            PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
        }
        [flag, root] if flag == "--count" => {
            let files =
                floor::journal_files(Path::new(root)).map_err(|e| format!("{root}: {e}"))?;
            let bytes = floor::total_bytes(&files).map_err(|e| e.to_string())?;
            println!("{bytes}");
            return Ok(());
        }
        [root] => PathBuf::from(root),
        _ => return Err("usage: rss <root> | rss --files N | rss --count <root>".to_owned()),
    };
    let bytes: u64 = {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let out = Command::new(exe)
            .arg("--count")
            .arg(&root)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let text = String::from_utf8_lossy(&out.stdout);
        text.trim()
            .parse()
            .map_err(|e| format!("journal bytes {text:?}: {e}"))?
    };
    let (hwm_before, rss_before) = status();
    let assembly = JournalAssembly::new(&root);
    assembly
        .process()
        .start()
        .map_err(|e| format!("start failed: {e}"))?;
    let (hwm_after, rss_after) = status();
    let revisions: usize = {
        let service = assembly.service();
        let coordinates = service.coordinates().map_err(|e| e.to_string())?;
        coordinates
            .iter()
            .map(|c| service.revisions(c).map(|r| r.len()).unwrap_or(0))
            .sum()
    };
    let ratio = |x: u64| x as f64 / bytes.max(1) as f64;
    let report = serde_json::json!({
        "root": root.display().to_string(),
        "files": revisions,
        "journal_bytes": bytes,
        "vm_hwm_before": hwm_before,
        "vm_rss_before": rss_before,
        "vm_hwm_after": hwm_after,
        "vm_rss_after": rss_after,
        "ratio_peak": ratio(hwm_after),
        "ratio_peak_minus_baseline": ratio(hwm_after.saturating_sub(rss_before)),
        "ratio_retained": ratio(rss_after),
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rss: {e}");
            ExitCode::FAILURE
        }
    }
}
