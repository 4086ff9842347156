//! P1 ingest: parse + validate + SHA-256 of one large revision (>= 1 MiB),
//! against SHA-256 alone over the same bytes. Target <= 2.5x. Also the
//! parse of a revision with a tenth of the releases, for the growth check
//! (parsing is linear in the text: the ratio of the two times against the
//! ratio of their sizes, with generous bounds). And, report only, the least
//! any interning parser does over the same text ([`split_and_look_up`]),
//! against the same SHA-256: what P1's 2.5x leaves room for; those
//! look-ups alone (`look_up`: the tokens split before timing); and the least
//! any parser returning the api's model does after reading the text
//! ([`floor::rebuild`]: the revision built again from its values).
//!
//! P1r (issue 32): the same ingest of a revision of typical size (10-20 kB,
//! as real roots hold: the first revision of the same generator with at
//! least 15 000 bytes) against SHA-256 of it, `ingest_typical` against
//! `sha256_typical`. Target <= 2.5x. Its floors, as P1's (report only):
//! `look_up_typical` and `build_model_typical`.
#![allow(clippy::panic)] // a bench with a broken setup fails loudly

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nenjim_journal_benches::{corpus, floor, setup};
use nenjim_journal_chain::ChainState;
use rustc_hash::FxHashSet;
use sha2::{Digest, Sha256};

/// The tokens of a line as the parser sees them: runs of non-spaces, and
/// a quoted string with the rest of its line as one token (the parser
/// caches a quoted string whole).
fn tokens(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = line;
    std::iter::from_fn(move || {
        rest = rest.trim_start_matches(' ');
        if rest.is_empty() {
            return None;
        }
        let end = if rest.starts_with('"') {
            rest.len()
        } else {
            rest.find(' ').unwrap_or(rest.len())
        };
        let (token, after) = rest.split_at(end);
        rest = after;
        Some(token)
    })
}

/// The least an interning parser of this format does: find every line and
/// every token and look each token up in a table of the text's distinct
/// tokens (built before anything is timed), building no value and checking
/// no rule (not even section 1's bytes). Returns how many tokens were found,
/// so nothing is optimized away.
fn split_and_look_up(text: &str, table: &FxHashSet<&str>) -> usize {
    text.split('\n')
        .flat_map(tokens)
        .filter(|token| table.contains(token))
        .count()
}

/// Looks every token of `tokens` (split before timing) up in `table`,
/// nothing split, built or checked; returns how many were found.
fn look_up(tokens: &[&str], table: &FxHashSet<&str>) -> usize {
    tokens.iter().filter(|token| table.contains(*token)).count()
}

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
    // The typical revision: the fewest releases giving at least 15 000 bytes.
    let typical = (1..releases.max(2))
        .map(|n| corpus::large_revision(n, setup::SEED).0)
        .find(|t| t.len() >= 15_000)
        .unwrap_or_else(|| panic!("no revision of 15 000 bytes under {releases} releases"));
    assert!(
        typical.len() <= 20_000,
        "the typical revision is {} bytes",
        typical.len()
    );
    if let Err(e) = setup::record(
        "p1_ingest",
        &serde_json::json!({
            "bytes": text.len(),
            "releases": releases,
            "small_bytes": small_text.len(),
            "small_releases": tenth,
            "typical_bytes": typical.len(),
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
    // Every token of the text, in order (split once, before timing).
    let all_tokens: Vec<&str> = text.split('\n').flat_map(tokens).collect();
    let table: FxHashSet<&str> = all_tokens.iter().copied().collect();
    group.bench_function("split_and_look_up", |b| {
        b.iter(|| split_and_look_up(black_box(&text), &table))
    });
    // The lookups alone: every token of the text (split before timing)
    // looked up in the same table, nothing split, built or checked.
    group.bench_function("look_up", |b| {
        b.iter(|| look_up(black_box(&all_tokens), &table))
    });
    let parsed = nenjim_journal_parser::parse(&text)
        .unwrap_or_else(|e| panic!("the P1 revision does not parse: {e}"));
    group.bench_function("build_model", |b| {
        b.iter(|| floor::rebuild(black_box(&parsed)).map(|r| r.releases().len()))
    });
    let empty = ChainState::new();
    group.bench_function("sha256_typical", |b| {
        b.iter(|| Sha256::digest(black_box(typical.as_bytes())))
    });
    // P1r's floors, as P1's: the look-ups of its tokens (split before
    // timing) in a table of its distinct tokens, and its model built from
    // its values through the builders.
    let typical_tokens: Vec<&str> = typical.split('\n').flat_map(tokens).collect();
    let typical_table: FxHashSet<&str> = typical_tokens.iter().copied().collect();
    group.bench_function("look_up_typical", |b| {
        b.iter(|| look_up(black_box(&typical_tokens), &typical_table))
    });
    let typical_parsed = nenjim_journal_parser::parse(&typical)
        .unwrap_or_else(|e| panic!("the P1r revision does not parse: {e}"));
    group.bench_function("build_model_typical", |b| {
        b.iter(|| floor::rebuild(black_box(&typical_parsed)).map(|r| r.releases().len()))
    });
    group.bench_function("ingest_typical", |b| {
        b.iter(|| {
            nenjim_journal_parser::parse(black_box(&typical))
                .and_then(|r| empty.ingest_revision(r))
                .map(|i| i.state().len())
        })
    });
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
