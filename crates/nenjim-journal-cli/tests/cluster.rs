//! NATS roots on a 3-node JetStream cluster (the testkit's `NatsCluster`,
//! `sync_interval: always`), through the command: a root named by every
//! server, `init --replicas`, `check` reporting the replicas and warning
//! at R1 on a cluster.
#![allow(clippy::panic)]

use nenjim_journal_testkit::cli::{assert_code, tempdir};
use nenjim_journal_testkit::nats::NatsCluster;

use crate::operators::{run, run_json};

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn init_replicates_a_root_as_asked_and_check_reports_it() {
    let cluster = NatsCluster::start(3);
    let root = cluster.root("hub");
    // More replicas than servers: refused, naming both numbers.
    let refused = run(&[&"init", &root, &"--replicas", &"4"]);
    assert_code(&refused, 2);
    let said = stderr(&refused);
    assert!(
        said.contains("4 replicas") && said.contains("3 servers"),
        "{said}"
    );
    let init = run_json(&[&"init", &root, &"--replicas", &"3"], 0);
    assert_eq!(init["created_root"], true, "{init}");
    run_json(
        &[&"create", &root, &"left-pad", &"--description", &"pads"],
        0,
    );
    let check = run_json(&[&"check", &root], 0);
    let replication = &check["replication"];
    assert_eq!(replication["replicas"], 3, "{check}");
    assert_eq!(replication["clustered"], true, "{check}");
    assert_eq!(replication["cluster_size"], 3, "{check}");
    assert!(replication["leader"].is_string(), "{check}");
    let text = run(&[&"check", &root]);
    assert_code(&text, 0);
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(out.contains("3 replicas"), "{out}");
    assert!(
        !stderr(&text).contains("1 replica on a cluster"),
        "{}",
        stderr(&text)
    );

    // A root at R1 on the cluster: a warning that says how to raise it.
    let single = cluster.root("single");
    run_json(&[&"init", &single], 0);
    let warned = run(&[&"check", &single]);
    assert_code(&warned, 0);
    let said = stderr(&warned);
    assert!(
        said.contains("1 replica on a cluster of 3 servers") && said.contains("--replicas 3"),
        "{said}"
    );
    // Raised by init on the existing root.
    run_json(&[&"init", &single, &"--replicas", &"3"], 0);
    assert_eq!(
        run_json(&[&"check", &single], 0)["replication"]["replicas"],
        3
    );

    // --replicas is for NATS roots only.
    let dir = tempdir();
    let local = run(&[&"init", &dir.path().join("root"), &"--replicas", &"3"]);
    assert_code(&local, 2);
    assert!(
        stderr(&local).contains("only for a NATS root"),
        "{}",
        stderr(&local)
    );
    // A directory or bucket root has no replication in check's document.
    let directory = dir.path().join("plain");
    run_json(&[&"init", &directory], 0);
    assert!(run_json(&[&"check", &directory], 0)["replication"].is_null());
}

/// `init <root> --replicas 3`, re-run while the new cluster says "retry
/// later" (its meta leader elected, but not yet every stream placed).
fn init_replicated(root: &str) {
    for _ in 0..60 {
        let output = run(&[&"init", &root, &"--replicas", &"3"]);
        match output.status.code() {
            Some(0) => return,
            Some(75) => std::thread::sleep(std::time::Duration::from_millis(200)),
            other => panic!("init exited {other:?}: {}", stderr(&output)),
        }
    }
    panic!("init {root} said retry later 60 times");
}

/// A genesis text of `coordinate`.
fn genesis(coordinate: &str) -> String {
    format!(
        "FORMAT nenjim-journal/1\nARTIFACT {coordinate}\nJOURNAL_VERSION 20261202T000000Z\nPREDECESSOR GENESIS\nDESCRIPTION \"{coordinate}\"\n"
    )
}

/// Appends `file` to `root` until it is committed: each run exits 0 or
/// 75 (an outage: retry later), never anything else; a 75 is re-run (an
/// append is idempotent, so a commit whose answer was lost is found, not
/// made twice). Returns the sequence and whether any run was a 75.
fn append_until_committed(root: &str, file: &std::path::Path) -> (u64, bool) {
    let mut retried = false;
    let mut last = String::new();
    for _ in 0..60 {
        let output = run(&[&"append", &root, &file, &"--json"]);
        match output.status.code() {
            Some(0) => {
                let doc = nenjim_journal_testkit::cli::json(&output);
                let sequence = doc["appended"][0]["sequence"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("no sequence: {doc}"));
                return (sequence, retried);
            }
            Some(75) => {
                let said = stderr(&output);
                assert!(
                    said.contains("retry later") && !said.contains("panicked"),
                    "{said}"
                );
                assert_eq!(said.trim().lines().count(), 1, "one line: {said}");
                retried = true;
                last = said;
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            other => panic!(
                "append exited {other:?}, expected 0 or 75: {}",
                stderr(&output)
            ),
        }
    }
    panic!(
        "{} was not committed after 60 runs; the last said: {last}",
        file.display()
    );
}

/// The sequences and coordinates the root's events report, in order
/// (re-run while the cluster says "retry later": a restarted cluster
/// elects its streams' leaders after its servers are up).
fn revisions(root: &str) -> Vec<(u64, String)> {
    let mut output = run(&[&"events", &root, &"--json"]);
    for _ in 0..60 {
        if output.status.code() != Some(75) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
        output = run(&[&"events", &root, &"--json"]);
    }
    assert_code(&output, 0);
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| {
            let v: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            (
                v["sequence"].as_u64().unwrap_or_default(),
                v["coordinate"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// Every node's replica of the stream holds `count` messages, the last at
/// sequence `count` (each node's monitoring endpoint, so each node's own
/// copy). Polled: a restarted node catches up from the leader.
fn every_node_holds(cluster: &NatsCluster, stream: &str, count: u64) {
    for i in 0..cluster.size() {
        let mut seen = None;
        for _ in 0..600 {
            seen = cluster.stream_state(i, stream);
            if seen == Some((count, count)) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert_eq!(
            seen,
            Some((count, count)),
            "node {} holds (messages, last sequence) {seen:?}, expected ({count}, {count})",
            cluster.name(i)
        );
    }
}

/// Checks what the faults left: each appended text once, in the order of
/// the sequences the appends returned, which ascend; every node holds all.
fn nothing_acknowledged_lost(cluster: &NatsCluster, root: &str, committed: &[(u64, String)]) {
    let sequences: Vec<u64> = committed.iter().map(|(s, _)| *s).collect();
    assert!(sequences.windows(2).all(|w| w[0] < w[1]), "{sequences:?}");
    let found = revisions(root);
    assert_eq!(
        found, committed,
        "every acknowledged append, once, in order"
    );
    every_node_holds(cluster, "NENJIM_hub", committed.len() as u64);
}

#[test]
fn the_stream_leader_killed_during_appends_loses_nothing_and_a_follower_prints_each_once() {
    let mut cluster = NatsCluster::start(3);
    let root = cluster.root("hub");
    init_replicated(&root);
    let dir = tempdir();
    // A follower across the leader change.
    let mut follower = crate::operators::command(&[&"events", &root, &"--follow", &"--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut lines = nenjim_journal_testkit::cli::Lines::stdout(&mut follower);
    let mut committed = Vec::new();
    let mut killed = None;
    for i in 0..24 {
        let coordinate = format!("a{i:02}");
        let file = dir.path().join(format!("{coordinate}.journal"));
        std::fs::write(&file, genesis(&coordinate)).unwrap_or_else(|e| panic!("{e}"));
        if i == 8 {
            let leader = cluster
                .stream_leader(0, "NENJIM_hub")
                .unwrap_or_else(|| panic!("no leader of NENJIM_hub"));
            let index = cluster
                .index_of(&leader)
                .unwrap_or_else(|| panic!("{leader}"));
            cluster.kill(index);
            killed = Some(index);
        }
        let (sequence, _) = append_until_committed(&root, &file);
        committed.push((sequence, coordinate));
    }
    // The killed node comes back and catches up.
    cluster.start_node(killed.unwrap_or(0));
    nothing_acknowledged_lost(&cluster, &root, &committed);
    // The follower printed each revision once, in order, one object a line.
    let mut printed = Vec::new();
    while printed.len() < committed.len() {
        let line = lines.until("\"sequence\"");
        let v: serde_json::Value =
            serde_json::from_str(line.trim()).unwrap_or_else(|e| panic!("{e}: {line}"));
        printed.push((
            v["sequence"].as_u64().unwrap_or_default(),
            v["coordinate"].as_str().unwrap_or_default().to_owned(),
        ));
    }
    assert_eq!(printed, committed);
    nenjim_journal_testkit::cli::signal(&follower, "TERM");
    let status = nenjim_journal_testkit::cli::exit_of(&mut follower);
    assert_eq!(status.code(), Some(0), "{}", lines.rest());
    let rest = lines.rest();
    assert!(
        rest.lines()
            .all(|l| l.trim().is_empty() || serde_json::from_str::<serde_json::Value>(l).is_ok()),
        "one object a line: {rest}"
    );
}

#[test]
fn a_rolling_restart_while_appending_loses_nothing() {
    let mut cluster = NatsCluster::start(3);
    let root = cluster.root("hub");
    init_replicated(&root);
    let dir = tempdir();
    let mut committed = Vec::new();
    let mut next = 0;
    let mut append_some = |committed: &mut Vec<(u64, String)>, n: usize| {
        for _ in 0..n {
            let coordinate = format!("r{next:02}");
            next += 1;
            let file = dir.path().join(format!("{coordinate}.journal"));
            std::fs::write(&file, genesis(&coordinate)).unwrap_or_else(|e| panic!("{e}"));
            let (sequence, _) = append_until_committed(&root, &file);
            committed.push((sequence, coordinate));
        }
    };
    append_some(&mut committed, 3);
    for i in 0..cluster.size() {
        cluster.stop(i);
        append_some(&mut committed, 3);
        cluster.start_node(i);
        append_some(&mut committed, 2);
    }
    nothing_acknowledged_lost(&cluster, &root, &committed);
}

#[test]
fn every_node_killed_and_restarted_loses_nothing_acknowledged() {
    let mut cluster = NatsCluster::start(3);
    let root = cluster.root("hub");
    init_replicated(&root);
    let dir = tempdir();
    let mut committed = Vec::new();
    for i in 0..12 {
        let coordinate = format!("k{i:02}");
        let file = dir.path().join(format!("{coordinate}.journal"));
        std::fs::write(&file, genesis(&coordinate)).unwrap_or_else(|e| panic!("{e}"));
        let (sequence, retried) = append_until_committed(&root, &file);
        assert!(!retried, "no fault yet, no outage");
        committed.push((sequence, coordinate));
    }
    // A coordinated failure: every node SIGKILLed at once (with
    // `sync_interval: always`, what was acknowledged is on each disk).
    for i in 0..cluster.size() {
        cluster.kill(i);
    }
    // No server: a command says "retry later", naming no raw client text.
    let down = run(&[&"list", &root]);
    assert_code(&down, 75);
    let said = stderr(&down);
    assert!(
        said.contains("retry later") && said.trim().lines().count() == 1,
        "{said}"
    );
    cluster.start_all();
    nothing_acknowledged_lost(&cluster, &root, &committed);
}
