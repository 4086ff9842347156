//! P3 start: `start()` on a large root against the floor (list the root,
//! read every file and SHA-256 it on all cores), at `NENJIM_BENCH_FILES`
//! files and at a tenth of that, for the linear-growth check.
#![allow(clippy::panic)] // a bench with a broken setup fails loudly

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use nenjim_journal_benches::{floor, setup};
use nenjim_journal_ref::JournalAssembly;

fn p3(c: &mut Criterion) {
    let full = setup::files();
    let small = (full / 10).max(setup::REVISIONS);
    let cores = floor::cores();
    let mut sizes = Vec::new();
    let mut group = c.benchmark_group("p3_start");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    for files in [small, full] {
        let spec = setup::large_root_spec(files);
        let root = match setup::cached_root(&spec) {
            Ok(root) => root,
            Err(e) => panic!("cannot generate the P3 root: {e}"),
        };
        let list = floor::journal_files(&root).unwrap_or_default();
        let bytes = floor::total_bytes(&list).unwrap_or(0);
        sizes.push(serde_json::json!({
            "files": list.len(), "bytes": bytes, "artifacts": spec.artifacts,
        }));
        let n = list.len();
        group.bench_with_input(BenchmarkId::new("floor", n), &root, |b, root| {
            b.iter(|| floor::read_and_hash(black_box(root), cores).map(|(x, _)| x))
        });
        group.bench_with_input(BenchmarkId::new("start", n), &root, |b, root| {
            b.iter_batched(
                || JournalAssembly::new(root),
                |assembly| {
                    if let Err(e) = assembly.process().start() {
                        panic!("start failed: {e}");
                    }
                    assembly // dropped outside the measurement
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
    if let Err(e) = setup::record(
        "p3_start",
        &serde_json::json!({ "cores": cores, "sizes": sizes }),
    ) {
        eprintln!("cannot record the P3 sizes: {e}");
    }
}

criterion_group!(benches, p3);
criterion_main!(benches);
