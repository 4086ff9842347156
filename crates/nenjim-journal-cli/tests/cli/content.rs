//! `verify-content`: every blob checked once, missing, truncated and
//! flipped blobs caught, a missing store.

use super::*;

/// A root whose releases point at `blobs`, and a store holding them.
fn content_fixture(blobs: &[(&str, Vec<u8>)]) -> (TempDir, PathBuf, PathBuf) {
    let dir = tempdir();
    let root = dir.path().join("journals");
    let store = dir.path().join("store");
    let releases: Vec<Release<'_>> = blobs
        .iter()
        .map(|(v, b)| release_with_blob(v, b.clone()))
        .collect();
    put(
        &root,
        "app",
        T1,
        ".journal",
        &journal("app", T1, None, &releases, &[]),
    );
    let sha = store.join("blobs").join("sha256");
    fs::create_dir_all(&sha).unwrap_or_else(|e| panic!("{e}"));
    for (_, blob) in blobs {
        fs::write(sha.join(hex(blob)), blob).unwrap_or_else(|e| panic!("{e}"));
    }
    (dir, root, store)
}

fn big_blob(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[test]
fn verify_content_all_good() {
    let (_dir, root, store) = content_fixture(&[
        ("1.0.0", big_blob(1, 200_000)),
        ("1.1.0", big_blob(2, 10)),
        ("1.2.0", Vec::new()),
    ]);
    let out = run(&[&"verify-content", &root, &"--store", &store]);
    assert_code(&out, 0);
    assert!(
        stdout(&out).contains("ok 3 blobs verified"),
        "{}",
        stdout(&out)
    );

    let out = run(&[
        &"verify-content",
        &root,
        &"--store",
        &store,
        &"--all-revisions",
        &"--json",
    ]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["command"], "verify-content");
    assert_eq!(v["ok"], true);
    assert_eq!(v["all_revisions"], true);
    assert_eq!(v["checked"], 3);
    assert_eq!(v["failed"], 0);
    assert!(
        v["blobs"]
            .as_array()
            .is_some_and(|b| b.iter().all(|x| x["status"] == "ok"))
    );
}

#[test]
fn verify_content_catches_missing_truncated_and_flipped_blobs() {
    let good = big_blob(1, 100_000);
    let missing = big_blob(2, 5000);
    let truncated = big_blob(3, 70_000);
    let flipped = big_blob(4, 70_000);
    let (_dir, root, store) = content_fixture(&[
        ("1.0.0", good.clone()),
        ("1.1.0", missing.clone()),
        ("1.2.0", truncated.clone()),
        ("1.3.0", flipped.clone()),
    ]);
    let sha = store.join("blobs").join("sha256");
    fs::remove_file(sha.join(hex(&missing))).unwrap_or_else(|e| panic!("{e}"));
    fs::write(sha.join(hex(&truncated)), &truncated[..69_999]).unwrap_or_else(|e| panic!("{e}"));
    let mut bad = flipped.clone();
    bad[65_537] ^= 0x01;
    fs::write(sha.join(hex(&flipped)), &bad).unwrap_or_else(|e| panic!("{e}"));

    let out = run(&[&"verify-content", &root, &"--store", &store]);
    assert_code(&out, 1);
    let text = stdout(&out);
    assert!(
        text.contains(&format!("missing      sha256:{}", hex(&missing))),
        "{text}"
    );
    assert!(
        text.contains(&format!("wrong-size   sha256:{}", hex(&truncated))),
        "{text}"
    );
    assert!(text.contains("found 69999 bytes, expected 70000"), "{text}");
    assert!(
        text.contains(&format!("wrong-digest sha256:{}", hex(&flipped))),
        "{text}"
    );
    assert!(
        text.contains(&format!("found sha256:{}", hex(&bad))),
        "{text}"
    );
    assert!(text.contains("used by app 1.3.0"), "{text}");
    assert!(text.contains("3 of 4 blobs failed"), "{text}");

    let out = run(&[&"verify-content", &root, &"--store", &store, &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    assert_eq!(v["ok"], false);
    assert_eq!(v["checked"], 4);
    assert_eq!(v["failed"], 3);
    let blobs = v["blobs"].as_array().cloned().unwrap_or_default();
    let find = |blob: &[u8]| {
        blobs
            .iter()
            .find(|b| b["digest"] == format!("sha256:{}", hex(blob)))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let b = find(&good);
    assert_eq!(b["status"], "ok");
    assert_eq!(b["size"], 100_000);
    assert_eq!(
        b["releases"],
        serde_json::json!([{"coordinate": "app", "version": "1.0.0"}])
    );
    let b = find(&missing);
    assert_eq!(b["status"], "missing");
    assert!(b["actual_size"].is_null());
    assert!(
        b["path"]
            .as_str()
            .is_some_and(|p| p.ends_with(&hex(&missing)))
    );
    let b = find(&truncated);
    assert_eq!(b["status"], "wrong-size");
    assert_eq!(b["size"], 70_000);
    assert_eq!(b["actual_size"], 69_999);
    let b = find(&flipped);
    assert_eq!(b["status"], "wrong-digest");
    assert_eq!(b["actual_size"], 70_000);
    assert_eq!(b["actual_digest"], format!("sha256:{}", hex(&bad)));
    assert!(b["message"].is_null());
}

#[test]
fn verify_content_checks_a_shared_blob_once() {
    let shared = big_blob(9, 1234);
    let (_dir, root, store) =
        content_fixture(&[("1.0.0", shared.clone()), ("1.0.1", shared.clone())]);
    let out = run(&[&"verify-content", &root, &"--store", &store, &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["checked"], 1);
    assert_eq!(
        v["blobs"][0]["releases"],
        serde_json::json!([
            {"coordinate": "app", "version": "1.0.0"},
            {"coordinate": "app", "version": "1.0.1"}
        ])
    );
}

#[test]
fn verify_content_missing_store_exits_2() {
    let f = fixture();
    let out = run(&[
        &"verify-content",
        &f.root(),
        &"--store",
        &f.dir.path().join("no-store"),
        &"--json",
    ]);
    assert_code(&out, 2);
    assert_eq!(json(&out)["error"]["kind"], "Io");
}
