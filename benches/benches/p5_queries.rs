//! P5 queries: `latest`, `revision_as_of` and `release` on a chain of one
//! revision against a chain of `NENJIM_BENCH_CHAIN` revisions, both in the
//! same started Journal. Target: within 2x of each other.
//!
//! Issue 32 asks the first access of a release's values reported:
//! `first_access` reads every value of the middle release of a revision
//! just parsed (the parse outside the timing), `again` the same read of a
//! revision whose values were read before. A model that decoded values
//! on first access would show the decoding as their difference.
#![allow(clippy::panic)] // a bench with a broken setup fails loudly

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, ReleaseVersion};
use nenjim_journal_benches::{corpus, read, setup};
use nenjim_journal_ref::JournalAssembly;

struct Target {
    artifact: ArtifactCoordinate,
    revisions: usize,
    /// A version in the middle of the chain, one second after a revision.
    as_of: JournalVersion,
    /// The exact version of that revision.
    exact: JournalVersion,
    release: ReleaseVersion,
}

fn p5(c: &mut Criterion) {
    let long = setup::chain();
    let root = match setup::chain_root(long) {
        Ok(root) => root,
        Err(e) => panic!("cannot generate the P5 root: {e}"),
    };
    let assembly = JournalAssembly::new(&root);
    if let Err(e) = assembly.process().start() {
        panic!("start failed: {e}");
    }
    let service = assembly.service();
    let universe = setup::chain_universe();
    let target = |name: &str| -> Target {
        let artifact: ArtifactCoordinate = name.parse().unwrap_or_else(|e| panic!("{e}"));
        let revisions = service.revisions(&artifact).unwrap_or_default();
        assert!(!revisions.is_empty(), "{name} has no revisions");
        let middle = &revisions[revisions.len() / 2];
        let exact = middle.journal_version();
        let as_of: JournalVersion = {
            // One second later, still before the next revision (one day apart).
            let text = exact.to_string();
            match text.as_bytes()[14] {
                d @ b'0'..=b'8' => format!("{}{}Z", &text[..14], char::from(d + 1))
                    .parse()
                    .unwrap_or(exact),
                _ => exact,
            }
        };
        let release = middle.releases()[middle.releases().len() / 2]
            .version()
            .clone();
        Target {
            artifact,
            revisions: revisions.len(),
            as_of,
            exact,
            release,
        }
    };
    let targets = [target(&universe[1]), target(&universe[0])];
    if let Err(e) = setup::record(
        "p5_queries",
        &serde_json::json!({ "short": targets[0].revisions, "long": targets[1].revisions }),
    ) {
        eprintln!("cannot record the P5 sizes: {e}");
    }
    let mut group = c.benchmark_group("p5_queries");
    group
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for t in &targets {
        group.bench_with_input(BenchmarkId::new("latest", t.revisions), t, |b, t| {
            b.iter(|| service.latest(black_box(&t.artifact)).map(|r| r.is_some()))
        });
        group.bench_with_input(
            BenchmarkId::new("revision_as_of", t.revisions),
            t,
            |b, t| {
                b.iter(|| {
                    service
                        .revision_as_of(black_box(&t.artifact), black_box(t.as_of))
                        .map(|r| r.is_some())
                })
            },
        );
        group.bench_with_input(BenchmarkId::new("release", t.revisions), t, |b, t| {
            b.iter(|| {
                service
                    .release(black_box(&t.artifact), t.exact, black_box(&t.release))
                    .map(|r| r.is_some())
            })
        });
    }
    let (text, _) = corpus::large_revision(40, setup::SEED);
    let parse =
        || nenjim_journal_parser::parse(&text).unwrap_or_else(|e| panic!("the P5 revision: {e}"));
    let middle = |r: &nenjim_journal_api::model::JournalRevision| {
        read::release(&r.releases()[r.releases().len() / 2])
    };
    group.bench_function("first_access", |b| {
        b.iter_batched(parse, |r| (middle(&r), r), criterion::BatchSize::SmallInput)
    });
    let warm = parse();
    black_box(middle(&warm));
    group.bench_function("again", |b| b.iter(|| middle(black_box(&warm))));
    group.finish();
}

criterion_group!(benches, p5);
criterion_main!(benches);
