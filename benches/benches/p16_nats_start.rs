//! P16 the start of a NATS root (issue 22; not criterion: building the
//! root takes long, and each measure is timed `NENJIM_BENCH_NATS_RUNS`
//! times (default 3), the median recorded for `cargo xtask bench-report`).
//!
//! - `start`: `start()` of `NatsRoot::assembly` (a new connection, the
//!   stream read from sequence 1, every revision checked, parsed and
//!   ingested) over a root of `NENJIM_BENCH_NATS_START` revisions (default
//!   100 000) on a `nats-server` started here (127.0.0.1, a free port),
//!   against `floor`: the same stream's messages read raw with the same
//!   client (async-nats on a runtime like the nats crate's: a new
//!   connection, an ordered consumer from sequence 1, every message
//!   received, nothing parsed). Target <= 1.5x.
//! - `read` (report only): the ledger read alone, `NatsLedger::read_after`
//!   of every entry on a new connection (each revision checked against its
//!   record, nothing parsed), against the same floor: the part of the
//!   start that is the read (the loader reads the whole ledger, then
//!   parses and ingests).
//!
//! The root has the P3 corpus's shape with small revisions: `N/5`
//! artifacts of 5 revisions each (a genesis with one release, then
//! successors of one more release each, 150 to 400 bytes), appended by
//! `NatsJournalWriter::append_batch` in batches of 1 000, revision `k` of
//! every artifact before revision `k + 1` of any (a ledger interleaved as
//! a registry's is). The set-up time is printed and recorded.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // a bench with a broken setup fails loudly

mod nats_common;

use std::process::ExitCode;
use std::time::Instant;

use async_nats::jetstream::consumer::DeliverPolicy;
use async_nats::jetstream::consumer::pull::OrderedConfig;
use futures::StreamExt as _;
use nenjim_journal_api::model::ReplayRequest;
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_benches::setup;
use nenjim_journal_nats::{Names, NatsRoot};
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_writer::WriterOptions;

/// Revisions per artifact (P3's corpus shape).
const REVISIONS: usize = 5;
/// Revisions per `append_batch`.
const BATCH: usize = 1000;

/// Median of `runs` timings of `f` (nanoseconds), and every timing.
fn median_ns(runs: usize, mut f: impl FnMut() -> u128) -> (f64, Vec<f64>) {
    let mut times: Vec<f64> = (0..runs.max(1)).map(|_| f() as f64).collect();
    let all = times.clone();
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], all)
}

/// Appends the root: `artifacts` artifacts of [`REVISIONS`] revisions;
/// returns (revisions, bytes).
fn build(root: &NatsRoot, artifacts: usize) -> (usize, u64) {
    // The releases' blobs in a local content store (a check of a new
    // release's blob is then a local stat, not a request per revision).
    let store = tempfile::tempdir().unwrap();
    let mut writer = root
        .writer(
            WriterOptions::new()
                .batch_max(BATCH)
                .content_store(store.path()),
        )
        .unwrap();
    let contents: Vec<_> = (0..REVISIONS)
        .map(|k| writer.put_blob(format!("p16 blob {k}").as_bytes()).unwrap())
        .collect();
    let mut heads: Vec<Option<RevisionDigest>> = vec![None; artifacts];
    let (mut revisions, mut bytes) = (0, 0u64);
    let mut body = String::new();
    for (k, content) in contents.iter().enumerate() {
        body.push_str(&nats_common::release(&format!("1.{k}.0"), content));
        for first in (0..artifacts).step_by(BATCH) {
            let last = (first + BATCH).min(artifacts);
            let texts: Vec<String> = (first..last)
                .map(|a| {
                    nats_common::revision(
                        &format!("p16-{a:06}"),
                        k as i64,
                        heads[a].as_ref(),
                        &body,
                    )
                })
                .collect();
            bytes += texts.iter().map(|t| t.len() as u64).sum::<u64>();
            let batch: Vec<&str> = texts.iter().map(String::as_str).collect();
            match writer.append_batch(&batch) {
                Ok(appended) => {
                    for (a, appended) in (first..last).zip(&appended) {
                        heads[a] = Some(*appended.revision().digest());
                    }
                    revisions += appended.len();
                }
                Err(e) => panic!("append_batch failed: {e:?}"),
            }
        }
    }
    writer.close().unwrap();
    (revisions, bytes)
}

/// The floor: a new connection, an ordered consumer of the ledger's
/// stream from sequence 1, `messages` messages received, nothing parsed.
fn floor(runtime: &tokio::runtime::Runtime, server: &NatsServer, names: &Names, messages: u64) {
    let (_client, js) = nats_common::client(runtime, server);
    runtime.block_on(async {
        let stream = js.get_stream(&names.stream).await.unwrap();
        let consumer = stream
            .create_consumer(OrderedConfig {
                deliver_policy: DeliverPolicy::ByStartSequence { start_sequence: 1 },
                filter_subject: names.subject.clone(),
                ..Default::default()
            })
            .await
            .unwrap();
        let mut stream = consumer.messages().await.unwrap();
        let mut bytes = 0usize;
        for _ in 0..messages {
            let message = stream.next().await.unwrap().unwrap();
            bytes += message.payload.len();
        }
        std::hint::black_box(bytes);
    });
}

fn main() -> ExitCode {
    if !setup::selected("p16_nats_start") {
        return ExitCode::SUCCESS;
    }
    let wanted = setup::env_usize("NENJIM_BENCH_NATS_START", 100_000).max(REVISIONS);
    let runs = setup::env_usize("NENJIM_BENCH_NATS_RUNS", 3).max(1);
    let artifacts = wanted / REVISIONS;
    let server = NatsServer::start();
    let root = nats_common::root(&server, "p16");

    let built = Instant::now();
    let (revisions, bytes) = build(&root, artifacts);
    let setup_ns = built.elapsed().as_nanos();
    eprintln!(
        "p16_nats_start: root of {revisions} revisions ({artifacts} artifacts, {bytes} bytes) built in {:.1} s",
        setup_ns as f64 / 1e9
    );
    let names = Names::of(root.name());
    let tip = root.ledger().unwrap().tip().unwrap();

    // Once, untimed: the start holds every revision.
    {
        let assembly = root.assembly();
        assembly.process().start().unwrap();
        let mut cursor = assembly.service().replay(&ReplayRequest::after(0)).unwrap();
        let mut held = 0;
        while cursor.next().unwrap().is_some() {
            held += 1;
        }
        assert_eq!(held, revisions, "the start holds every revision appended");
    }

    // Report only: the ledger read alone (`NatsLedger::read_after` of
    // every entry on a new connection, each revision checked against its
    // record, nothing parsed): how much of the start is the read.
    let (read_ns, read_all) = median_ns(runs, || {
        let t = Instant::now();
        let ledger = root.ledger().unwrap();
        let mut after = 0;
        while after < tip {
            let batch = ledger.read_after(after, 4096).unwrap();
            after = batch.last().unwrap().entry().sequence();
        }
        t.elapsed().as_nanos()
    });
    let runtime = nats_common::runtime();
    let (floor_ns, floor_all) = median_ns(runs, || {
        let t = Instant::now();
        floor(&runtime, &server, &names, tip);
        t.elapsed().as_nanos()
    });
    let (start_ns, start_all) = median_ns(runs, || {
        let assembly = root.assembly();
        let t = Instant::now();
        if let Err(e) = assembly.process().start() {
            panic!("start failed: {e}");
        }
        let elapsed = t.elapsed().as_nanos();
        drop(assembly); // dropped outside the measurement
        elapsed
    });
    eprintln!(
        "p16_nats_start: {revisions} revisions: start {:.3} s, raw read {:.3} s ({:.2}x), ledger read alone {:.3} s ({:.2}x); median of {runs}",
        start_ns / 1e9,
        floor_ns / 1e9,
        start_ns / floor_ns,
        read_ns / 1e9,
        read_ns / floor_ns
    );
    let report = serde_json::json!({
        "revisions": revisions,
        "artifacts": artifacts,
        "messages": tip,
        "bytes": bytes,
        "setup_ns": setup_ns as f64,
        "runs": runs,
        "start_ns": start_ns,
        "start_runs_ns": start_all,
        "floor_ns": floor_ns,
        "floor_runs_ns": floor_all,
        "read_ns": read_ns,
        "read_runs_ns": read_all,
    });
    drop(server);
    if let Err(e) = setup::record("p16_nats_start", &report) {
        eprintln!("p16_nats_start: cannot record: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
