//! The content store a NATS root records: its own bucket, a directory, an
//! S3 bucket on moto's server, or none recorded.

use super::*;

/// A genesis of `coordinate` at `version` releasing 1.0.0 with `content`.
fn release_text(coordinate: &str, version: &str, content: &[u8]) -> String {
    format!(
        "{}RELEASE 1.0.0\n  LICENSE MIT\n  CONTENT sha256:{} {}\n",
        genesis_text(coordinate, version),
        sha256_hex(content),
        content.len()
    )
}

/// `release <root> <coordinate> 1.0.0` of the file `content`, with `more`
/// arguments.
fn release_args<'a>(
    root: &'a dyn AsRef<std::ffi::OsStr>,
    coordinate: &'a dyn AsRef<std::ffi::OsStr>,
    content: &'a dyn AsRef<std::ffi::OsStr>,
) -> Vec<&'a dyn AsRef<std::ffi::OsStr>> {
    vec![
        &"release",
        root,
        coordinate,
        &"1.0.0",
        &"--license",
        &"MIT",
        &"--content",
        content,
    ]
}

/// `init nats://…` without `--store` records the root's own bucket: a
/// release puts its blob there, an append whose CONTENT is not there is
/// `BlobMissing` at its object, and `verify-content` reads the bucket.
#[test]
fn init_of_a_nats_root_records_its_own_bucket_as_its_content_store() {
    let server = NatsServer::start();
    let root = server.root("own");
    let dir = tempdir();
    let doc = run_json(&[&"init", &root], 0);
    assert_eq!(doc["store"], Value::from(root.clone()), "{doc}");
    let said = run(&[&"init", &root]);
    assert_code(&said, 0);
    assert!(
        String::from_utf8_lossy(&said.stdout).contains("(its own bucket)"),
        "{}",
        String::from_utf8_lossy(&said.stdout)
    );
    let missing = dir.path().join("missing.journal");
    write(
        &missing,
        release_text("lost", "20261201T000000Z", b"never put"),
    );
    let refused = run_json(&[&"append", &root, &missing], 1);
    let object = format!("{root}/blobs/sha256/{}", sha256_hex(b"never put"));
    assert_eq!(
        (&refused["error"]["kind"], &refused["error"]["path"]),
        (&Value::from("BlobMissing"), &Value::from(object)),
        "{refused}"
    );
    run_json(&[&"create", &root, &"kept", &"--description", &"x"], 0);
    let blob = dir.path().join("kept.tgz");
    write(&blob, b"kept's bytes");
    run_json(&release_args(&root, &"kept", &blob), 0);
    let verified = run_json(&[&"verify-content", &root], 0);
    assert_eq!(verified["checked"], 1, "{verified}");
    // The blob is in the bucket: another root that names it as its store
    // finds it there.
    let other = server.root("other");
    run_json(&[&"init", &other, &"--store", &root], 0);
    let copied = run_json(&[&"append", &other, &root], 0);
    assert_eq!(
        copied["appended"].as_array().map(Vec::len),
        Some(2),
        "{copied}"
    );
}

/// `init nats://… --store <dir>` records the directory: the release's
/// blob goes there (not into the root's bucket), a missing one is
/// `BlobMissing` naming the directory, and `verify-content` reads it.
#[test]
fn init_of_a_nats_root_with_a_directory_store_keeps_the_blobs_there() {
    let server = NatsServer::start();
    let root = server.root("dirstore");
    let dir = tempdir();
    let store = dir.path().join("store");
    let doc = run_json(&[&"init", &root, &"--store", &store, &"--create"], 0);
    assert_eq!(
        (&doc["store"], &doc["created_store"]),
        (
            &Value::from(store.to_string_lossy().into_owned()),
            &Value::from(true)
        ),
        "{doc}"
    );
    run_json(&[&"create", &root, &"lib", &"--description", &"x"], 0);
    let blob = dir.path().join("lib.tgz");
    write(&blob, b"lib's bytes");
    run_json(&release_args(&root, &"lib", &blob), 0);
    let in_store = store.join("blobs/sha256").join(sha256_hex(b"lib's bytes"));
    assert_eq!(
        std::fs::read(&in_store).ok().as_deref(),
        Some(b"lib's bytes".as_slice())
    );
    // Not in the root's own bucket.
    let own = run_json(&[&"verify-content", &root, &"--store", &root], 1);
    assert_eq!(own["blobs"][0]["status"], "missing", "{own}");
    let verified = run_json(&[&"verify-content", &root], 0);
    assert_eq!(verified["checked"], 1, "{verified}");

    let missing = dir.path().join("missing.journal");
    write(
        &missing,
        release_text("lost", "20261201T000000Z", b"never put"),
    );
    let refused = run_json(&[&"append", &root, &missing], 1);
    let object = store.join("blobs/sha256").join(sha256_hex(b"never put"));
    assert_eq!(
        (&refused["error"]["kind"], &refused["error"]["path"]),
        (
            &Value::from("BlobMissing"),
            &Value::from(object.to_string_lossy().into_owned())
        ),
        "{refused}"
    );
    // `verify-content` uses the recorded store: a blob taken away is missing.
    std::fs::remove_file(&in_store).unwrap_or_else(|e| panic!("{e}"));
    let verified = run_json(&[&"verify-content", &root], 1);
    assert_eq!(verified["blobs"][0]["status"], "missing", "{verified}");
}

/// A NATS root that records no content store (one made by an older `init`,
/// or by a writer without `init`) keeps its blobs in its own bucket for
/// the commands, as before stores were recorded; the library's writer
/// with no store checks nothing on it.
#[test]
fn a_nats_root_that_records_no_store_keeps_its_blobs_in_its_own_bucket() {
    use nenjim_journal_api::append::JournalWriter as _;
    let server = NatsServer::start();
    let root = server.root("unrecorded");
    let dir = tempdir();
    let nats = nenjim_journal_nats::NatsRoot::parse(&root).unwrap_or_else(|e| panic!("{e}"));
    let mut writer = nats
        .writer(nenjim_journal_writer::WriterOptions::new())
        .unwrap_or_else(|e| panic!("{e}"));
    // No store: any CONTENT is appended.
    writer
        .append(&release_text("free", "20261201T000000Z", b"nowhere"))
        .unwrap_or_else(|e| panic!("{e}"));
    writer.close().unwrap_or_else(|e| panic!("{e}"));
    let missing = dir.path().join("missing.journal");
    write(
        &missing,
        release_text("lost", "20261201T000000Z", b"never put"),
    );
    let refused = run_json(&[&"append", &root, &missing], 1);
    let object = format!("{root}/blobs/sha256/{}", sha256_hex(b"never put"));
    assert_eq!(
        (&refused["error"]["kind"], &refused["error"]["path"]),
        (&Value::from("BlobMissing"), &Value::from(object)),
        "{refused}"
    );
    run_json(&[&"create", &root, &"kept", &"--description", &"x"], 0);
    let blob = dir.path().join("kept.tgz");
    write(&blob, b"kept's bytes");
    run_json(&release_args(&root, &"kept", &blob), 0);
    let verified = run_json(&[&"verify-content", &root], 1);
    let verdicts: Vec<&Value> = verified["blobs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| &b["status"])
        .collect();
    assert_eq!(verdicts.len(), 2, "{verified}");
    assert!(verdicts.contains(&&Value::from("ok")), "{verified}");
    assert!(verdicts.contains(&&Value::from("missing")), "{verified}");
    // `init` now records its own bucket, which changes nothing.
    let doc = run_json(&[&"init", &root], 0);
    assert_eq!(doc["store"], Value::from(root.clone()), "{doc}");
    let again = run(&[&"append", &root, &missing]);
    assert_code(&again, 1);
}

/// `init nats://… --store s3://…` records the bucket: the release's blob
/// is put there, a missing one is `BlobMissing` naming the bucket, and
/// `verify-content` reads it (moto's S3 server).
#[test]
fn init_of_a_nats_root_with_a_bucket_store_keeps_the_blobs_in_the_bucket() {
    use nenjim_journal_testkit::moto::Moto;
    let moto = Moto::start();
    moto.create_bucket("artifacts");
    let server = NatsServer::start();
    let root = server.root("s3store");
    let dir = tempdir();
    let d = dir.path();
    let run_s3 = |args: &[&str], expected: i32| {
        let output = nenjim_journal_testkit::cli::output(&mut crate::operators::s3_at(
            &moto.endpoint(),
            d,
            args,
        ));
        assert_code(&output, expected);
        output
    };
    let init = run_s3(
        &["init", &root, "--store", "s3://artifacts/store", "--create"],
        0,
    );
    let stdout = String::from_utf8_lossy(&init.stdout);
    assert!(
        stdout.contains("content store s3://artifacts/store"),
        "{stdout}"
    );
    run_s3(&["create", &root, "lib", "--description", "x"], 0);
    write(&d.join("lib.tgz"), b"lib's bytes in S3");
    run_s3(
        &[
            "release",
            &root,
            "lib",
            "1.0.0",
            "--license",
            "MIT",
            "--content",
            "lib.tgz",
        ],
        0,
    );
    // The bucket holds the blob already: a put of it there is not new.
    let put = run_s3(
        &[
            "put-blob",
            "--store",
            "s3://artifacts/store",
            "lib.tgz",
            "--json",
        ],
        0,
    );
    let doc: Value = serde_json::from_slice(&put.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["new"], false, "{doc}");
    let verified = run_s3(&["verify-content", &root, "--json"], 0);
    let doc: Value = serde_json::from_slice(&verified.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["checked"], 1, "{doc}");

    write(
        &d.join("missing.journal"),
        release_text("lost", "20261201T000000Z", b"never put"),
    );
    let refused = run_s3(&["append", &root, "missing.journal", "--json"], 1);
    let doc: Value = serde_json::from_slice(&refused.stdout).unwrap_or_else(|e| panic!("{e}"));
    let object = format!(
        "s3://artifacts/store/blobs/sha256/{}",
        sha256_hex(b"never put")
    );
    assert_eq!(
        (&doc["error"]["kind"], &doc["error"]["path"]),
        (&Value::from("BlobMissing"), &Value::from(object)),
        "{doc}"
    );
    // Not in the NATS root's own bucket either.
    let own = run_s3(&["verify-content", &root, "--store", &root, "--json"], 1);
    let doc: Value = serde_json::from_slice(&own.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["blobs"][0]["status"], "missing", "{doc}");
}
