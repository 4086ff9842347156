//! P8 the append path.
//!
//! - `p8_append`: one append of a 10 kB revision through `FsJournalWriter`
//!   against the floor of a durable file write (write a file of the same
//!   size, fsync it, rename it, fsync the directory). Target <= 1.5x.
//! - `p8_ledger_start`: `start()` of a root with a ledger against the same
//!   root without one. Target <= 1.05x.
#![allow(clippy::panic, clippy::unwrap_used)] // a bench with a broken setup fails loudly

use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use nenjim_journal_api::append::JournalWriter;
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_benches::{corpus, setup};
use nenjim_journal_ref::JournalAssembly;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

/// A revision body of about 10 kB: releases with dependencies.
fn body() -> String {
    let mut body = String::new();
    let mut i = 0;
    while body.len() < 9_700 {
        body.push_str(&format!(
            "\nRELEASE 1.{i}.0\n  LICENSE Apache-2.0 OR MIT\n  CONTENT sha256:{:064x} {}\n  DEPENDS serde [1.0.0,2.0.0)\n  DEPENDS tokio [1.{i}.0,2.0.0) \"runtime\"\n",
            i + 1,
            1000 + i
        ));
        i += 1;
    }
    body
}

/// The revision of `artifact` at second `n` after `predecessor` (or a genesis).
fn revision(artifact: &str, n: i64, predecessor: Option<&RevisionDigest>, body: &str) -> String {
    let at = corpus::timestamp(1_767_225_600 + n);
    let predecessor = predecessor.map_or_else(|| "GENESIS".to_owned(), ToString::to_string);
    format!(
        "FORMAT nenjim-journal/1\nARTIFACT {artifact}\nJOURNAL_VERSION {at}\nPREDECESSOR {predecessor}\nDESCRIPTION \"append bench\"\n{body}"
    )
}

/// The floor: a new file of `bytes`, synced, renamed, its directory synced.
fn durable_write(dir: &Path, n: u64, bytes: &[u8]) {
    let tmp = dir.join(format!(".tmp-{n}"));
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .unwrap();
    file.write_all(bytes).unwrap();
    file.sync_all().unwrap();
    fs::rename(&tmp, dir.join(format!("{n}.journal"))).unwrap();
    fs::File::open(dir).unwrap().sync_all().unwrap();
}

fn p8_append(c: &mut Criterion) {
    let body = body();
    let sample = revision("append-bench", 0, None, &body);
    let dir = setup::bench_dir().join("p8");
    let _ = fs::remove_dir_all(&dir);
    let (floor_dir, root) = (dir.join("floor"), dir.join("root"));
    fs::create_dir_all(&floor_dir).unwrap();
    fs::create_dir_all(&root).unwrap();
    if let Err(e) = setup::record("p8_append", &serde_json::json!({ "bytes": sample.len() })) {
        eprintln!("cannot record the P8 sizes: {e}");
    }
    let mut writer = FsJournalWriter::open(&root, WriterOptions::new()).unwrap();
    let mut group = c.benchmark_group("p8_append");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    let mut n = 0u64;
    group.bench_function("floor", |b| {
        b.iter(|| {
            n += 1;
            durable_write(&floor_dir, n, sample.as_bytes());
        })
    });
    let mut head: Option<(i64, RevisionDigest)> = None;
    group.bench_function("append", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (n, predecessor) = head.map_or((0, None), |(n, d)| (n + 1, Some(d)));
                let text = revision("append-bench", n, predecessor.as_ref(), &body);
                let start = std::time::Instant::now();
                let appended = writer.append(&text).unwrap();
                total += start.elapsed();
                head = Some((n, *appended.revision().digest()));
            }
            total
        })
    });
    group.finish();
}

/// A copy of `root` (hard links: the same files) given a ledger by a writer.
fn p8_ledger_start(c: &mut Criterion) {
    let plain = setup::cached_root(&setup::large_root_spec(setup::files())).unwrap();
    let ledger = setup::ledger_copy(&plain).unwrap();
    let mut group = c.benchmark_group("p8_ledger_start");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    for (name, root) in [("plain", &plain), ("ledger", &ledger)] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || JournalAssembly::new(root),
                |assembly| {
                    if let Err(e) = assembly.process().start() {
                        panic!("start failed: {e}");
                    }
                    assembly
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, p8_append, p8_ledger_start);
criterion_main!(benches);
