//! P12 the verifiable ledger (format section 10).
//!
//! - `p12_signed_append`: one append of a 10 kB revision to a signed root
//!   at checkpoint interval zero (the tiles and the signed checkpoint
//!   written after every commit, before the append returns) against the
//!   same append to an unsigned root. Report only since issue 35 restated
//!   P12 at a 1 s interval (the barriers per append are counted by
//!   `p12b_checkpoint`). Each timed append is followed by an untimed one
//!   to the other root, so that both are measured in the same state of
//!   the disk.
//! - `p12_interval_append`: the same appends to a signed root at a 1 s
//!   checkpoint interval (a commit grows the tree, the writer's timer
//!   thread publishes once a second) against an unsigned root. Target
//!   <= 1.15x. A sample is a block of appends of one writer whose
//!   appends take 4 s in all (`NENJIM_BENCH_P12_INTERVAL_SECS`; one
//!   criterion iteration whose time is the block's mean append, flat
//!   sampling, 10 samples), so that it holds several publications, whose cost
//!   (their writes and syncs, on the timer thread, beside the appends) is
//!   in the appends timed around them; each timed block is followed by an
//!   untimed one of the other writer, and by an untimed wait for the
//!   signed writer's checkpoint to cover its tip, so that the signed
//!   writer's last publication never falls in an unsigned block. The
//!   publications inside the timed blocks are counted and recorded
//!   (`p12_interval.json`).
//! - `p12_verified_start`: `start()` of the signed copy of the P3/P6 root
//!   with a verifier key (signature, size, the tree of every record)
//!   against the same start without one. Target <= 1.05x.
#![allow(clippy::panic, clippy::unwrap_used)] // a bench with a broken setup fails loudly

use std::cell::RefCell;
use std::fs;
use std::path::Path;
use std::time::Duration;

use criterion::{BatchSize, Criterion, SamplingMode, criterion_group, criterion_main};
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

/// One writer and the head of its chain.
type Appending = (FsJournalWriter, Option<(i64, RevisionDigest)>);

/// What one block of appends measured.
#[derive(Clone, Copy, Default)]
struct Block {
    appends: u64,
    /// The appends' summed time.
    timed: Duration,
    /// The publications of a checkpoint seen meanwhile (0 unsigned).
    publications: u64,
}

/// Appends until the appends took `until` in all (then `appends` is
/// their number), or `count` appends.
fn block(appending: &mut Appending, body: &str, until: Duration, count: Option<u64>) -> Block {
    let (writer, head) = appending;
    let mut done = Block::default();
    let mut covers = writer.checkpoint_covers();
    while count.map_or(done.timed < until, |n| done.appends < n) {
        done.timed += corpus::timed_append(writer, head, body).unwrap();
        done.appends += 1;
        let now = writer.checkpoint_covers();
        if now != covers {
            done.publications += 1;
            covers = now;
        }
    }
    done
}

/// Waits until the signed writer's checkpoint covers its tip (untimed).
fn settle(signed: &Appending) {
    signed.0.wait_for_checkpoint(signed.0.tip()).unwrap();
}

fn p12_interval_append(c: &mut Criterion) {
    const SAMPLES: usize = 10;
    let interval = Duration::from_secs(1);
    let seconds = setup::env_usize("NENJIM_BENCH_P12_INTERVAL_SECS", 4).max(3) as u64;
    let until = Duration::from_secs(seconds);
    let body = body();
    let dir = setup::bench_dir().join("p12_interval");
    let _ = fs::remove_dir_all(&dir);
    let (skey, _) = setup::signing_key();
    let open = |name: &str, options: WriterOptions| {
        let root = dir.join(name);
        fs::create_dir_all(&root).unwrap();
        FsJournalWriter::open(&root, options).unwrap()
    };
    let mut writers: [Appending; 2] = [
        (open("unsigned", WriterOptions::new()), None),
        (
            open(
                "signed",
                WriterOptions::new()
                    .signing_key(&skey)
                    .checkpoint_interval(interval),
            ),
            None,
        ),
    ];
    rustix::fs::syncfs(fs::File::open(&dir).unwrap()).unwrap();
    let mut group = c.benchmark_group("p12_interval_append");
    // One iteration is a block of appends (one sample, with flat sampling
    // and a measurement time below a block's): criterion's per-iteration
    // time is the block's mean append.
    group
        .sample_size(SAMPLES)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    // Each iteration's blocks, (unsigned, signed), the untimed one too.
    let pairs: [RefCell<Vec<(Block, Block)>>; 2] = Default::default();
    for (timed, name) in [(0, "unsigned"), (1, "signed")] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let done = block(&mut writers[timed], &body, until, None);
                    if timed == 1 {
                        settle(&writers[1]);
                    }
                    let other = block(&mut writers[1 - timed], &body, until, Some(done.appends));
                    if timed == 0 {
                        settle(&writers[1]);
                    }
                    let (unsigned, signed) = if timed == 0 {
                        (done, other)
                    } else {
                        (other, done)
                    };
                    pairs[timed].borrow_mut().push((unsigned, signed));
                    total += done.timed / done.appends.max(1) as u32;
                }
                total
            })
        });
    }
    group.finish();
    for (writer, _) in writers {
        writer.close().unwrap();
    }
    // The samples are the last iterations of each routine (after its
    // warm-up); the untimed block beside each gives a second, paired
    // figure: each signed block's mean append over that of the unsigned
    // block next to it, measured seconds apart.
    if pairs.iter().any(|p| p.borrow().is_empty()) {
        return; // filtered out: nothing measured
    }
    let samples = |timed: usize| {
        let pairs = pairs[timed].borrow();
        pairs[pairs.len().saturating_sub(SAMPLES)..].to_vec()
    };
    let summary = |blocks: Vec<Block>| {
        let secs = |b: &Block| b.timed.as_secs_f64();
        serde_json::json!({
            "appends": blocks.iter().map(|b| b.appends).sum::<u64>(),
            "seconds": blocks.iter().map(secs).sum::<f64>(),
            "publications": blocks.iter().map(|b| b.publications).sum::<u64>(),
            "min_sample_seconds": blocks.iter().map(secs).fold(f64::INFINITY, f64::min),
            "max_sample_seconds": blocks.iter().map(secs).fold(0.0, f64::max),
        })
    };
    let mean = |b: &Block| b.timed.as_secs_f64() / b.appends.max(1) as f64;
    let mut paired: Vec<f64> = samples(0)
        .iter()
        .chain(&samples(1))
        .map(|(u, s)| mean(s) / mean(u))
        .collect();
    paired.sort_by(f64::total_cmp);
    let median = paired.get(paired.len() / 2).copied();
    let report = serde_json::json!({
        "bytes": revision("append-bench", 0, None, &body).len(),
        "interval_ms": interval.as_millis() as u64,
        "samples": SAMPLES,
        "block_seconds": seconds,
        "unsigned": summary(samples(0).iter().map(|p| p.0).collect()),
        "signed": summary(samples(1).iter().map(|p| p.1).collect()),
        "paired_median": median,
        "paired_min": paired.first(),
        "paired_max": paired.last(),
        "pairs": paired.len(),
    });
    eprintln!("p12_interval_append: {report}");
    if let Err(e) = setup::record("p12_interval", &report) {
        eprintln!("cannot record the P12 interval figures: {e}");
    }
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

criterion_group!(
    benches,
    p12_signed_append,
    p12_interval_append,
    p12_verified_start
);
criterion_main!(benches);
