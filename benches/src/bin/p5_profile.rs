//! `p5_profile CHAIN N WHICH`: starts the P5 root (a chain of one revision
//! and a chain of CHAIN revisions, default 10 000) and runs N
//! `revision_as_of` lookups (default 1 000 000) in the middle of the chain
//! of one (WHICH 0), of the long one (1) or of both (default), for a
//! profiler: under `valgrind --tool=callgrind --toggle-collect='p5_profile::lookups'`
//! the instructions per lookup are repeatable where the P5 timings of a
//! shared machine are not.

use std::process::ExitCode;

use nenjim_journal_api::JournalService;
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion};
use nenjim_journal_benches::setup;
use nenjim_journal_ref::JournalAssembly;

/// `n` lookups of `as_of` in `artifact`; how many found a revision.
#[inline(never)]
fn lookups(
    service: &dyn JournalService,
    artifact: &ArtifactCoordinate,
    as_of: JournalVersion,
    n: usize,
) -> usize {
    (0..n)
        .filter(|_| {
            service
                .revision_as_of(std::hint::black_box(artifact), std::hint::black_box(as_of))
                .is_ok_and(|r| r.is_some())
        })
        .count()
}

fn main() -> ExitCode {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let chain = args.first().copied().unwrap_or(10_000);
    let n = args.get(1).copied().unwrap_or(1_000_000);
    // 0: the chain of one only, 1: the long chain only, else both.
    let which = args.get(2).copied().unwrap_or(2);
    let root = match setup::chain_root(chain) {
        Ok(root) => root,
        Err(e) => {
            eprintln!("p5_profile: {e}");
            return ExitCode::FAILURE;
        }
    };
    let assembly = JournalAssembly::new(&root);
    if let Err(e) = assembly.process().start() {
        eprintln!("p5_profile: {e}");
        return ExitCode::FAILURE;
    }
    let service = assembly.service();
    let universe = setup::chain_universe();
    for (name, long) in [(&universe[1], false), (&universe[0], true)] {
        if which == usize::from(!long) {
            continue;
        }
        let Ok(artifact) = name.parse::<ArtifactCoordinate>() else {
            return ExitCode::FAILURE;
        };
        let revisions = service.revisions(&artifact).unwrap_or_default();
        let Some(middle) = revisions.get(revisions.len() / 2) else {
            return ExitCode::FAILURE;
        };
        let as_of = middle.journal_version();
        let found = lookups(&*service, &artifact, as_of, n);
        println!(
            "{name}: {} revisions, {found} of {n} lookups found",
            revisions.len()
        );
    }
    ExitCode::SUCCESS
}
