//! P16 the start of a NATS root (issue 22; not criterion: building the
//! root takes long, and each measure is timed `NENJIM_BENCH_NATS_RUNS`
//! times (default 3), the median recorded for `cargo xtask bench-report`;
//! the start and its floor are timed in turns).
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
//! - `p16_nats_start_r3` (issue 30; report only, set beside P16's 1.5x):
//!   the same start and raw read on a root created with 3 replicas
//!   (`NatsLedger::create_replicated(Some(3))`) on the testkit's 3-node
//!   `NatsCluster` (127.0.0.1, `sync_interval: always`, as a hub must
//!   run), of `NENJIM_BENCH_NATS_START_R3` revisions (default 100 000,
//!   as the one-server root; a variable of its own so that a slower
//!   cluster can be given fewer). The root's address names the first node
//!   alone, the floor's client connects to it, and the ledger stream is
//!   led by it (moved there by a leader step-down before the build): the
//!   same path on both sides.
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
use nenjim_journal_testkit::nats::{NatsCluster, NatsServer};
use nenjim_journal_writer::WriterOptions;

/// Revisions per artifact (P3's corpus shape).
const REVISIONS: usize = 5;
/// Revisions per `append_batch`.
const BATCH: usize = 1000;

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
/// stream from sequence 1, `messages` messages received, nothing parsed;
/// returns its time in nanoseconds. The server is the one on
/// 127.0.0.1:`port`. The consumer is named and deleted after the timing,
/// as the start's consumer is deleted when its ledger is dropped: no run
/// leaves the server a consumer to keep (runs then slowed down one after
/// the other, the floor from 0.87 s to 1.2 s in seven).
fn floor(runtime: &tokio::runtime::Runtime, port: u16, names: &Names, messages: u64) -> u128 {
    static FLOORS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let name = format!(
        "p16_floor_{}",
        FLOORS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let t = Instant::now();
    let (_client, js) = nats_common::client_at(runtime, port);
    runtime.block_on(async {
        let stream = js.get_stream(&names.stream).await.unwrap();
        let consumer = stream
            .create_consumer(OrderedConfig {
                deliver_policy: DeliverPolicy::ByStartSequence { start_sequence: 1 },
                filter_subject: names.subject.clone(),
                name: Some(name.clone()),
                ..Default::default()
            })
            .await
            .unwrap();
        let mut messages_in = consumer.messages().await.unwrap();
        let mut bytes = 0usize;
        for _ in 0..messages {
            let message = messages_in.next().await.unwrap().unwrap();
            bytes += message.payload.len();
        }
        std::hint::black_box(bytes);
        let elapsed = t.elapsed().as_nanos();
        drop(messages_in);
        // The ordered consumer may have been made again under its name
        // (or be gone already): either way none is left.
        let _ = stream.delete_consumer(&name).await;
        elapsed
    })
}

/// The timings of one root: the ledger read alone, the raw read (on the
/// server at 127.0.0.1:`port`) and the start, each the median of `runs`.
struct Timings {
    read: setup::Timed,
    floor: setup::Timed,
    start: setup::Timed,
}

/// Measures `root` of `revisions` revisions (checked held by a start
/// first, untimed).
fn measure(root: &NatsRoot, port: u16, revisions: usize, runs: usize) -> Timings {
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
    let read = setup::median_ns(runs, || {
        let t = Instant::now();
        let ledger = root.ledger().unwrap();
        let mut after = 0;
        while after < tip {
            let batch = ledger.read_after(after, 4096).unwrap();
            after = batch.last().unwrap().entry().sequence();
        }
        t.elapsed().as_nanos()
    });
    // The floor and the start in turns (floor, start, floor, ...): the
    // host's moods during the runs fall on both alike.
    let runtime = nats_common::runtime();
    let (floor, start) = setup::in_turns(
        runs,
        || floor(&runtime, port, &names, tip),
        || {
            let assembly = root.assembly();
            let t = Instant::now();
            if let Err(e) = assembly.process().start() {
                panic!("start failed: {e}");
            }
            let elapsed = t.elapsed().as_nanos();
            drop(assembly); // dropped outside the measurement
            elapsed
        },
    );
    Timings { read, floor, start }
}

/// The one-server P16: returns its record.
fn single(runs: usize) -> serde_json::Value {
    let wanted = setup::env_usize("NENJIM_BENCH_NATS_START", 100_000).max(REVISIONS);
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
    let tip = root.ledger().unwrap().tip().unwrap();
    let t = measure(&root, server.port(), revisions, runs);
    report("p16_nats_start", &t, revisions, runs);
    drop(server);
    serde_json::json!({
        "revisions": revisions,
        "artifacts": artifacts,
        "messages": tip,
        "bytes": bytes,
        "setup_ns": setup_ns as f64,
        "runs": runs,
        "start_ns": t.start.0,
        "start_runs_ns": t.start.1,
        "floor_ns": t.floor.0,
        "floor_runs_ns": t.floor.1,
        "read_ns": t.read.0,
        "read_runs_ns": t.read.1,
    })
}

/// P16 at R3 (issue 30): returns its record.
fn r3(runs: usize) -> serde_json::Value {
    let wanted = setup::env_usize("NENJIM_BENCH_NATS_START_R3", 100_000).max(REVISIONS);
    let artifacts = wanted / REVISIONS;
    let cluster = NatsCluster::start(3);
    let node = 0;
    let node_name = cluster.name(node).to_owned();
    let root = nats_common::root_on_node(&cluster, node, "p16r3");
    let ledger = root.ledger().unwrap();
    ledger.create_replicated(Some(3)).unwrap();
    let replicas = ledger.replication().unwrap().replicas;
    assert_eq!(replicas, 3, "the bench root has 3 replicas");
    drop(ledger);
    let leader = {
        let runtime = nats_common::runtime();
        let (client, js) = nats_common::client_at(&runtime, cluster.port(node));
        let names = Names::of(root.name());
        nats_common::lead_on(&runtime, &client, &js, &names.stream, &node_name)
    };

    let built = Instant::now();
    let (revisions, bytes) = build(&root, artifacts);
    let setup_ns = built.elapsed().as_nanos();
    eprintln!(
        "p16_nats_start_r3: root of {revisions} revisions ({artifacts} artifacts, {bytes} bytes) at R3 built in {:.1} s; client on {node_name}, ledger led by {leader}",
        setup_ns as f64 / 1e9
    );
    let tip = root.ledger().unwrap().tip().unwrap();
    let t = measure(&root, cluster.port(node), revisions, runs);
    report("p16_nats_start_r3", &t, revisions, runs);
    // The leader at the end (a change during the runs would show here).
    let leader_after = root
        .ledger()
        .unwrap()
        .replication()
        .unwrap()
        .leader
        .unwrap_or_default();
    drop(cluster);
    serde_json::json!({
        "revisions": revisions,
        "artifacts": artifacts,
        "messages": tip,
        "bytes": bytes,
        "setup_ns": setup_ns as f64,
        "runs": runs,
        "replicas": replicas,
        "node": node_name,
        "leader": leader,
        "leader_after": leader_after,
        "start_ns": t.start.0,
        "start_runs_ns": t.start.1,
        "floor_ns": t.floor.0,
        "floor_runs_ns": t.floor.1,
        "read_ns": t.read.0,
        "read_runs_ns": t.read.1,
    })
}

fn report(name: &str, t: &Timings, revisions: usize, runs: usize) {
    let (start_ns, floor_ns, read_ns) = (t.start.0, t.floor.0, t.read.0);
    eprintln!(
        "{name}: {revisions} revisions: start {:.3} s, raw read {:.3} s ({:.2}x), ledger read alone {:.3} s ({:.2}x); median of {runs}",
        start_ns / 1e9,
        floor_ns / 1e9,
        start_ns / floor_ns,
        read_ns / 1e9,
        read_ns / floor_ns
    );
}

fn main() -> ExitCode {
    let runs = setup::env_usize("NENJIM_BENCH_NATS_RUNS", 3).max(1);
    let mut code = ExitCode::SUCCESS;
    for (name, run) in [
        ("p16_nats_start", single as fn(usize) -> serde_json::Value),
        ("p16_nats_start_r3", r3),
    ] {
        if !setup::selected(name) {
            continue;
        }
        let record = run(runs);
        if let Err(e) = setup::record(name, &record) {
            eprintln!("{name}: cannot record: {e}");
            code = ExitCode::FAILURE;
        }
    }
    code
}
