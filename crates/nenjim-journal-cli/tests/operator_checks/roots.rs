//! A root as a whole: each stray file reported, a root copied with its
//! sequences and blobs, an incompatible destination refused.

use super::*;

// ---------------------------------------------------------------- 6: stray files

#[test]
fn check_warns_about_each_stray_file_in_a_root_with_a_ledger() {
    let hub = acme();
    write(&hub.root.join("README.txt"), b"notes");
    write(&hub.root.join("acme-logo/latest.journal"), b"x");
    write(&hub.root.join("acme-logo/x.journal.bak"), b"x");
    let check = run(&[&"check", &hub.root]);
    assert_code(&check, 0);
    let said = stderr(&check);
    let warnings: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(warnings.len(), 3, "{}", stderr(&check));
    for name in [
        "README.txt",
        "acme-logo/latest.journal",
        "acme-logo/x.journal.bak",
    ] {
        let warning = warnings
            .iter()
            .find(|w| w.contains(name))
            .unwrap_or_else(|| panic!("no warning about {name}: {warnings:?}"));
        assert!(warning.contains("move it out of the root"), "{warning}");
    }
    let doc = run_json(&[&"check", &hub.root], 0);
    assert_eq!(strings(&doc["stray"]).len(), 3, "{doc}");
    // A stray entry that sorts first hides no unrecorded revision file.
    write(&hub.root.join("acme-logo/1.journal"), b"x");
    write(&hub.root.join("acme-logo/20991231T000000Z.journal"), b"x");
    let doc = run_json(&[&"check", &hub.root], 0);
    assert_eq!(strings(&doc["stray"]).len(), 4, "{doc}");
    let unrecorded = strings(&doc["unrecorded"]);
    assert_eq!(unrecorded.len(), 1, "{doc}");
    assert!(unrecorded[0].ends_with("acme-logo/20991231T000000Z.journal"));
    // The same files fail a root without a ledger.
    fs::remove_dir_all(hub.root.join(".ledger")).unwrap();
    assert_code(&run(&[&"check", &hub.root]), 1);
}

// ---------------------------------------------------------------- 6: copying a root

/// A source root whose ledger has fences at 2 and 4 (as two takeovers
/// leave), its revisions at 1, 3 and 5, and its blob in `source-store`.
fn fenced_source(hub: &Hub) -> (PathBuf, PathBuf) {
    let source = hub.dir.path().join("source");
    let store = hub.dir.path().join("source-store");
    fs::create_dir(&source).unwrap();
    let fence = |sequence: u64| {
        std::os::unix::fs::symlink(
            format!("{sequence} FENCE 9"),
            source.join(format!(".ledger/log/{sequence:020}")),
        )
        .unwrap();
    };
    run_json(
        &[&"create", &source, &"left-pad", &"--description", &"pads"],
        0,
    );
    fence(2);
    let blob = hub.blob("left-pad-1.0.0.tgz", b"left-pad 1.0.0");
    let doc = run_json(
        &[
            &"release",
            &source,
            &"left-pad",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &blob,
            &"--store",
            &store,
            &"--create",
        ],
        0,
    );
    assert_eq!(doc["sequence"], 3);
    fence(4);
    let doc = run_json(
        &[
            &"create",
            &source,
            &"serde",
            &"--description",
            &"serializes",
        ],
        0,
    );
    assert_eq!(doc["sequence"], 5);
    (source, store)
}

#[test]
fn copying_a_root_keeps_its_sequences_and_copies_its_blobs() {
    let hub = Hub::new();
    let (source, source_store) = fenced_source(&hub);
    // Without the source's store, the blob is missing, and the message says
    // how to copy it.
    let missing = run(&[&"append", &hub.root, &source, &"--store", &hub.store]);
    assert_code(&missing, 1);
    assert!(stderr(&missing).contains("BlobMissing") || stderr(&missing).contains("found no blob"));
    assert!(
        stderr(&missing).contains("--source-store"),
        "{}",
        stderr(&missing)
    );
    // With both stores: every revision at the source's sequence.
    let doc = run_json(
        &[
            &"append",
            &hub.root,
            &source,
            &"--store",
            &hub.store,
            &"--source-store",
            &source_store,
        ],
        0,
    );
    let sequences: Vec<u64> = doc["appended"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(sequences, [1, 3, 5], "{doc}");
    // A consumer switching over with its old --after sees the same events.
    for after in 0..=5u64 {
        let events = |root: &Path| {
            let out = run(&[&"events", &root, &"--after", &after.to_string(), &"--json"]);
            assert_code(&out, 0);
            stdout(&out)
        };
        assert_eq!(events(&hub.root), events(&source), "after {after}");
    }
    // The blob is in the destination's store.
    assert_code(
        &run(&[&"verify-content", &hub.root, &"--store", &hub.store]),
        0,
    );
    let blob = b"left-pad 1.0.0";
    assert!(hub.store.join("blobs/sha256").join(hex(blob)).is_file());
    // Copying again writes nothing.
    let before = tree(&hub.root);
    let again = run_json(
        &[
            &"append",
            &hub.root,
            &source,
            &"--store",
            &hub.store,
            &"--source-store",
            &source_store,
        ],
        0,
    );
    assert!(
        again["appended"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["new"] == false),
        "{again}"
    );
    assert_eq!(tree(&hub.root), before);
    // --source-store names the source's store: it needs --store.
    assert_code(
        &run(&[
            &"append",
            &hub.root,
            &source,
            &"--source-store",
            &source_store,
        ]),
        2,
    );
}

#[test]
fn copying_a_root_into_an_incompatible_destination_is_refused_with_why() {
    let hub = Hub::new();
    let (source, _) = fenced_source(&hub);
    hub.create("tokio");
    let before = tree(&hub.root);
    let out = run_json(&[&"append", &hub.root, &source], 1);
    assert_eq!(out["error"]["kind"], "CopyRefused", "{out}");
    let message = out["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot keep the source's sequences"),
        "{message}"
    );
    assert!(
        message.contains("expected an empty destination root"),
        "{message}"
    );
    assert_eq!(tree(&hub.root), before, "nothing written");
}
