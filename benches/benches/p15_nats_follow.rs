//! P15 follow latency on NATS (issue 22; not criterion: one figure per
//! append, of which the percentiles are reported).
//!
//! A writer (`NatsJournalWriter`, this thread) appends
//! `NENJIM_BENCH_FOLLOW_APPENDS` (default 1 000) successive 10 kB
//! revisions (P8's) of one artifact to a root on a `nats-server` started
//! here (127.0.0.1, a free port); a follower (another thread) holds a
//! `follow(true)` `RevisionCursor` of `NatsRoot::assembly` over the same
//! root, on its own connection. For each append, the latency is the time
//! from the writer's `append` returning to the follower's `next()`
//! returning that revision (both `Instant`s, one monotonic clock; a
//! revision the follower held before the append returned counts 0 and is
//! counted as `early`). The writer waits for the follower to hold each
//! revision before it appends the next (the latency of one append, no
//! queue behind it). Ten appends before the measured ones warm both
//! connections up. p50 and p99 (nearest rank) are recorded for `cargo
//! xtask bench-report`: target p99 <= 20 ms.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // a bench with a broken setup fails loudly

mod nats_common;

use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::model::ReplayRequest;
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_benches::setup;
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_writer::WriterOptions;

/// Appends before the measured ones (connections and caches warmed up).
const WARM_UP: usize = 10;

/// The nearest-rank `p`-th percentile of `sorted` (ascending, non-empty).
fn percentile(sorted: &[u64], p: f64) -> u64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn main() -> ExitCode {
    if !setup::selected("p15_nats_follow") {
        return ExitCode::SUCCESS;
    }
    let appends = setup::env_usize("NENJIM_BENCH_FOLLOW_APPENDS", 1000).max(1);
    let total = WARM_UP + appends;
    let server = NatsServer::start();
    let root = nats_common::root(&server, "p15");
    // The writer creates the root's stream (and puts the releases' blobs
    // into the root's own bucket, its content store).
    let mut writer = root
        .writer(WriterOptions::new().content_store(root.to_string()))
        .unwrap();
    let body = nats_common::body_of(&mut writer, "p15");
    let assembly = root.assembly();
    assembly.process().start().unwrap();
    let service = assembly.service();
    let mut cursor = service
        .replay(&ReplayRequest::after(0).follow(true))
        .unwrap();

    let (held_tx, held_rx) = mpsc::channel::<(u64, Instant)>();
    let follower = std::thread::spawn(move || {
        for _ in 0..total {
            let revision = match cursor.next_timeout(Duration::from_secs(30)) {
                Ok(Some(revision)) => revision,
                Ok(None) => panic!("the follower got nothing within 30 s"),
                Err(e) => panic!("the follower failed: {e}"),
            };
            let at = Instant::now();
            if held_tx.send((revision.sequence(), at)).is_err() {
                return;
            }
        }
    });

    let mut returned = Vec::with_capacity(total);
    let mut held = Vec::with_capacity(total);
    let mut append_ns = Vec::with_capacity(total);
    let mut head: Option<RevisionDigest> = None;
    for n in 0..total {
        let text = nats_common::revision("follow-bench", n as i64, head.as_ref(), &body);
        let start = Instant::now();
        let appended = writer.append(&text).unwrap();
        let at = Instant::now();
        head = Some(*appended.revision().digest());
        let (sequence, got) = held_rx.recv().expect("the follower ended early");
        assert_eq!(
            sequence,
            appended.revision().sequence(),
            "the follower held another revision than the one appended"
        );
        returned.push(at);
        held.push(got);
        append_ns.push((at - start).as_nanos() as u64);
    }
    follower.join().expect("the follower panicked");
    writer.close().unwrap();
    drop(service);
    drop(assembly);
    drop(server);

    let mut early = 0usize;
    let mut latencies: Vec<u64> = returned[WARM_UP..]
        .iter()
        .zip(&held[WARM_UP..])
        .map(|(returned, held)| {
            if held < returned {
                early += 1;
            }
            held.saturating_duration_since(*returned).as_nanos() as u64
        })
        .collect();
    latencies.sort_unstable();
    let mut append_sorted = append_ns[WARM_UP..].to_vec();
    append_sorted.sort_unstable();
    let mean = latencies.iter().sum::<u64>() as f64 / latencies.len() as f64;
    let (p50, p99, max) = (
        percentile(&latencies, 50.0),
        percentile(&latencies, 99.0),
        latencies[latencies.len() - 1],
    );
    eprintln!(
        "p15_nats_follow: {appends} appends of {} bytes: follow latency p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms, mean {:.3} ms ({early} held before append returned); append p50 {:.3} ms",
        nats_common::revision("follow-bench", 0, None, &body).len(),
        p50 as f64 / 1e6,
        p99 as f64 / 1e6,
        max as f64 / 1e6,
        mean / 1e6,
        percentile(&append_sorted, 50.0) as f64 / 1e6,
    );
    let report = serde_json::json!({
        "appends": appends,
        "warm_up": WARM_UP,
        "bytes": nats_common::revision("follow-bench", 0, None, &body).len(),
        "p50_ns": p50,
        "p99_ns": p99,
        "max_ns": max,
        "mean_ns": mean,
        "early": early,
        "append_p50_ns": percentile(&append_sorted, 50.0),
        "append_p99_ns": percentile(&append_sorted, 99.0),
    });
    if let Err(e) = setup::record("p15_nats_follow", &report) {
        eprintln!("p15_nats_follow: cannot record: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
