//! The README's S3 example, end to end, against the S3 protocol server of
//! the `moto` package (started here on 127.0.0.1, a free port, and killed
//! after; `.ci/run` installs it: without it this test fails, never skips).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output};

use nenjim_journal_testkit::moto::Moto;

fn run(moto: &Moto, dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nenjim-journal"))
        .args(args)
        .current_dir(dir)
        .env("AWS_ENDPOINT_URL", moto.endpoint())
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
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
    // Copying again records nothing new.
    let again = stdout(&run(
        &moto,
        dir.path(),
        &["append", "s3://journals/main", "local"],
    ));
    assert!(again.contains("recorded already"), "{again}");
}
