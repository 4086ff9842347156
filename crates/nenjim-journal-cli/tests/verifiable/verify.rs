//! `verify`: a signed root accepted and what is wrong named, `--since`
//! (an extension, a rollback, a fork), `--quorum` (only valid
//! cosignatures of the named keys).

use super::*;

#[test]
fn verify_accepts_a_signed_root_and_names_what_is_wrong() {
    let dir = tempdir();
    let (key, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = root_with(dir.path(), 3, &key);

    let text = ok(&[&"verify", &root, &"--key", &vkey]);
    assert!(
        text.contains("checkpoint of 3 entries signed by example.org/journal")
            && text.contains("3 revision files match"),
        "{text}"
    );
    let doc = json(&run(&[&"verify", &root, &"--key", &vkey, &"--json"]));
    assert_eq!(doc["ok"], Value::Bool(true));
    assert_eq!(doc["tree_size"], Value::from(3));
    assert_eq!(doc["revisions"], Value::from(3));
    // The key may be given as the file keygen's output was saved to.
    let vkey_file = dir.path().join("journal.vkey");
    fs::write(&vkey_file, format!("{vkey}\n")).unwrap();
    ok(&[&"verify", &root, &"--key", &vkey_file]);

    // Another key of the same name: the signature does not verify.
    let other_dir = tempdir();
    let (_, other) = keygen(other_dir.path(), "example.org/journal-x", false);
    refused(
        &[&"verify", &root, &"--key", &other],
        1,
        "CheckpointInvalid",
    );
    let (_, same_name) = keygen(other_dir.path(), "example.org/journal", false);
    refused(
        &[&"verify", &root, &"--key", &same_name],
        1,
        "CheckpointInvalid",
    );
    // A malformed key is refused as such.
    refused(
        &[&"verify", &root, &"--key", &"example.org/journal+0+AAAA"],
        1,
        "CheckpointInvalid",
    );

    // A write the checkpoint does not cover yet: the ledger is longer (a
    // crash between the commit and its checkpoint leaves the older one; a
    // writer at a checkpoint interval, too, until its next one). Not
    // wrong: the entry waits for the next checkpoint, and is counted.
    let behind = checkpoint_of(&root);
    add(&root, 3, 4, &key);
    fs::write(root.join(".ledger/tlog/checkpoint"), &behind).unwrap();
    let text = ok(&[&"verify", &root, &"--key", &vkey]);
    assert!(
        text.contains("checkpoint of 3 entries")
            && text.contains("4 revision files match")
            && text.contains("1 ledger entry follows it and waits for the next checkpoint"),
        "{text}"
    );
    let doc = json(&run(&[&"verify", &root, &"--key", &vkey, &"--json"]));
    assert_eq!(doc["tree_size"], Value::from(3));
    assert_eq!(doc["revisions"], Value::from(4));
    assert_eq!(doc["uncovered"], Value::from(1));
    // The next writer brings it forward.
    add(&root, 4, 5, &key);
    let doc = json(&run(&[&"verify", &root, &"--key", &vkey, &"--json"]));
    assert_eq!(doc["tree_size"], Value::from(5));
    assert_eq!(doc["uncovered"], Value::from(0));
    // A checkpoint larger than the ledger is wrong.
    let ahead = checkpoint_of(&root);
    let shorter = dir.path().join("shorter");
    copy_root(&root, &shorter);
    fs::write(shorter.join(".ledger/tlog/checkpoint"), &ahead).unwrap();
    let log = shorter.join(".ledger/log");
    let mut links: Vec<PathBuf> = fs::read_dir(&log)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    links.sort();
    fs::remove_file(links.last().unwrap()).unwrap();
    let err = refused(
        &[&"verify", &shorter, &"--key", &vkey],
        1,
        "CheckpointMismatch",
    );
    assert!(err.contains("expected at most the 4 entries"), "{err}");

    // One flipped byte of a revision file.
    let file = revision_files(&root)[1].clone();
    let original = fs::read(&file).unwrap();
    let mut flipped = original.clone();
    let last = flipped.len() - 2;
    flipped[last] ^= 0x01;
    fs::write(&file, &flipped).unwrap();
    let err = refused(&[&"verify", &root, &"--key", &vkey], 1, "LedgerMismatch");
    assert!(err.contains(&file.display().to_string()), "{err}");
    // A missing one.
    fs::remove_file(&file).unwrap();
    refused(&[&"verify", &root, &"--key", &vkey], 1, "LedgerMismatch");
    fs::write(&file, &original).unwrap();
    ok(&[&"verify", &root, &"--key", &vkey]);

    // A damaged hash tile: the tiles no longer lead to the signed root.
    let tile = root.join(".ledger/tlog/tile/0/000.p/5");
    let original = fs::read(&tile).unwrap();
    let mut bytes = original.clone();
    bytes[0] ^= 0x80;
    fs::write(&tile, &bytes).unwrap();
    refused(
        &[&"verify", &root, &"--key", &vkey],
        1,
        "CheckpointMismatch",
    );
    // A missing one is named.
    fs::remove_file(&tile).unwrap();
    let err = refused(
        &[&"verify", &root, &"--key", &vkey],
        1,
        "CheckpointMismatch",
    );
    assert!(
        err.contains(&tile.display().to_string()) && err.contains("found no tile tile/0/000.p/5"),
        "{err}"
    );
    let out = run(&[&"verify", &root, &"--key", &vkey, &"--json"]);
    assert_code(&out, 1);
    let doc = json(&out);
    assert_eq!(doc["ok"], Value::Bool(false), "{doc}");
    assert_eq!(doc["error"]["kind"], Value::from("CheckpointMismatch"));
    assert_eq!(
        doc["error"]["path"],
        Value::from(tile.display().to_string())
    );
    fs::write(&tile, &original).unwrap();
    ok(&[&"verify", &root, &"--key", &vkey]);
}

#[test]
fn verify_since_accepts_an_extension_and_detects_a_rollback_and_a_fork() {
    let dir = tempdir();
    let (key_file, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = root_with(dir.path(), 3, &key_file);
    // A mirror saves the checkpoint it verified.
    let saved = dir.path().join("seen.checkpoint");
    fs::write(&saved, ok(&[&"checkpoint", &root])).unwrap();
    let old_copy = dir.path().join("old-copy");
    copy_root(&root, &old_copy);

    // The hub publishes more; the mirror checks the new state extends the old.
    add(&root, 3, 260, &key_file);
    let text = ok(&[&"verify", &root, &"--key", &vkey, &"--since", &saved]);
    assert!(
        text.contains("consistent with the checkpoint of 3 entries"),
        "{text}"
    );
    // Equal sizes are consistent too.
    let newest = dir.path().join("newest.checkpoint");
    fs::write(&newest, ok(&[&"checkpoint", &root])).unwrap();
    ok(&[&"verify", &root, &"--key", &vkey, &"--since", &newest]);

    // Rollback: someone serves the older copy again.
    let err = refused(
        &[&"verify", &old_copy, &"--key", &vkey, &"--since", &newest],
        1,
        "Rollback",
    );
    assert!(err.contains(&newest.display().to_string()), "{err}");

    // A fork: another history of the same size, signed by the same key.
    let fork_dir = tempdir();
    let fork = root_with(fork_dir.path(), 0, &key_file);
    add_named(&fork, "fork", 0, 3, &key_file);
    refused(
        &[&"verify", &fork, &"--key", &vkey, &"--since", &saved],
        1,
        "Rollback",
    );
    // A larger fork is not an extension either.
    add_named(&fork, "fork", 3, 4, &key_file);
    refused(
        &[&"verify", &fork, &"--key", &vkey, &"--since", &saved],
        1,
        "Rollback",
    );

    // An older checkpoint signed by another key is refused as such.
    let other = SignerKey::generate(
        "example.org/journal",
        nenjim_journal_tlog::note::Algorithm::Ed25519,
    )
    .unwrap();
    let forged = dir.path().join("forged.checkpoint");
    let note = Checkpoint::new(other.name(), 1, Hash([7; 32]))
        .unwrap()
        .sign(&other)
        .unwrap();
    fs::write(&forged, note.to_string()).unwrap();
    refused(
        &[&"verify", &root, &"--key", &vkey, &"--since", &forged],
        1,
        "CheckpointInvalid",
    );
}

#[test]
fn verify_quorum_counts_only_valid_cosignatures_of_the_named_keys() {
    let dir = tempdir();
    let (key_file, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = root_with(dir.path(), 3, &key_file);
    let (w1, w1v) = keygen(dir.path(), "witness.example/one", true);
    let (w2, w2v) = keygen(dir.path(), "witness.example/two", true);
    let (_, w3v) = keygen(dir.path(), "witness.example/three", true);
    for (w, state) in [(&w1, "s1"), (&w2, "s2")] {
        ok(&[
            &"witness",
            &root,
            &"--key",
            w,
            &"--state",
            &dir.path().join(state),
            &"--log-key",
            &vkey,
        ]);
    }
    assert_eq!(cosignature_count(&root, &[&w1v, &w2v]), 2);

    let text = ok(&[
        &"verify",
        &root,
        &"--key",
        &vkey,
        &"--witness",
        &w1v,
        &"--witness",
        &w2v,
        &"--quorum",
        &"2",
    ]);
    assert!(text.contains("cosigned by 2 of 2 witnesses"), "{text}");
    // A key that did not cosign does not count.
    refused(
        &[
            &"verify",
            &root,
            &"--key",
            &vkey,
            &"--witness",
            &w1v,
            &"--witness",
            &w3v,
            &"--quorum",
            &"2",
        ],
        1,
        "CheckpointInvalid",
    );
    ok(&[
        &"verify",
        &root,
        &"--key",
        &vkey,
        &"--witness",
        &w1v,
        &"--witness",
        &w3v,
        &"--quorum",
        &"1",
    ]);
    // A key named twice counts once.
    refused(
        &[
            &"verify",
            &root,
            &"--key",
            &vkey,
            &"--witness",
            &w1v,
            &"--witness",
            &w1v,
            &"--quorum",
            &"2",
        ],
        1,
        "CheckpointInvalid",
    );

    // A forged cosignature line (w2's, one bit changed) does not count.
    let path = root.join(".ledger/tlog/checkpoint.witnessed");
    let good = fs::read_to_string(&path).unwrap();
    let note = Note::parse(good.as_bytes()).unwrap();
    let mut forged = Note::new(note.text()).unwrap();
    for line in note.signatures() {
        let mut line = line.clone();
        if line.name == "witness.example/two" {
            let n = line.signature.len() - 1;
            line.signature[n] ^= 1;
        }
        forged.add_signature(line);
    }
    fs::write(&path, forged.to_string()).unwrap();
    let err = refused(
        &[
            &"verify",
            &root,
            &"--key",
            &vkey,
            &"--witness",
            &w1v,
            &"--witness",
            &w2v,
            &"--quorum",
            &"2",
        ],
        1,
        "CheckpointInvalid",
    );
    assert!(err.contains("found 1 valid cosignatures"), "{err}");
    fs::write(&path, &good).unwrap();

    // A new checkpoint the witnesses have not cosigned yet: no quorum.
    add(&root, 3, 4, &key_file);
    let err = refused(
        &[
            &"verify",
            &root,
            &"--key",
            &vkey,
            &"--witness",
            &w1v,
            &"--quorum",
            &"1",
        ],
        1,
        "CheckpointInvalid",
    );
    assert!(err.contains("not cosigned it yet"), "{err}");
    // Once both cosign again the quorum holds; w1 keeps one line, not two.
    for (w, state) in [(&w1, "s1"), (&w2, "s2")] {
        ok(&[
            &"witness",
            &root,
            &"--key",
            w,
            &"--state",
            &dir.path().join(state),
        ]);
    }
    ok(&[
        &"verify",
        &root,
        &"--key",
        &vkey,
        &"--witness",
        &w1v,
        &"--witness",
        &w2v,
        &"--quorum",
        &"2",
    ]);
    let note = Note::parse(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(note.signatures().len(), 3);
    // --quorum needs --witness, and the other way round (usage, exit 2).
    assert_code(
        &run(&[&"verify", &root, &"--key", &vkey, &"--quorum", &"1"]),
        2,
    );
}
