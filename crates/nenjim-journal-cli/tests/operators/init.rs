//! `init`: the store it records, used by later commands, on a directory
//! and in a bucket (created when missing).

use super::*;

// ---------------------------------------------------------------- init

#[test]
fn init_records_the_store_that_later_commands_use() {
    let dir = tempdir();
    let root = dir.path().join("journals");
    let store = dir.path().join("store");
    // A store that does not exist is refused, and nothing is created.
    let refused = run_json(&[&"init", &root, &"--store", &store], 2);
    assert_eq!(refused["error"]["kind"], "StoreMissing", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("--create")),
        "{refused}"
    );
    assert!(!root.exists() && !store.exists());
    // Writing into a root that does not exist says to run init.
    let file = dir.path().join("a.journal");
    write(&file, genesis("a", "20260101T000000Z").as_bytes());
    for args in [
        vec![&"append" as &dyn AsRef<std::ffi::OsStr>, &root, &file],
        vec![&"create", &root, &"a", &"--description", &"x"],
    ] {
        let output = run(&args);
        assert_code(&output, 2);
        let errors = cli::stderr(&output);
        assert!(errors.contains("nenjim-journal init"), "{errors}");
    }

    let doc = run_json(&[&"init", &root, &"--store", &store, &"--create"], 0);
    assert_eq!(
        (&doc["created_root"], &doc["created_store"]),
        (&Value::Bool(true), &Value::Bool(true)),
        "{doc}"
    );
    let absolute = std::path::absolute(&store).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["store"], absolute.display().to_string());
    assert_eq!(
        read_text(&root.join(".ledger/store")),
        format!("nenjim-store/1\nstore {}\n", absolute.display())
    );
    assert!(
        root.join(".ledger/LEDGER").is_file(),
        "init creates the ledger"
    );

    // release and verify-content use the recorded store.
    run_json(&[&"create", &root, &"a", &"--description", &"x"], 0);
    let blob = dir.path().join("a-1.0.0.tgz");
    write(&blob, b"the bytes of a 1.0.0");
    let released = run_json(
        &[
            &"release",
            &root,
            &"a",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &blob,
        ],
        0,
    );
    let digest = released["content"]["digest"].as_str().unwrap_or_default();
    let hex = digest.strip_prefix("sha256:").unwrap_or_default();
    assert!(store.join("blobs/sha256").join(hex).is_file(), "{released}");
    let verified = run_json(&[&"verify-content", &root], 0);
    assert_eq!(
        verified["store"],
        absolute.display().to_string(),
        "{verified}"
    );
    // A mistyped --store is refused, and nothing is written.
    let typo = dir.path().join("stroe");
    let before = ledger_records(&root);
    let refused = run_json(
        &[
            &"release",
            &root,
            &"a",
            &"1.1.0",
            &"--license",
            &"MIT",
            &"--content",
            &blob,
            &"--store",
            &typo,
        ],
        2,
    );
    assert_eq!(refused["error"]["kind"], "StoreMissing", "{refused}");
    assert!(!typo.exists());
    assert_eq!(ledger_records(&root), before);
    // init again on the existing root records another store.
    let other = dir.path().join("other");
    let again = run_json(&[&"init", &root, &"--store", &other, &"--create"], 0);
    assert_eq!(again["created_root"], false, "{again}");
    assert!(read_text(&root.join(".ledger/store")).contains("other"));
}

#[test]
fn init_of_a_root_in_a_bucket_and_writes_into_a_missing_one() {
    // memory:// is a store of the process's own: created by this init…
    let doc = run_json(
        &[
            &"init",
            &"memory://b/root",
            &"--store",
            &"memory://b/store",
            &"--create",
        ],
        0,
    );
    assert_eq!(
        (&doc["created_root"], &doc["created_store"], &doc["store"]),
        (
            &Value::Bool(true),
            &Value::Bool(true),
            &Value::from("memory://b/store")
        ),
        "{doc}"
    );
    // … and so missing for the next process: writing into it says to run init.
    let refused = run(&[&"create", &"memory://b/root", &"a", &"--description", &"x"]);
    assert_code(&refused, 2);
    let errors = cli::stderr(&refused);
    assert!(
        errors.contains("nenjim-journal init memory://b/root"),
        "{errors}"
    );
    let store = run_json(
        &[&"init", &"memory://b/root", &"--store", &"memory://b/s"],
        2,
    );
    assert_eq!(store["error"]["kind"], "StoreMissing", "{store}");
}
