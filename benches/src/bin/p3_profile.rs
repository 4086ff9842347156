//! `p3_profile ROOT [N] [floor]`: starts the directory root ROOT (or
//! `files=F`: the bench's large root of F files, generated if absent) N times (default
//! 1), for a profiler: under `valgrind --tool=callgrind` the instructions
//! of a start, per function and per thread, are repeatable where P3's
//! timings on a shared machine are not (the bench corpora are under
//! `target/nenjim-bench/corpora/`). Prints the artifacts of the last start
//! and the fastest start's wall time; every assembly is dropped only after
//! the last start (with `drop`, after its own start, as P3 does), outside
//! the measurement. With `floor`,
//! also (with `nostart`, only) P3's read+hash floor N times, and the ratio of the fastest of each.

use std::process::ExitCode;

use nenjim_journal_ref::JournalAssembly;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(root) = args.next() else {
        eprintln!("usage: p3_profile ROOT|files=F [N] [floor] [nostart] [drop]");
        return ExitCode::FAILURE;
    };
    let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    // `files=N`: the bench's cached large root of N files, generated if absent.
    let root = match root.strip_prefix("files=").map(str::parse::<usize>) {
        Some(Ok(files)) => {
            match nenjim_journal_benches::setup::cached_root(
                &nenjim_journal_benches::setup::large_root_spec(files),
            ) {
                Ok(dir) => dir.display().to_string(),
                Err(e) => {
                    eprintln!("p3_profile: generating the root of {files} files: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        Some(Err(e)) => {
            eprintln!("p3_profile: {root}: {e}");
            return ExitCode::FAILURE;
        }
        None => root,
    };
    let mut last = 0;
    let mut fastest = std::time::Duration::MAX;
    let mut kept = Vec::with_capacity(n);
    let starts = if std::env::args().any(|a| a == "nostart") {
        0
    } else {
        n
    };
    for _ in 0..starts {
        let assembly = JournalAssembly::new(std::path::Path::new(&root));
        let started = std::time::Instant::now();
        if let Err(e) = assembly.process().start() {
            eprintln!("p3_profile: {e}");
            return ExitCode::FAILURE;
        }
        fastest = fastest.min(started.elapsed());
        last = assembly.service().coordinates().map_or(0, |a| a.len());
        // `drop`: each assembly dropped after its start, as P3's bench does.
        if !std::env::args().any(|a| a == "drop") {
            kept.push(assembly);
        }
    }
    println!("{last} artifacts; fastest start {fastest:?}");
    if std::env::args().any(|a| a == "floor") {
        let cores = nenjim_journal_benches::floor::cores();
        let mut floor = std::time::Duration::MAX;
        for _ in 0..n {
            let started = std::time::Instant::now();
            if let Err(e) =
                nenjim_journal_benches::floor::read_and_hash(std::path::Path::new(&root), cores)
            {
                eprintln!("p3_profile: {e}");
                return ExitCode::FAILURE;
            }
            floor = floor.min(started.elapsed());
        }
        println!(
            "fastest floor {floor:?}: start/floor {:.3}",
            fastest.as_secs_f64() / floor.as_secs_f64()
        );
    }
    ExitCode::SUCCESS
}
