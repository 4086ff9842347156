//! `append`: files recorded in order with their sequences, idempotent,
//! stopped at the first refusal, the blob required first; a root another
//! writer holds is refused.

use super::*;

// ---------------------------------------------------------------- append

#[test]
fn append_records_files_in_order_with_sequences_and_is_idempotent() {
    let dir = tempdir();
    let root = dir.path().join("journals");
    fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let a = genesis("bbb", "20260101T000000Z", &[]);
    let b = genesis("aaa", "20250101T000000Z", &[]);
    let (fa, fb) = (dir.path().join("a.journal"), dir.path().join("b.journal"));
    write(&fa, a.as_bytes());
    write(&fb, b.as_bytes());
    let doc = run_json(&[&"append", &root, &fa, &fb], 0);
    let appended = doc["appended"].as_array().cloned().unwrap_or_default();
    let got: Vec<(String, u64, bool)> = appended
        .iter()
        .map(|e| {
            (
                e["coordinate"].as_str().unwrap_or_default().to_owned(),
                e["sequence"].as_u64().unwrap_or_default(),
                e["new"].as_bool().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![("bbb".to_owned(), 1, true), ("aaa".to_owned(), 2, true)],
        "the given order, not the load order"
    );
    assert_eq!(
        appended[0]["digest"],
        format!("sha256:{}", hex(a.as_bytes()))
    );
    assert_eq!(
        appended[0]["path"],
        root.join("bbb/20260101T000000Z.journal")
            .display()
            .to_string()
    );
    assert_eq!(
        read(&root.join("aaa/20250101T000000Z.journal")),
        b.as_bytes()
    );
    // The numbers are durable: every later load gives the same.
    assert_eq!(
        history(&root, "aaa"),
        vec![("20250101T000000Z".to_owned(), 2)]
    );
    assert_eq!(
        history(&root, "bbb"),
        vec![("20260101T000000Z".to_owned(), 1)]
    );

    let again = run(&[&"append", &root, &fb]);
    assert_code(&again, 0);
    assert!(stdout(&again).contains("sequence 2"), "{}", stdout(&again));
    assert!(
        stdout(&again).contains("recorded already"),
        "{}",
        stdout(&again)
    );
}

#[test]
fn append_stops_at_the_first_refusal_with_a_located_error() {
    let dir = tempdir();
    let root = dir.path().join("journals");
    fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let good = dir.path().join("good.journal");
    let bad = dir.path().join("bad.journal");
    let later = dir.path().join("later.journal");
    write(&good, genesis("good", "20260101T000000Z", &[]).as_bytes());
    write(
        &bad,
        b"FORMAT nenjim-journal/1\nARTIFACT bad\nJOURNAL_VERSION nope\n",
    );
    write(&later, genesis("later", "20260101T000000Z", &[]).as_bytes());
    let output = run(&[&"append", &root, &good, &bad, &later, &"--json"]);
    assert_code(&output, 1);
    let doc = json(&output);
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["appended"].as_array().map(Vec::len), Some(1));
    assert_eq!(doc["error"]["kind"], "Syntax");
    assert_eq!(doc["error"]["path"], bad.display().to_string());
    assert_eq!(
        (
            doc["error"]["line"].as_u64(),
            doc["error"]["column"].as_u64()
        ),
        (Some(3), Some(17))
    );
    assert!(
        stderr(&output).contains(&format!("{}:3:17:", bad.display())),
        "{}",
        stderr(&output)
    );
    let one = vec![
        "good/20260101T000000Z.journal".to_owned(),
        ".ledger/log/00000000000000000001".to_owned(),
    ];
    assert_eq!(snapshot(&root), one);

    // A chain refusal: a successor of an unknown predecessor.
    let orphan = dir.path().join("orphan.journal");
    let text = genesis("good", "20270101T000000Z", &[]).replace(
        "PREDECESSOR GENESIS",
        &format!("PREDECESSOR sha256:{}", hex(b"nothing")),
    );
    write(&orphan, text.as_bytes());
    let refused = run_json(&[&"append", &root, &orphan], 1);
    assert_eq!(refused["error"]["kind"], "UnknownPredecessor");
    assert_eq!(snapshot(&root), one);
    assert_code(
        &run(&[&"append", &root, &dir.path().join("absent.journal")]),
        2,
    );
}

#[test]
fn append_with_a_store_requires_the_blob_first() {
    let dir = tempdir();
    let root = dir.path().join("journals");
    let store = dir.path().join("store");
    fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir: {e}"));
    fs::create_dir(&store).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let blob: &[u8] = b"the release's bytes";
    let file = dir.path().join("r.journal");
    write(
        &file,
        genesis("pkg", "20260101T000000Z", &[("1.0.0", blob)]).as_bytes(),
    );
    let missing = run_json(&[&"append", &root, &file, &"--store", &store], 1);
    assert_eq!(missing["error"]["kind"], "BlobMissing");
    assert_eq!(
        snapshot(&root),
        Vec::<String>::new(),
        "nothing a Journal would load"
    );
    let loaded = run_json(&[&"check", &root], 0);
    assert_eq!(loaded["revisions"], 0);

    let blob_file = dir.path().join("blob");
    write(&blob_file, blob);
    let put = run(&[&"put-blob", &"--store", &store, &blob_file]);
    assert_code(&put, 0);
    assert_eq!(
        stdout(&put),
        format!("sha256:{} {}\n", hex(blob), blob.len())
    );
    let ok = run_json(&[&"append", &root, &file, &"--store", &store], 0);
    assert_eq!(ok["appended"][0]["sequence"], 1);
}

// ---------------------------------------------------------------- the lease

#[test]
fn a_root_held_by_another_writer_is_refused_and_nothing_is_written() {
    use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

    let f = fixture();
    let holder = FsJournalWriter::open(
        &f.root,
        WriterOptions::new().lease_ttl(std::time::Duration::from_secs(3600)),
    )
    .unwrap_or_else(|e| panic!("open: {e}"));
    let before = snapshot(&f.root);
    // Refused for now (exit 75: retry later), not invalid content (1).
    let held = run_json(&[&"recommend", &f.root, &"left-pad", &"1.0.0"], 75);
    assert_eq!(held["error"]["kind"], "LeaseHeld");
    let file = f.dir.join("x.journal");
    write(&file, genesis("other", "20260101T000000Z", &[]).as_bytes());
    let append = run_json(&[&"append", &f.root, &file], 75);
    assert_eq!(append["error"]["kind"], "LeaseHeld");
    assert_eq!(append["appended"], serde_json::json!([]));
    assert_eq!(snapshot(&f.root), before);

    holder.close().unwrap_or_else(|e| panic!("close: {e}"));
    let doc = run_json(&[&"recommend", &f.root, &"left-pad", &"1.0.0"], 0);
    assert_eq!(doc["sequence"], 3);
}
