//! P6 refresh: `refresh()` of an unchanged root against the read+hash
//! floor. Target <= 1.2x.
#![allow(clippy::panic)] // a bench with a broken setup fails loudly

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use nenjim_journal_benches::{floor, setup};
use nenjim_journal_ref::JournalAssembly;

fn p6(c: &mut Criterion) {
    let files = setup::files();
    let root = match setup::cached_root(&setup::large_root_spec(files)) {
        Ok(root) => root,
        Err(e) => panic!("cannot generate the P6 root: {e}"),
    };
    let list = floor::journal_files(&root).unwrap_or_default();
    let bytes = floor::total_bytes(&list).unwrap_or(0);
    let cores = floor::cores();
    let assembly = JournalAssembly::new(&root);
    if let Err(e) = assembly.process().start() {
        panic!("start failed: {e}");
    }
    let manager = assembly.manager();
    match manager.refresh() {
        Ok(report) => assert_eq!((report.ingested(), report.unchanged()), (0, list.len())),
        Err(e) => panic!("refresh failed: {e}"),
    }
    if let Err(e) = setup::record(
        "p6_refresh",
        &serde_json::json!({ "files": list.len(), "bytes": bytes, "cores": cores }),
    ) {
        eprintln!("cannot record the P6 sizes: {e}");
    }
    let mut group = c.benchmark_group("p6_refresh");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    group.bench_function("floor", |b| {
        b.iter(|| floor::read_and_hash(black_box(&root), cores).map(|(x, _)| x))
    });
    group.bench_function("refresh", |b| {
        b.iter(|| manager.refresh().map(|r| r.unchanged()))
    });
    group.finish();
}

criterion_group!(benches, p6);
criterion_main!(benches);
