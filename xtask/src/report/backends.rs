//! The rows and sizes of the benches of the other backends and of
//! `verify`: P10 and P11 (a bucket root, a ledger refresh), P13
//! (`verify`), P14 to P16 (NATS roots, also at R3 on a cluster).

use super::*;

/// Pushes the rows and sizes of P10, P11 and P13 to P16 (in the report's
/// order).
pub(super) fn rows(t: &Path, rows: &mut Vec<Row>, sizes: &mut Vec<String>) {
    if let Some(p10) = result(t, "p10_s3_start") {
        sizes.push(format!(
            "P10: {} artifacts, {} revisions, {} objects in a bucket of moto's S3 server on 127.0.0.1; floor on {} threads",
            p10["artifacts"], p10["revisions"], p10["objects"], p10["workers"]
        ));
    }
    rows.push(ratio_row(
        t,
        "P10 S3 start",
        "start() from the S3 server (moto) vs LIST + GET of every object of the bucket, same concurrency",
        "p10_s3_start/start",
        "p10_s3_start/floor",
        Target::AtMost(1.5),
    ));
    if let Some(p10) = result(t, "p10_s3_start") {
        // Report only: the requests per revision (a start reads each
        // revision once; an unchanged refresh none), with the counts.
        let revisions = p10["revisions"].as_f64().unwrap_or(0.0);
        for (key, what) in [
            ("start", "requests of a start"),
            ("refresh", "requests of an unchanged refresh"),
        ] {
            let r = &p10[key];
            rows.push(Row {
                bench: "P10 S3 start".to_owned(),
                what: format!("{what}: GETs per revision"),
                ratio: r["get"]
                    .as_f64()
                    .filter(|_| revisions > 0.0)
                    .map(|get| get / revisions),
                target: Target::None,
                detail: format!(
                    "LIST {}, GET {}, HEAD {} for {} revisions",
                    r["list"], r["get"], r["head"], p10["revisions"]
                ),
            });
        }
    }

    if let Some(p11) = result(t, "p11_ledger_refresh") {
        sizes.push(format!(
            "P11: ledger roots of {} and {} revisions (the P3/P6 corpus), each refreshed from a state without its 10 newest",
            p11["small"]["files"], p11["large"]["files"]
        ));
    }
    rows.push(ratio_row(
        t,
        "P11 ledger refresh",
        "refresh finding 10 new revisions of the larger ledger root vs of the 1 000-revision one",
        "p11_ledger_refresh/large",
        "p11_ledger_refresh/small",
        Target::AtMost(2.0),
    ));
    if let Some(p11) = result(t, "p11_ledger_refresh") {
        // The same refresh of the same roots in an in-memory bucket: its
        // requests must not grow with the root.
        let (small, large) = (&p11["small"]["requests"], &p11["large"]["requests"]);
        rows.push(Row {
            bench: "P11 ledger refresh".to_owned(),
            what: "requests of that refresh on a bucket: larger root vs smaller".to_owned(),
            ratio: match (large["total"].as_f64(), small["total"].as_f64()) {
                (Some(l), Some(s)) if s > 0.0 => Some(l / s),
                _ => None,
            },
            target: Target::AtMost(1.0),
            detail: format!(
                "{} revisions: LIST {}, GET {}, HEAD {}; {} revisions: LIST {}, GET {}, HEAD {}",
                p11["large"]["files"],
                large["list"],
                large["get"],
                large["head"],
                p11["small"]["files"],
                small["list"],
                small["get"],
                small["head"]
            ),
        });
    }

    if let Some(p13) = result(t, "p13_verify") {
        sizes.push(format!(
            "P13: a signed root of {} revision files, {} bytes",
            p13["files"], p13["bytes"]
        ));
    }
    rows.push(ratio_row(
        t,
        "P13 verify",
        "`nenjim-journal verify --key` of a signed root (signature, tree over every record, every file against its record) vs reading and hashing its files on one thread",
        "p13_verify/verify",
        "p13_verify/floor",
        Target::AtMost(1.3),
    ));

    if let Some(p14) = result(t, "p14_nats_append") {
        sizes.push(format!(
            "P14: appends of a {}-byte revision to a NATS root and publishes of the same bytes, on a nats-server on 127.0.0.1",
            p14["bytes"]
        ));
    }
    rows.push(ratio_row(
        t,
        "P14 NATS append",
        "NatsJournalWriter::append of a 10 kB revision vs a JetStream publish-with-ack of the same bytes to a plain stream (same server, same client)",
        "p14_nats_append/append",
        "p14_nats_append/floor",
        Target::AtMost(1.5),
    ));
    rows.push(ratio_row(
        t,
        "P14 NATS append",
        "the floor's publish to a ledger stream (another root's, as NatsLedger::create makes it) vs the plain stream: the ledger's stream configuration",
        "p14_nats_append/publish_to_ledger_stream",
        "p14_nats_append/floor",
        Target::None,
    ));
    rows.push(ratio_row(
        t,
        "P14 NATS append",
        "the commit's publish alone (record header, message id, expected last sequence, to a stream with the ledger's duplicate window) vs the plain publish: the server's part of the difference",
        "p14_nats_append/publish_as_ledger",
        "p14_nats_append/floor",
        Target::None,
    ));

    // Issue 30: the same at R3 on a 3-node cluster (report only).
    if let Some(r3) = result(t, "p14_nats_append_r3") {
        sizes.push(format!(
            "P14 R3: appends of a {}-byte revision to a NATS root with {} replicas and publishes of the same bytes to a stream with 3, on a 3-node nats-server cluster on 127.0.0.1 (`sync_interval: always`); both clients on {}, streams led by {} (ledger), {} (floor), {} (ledger-like)",
            r3["bytes"],
            r3["replicas"],
            text(&r3["node"]),
            text(&r3["ledger_leader"]),
            text(&r3["floor_leader"]),
            text(&r3["ledger_like_leader"])
        ));
        rows.push(beside(
            ratio_row(
                t,
                "P14 NATS append (R3)",
                "NatsJournalWriter::append of a 10 kB revision to a root with 3 replicas vs a JetStream publish-with-ack of the same bytes to a plain stream with 3 replicas (same 3-node cluster with `sync_interval: always` on both sides, same client, same node)",
                "p14_nats_append_r3/append",
                "p14_nats_append_r3/floor",
                Target::None,
            ),
            "P14",
            1.5,
        ));
        rows.push(ratio_row(
            t,
            "P14 NATS append (R3)",
            "the commit's publish alone, to a stream with the ledger's duplicate window and 3 replicas, vs the plain publish at R3",
            "p14_nats_append_r3/publish_as_ledger",
            "p14_nats_append_r3/floor",
            Target::None,
        ));
    }

    if let Some(p15) = result(t, "p15_nats_follow") {
        sizes.push(format!(
            "P15: {} appends of a {}-byte revision (after {} to warm up), each followed before the next; a follow(true) cursor of NatsRoot::assembly on its own connection, loopback",
            p15["appends"], p15["bytes"], p15["warm_up"]
        ));
        // The budget is a time, not a floor: the ratio is the percentile
        // over 20 ms (<= 1x meets it), the time itself in the detail.
        let budget = 20e6;
        for (key, what, goal) in [
            ("p50_ns", "p50", Target::None),
            ("p99_ns", "p99", Target::AtMost(1.0)),
        ] {
            rows.push(Row {
                bench: "P15 NATS follow".to_owned(),
                what: format!(
                    "follow latency {what} (append returned to the follower holding the revision) vs the 20 ms budget"
                ),
                ratio: p15[key].as_f64().map(|ns| ns / budget),
                target: goal,
                detail: format!(
                    "{what} {} over {} appends (max {}, mean {}, {} held before append returned; append itself p50 {})",
                    p15[key].as_f64().map_or("-".to_owned(), time),
                    p15["appends"],
                    p15["max_ns"].as_f64().map_or("-".to_owned(), time),
                    p15["mean_ns"].as_f64().map_or("-".to_owned(), time),
                    p15["early"],
                    p15["append_p50_ns"].as_f64().map_or("-".to_owned(), time),
                ),
            });
        }
    }

    if let Some(p16) = result(t, "p16_nats_start") {
        sizes.push(format!(
            "P16: a NATS root of {} revisions ({} artifacts, {} bytes; built by append_batch in {}); median of {} runs each",
            p16["revisions"],
            p16["artifacts"],
            p16["bytes"],
            p16["setup_ns"].as_f64().map_or("-".to_owned(), time),
            p16["runs"]
        ));
        rows.push(Row {
            bench: "P16 NATS start".to_owned(),
            what: format!(
                "start() of a NATS root of {} revisions vs reading its stream raw (an ordered consumer from sequence 1, same client, nothing parsed)",
                p16["revisions"]
            ),
            ratio: match (p16["start_ns"].as_f64(), p16["floor_ns"].as_f64()) {
                (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                _ => None,
            },
            target: Target::AtMost(1.5),
            detail: format!(
                "start {} / raw read {}",
                p16["start_ns"].as_f64().map_or("-".to_owned(), time),
                p16["floor_ns"].as_f64().map_or("-".to_owned(), time)
            ),
        });
        rows.push(Row {
            bench: "P16 NATS start".to_owned(),
            what: "the ledger read alone (NatsLedger::read_after of every entry, checked, not parsed) vs the same raw read: the read's part of the start".to_owned(),
            ratio: match (p16["read_ns"].as_f64(), p16["floor_ns"].as_f64()) {
                (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                _ => None,
            },
            target: Target::None,
            detail: format!(
                "ledger read {} / raw read {}",
                p16["read_ns"].as_f64().map_or("-".to_owned(), time),
                p16["floor_ns"].as_f64().map_or("-".to_owned(), time)
            ),
        });
    }

    // Issue 30: the same at R3 on a 3-node cluster (report only).
    if let Some(r3) = result(t, "p16_nats_start_r3") {
        sizes.push(format!(
            "P16 R3: a NATS root of {} revisions ({} artifacts, {} bytes; built by append_batch in {}) with {} replicas on a 3-node nats-server cluster on 127.0.0.1 (`sync_interval: always`); both clients on {}, the ledger led by {} ({} after the runs); median of {} runs each",
            r3["revisions"],
            r3["artifacts"],
            r3["bytes"],
            r3["setup_ns"].as_f64().map_or("-".to_owned(), time),
            r3["replicas"],
            text(&r3["node"]),
            text(&r3["leader"]),
            text(&r3["leader_after"]),
            r3["runs"]
        ));
        let of = |key: &str| r3[key].as_f64();
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        };
        rows.push(beside(
            Row {
                bench: "P16 NATS start (R3)".to_owned(),
                what: format!(
                    "start() of a NATS root of {} revisions with 3 replicas vs reading its stream raw (an ordered consumer from sequence 1, same client, same node, nothing parsed)",
                    r3["revisions"]
                ),
                ratio: ratio(of("start_ns"), of("floor_ns")),
                target: Target::None,
                detail: format!(
                    "start {} / raw read {}",
                    of("start_ns").map_or("-".to_owned(), time),
                    of("floor_ns").map_or("-".to_owned(), time)
                ),
            },
            "P16",
            1.5,
        ));
        rows.push(Row {
            bench: "P16 NATS start (R3)".to_owned(),
            what: "the ledger read alone vs the same raw read, at R3".to_owned(),
            ratio: ratio(of("read_ns"), of("floor_ns")),
            target: Target::None,
            detail: format!(
                "ledger read {} / raw read {}",
                of("read_ns").map_or("-".to_owned(), time),
                of("floor_ns").map_or("-".to_owned(), time)
            ),
        });
    }
}
