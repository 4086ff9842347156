//! `prove` (an inclusion proof the tlog crate and Go's `tlog.CheckRecord`
//! accept) and `witness` (cosigns a consistent extension, refuses a
//! rollback).

use super::*;

/// Builds the Go checker of `prove`'s JSON (tests/go/checkrecord.go) with
/// Debian's golang-go and golang-golang-x-mod-dev; panics without them.
fn build_go(dir: &Path) -> PathBuf {
    nenjim_journal_testkit::go::build(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/checkrecord.go"),
        dir,
        "checkrecord",
        "golang.org/x/mod/sumdb/tlog/tlog.go",
    )
}

fn hash_of(value: &Value) -> Hash {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(value.as_str().unwrap())
        .unwrap();
    Hash(bytes.try_into().unwrap())
}

#[test]
fn prove_prints_an_inclusion_proof_that_the_tlog_crate_and_go_accept() {
    let dir = tempdir();
    let (key, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = root_with(dir.path(), 600, &key);
    let note = checkpoint_of(&root);
    let (checkpoint, _) =
        Checkpoint::open(note.as_bytes(), &VerifierKey::parse(&vkey).unwrap()).unwrap();
    let records = records(&root);
    let go = build_go(dir.path());
    fs::write(dir.path().join("checkpoint"), &note).unwrap();

    for i in [0usize, 1, 255, 256, 257, 511, 599] {
        let fields: Vec<&str> = records[i].split(' ').collect();
        let (coordinate, version) = (fields[2], fields[3]);
        let out = run(&[&"prove", &root, &coordinate, &version, &"--json"]);
        assert_code(&out, 0);
        let doc = json(&out);
        assert_eq!(doc["index"], Value::from(i as u64));
        assert_eq!(doc["tree_size"], Value::from(600));
        assert_eq!(doc["root"], Value::from(checkpoint.root().to_base64()));
        assert_eq!(doc["record"], Value::from(records[i].clone()));
        let proof: Vec<Hash> = doc["proof"]
            .as_array()
            .unwrap()
            .iter()
            .map(hash_of)
            .collect();
        verify_inclusion(
            &leaf_hash(records[i].as_bytes()),
            i as u64,
            600,
            checkpoint.root(),
            &proof,
        )
        .unwrap();
        // Any altered hash fails.
        let mut altered = proof.clone();
        altered[0].0[3] ^= 1;
        assert!(
            verify_inclusion(
                &leaf_hash(records[i].as_bytes()),
                i as u64,
                600,
                checkpoint.root(),
                &altered
            )
            .is_err()
        );
        // Go's tlog.CheckRecord, against the checkpoint Go verified with note.Open.
        let proof_file = dir.path().join(format!("proof-{i}.json"));
        fs::write(&proof_file, &out.stdout).unwrap();
        let checked = Command::new(&go)
            .arg(dir.path().join("checkpoint"))
            .arg(&vkey)
            .arg(&proof_file)
            .output()
            .unwrap();
        assert!(
            checked.status.success(),
            "Go refused the proof of index {i}: {}",
            String::from_utf8_lossy(&checked.stderr)
        );
        println!("{}", String::from_utf8_lossy(&checked.stdout).trim_end());
    }
    // Go refuses a proof whose record was changed (the check is real).
    let first = records[5].split(' ').collect::<Vec<_>>();
    let out = run(&[&"prove", &root, &first[2], &first[3], &"--json"]);
    let mut doc = json(&out);
    doc["record"] = Value::from(records[6].clone());
    let bad = dir.path().join("bad.json");
    fs::write(&bad, doc.to_string()).unwrap();
    let checked = Command::new(&go)
        .arg(dir.path().join("checkpoint"))
        .arg(&vkey)
        .arg(&bad)
        .output()
        .unwrap();
    assert!(
        !checked.status.success(),
        "Go accepted a proof of another record"
    );

    // The text form carries the same proof.
    let text = ok(&[&"prove", &root, &first[2], &first[3]]);
    assert!(text.contains(&format!("record {}\n", records[5])), "{text}");
    // An unknown revision, an unknown artifact.
    refused(
        &[&"prove", &root, &first[2], &"20000101T000000Z", &"--json"],
        1,
        "UnknownRevision",
    );
    refused(
        &[&"prove", &root, &"nothing-here", &first[3]],
        1,
        "UnknownRevision",
    );
    // A revision the checkpoint does not cover yet.
    let covered = checkpoint_of(&root);
    add(&root, 600, 601, &key);
    fs::write(root.join(".ledger/tlog/checkpoint"), &covered).unwrap();
    let last = nenjim_journal_testkit::cli::ledger_records(&root)
        .pop()
        .unwrap();
    let fields: Vec<&str> = last.split(' ').collect();
    refused(
        &[&"prove", &root, &fields[2], &fields[3], &"--json"],
        1,
        "CheckpointMismatch",
    );
    // A missing tile is named.
    fs::remove_file(root.join(".ledger/tlog/tile/0/000")).unwrap();
    refused(
        &[&"prove", &root, &first[2], &first[3], &"--json"],
        1,
        "CheckpointMismatch",
    );
    // An unsigned root.
    let unsigned = tempdir();
    let plain = unsigned.path().join("plain");
    ok(&[&"init", &plain]);
    ok(&[&"create", &plain, &"lib-0", &"--description", &"a library"]);
    refused(
        &[&"prove", &plain, &"lib-0", &"20000101T000000Z"],
        1,
        "CheckpointInvalid",
    );
}

#[test]
fn witness_cosigns_a_consistent_extension_and_refuses_a_rollback() {
    let dir = tempdir();
    let (key_file, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = root_with(dir.path(), 2, &key_file);
    let (w1, w1v) = keygen(dir.path(), "witness.example/one", true);
    let state = dir.path().join("w1-state");

    // The first time, the witness needs the log's key.
    refused(
        &[&"witness", &root, &"--key", &w1, &"--state", &state],
        2,
        "--log-key",
    );
    // A log key is no witness key.
    let log_key_file = dir.path().join("example.org_journal.key");
    refused(
        &[
            &"witness",
            &root,
            &"--key",
            &log_key_file,
            &"--state",
            &state,
            &"--log-key",
            &vkey,
        ],
        1,
        "cosignature/v1",
    );
    let doc = json(&run(&[
        &"witness",
        &root,
        &"--key",
        &w1,
        &"--state",
        &state,
        &"--log-key",
        &vkey,
        &"--json",
    ]));
    assert_eq!(doc["tree_size"], Value::from(2));
    assert_eq!(doc["previous_size"], Value::Null);
    assert_eq!(cosignature_count(&root, &[&w1v]), 1);
    // The witnessed copy is the checkpoint, with the log's signature kept.
    let witnessed = fs::read(root.join(".ledger/tlog/checkpoint.witnessed")).unwrap();
    Checkpoint::open(&witnessed, &VerifierKey::parse(&vkey).unwrap()).unwrap();
    let old_copy = dir.path().join("old-copy");
    copy_root(&root, &old_copy);
    let old_state = dir.path().join("w1-old-state");
    copy_root(&state, &old_state);

    // A consistent extension: cosigned, without --log-key (kept in the state).
    add(&root, 2, 280, &key_file);
    let doc = json(&run(&[
        &"witness", &root, &"--key", &w1, &"--state", &state, &"--json",
    ]));
    assert_eq!(doc["tree_size"], Value::from(280));
    assert_eq!(doc["previous_size"], Value::from(2));
    assert_eq!(cosignature_count(&root, &[&w1v]), 1);
    let note =
        Note::parse(&fs::read(root.join(".ledger/tlog/checkpoint.witnessed")).unwrap()).unwrap();
    assert_eq!(
        note.signatures().len(),
        2,
        "the log's signature and one cosignature"
    );

    // A rollback: the older copy is served again. Nothing is cosigned, the
    // state is unchanged.
    let state_before = fs::read(state.join("example.org%2Fjournal.checkpoint")).unwrap();
    let copy_before = fs::read(old_copy.join(".ledger/tlog/checkpoint.witnessed")).unwrap();
    let err = refused(
        &[&"witness", &old_copy, &"--key", &w1, &"--state", &state],
        1,
        "Rollback",
    );
    assert!(err.contains("cosigns nothing"), "{err}");
    assert_eq!(
        fs::read(state.join("example.org%2Fjournal.checkpoint")).unwrap(),
        state_before
    );
    assert_eq!(
        fs::read(old_copy.join(".ledger/tlog/checkpoint.witnessed")).unwrap(),
        copy_before
    );

    // A fork of a larger size, signed by the log key, for a witness that
    // cosigned the 2 entries before: refused as well.
    let fork_dir = tempdir();
    let fork = root_with(fork_dir.path(), 0, &key_file);
    add_named(&fork, "fork", 0, 3, &key_file);
    refused(
        &[&"witness", &fork, &"--key", &w1, &"--state", &old_state],
        1,
        "Rollback",
    );
    assert!(!fork.join(".ledger/tlog/checkpoint.witnessed").exists());
    // The same state accepts the real extension.
    ok(&[&"witness", &root, &"--key", &w1, &"--state", &old_state]);

    // Another log key given for a log the state knows: refused.
    let other = tempdir();
    let (_, other_vkey) = keygen(other.path(), "example.org/journal", false);
    refused(
        &[
            &"witness",
            &root,
            &"--key",
            &w1,
            &"--state",
            &state,
            &"--log-key",
            &other_vkey,
        ],
        1,
        "CheckpointInvalid",
    );
}
