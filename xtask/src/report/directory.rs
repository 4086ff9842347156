//! The rows and sizes of the benches on a directory root: P1 (ingest) to
//! P9, and P12 (signed roots).

use super::*;

/// Pushes the rows and sizes of P1 to P9 and P12 (in the report's order).
pub(super) fn rows(t: &Path, rows: &mut Vec<Row>, sizes: &mut Vec<String>) {
    if let Some(p1) = result(t, "p1_ingest") {
        sizes.push(format!(
            "P1: one revision of {} releases, {} bytes; P1r: one of {} bytes",
            p1["releases"], p1["bytes"], p1["typical_bytes"]
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
        "P1r ingest",
        "the same, a revision of typical size (10-20 kB) vs SHA-256 of it (issue 32)",
        "p1_ingest/ingest_typical",
        "p1_ingest/sha256_typical",
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
    rows.push(ratio_row(
        t,
        "P1r ingest",
        "the look-ups alone at P1r's size: each token of the typical revision (split before timing) looked up in a table of its distinct tokens vs SHA-256 of it",
        "p1_ingest/look_up_typical",
        "p1_ingest/sha256_typical",
        Target::None,
    ));
    rows.push(ratio_row(
        t,
        "P1r ingest",
        "the typical revision built again from its values through the api builders (no text read, nothing hashed) vs SHA-256 of it",
        "p1_ingest/build_model_typical",
        "p1_ingest/sha256_typical",
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
        "parser::parse, then every value read once, vs serde_json into typed index structs, then every field read once (restated by issue 32)",
        "p2_peer/journal_parse_read",
        "p2_peer/serde_json_index_read",
        // Issue 15's target (the first one was 1x).
        Target::AtMost(0.5),
    ));
    rows.push(ratio_row(
        t,
        "P2 peer",
        "parser::parse vs serde_json into typed index structs (the parses alone: the old measure)",
        "p2_peer/journal_parse",
        "p2_peer/serde_json_index",
        Target::None,
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
    rows.push(ratio_row(
        t,
        "P5 queries",
        "first access of a release's values (every value of one release of a revision just parsed) vs the same read again (issue 32: reported)",
        "p5_queries/first_access",
        "p5_queries/again",
        Target::None,
    ));

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
        "replay_events drained, every value of every event read once, vs start() of the same root (restated by issues 24 and 32)",
        "p9_events/events_values",
        "p9_events/start",
        Target::AtMost(0.05),
    ));
    rows.push(ratio_row(
        t,
        "P9 events",
        "replay_events drained (every event, from 0, nothing read) vs start()",
        "p9_events/events",
        "p9_events/start",
        Target::None,
    ));
    rows.push(ratio_row(
        t,
        "P9 events",
        "the least a model decoding values on first access pays in that feed: every release of the root built again from its values (api builders, no text read) vs start()",
        "p9_events/rebuild_all",
        "p9_events/start",
        Target::None,
    ));
    rows.push(ratio_row(
        t,
        "P9 events",
        "the reading alone, in this model: every value of every release of the root read once (each artifact's latest revision, no event built) vs start(); with `events`, the least the target row takes",
        "p9_events/read_all",
        "p9_events/start",
        Target::None,
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
    // The disk's floor for that row (issue 32): one revision of the
    // floor (the same files and entries, one barrier for the batch)
    // against one append. A batch cannot go under it.
    let per_floor = match (estimate(t, "p8_batch/floor"), batch) {
        (Some(f), Some(n)) if n > 0.0 => Some(f / n),
        _ => None,
    };
    rows.push(Row {
        bench: "P8b batch".to_owned(),
        what: "the disk's floor of that row: one revision of the one-barrier floor (its time / the batch's size) vs one FsJournalWriter::append".to_owned(),
        ratio: match (per_floor, single) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        },
        target: Target::None,
        detail: format!(
            "per revision of `p8_batch/floor` {} / `p8_append/append` {}",
            per_floor.map_or("-".to_owned(), time),
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
    let interval = result(t, "p12_interval");
    if let Some(p) = &interval {
        sizes.push(format!(
            "P12 at {} ms: {} samples of each writer, flat: signed {} appends in {:.1} s (samples of {:.1}-{:.1} s, {} publications inside them), unsigned {} appends in {:.1} s",
            p["interval_ms"],
            p["samples"],
            p["signed"]["appends"],
            p["signed"]["seconds"].as_f64().unwrap_or(0.0),
            p["signed"]["min_sample_seconds"].as_f64().unwrap_or(0.0),
            p["signed"]["max_sample_seconds"].as_f64().unwrap_or(0.0),
            p["signed"]["publications"],
            p["unsigned"]["appends"],
            p["unsigned"]["seconds"].as_f64().unwrap_or(0.0),
        ));
    }
    let mut interval_row = ratio_row(
        t,
        "P12 signed append (1 s)",
        "FsJournalWriter::append of a 10 kB revision to a signed root at a 1 s checkpoint interval (samples of ~4 s of appends, the timer's publications inside them) vs to an unsigned one (restated by issue 35)",
        "p12_interval_append/signed",
        "p12_interval_append/unsigned",
        Target::AtMost(1.15),
    );
    if let Some(p) = &interval {
        let _ = write!(
            interval_row.detail,
            "; {} publications in {:.1} s of signed samples; paired, each signed block over the unsigned block beside it ({} pairs): median {:.2}x ({:.2}x-{:.2}x)",
            p["signed"]["publications"],
            p["signed"]["seconds"].as_f64().unwrap_or(0.0),
            p["pairs"],
            p["paired_median"].as_f64().unwrap_or(f64::NAN),
            p["paired_min"].as_f64().unwrap_or(f64::NAN),
            p["paired_max"].as_f64().unwrap_or(f64::NAN),
        );
    }
    rows.push(interval_row);
    rows.push(ratio_row(
        t,
        "P12 signed append (zero)",
        "the same at checkpoint interval zero (tiles + checkpoint written before every append returns) vs to an unsigned one",
        "p12_signed_append/signed",
        "p12_signed_append/unsigned",
        Target::None,
    ));
    if let Some(b) = result(t, "p12_barriers") {
        let per = |k: &str| b[k]["per_append"].as_f64();
        for (key, what) in [
            ("signed_zero", "at interval zero"),
            ("signed_1s", "at a 1 s interval"),
        ] {
            rows.push(Row {
                bench: "P12 barriers".to_owned(),
                what: format!(
                    "durability barriers (fsync, fdatasync, syncfs, sync_file_range; strace -f -c) per append to a signed root {what} vs to an unsigned one"
                ),
                ratio: match (per(key), per("unsigned")) {
                    (Some(a), Some(u)) if u > 0.0 => Some(a / u),
                    _ => None,
                },
                target: Target::None,
                detail: format!(
                    "signed {} / unsigned {} per append (the difference of runs of {} and {} appends; the signed run of {}: {} publications in {:.1} s under strace)",
                    per(key).map_or("-".to_owned(), |x| format!("{x:.2}")),
                    per("unsigned").map_or("-".to_owned(), |x| format!("{x:.2}")),
                    b[key]["few"],
                    b[key]["many"],
                    b[key]["run"]["appends"],
                    b[key]["run"]["publications"],
                    b[key]["run"]["seconds"].as_f64().unwrap_or(f64::NAN),
                ),
            });
        }
    }
    if let Some(p) = result(t, "p12b_latency") {
        sizes.push(format!(
            "P12b: {} appends of a {}-byte revision at their natural rate for {:.1} s to a signed root at a {} ms checkpoint interval, {} publications seen",
            p["appends"],
            p["bytes"],
            p["seconds"].as_f64().unwrap_or(0.0),
            p["interval_ms"],
            p["publications"]
        ));
        // The budget is a time, not a floor: the ratio is the percentile
        // over 1.1 s (<= 1x meets it), the time itself in the detail.
        let budget = 1.1e9;
        for (key, what, goal) in [
            ("p50_ns", "p50", Target::None),
            ("p99_ns", "p99", Target::AtMost(1.0)),
        ] {
            rows.push(Row {
                bench: "P12b checkpoint latency".to_owned(),
                what: format!(
                    "{what} of the time from an append's return to a checkpoint covering it, at a 1 s interval, vs 1.1 s"
                ),
                ratio: p[key].as_f64().map(|ns| ns / budget),
                target: goal,
                detail: format!(
                    "{what} {} over {} appends (max {}, mean {}; longest gap between publications {}; seen after the next append: append p50 {}, p99 {})",
                    p[key].as_f64().map_or("-".to_owned(), time),
                    p["appends"],
                    p["max_ns"].as_f64().map_or("-".to_owned(), time),
                    p["mean_ns"].as_f64().map_or("-".to_owned(), time),
                    p["max_gap_ns"].as_f64().map_or("-".to_owned(), time),
                    p["append_p50_ns"].as_f64().map_or("-".to_owned(), time),
                    p["append_p99_ns"].as_f64().map_or("-".to_owned(), time),
                ),
            });
        }
    }
    rows.push(ratio_row(
        t,
        "P12 verified start",
        "start() of a signed root with a verifier key vs without",
        "p12_verified_start/verified",
        "p12_verified_start/unverified",
        Target::AtMost(1.05),
    ));
}
