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
