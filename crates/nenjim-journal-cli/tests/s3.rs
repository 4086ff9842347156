//! The README's S3 example, end to end, against the S3 protocol server of
//! the `moto` package (started here on 127.0.0.1, a free port, and killed
//! after; `cargo xtask ci` installs it: without it this test fails, never skips).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Output;

use nenjim_journal_testkit::cli::{self, output, sha256_hex};
use nenjim_journal_testkit::moto::Moto;

/// The command with `args` in `dir`, against `moto`'s server.
fn run(moto: &Moto, dir: &Path, args: &[&str]) -> Output {
    output(&mut crate::operators::s3_at(&moto.endpoint(), dir, args))
}

/// The standard output of a command that must succeed.
fn stdout(output: &Output) -> String {
    cli::assert_code(output, 0);
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn the_readme_s3_example_runs_against_the_s3_protocol_server() {
    let moto = Moto::start();
    moto.create_bucket("journals");
    let dir = tempfile::tempdir().unwrap();
    let text = "FORMAT nenjim-journal/1\nARTIFACT left-pad\nJOURNAL_VERSION 20261129T101530Z\n\
                PREDECESSOR GENESIS\nDESCRIPTION \"pads strings\"\n";
    std::fs::write(dir.path().join("left-pad.journal"), text).unwrap();
    std::fs::create_dir(dir.path().join("local")).unwrap();
    // The root in the bucket is created first, with its content store.
    let init = stdout(&run(
        &moto,
        dir.path(),
        &[
            "init",
            "s3://journals/main",
            "--store",
            "s3://journals/store",
            "--create",
        ],
    ));
    assert!(init.contains("content store s3://journals/store"), "{init}");
    // A local root, then copied into the bucket with its ledger order.
    stdout(&run(
        &moto,
        dir.path(),
        &["append", "local", "left-pad.journal"],
    ));
    let copied = stdout(&run(
        &moto,
        dir.path(),
        &["append", "s3://journals/main", "local"],
    ));
    assert!(copied.contains("sequence 1"), "{copied}");
    // Appended to directly, then read back.
    stdout(&run(
        &moto,
        dir.path(),
        &[
            "create",
            "s3://journals/main",
            "serde",
            "--description",
            "serializes",
        ],
    ));
    let listed = stdout(&run(&moto, dir.path(), &["list", "s3://journals/main"]));
    assert!(
        listed.contains("left-pad") && listed.contains("serde"),
        "{listed}"
    );
    let checked = stdout(&run(&moto, dir.path(), &["check", "s3://journals/main"]));
    assert!(checked.contains("2 artifacts, 2 revisions"), "{checked}");
    // A release whose blob goes to a content store in the bucket, verified there.
    std::fs::write(dir.path().join("serde-1.0.0.tgz"), b"the release's bytes").unwrap();
    stdout(&run(
        &moto,
        dir.path(),
        &[
            "release",
            "s3://journals/main",
            "serde",
            "1.0.0",
            "--license",
            "MIT",
            "--content",
            "serde-1.0.0.tgz",
            "--store",
            "s3://journals/store",
        ],
    ));
    stdout(&run(
        &moto,
        dir.path(),
        &[
            "verify-content",
            "s3://journals/main",
            "--store",
            "s3://journals/store",
        ],
    ));
    let missing = run(
        &moto,
        dir.path(),
        &[
            "verify-content",
            "s3://journals/main",
            "--store",
            "s3://journals/elsewhere",
        ],
    );
    assert_eq!(missing.status.code(), Some(1), "{missing:?}");
    // A blob put into the bucket's content store by put-blob: streamed,
    // idempotent, and refused over other bytes under its name.
    let blob: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.path().join("blob.bin"), &blob).unwrap();
    let hex = sha256_hex(&blob);
    let put_blob = [
        "put-blob",
        "--store",
        "s3://journals/store",
        "blob.bin",
        "--json",
    ];
    let put: serde_json::Value =
        serde_json::from_str(&stdout(&run(&moto, dir.path(), &put_blob))).unwrap();
    assert_eq!(put["pointer"], format!("sha256:{hex} {}", blob.len()));
    assert_eq!(put["new"], true);
    assert_eq!(
        put["path"],
        format!("s3://journals/store/blobs/sha256/{hex}")
    );
    let again: serde_json::Value =
        serde_json::from_str(&stdout(&run(&moto, dir.path(), &put_blob))).unwrap();
    assert_eq!(again["new"], false);
    moto.put_object("journals", &format!("store/blobs/sha256/{hex}"), b"damaged");
    let damaged = run(&moto, dir.path(), &put_blob);
    assert_eq!(damaged.status.code(), Some(1), "{damaged:?}");
    let error: serde_json::Value = serde_json::from_slice(&damaged.stdout).unwrap();
    assert_eq!(error["error"]["kind"], "BlobMismatch", "{error}");
    // A broken root in the bucket: check lists every independent error, the
    // same list as for the same tree in a directory, each file named by URL.
    let broken = nenjim_journal_testkit::texts::broken_root();
    for (relative, bytes) in nenjim_journal_testkit::texts::files(broken.path()) {
        let key = format!("broken/{}", relative.to_str().unwrap());
        moto.put_object("journals", &key, &bytes);
    }
    let local = run(
        &moto,
        dir.path(),
        &["check", broken.path().to_str().unwrap(), "--json"],
    );
    let bucket = run(
        &moto,
        dir.path(),
        &["check", "s3://journals/broken", "--json"],
    );
    assert_eq!(local.status.code(), Some(1), "{local:?}");
    assert_eq!(bucket.status.code(), Some(1), "{bucket:?}");
    let rows = |output: &Output, root: &str| -> Vec<(String, String, String, String)> {
        let v: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        v["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let text = |k: &str| e[k].to_string().replace(&format!("{root}/"), "");
                (text("kind"), text("path"), text("line"), text("column"))
            })
            .collect()
    };
    let expected = rows(&local, broken.path().to_str().unwrap());
    assert_eq!(expected.len(), 6, "{expected:?}");
    assert_eq!(rows(&bucket, "s3://journals/broken"), expected);
    let syntax = &expected[2];
    let stderr = String::from_utf8_lossy(&bucket.stderr);
    assert!(
        stderr.contains(&format!(
            "s3://journals/broken/{}:{}:{}",
            syntax.1.trim_matches('"'),
            syntax.2,
            syntax.3
        )),
        "{stderr}"
    );
    assert!(stderr.contains("6 errors"), "{stderr}");
    // Copying again records nothing new.
    let again = stdout(&run(
        &moto,
        dir.path(),
        &["append", "s3://journals/main", "local"],
    ));
    assert!(again.contains("recorded already"), "{again}");
}
