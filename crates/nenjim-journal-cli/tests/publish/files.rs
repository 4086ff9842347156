//! The files a root holds besides its ledger: `put-blob` (idempotent, a
//! store by URL), `successor -o` (a new file only), and `check`'s
//! warning about files the ledger does not record.

use super::*;

// ---------------------------------------------------------------- put-blob

#[test]
fn put_blob_is_idempotent_and_refuses_a_damaged_store() {
    let dir = tempdir();
    let store = dir.path().join("store");
    let file = dir.path().join("blob.bin");
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    write(&file, &bytes);
    let doc = run_json(&[&"put-blob", &"--store", &store, &"--create", &file], 0);
    let path = store.join("blobs/sha256").join(hex(&bytes));
    assert_eq!(
        doc["pointer"],
        format!("sha256:{} {}", hex(&bytes), bytes.len())
    );
    assert_eq!(doc["path"], path.display().to_string());
    assert_eq!(doc["new"], true);
    assert_eq!(read(&path), bytes);
    let again = run_json(&[&"put-blob", &"--store", &store, &file], 0);
    assert_eq!(again["new"], false);
    assert_eq!(
        names(&store.join("blobs/sha256")),
        vec![hex(&bytes)],
        "no temporary left"
    );

    write(&path, b"damaged");
    let damaged = run_json(&[&"put-blob", &"--store", &store, &file], 1);
    assert_eq!(damaged["error"]["kind"], "BlobMismatch");
    assert_eq!(
        read(&path),
        b"damaged",
        "an existing blob is never replaced"
    );
    assert_code(
        &run(&[&"put-blob", &"--store", &store, &dir.path().join("nope")]),
        2,
    );
    assert_code(&run(&[&"put-blob", &file]), 2);
}

#[test]
fn put_blob_takes_a_store_by_url() {
    let dir = tempdir();
    let file = dir.path().join("blob.bin");
    let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 249) as u8).collect();
    write(&file, &bytes);
    // file://: the local store, the same files as a path gives.
    let store = dir.path().join("store");
    let url = format!("file://{}", store.display());
    let doc = run_json(&[&"put-blob", &"--store", &url, &"--create", &file], 0);
    assert_eq!(doc["new"], true);
    let path = store.join("blobs/sha256").join(hex(&bytes));
    assert_eq!(read(&path), bytes);
    let again = run_json(&[&"put-blob", &"--store", &url, &file], 0);
    assert_eq!(again["new"], false);
    write(&path, b"damaged");
    let damaged = run_json(&[&"put-blob", &"--store", &url, &file], 1);
    assert_eq!(damaged["error"]["kind"], "BlobMismatch");
    assert_eq!(read(&path), b"damaged");
    // memory://: a store of the process's own (gone when it exits).
    let memory = run_json(
        &[
            &"put-blob",
            &"--store",
            &"memory://bucket/store",
            &"--create",
            &file,
        ],
        0,
    );
    assert_eq!(
        memory["pointer"],
        format!("sha256:{} {}", hex(&bytes), bytes.len())
    );
    assert_eq!(
        memory["path"],
        format!("memory://bucket/store/blobs/sha256/{}", hex(&bytes))
    );
    assert_eq!(memory["new"], true);
    // An unknown scheme is a usage of the wrong store (exit 2).
    assert_code(&run(&[&"put-blob", &"--store", &"ftp://x/y", &file]), 2);
}

// ---------------------------------------------------------------- successor -o

#[test]
fn successor_o_writes_a_new_file_only() {
    let f = fixture();
    let head = history(&f.root, "left-pad");
    let head_file = f
        .root
        .join("left-pad")
        .join(format!("{}.journal", head[1].0));
    let head_bytes = read(&head_file);

    // Never over an existing file, the source included (whatever --at says).
    let same = run(&[&"successor", &head_file, &"-o", &head_file]);
    assert_code(&same, 2);
    let same = run(&[
        &"successor",
        &head_file,
        &"--at",
        &"20991231T000000Z",
        &"-o",
        &head_file,
    ]);
    assert_code(&same, 2);
    assert!(
        stderr(&same).contains("never overwrites"),
        "{}",
        stderr(&same)
    );
    assert_eq!(read(&head_file), head_bytes);

    // A refused --at leaves no file at all.
    let out = f.root.join("left-pad/20991231T000000Z.journal");
    let refused = run(&[
        &"successor",
        &head_file,
        &"--at",
        &"20000101T000000Z",
        &"-o",
        &out,
    ]);
    assert_code(&refused, 1);
    assert!(!out.exists());
    let unparsable = f.dir.join("broken.journal");
    write(&unparsable, b"FORMAT nenjim-journal/1\n");
    assert_code(&run(&[&"successor", &unparsable, &"-o", &out]), 1);
    assert!(!out.exists());

    let wrote = run(&[
        &"successor",
        &head_file,
        &"--at",
        &"20991231T000000Z",
        &"-o",
        &out,
    ]);
    assert_code(&wrote, 0);
    let text = String::from_utf8_lossy(&read(&out)).into_owned();
    assert!(
        text.contains("JOURNAL_VERSION 20991231T000000Z\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!("PREDECESSOR sha256:{}\n", hex(&head_bytes))),
        "{text}"
    );
    let other = run(&[
        &"successor",
        &head_file,
        &"--at",
        &"20991231T000001Z",
        &"-o",
        &out,
    ]);
    assert_code(&other, 2);
    assert_eq!(
        read(&out),
        text.as_bytes(),
        "the existing file is untouched"
    );
    assert_eq!(
        names(&f.root.join("left-pad")).len(),
        3,
        "no temporary file left beside the revisions"
    );
}

// ---------------------------------------------------------------- check

#[test]
fn check_warns_about_files_the_ledger_does_not_record() {
    let f = fixture();
    let head = history(&f.root, "left-pad");
    let head_file = f
        .root
        .join("left-pad")
        .join(format!("{}.journal", head[1].0));
    let out = f.root.join("left-pad/20991231T000000Z.journal");
    assert_code(
        &run(&[
            &"successor",
            &head_file,
            &"--at",
            &"20991231T000000Z",
            &"-o",
            &out,
        ]),
        0,
    );

    let check = run(&[&"check", &f.root]);
    assert_code(&check, 0);
    assert!(stdout(&check).contains("2 revisions"), "{}", stdout(&check));
    // The same root by URL (an object store over the directory) is read
    // through that store, and finds the same file.
    let url = format!("file://{}", f.root.display());
    let by_url = run_json(&[&"check", &url], 0);
    let found: Vec<String> = by_url["unrecorded"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(found.len(), 1, "{by_url}");
    assert!(
        found[0].ends_with("left-pad/20991231T000000Z.journal"),
        "{found:?}"
    );
    let expected = format!(
        "nenjim-journal append {} {}",
        f.root.display(),
        out.display()
    );
    assert!(stderr(&check).contains("warning:"), "{}", stderr(&check));
    assert!(stderr(&check).contains(&expected), "{}", stderr(&check));
    let doc = run_json(&[&"check", &f.root], 0);
    assert_eq!(
        doc["unrecorded"],
        serde_json::json!([out.display().to_string()])
    );

    // The command it names records the file.
    let appended = run_json(&[&"append", &f.root, &out], 0);
    assert_eq!(appended["appended"][0]["sequence"], 3);
    assert_eq!(appended["appended"][0]["new"], true);
    let doc = run_json(&[&"check", &f.root], 0);
    assert_eq!(doc["unrecorded"], serde_json::json!([]));
    assert_eq!(doc["revisions"], 3);
    let quiet = run(&[&"check", &f.root]);
    assert!(!stderr(&quiet).contains("warning:"), "{}", stderr(&quiet));
}
