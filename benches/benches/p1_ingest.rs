//! P1 ingest: parse + validate + SHA-256 of one large revision (>= 1 MiB),
//! against SHA-256 alone over the same bytes. Target <= 2.5x. Also the
//! parse of a revision with a tenth of the releases, for the growth check
//! (parsing is linear in the text: the ratio of the two times against the
//! ratio of their sizes, with generous bounds).
#![allow(clippy::panic)] // a bench with a broken setup fails loudly

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nenjim_journal_benches::{corpus, setup};
use nenjim_journal_chain::ChainState;
use sha2::{Digest, Sha256};

fn p1(c: &mut Criterion) {
    let releases = setup::releases();
    let (text, _) = corpus::large_revision(releases, setup::SEED);
    assert!(
        text.len() >= 1 << 20 || releases < 3_000,
        "the large revision is only {} bytes",
        text.len()
    );
    let tenth = (releases / 10).max(1);
    let (small_text, _) = corpus::large_revision(tenth, setup::SEED);
    if let Err(e) = setup::record(
        "p1_ingest",
        &serde_json::json!({
            "bytes": text.len(),
            "releases": releases,
            "small_bytes": small_text.len(),
            "small_releases": tenth,
        }),
    ) {
        eprintln!("cannot record the P1 sizes: {e}");
    }
    let mut group = c.benchmark_group("p1_ingest");
    group
        .throughput(Throughput::Bytes(text.len() as u64))
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group.bench_function("sha256_floor", |b| {
        b.iter(|| Sha256::digest(black_box(text.as_bytes())))
    });
    group.bench_function("parse", |b| {
        b.iter(|| nenjim_journal_parser::parse(black_box(&text)).map(|r| r.releases().len()))
    });
    group.bench_function("parse_tenth", |b| {
        b.iter(|| nenjim_journal_parser::parse(black_box(&small_text)).map(|r| r.releases().len()))
    });
    let empty = ChainState::new();
    group.bench_function("ingest", |b| {
        b.iter(|| {
            nenjim_journal_parser::parse(black_box(&text))
                .and_then(|r| empty.ingest_revision(r))
                .map(|i| i.state().len())
        })
    });
    group.finish();
}

criterion_group!(benches, p1);
criterion_main!(benches);
