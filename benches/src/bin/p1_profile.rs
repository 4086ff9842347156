//! `p1_profile [N] [RELEASES] [model] [crlf] [dump]`: parses the P1 revision N
//! times (default 20; RELEASES default 3000; with `crlf`, its lines ended
//! by CRLF), or with `model` builds it N times from its values
//! (`floor::rebuild`, no text read), for a profiler (`valgrind --tool=callgrind`,
//! `perf record`): instruction counts of the parser alone, without
//! criterion's machinery. Prints the releases parsed, so nothing is
//! optimized away. With `dump`, prints the text instead.

use std::process::ExitCode;

use nenjim_journal_benches::{corpus, floor, setup};

fn main() -> ExitCode {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(20);
    let releases = args.get(1).copied().unwrap_or(3_000);
    let (mut text, _) = corpus::large_revision(releases, setup::SEED);
    if std::env::args().any(|a| a == "crlf") {
        text = text.replace('\n', "\r\n");
    }
    if std::env::args().any(|a| a == "dump") {
        print!("{text}");
        return ExitCode::SUCCESS;
    }
    let mut total = 0usize;
    if std::env::args().any(|a| a == "model") {
        let revision = match nenjim_journal_parser::parse(&text) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("p1_profile: {e}");
                return ExitCode::FAILURE;
            }
        };
        for _ in 0..n {
            match floor::rebuild(std::hint::black_box(&revision)) {
                Ok(r) => total += r.releases().len(),
                Err(e) => {
                    eprintln!("p1_profile: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        println!("{total} releases built");
        return ExitCode::SUCCESS;
    }
    for _ in 0..n {
        match nenjim_journal_parser::parse(std::hint::black_box(&text)) {
            Ok(r) => total += r.releases().len(),
            Err(e) => {
                eprintln!("p1_profile: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!("{total} releases parsed ({} bytes each time)", text.len());
    ExitCode::SUCCESS
}
