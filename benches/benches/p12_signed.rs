//! P12 the verifiable ledger (format section 10).
//!
//! - `p12_signed_append`: one append of a 10 kB revision to a signed root
//!   (the tiles and the signed checkpoint written after the commit)
//!   against the same append to an unsigned root. Target <= 1.15x. Each
//!   timed append is followed by an untimed one to the other root, so that
//!   both are measured in the same state of the disk.
//! - `p12_verified_start`: `start()` of the signed copy of the P3/P6 root
//!   with a verifier key (signature, size, the tree of every record)
//!   against the same start without one. Target <= 1.05x.
#![allow(clippy::panic, clippy::unwrap_used)] // a bench with a broken setup fails loudly

use std::fs;
use std::path::Path;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_benches::{corpus, setup};
use nenjim_journal_ref::{JournalAssembly, LoadOptions};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

use corpus::{append_body as body, append_revision as revision};

fn p12_signed_append(c: &mut Criterion) {
    let body = body();
    let dir = setup::bench_dir().join("p12");
    let _ = fs::remove_dir_all(&dir);
    let (skey, _) = setup::signing_key();
    let sample = revision("append-bench", 0, None, &body);
    if let Err(e) = setup::record("p12_signed", &serde_json::json!({ "bytes": sample.len() })) {
        eprintln!("cannot record the P12 sizes: {e}");
    }
    let mut group = c.benchmark_group("p12_signed_append");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    // Both writers open at once; each timed append is followed by an
    // untimed one of the other writer, after a `syncfs(2)` of the bench
    // directory, so both are measured in the same state of the disk (see
    // P8: measured one after the other, whichever ran first was slower).
    let open = |name: &str, options: WriterOptions| {
        let root = dir.join(name);
        fs::create_dir_all(&root).unwrap();
        FsJournalWriter::open(&root, options).unwrap()
    };
    let mut writers = [
        (open("unsigned", WriterOptions::new()), None),
        (
            open("signed", WriterOptions::new().signing_key(&skey)),
            None,
        ),
    ];
    rustix::fs::syncfs(fs::File::open(&dir).unwrap()).unwrap();
    let append = |(writer, head): &mut (FsJournalWriter, Option<(i64, RevisionDigest)>)| {
        corpus::timed_append(writer, head, &body).unwrap()
    };
    for (timed, name) in [(0, "unsigned"), (1, "signed")] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += append(&mut writers[timed]);
                    append(&mut writers[1 - timed]);
                }
                total
            })
        });
    }
    for (writer, _) in writers {
        writer.close().unwrap();
    }
    group.finish();
}

fn start(root: &Path, options: LoadOptions) -> JournalAssembly {
    let assembly = JournalAssembly::with_options(root, options);
    if let Err(e) = assembly.process().start() {
        panic!("start failed: {e}");
    }
    assembly
}

fn p12_verified_start(c: &mut Criterion) {
    let plain = setup::cached_root(&setup::large_root_spec(setup::files())).unwrap();
    let signed = setup::signed_copy(&plain).unwrap();
    let (_, vkey) = setup::signing_key();
    let mut group = c.benchmark_group("p12_verified_start");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    for (name, options) in [
        ("unverified", LoadOptions::new()),
        ("verified", LoadOptions::new().verifier(&vkey)),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(|| (), |()| start(&signed, options), BatchSize::PerIteration)
        });
    }
    group.finish();
}

criterion_group!(benches, p12_signed_append, p12_verified_start);
criterion_main!(benches);
