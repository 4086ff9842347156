//! P2 peer: our parse of the synthetic worldview, against serde_json parsing
//! the same worldview as crates.io-index JSON lines into typed (serde
//! derive) structs. Target <= 0.5x (issue 15), restated by issue 32: both
//! sides read every value once after the parse (`journal_parse_read`
//! against `serde_json_index_read`), so that a model that decodes a value
//! on first access pays for it here; the parses alone are reported beside.
#![allow(clippy::panic)] // a bench with a broken setup fails loudly

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use nenjim_journal_benches::corpus::{self, IndexEntry};
use nenjim_journal_benches::{read, setup};

/// Reads every field of a parsed index line once (as [`read::revision`]
/// does every value of a revision); returns a count of what it read.
fn read_entry(e: &IndexEntry) -> usize {
    let mut n = e.name.len() + e.vers.len() + e.cksum.len() + usize::from(e.yanked);
    n += e.size.unwrap_or(0) as usize + e.v.unwrap_or(0) as usize;
    n += e.links.as_ref().map_or(0, String::len);
    n += e.license.as_ref().map_or(0, String::len);
    n += e.description.as_ref().map_or(0, String::len);
    for (feature, enables) in &e.features {
        n += feature.len() + enables.iter().map(String::len).sum::<usize>();
    }
    for d in &e.deps {
        n += d.name.len() + d.req.len() + usize::from(d.optional) + usize::from(d.default_features);
        n += d.features.iter().map(String::len).sum::<usize>();
        n += d.target.as_ref().map_or(0, String::len) + d.package.as_ref().map_or(0, String::len);
        n += black_box(d.kind) as usize;
    }
    n
}

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
    group.bench_function("journal_parse_read", |b| {
        b.iter(|| nenjim_journal_parser::parse(black_box(&text)).map(|r| read::revision(&r)))
    });
    group.bench_function("serde_json_index_read", |b| {
        b.iter(|| serde_parse(black_box(&json)).map(|v| v.iter().map(read_entry).sum::<usize>()))
    });
    group.finish();
}

criterion_group!(benches, p2);
criterion_main!(benches);
