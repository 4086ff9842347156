//! `p3_profile ROOT [N]`: starts the directory root ROOT N times (default
//! 1), for a profiler: under `valgrind --tool=callgrind` the instructions
//! of a start, per function and per thread, are repeatable where P3's
//! timings on a shared machine are not (the bench corpora are under
//! `target/nenjim-bench/corpora/`). Prints the revisions of the last start.

use std::process::ExitCode;

use nenjim_journal_ref::JournalAssembly;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(root) = args.next() else {
        eprintln!("usage: p3_profile ROOT [N]");
        return ExitCode::FAILURE;
    };
    let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    let mut last = 0;
    for _ in 0..n {
        let assembly = JournalAssembly::new(std::path::Path::new(&root));
        if let Err(e) = assembly.process().start() {
            eprintln!("p3_profile: {e}");
            return ExitCode::FAILURE;
        }
        last = assembly.service().coordinates().map_or(0, |a| a.len());
    }
    println!("{last} artifacts");
    ExitCode::SUCCESS
}
