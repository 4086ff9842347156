//! NATS JetStream roots in the command (issue 22): `nats://host:port/<name>`
//! wherever a root is taken, `events --follow` live, a whole root copied
//! between a directory and a NATS root in sequence order, a root no
//! writer created, and the content store a NATS root records (its own
//! bucket, a directory, an S3 bucket on moto's server, or none recorded).
//! The server is the testkit's `nats-server -js` on 127.0.0.1 (a test
//! fails when it cannot be had).
//!
//! This file holds the commands on a NATS root, copies, `check` and
//! signing; `stores.rs` the content store a NATS root records.
#![allow(clippy::panic)]

mod stores;

use std::process::Stdio;

use nenjim_journal_testkit::cli::{
    Lines, assert_code, exit_of, sha256_hex, signal, tempdir, write,
};
use nenjim_journal_testkit::nats::NatsServer;
use serde_json::Value;

use crate::operators::{command, run, run_json};

/// The event lines of `events <root> --json`, without the root's name.
fn events(root: &dyn AsRef<std::ffi::OsStr>) -> Vec<Value> {
    let output = run(&[&"events", root, &"--json"]);
    assert_code(&output, 0);
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

#[test]
fn every_command_takes_a_nats_root_and_follow_is_live() {
    let server = NatsServer::start();
    let root = server.root("hub");
    let dir = tempdir();
    let doc = run_json(&[&"init", &root], 0);
    assert_eq!(doc["created_root"], true, "{doc}");
    run_json(
        &[&"create", &root, &"left-pad", &"--description", &"pads"],
        0,
    );
    let blob = dir.path().join("a.tgz");
    write(&blob, b"hello");
    let put = run_json(&[&"put-blob", &"--store", &root, &blob], 0);
    assert_eq!(put["size"], 5, "{put}");
    let released = run_json(
        &[
            &"release",
            &root,
            &"left-pad",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &blob,
        ],
        0,
    );
    assert_eq!(released["sequence"], 2, "{released}");
    run_json(&[&"yank", &root, &"left-pad", &"1.0.0", &"broken"], 0);
    let list = run_json(&[&"list", &root], 0);
    assert_eq!(list["artifacts"][0]["coordinate"], "left-pad", "{list}");
    let check = run_json(&[&"check", &root], 0);
    assert_eq!(
        (&check["ok"], &check["revisions"]),
        (&Value::from(true), &Value::from(3))
    );
    let verified = run_json(&[&"verify-content", &root], 0);
    assert_eq!(verified["checked"], 1, "{verified}");
    let history = run(&[&"history", &root, &"left-pad"]);
    assert_code(&history, 0);
    let show = run(&[&"show", &root, &"left-pad"]);
    assert_code(&show, 0);
    assert!(String::from_utf8_lossy(&show.stdout).contains("1.0.0"));

    // Follow live from after sequence 2; another process releases 1.1.0.
    let mut child = command(&[&"events", &root, &"--follow", &"--json", &"--after", &"2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut stdout = Lines::stdout(&mut child);
    let yanked = stdout.until("\"sequence\"");
    assert!(yanked.contains("\"sequence\":3"), "{yanked}");
    let second = dir.path().join("b.tgz");
    write(&second, b"world");
    run_json(
        &[
            &"release",
            &root,
            &"left-pad",
            &"1.1.0",
            &"--license",
            &"MIT",
            &"--content",
            &second,
        ],
        0,
    );
    let new = stdout.until("1.1.0");
    let event: Value = serde_json::from_str(&new).unwrap_or_else(|e| panic!("{e}: {new}"));
    assert_eq!(
        (&event["sequence"], &event["kind"]),
        (&Value::from(4), &Value::from("release_published")),
        "{event}"
    );
    signal(&child, "INT");
    let status = exit_of(&mut child);
    assert_eq!(
        status.code(),
        Some(0),
        "{}",
        Lines::stderr(&mut child).rest()
    );
    assert_eq!(stdout.rest().lines().count(), 2, "each event once");
}

#[test]
fn a_root_is_copied_between_a_directory_and_nats_keeping_its_sequences() {
    let server = NatsServer::start();
    let dir = tempdir();
    let local = dir.path().join("journals");
    run_json(&[&"init", &local], 0);
    for (name, text) in [("a", "x"), ("b", "y"), ("c", "z")] {
        run_json(&[&"create", &local, &name, &"--description", &text], 0);
    }
    let nats = server.root("copy");
    run_json(&[&"init", &nats], 0);
    let copied = run_json(&[&"append", &nats, &local], 0);
    assert_eq!(
        copied["appended"].as_array().map(Vec::len),
        Some(3),
        "{copied}"
    );
    assert_eq!(events(&nats), events(&local));
    // And back, into another directory: the same feed again.
    let back = dir.path().join("back");
    run_json(&[&"init", &back], 0);
    run_json(&[&"append", &back, &nats], 0);
    assert_eq!(events(&back), events(&local));
    // A second copy finds everything copied already.
    let again = run_json(&[&"append", &nats, &local], 0);
    let new: Vec<&Value> = again["appended"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|a| a["new"] == true)
        .collect();
    assert!(new.is_empty(), "{again}");
}

#[test]
fn a_nats_root_no_writer_created_is_missing_and_writing_says_to_init_it() {
    let server = NatsServer::start();
    let root = server.root("nobody");
    let listed = run(&[&"list", &root]);
    assert_code(&listed, 2);
    let stderr = String::from_utf8_lossy(&listed.stderr);
    assert!(stderr.contains("nobody"), "{stderr}");
    let created = run(&[&"create", &root, &"a", &"--description", &"x"]);
    assert!(
        String::from_utf8_lossy(&created.stderr).contains("init"),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    assert_ne!(created.status.code(), Some(0));
    // `init --store` of a store that does not exist is refused (before
    // the root is created), as on a directory.
    let store = tempdir();
    let absent = store.path().join("absent");
    let refused = run(&[&"init", &root, &"--store", &absent]);
    assert_code(&refused, 2);
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--create"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert_code(&run(&[&"list", &root]), 2);
}

/// The signed root `name` on `server`, created by `init` with a key made
/// by `keygen`: its URL, the directory holding the key, the key file and
/// its verifier key.
fn signed_root(
    server: &NatsServer,
    name: &str,
) -> (String, tempfile::TempDir, std::path::PathBuf, String) {
    let root = server.root(name);
    let dir = tempdir();
    let key = dir.path().join("hub.key");
    let keygen = run(&[&"keygen", &"hub.example", &"--out", &key]);
    assert_code(&keygen, 0);
    let verifier = String::from_utf8_lossy(&keygen.stdout).trim().to_owned();
    run_json(&[&"init", &root, &"--signing-key", &key], 0);
    (root, dir, key, verifier)
}

#[test]
fn checkpoint_verify_and_prove_work_on_a_signed_nats_root() {
    let server = NatsServer::start();
    let (root, dir, key, verifier) = signed_root(&server, "signed");
    for (name, text) in [("a", "x"), ("b", "y")] {
        run_json(
            &[
                &"create",
                &root,
                &name,
                &"--description",
                &text,
                &"--signing-key",
                &key,
            ],
            0,
        );
    }
    let checkpoint = run(&[&"checkpoint", &root]);
    assert_code(&checkpoint, 0);
    let older = dir.path().join("older.checkpoint");
    write(&older, &checkpoint.stdout);
    assert!(String::from_utf8_lossy(&checkpoint.stdout).starts_with("hub.example\n2\n"));
    let verified = run_json(&[&"verify", &root, &"--key", &verifier], 0);
    assert_eq!(verified["ok"], true, "{verified}");
    run_json(
        &[
            &"create",
            &root,
            &"c",
            &"--description",
            &"z",
            &"--signing-key",
            &key,
        ],
        0,
    );
    let since = run_json(
        &[&"verify", &root, &"--key", &verifier, &"--since", &older],
        0,
    );
    assert_eq!(since["ok"], true, "{since}");
    let history = run_json(&[&"history", &root, &"b"], 0);
    let version = history["revisions"][0]["journal_version"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let proof = run(&[&"prove", &root, &"b", &version, &"--json"]);
    assert_code(&proof, 0);
    let proof: Value = serde_json::from_slice(&proof.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (&proof["index"], &proof["tree_size"]),
        (&Value::from(1), &Value::from(3))
    );
    // A writer without the key is refused, and nothing is written.
    let unsigned = run(&[&"create", &root, &"d", &"--description", &"w"]);
    assert_ne!(unsigned.status.code(), Some(0));
    assert_eq!(events(&root).len(), 3);
    // Another key does not verify.
    let other = dir.path().join("other.key");
    let other_key = run(&[&"keygen", &"hub.example", &"--out", &other]);
    let other_verifier = String::from_utf8_lossy(&other_key.stdout).trim().to_owned();
    assert_code(&run(&[&"verify", &root, &"--key", &other_verifier]), 1);
}

#[test]
fn the_command_authenticates_with_the_nats_settings_and_never_shows_the_secret() {
    let server = NatsServer::start_with_args(&["--auth", "s3cret-t0ken"]);
    let root = server.root("secured");
    let init = |token: &str| {
        crate::operators::command(&[&"init", &root])
            .env("NATS_TOKEN", token)
            .output()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let refused = init("wr0ng-t0ken");
    assert_code(&refused, 2);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("NATS_TOKEN"), "{stderr}");
    assert!(
        !stderr.contains("wr0ng") && !stderr.contains("s3cret"),
        "{stderr}"
    );
    assert_code(&init("s3cret-t0ken"), 0);
    // No credentials at all: the message says which variables exist.
    let none = crate::operators::command(&[&"list", &root])
        .env_remove("NATS_TOKEN")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_code(&none, 2);
    let said = String::from_utf8_lossy(&none.stderr);
    assert!(
        said.contains("none is set") && said.contains("NATS_CREDS") && said.contains("NATS_TOKEN"),
        "{said}"
    );
    // A setting that cannot be used is named too.
    let missing = crate::operators::command(&[&"list", &root])
        .env("NATS_CREDS", "/nonexistent/hub.creds")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_code(&missing, 2);
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("NATS_CREDS"),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
}

/// A genesis revision text of `coordinate` at `version`.
fn genesis_text(coordinate: &str, version: &str) -> String {
    format!(
        "FORMAT nenjim-journal/1\nARTIFACT {coordinate}\nJOURNAL_VERSION {version}\nPREDECESSOR GENESIS\nDESCRIPTION \"the {coordinate} artifact\"\n"
    )
}

/// The ledger record of `text` as the revision of `coordinate` at
/// `version`: its size and SHA-256.
fn revision_record(
    coordinate: &str,
    version: &str,
    text: &str,
) -> nenjim_journal_store::ledger::Record {
    use nenjim_journal_api::valuetypes::RevisionDigest;
    use nenjim_journal_store::ledger::{Record, RevisionPointer};
    Record::Revision(RevisionPointer::new(
        coordinate.parse().unwrap_or_else(|e| panic!("{e}")),
        version.parse().unwrap_or_else(|e| panic!("{e}")),
        text.len() as u64,
        RevisionDigest::of_text(text),
    ))
}

/// Commits `text` as the revision of `coordinate` at `version` after the
/// ledger's tip, as another (broken) writer could.
fn commit_raw(root: &str, coordinate: &str, version: &str, text: &str) {
    let ledger = nenjim_journal_nats::NatsRoot::parse(root)
        .and_then(|r| r.ledger())
        .unwrap_or_else(|e| panic!("{e}"));
    let tip = ledger.tip().unwrap_or_else(|e| panic!("{e}"));
    let record = revision_record(coordinate, version, text);
    if let Err(e) = ledger.commit_at(tip, record, Some(text.as_bytes())) {
        panic!("{e:?}");
    }
}

#[test]
fn check_of_a_nats_root_reports_every_independent_error_in_ledger_order() {
    let server = NatsServer::start();
    let root = server.root("damaged");
    run_json(&[&"init", &root], 0);
    let (t1, t2, t3) = ("20990101T000000Z", "20990102T000000Z", "20990103T000000Z");
    commit_raw(&root, "left-pad", t1, &genesis_text("left-pad", t1));
    commit_raw(&root, "right-pad", t1, &genesis_text("right-pad", t1));
    // 3: a text that does not parse (its record is its own).
    let broken = genesis_text("up-pad", t1).replace("GENESIS", "nothing");
    commit_raw(&root, "up-pad", t1, &broken);
    // 4: a successor of left-pad naming no stored revision.
    let stray =
        genesis_text("left-pad", t2).replace("GENESIS", &format!("sha256:{}", "0".repeat(64)));
    commit_raw(&root, "left-pad", t2, &stray);
    // 5: what follows left-pad's error is not reported again.
    let after = genesis_text("left-pad", t3).replace(
        "GENESIS",
        &nenjim_journal_api::valuetypes::RevisionDigest::of_text(&stray).to_string(),
    );
    commit_raw(&root, "left-pad", t3, &after);
    // 6: right-pad goes on, valid.
    let successor = genesis_text("right-pad", t2).replace(
        "GENESIS",
        &nenjim_journal_api::valuetypes::RevisionDigest::of_text(&genesis_text("right-pad", t1))
            .to_string(),
    );
    commit_raw(&root, "right-pad", t2, &successor);

    let out = run(&[&"check", &root, &"--json"]);
    assert_code(&out, 1);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["error_count"], 2, "{doc}");
    assert_eq!(doc["truncated"], false, "{doc}");
    let errors = doc["errors"].as_array().cloned().unwrap_or_default();
    let kinds: Vec<&str> = errors.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert_eq!(kinds, ["Syntax", "UnknownPredecessor"], "{doc}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{root}/up-pad/{t1}.journal:4:")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{root}/left-pad/{t2}.journal")),
        "{stderr}"
    );
    assert!(!stderr.contains(&format!("left-pad/{t3}")), "{stderr}");

    let out = run(&[&"check", &root, &"--max-errors", &"1", &"--json"]);
    assert_code(&out, 1);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (&doc["error_count"], &doc["truncated"]),
        (&Value::from(1), &Value::from(true)),
        "{doc}"
    );
}

/// A message published around the writer whose bytes differ from its
/// record (the same size, another SHA-256) is what `check` and `verify`
/// report as `LedgerMismatch`, naming the revision; both passed before it.
#[test]
fn check_and_verify_report_a_tampered_message_as_a_ledger_mismatch() {
    use nenjim_journal_store::ledger::Entry;
    let server = NatsServer::start();
    let (root, _dir, key, verifier) = signed_root(&server, "tampered");
    run_json(
        &[
            &"create",
            &root,
            &"a",
            &"--description",
            &"x",
            &"--signing-key",
            &key,
        ],
        0,
    );
    let verified = run_json(&[&"verify", &root, &"--key", &verifier], 0);
    assert_eq!(verified["ok"], true, "{verified}");
    assert_code(&run(&[&"check", &root]), 0);

    let tip = nenjim_journal_nats::NatsRoot::parse(&root)
        .and_then(|r| r.ledger())
        .and_then(|l| l.tip())
        .unwrap_or_else(|e| panic!("{e}"));
    let version = "20990101T000000Z";
    let text = genesis_text("b", version);
    let line = Entry::new(tip + 1, revision_record("b", version, &text)).to_string();
    let tampered = text.replace("the b artifact", "the B artifact");
    assert_eq!(tampered.len(), text.len());
    server.publish(
        "nenjim.tampered.ledger",
        &[("Nenjim-Record", &line)],
        tampered.as_bytes(),
    );
    let named = format!("{root}/b/{version}.journal");

    let out = run(&[&"check", &root, &"--json"]);
    assert_code(&out, 1);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    let kinds: Vec<&str> = doc["errors"]
        .as_array()
        .map(|errors| errors.iter().filter_map(|e| e["kind"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(kinds, ["LedgerMismatch"], "{doc}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&named), "{stderr}");

    let out = run(&[&"verify", &root, &"--key", &verifier, &"--json"]);
    assert_code(&out, 1);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["ok"], false, "{doc}");
    assert_eq!(doc["error"]["kind"], "LedgerMismatch", "{doc}");
    let said = doc["error"].to_string();
    assert!(said.contains(&named), "{doc}");
}
