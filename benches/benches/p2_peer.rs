//! P2 peer: our parse of the synthetic worldview, against serde_json parsing
//! the same worldview as crates.io-index JSON lines into typed (serde
//! derive) structs. Target <= 1.0x.
#![allow(clippy::panic)] // a bench with a broken setup fails loudly

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use nenjim_journal_benches::corpus::{self, IndexEntry};
use nenjim_journal_benches::setup;

fn serde_parse(json: &str) -> serde_json::Result<Vec<IndexEntry>> {
    json.lines().map(serde_json::from_str).collect()
}

fn p2(c: &mut Criterion) {
    let releases = setup::releases();
    let (text, json) = corpus::large_revision(releases, setup::SEED);
    let parsed = serde_parse(&json).map(|v| v.len()).unwrap_or(0);
    assert_eq!(parsed, releases, "the JSON peer does not parse");
    if let Err(e) = setup::record(
        "p2_peer",
        &serde_json::json!({
            "journal_bytes": text.len(),
            "json_bytes": json.len(),
            "releases": releases,
        }),
    ) {
        eprintln!("cannot record the P2 sizes: {e}");
    }
    let mut group = c.benchmark_group("p2_peer");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group.bench_function("journal_parse", |b| {
        b.iter(|| nenjim_journal_parser::parse(black_box(&text)).map(|r| r.releases().len()))
    });
    group.bench_function("serde_json_index", |b| {
        b.iter(|| serde_parse(black_box(&json)).map(|v| v.len()))
    });
    group.finish();
}

criterion_group!(benches, p2);
criterion_main!(benches);
