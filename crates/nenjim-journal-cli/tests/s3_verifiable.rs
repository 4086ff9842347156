//! The verifiable ledger on a bucket root (issue 23), against moto's S3
//! server (started on 127.0.0.1, a free port; fails, never skips, without
//! moto): a root signed by `init`/`create --signing-key` in the bucket,
//! `checkpoint`, `verify --since`, `prove`, `witness` and `verify
//! --quorum`, and a checkpoint rolled back in the bucket refused; `append
//! --prove` at a checkpoint interval, its proofs checked.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Output;

use nenjim_journal_testkit::cli::{self, output};
use nenjim_journal_testkit::moto::Moto;
use nenjim_journal_tlog::checkpoint::Checkpoint;
use nenjim_journal_tlog::hash::{Hash, leaf_hash};
use nenjim_journal_tlog::note::VerifierKey;
use nenjim_journal_tlog::tree::verify_inclusion;

fn run(moto: &Moto, dir: &Path, args: &[&str]) -> Output {
    output(&mut crate::operators::s3_at(&moto.endpoint(), dir, args))
}

fn ok(moto: &Moto, dir: &Path, args: &[&str]) -> String {
    let out = run(moto, dir, args);
    cli::assert_code(&out, 0);
    cli::stdout(&out)
}

/// The hashes of a proof document's `proof` (base64).
fn hashes(proof: &serde_json::Value) -> Vec<Hash> {
    proof["proof"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            use base64::Engine as _;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(h.as_str().unwrap())
                .unwrap();
            Hash(bytes.try_into().unwrap())
        })
        .collect()
}

#[test]
fn a_bucket_root_is_signed_verified_proved_and_witnessed() {
    let moto = Moto::start();
    moto.create_bucket("journals");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let vkey = ok(
        &moto,
        d,
        &["keygen", "example.org/journal", "--out", "hub.key"],
    );
    let vkey = vkey.trim_end();
    let root = "s3://journals/main";
    ok(&moto, d, &["init", root, "--signing-key", "hub.key"]);
    for name in ["left-pad", "serde"] {
        ok(
            &moto,
            d,
            &[
                "create",
                root,
                name,
                "--description",
                "a library",
                "--signing-key",
                "hub.key",
            ],
        );
    }
    let first = ok(&moto, d, &["checkpoint", root]);
    assert!(first.starts_with("example.org/journal\n2\n"), "{first}");
    std::fs::write(d.join("first.checkpoint"), &first).unwrap();
    let check = ok(&moto, d, &["check", root]);
    assert!(
        check.contains("signed by the key example.org/journal"),
        "{check}"
    );

    ok(
        &moto,
        d,
        &[
            "create",
            root,
            "tokio",
            "--description",
            "async",
            "--signing-key",
            "hub.key",
        ],
    );
    let verified = ok(
        &moto,
        d,
        &["verify", root, "--key", vkey, "--since", "first.checkpoint"],
    );
    assert!(verified.contains("checkpoint of 3 entries"), "{verified}");

    // prove: the record of tokio's genesis, checked here.
    let history = ok(&moto, d, &["history", root, "tokio", "--json"]);
    let history: serde_json::Value = serde_json::from_str(&history).unwrap();
    let version = history["revisions"][0]["journal_version"]
        .as_str()
        .unwrap()
        .to_owned();
    let proof: serde_json::Value =
        serde_json::from_str(&ok(&moto, d, &["prove", root, "tokio", &version, "--json"])).unwrap();
    let note = ok(&moto, d, &["checkpoint", root]);
    let (checkpoint, _) =
        Checkpoint::open(note.as_bytes(), &VerifierKey::parse(vkey).unwrap()).unwrap();
    let hashes = hashes(&proof);
    let record = proof["record"].as_str().unwrap();
    assert!(record.starts_with("3 REVISION tokio "), "{record}");
    verify_inclusion(
        &leaf_hash(record.as_bytes()),
        2,
        3,
        checkpoint.root(),
        &hashes,
    )
    .unwrap();

    // A witness cosigns; the quorum holds.
    let wkey = ok(
        &moto,
        d,
        &[
            "keygen",
            "witness.example/one",
            "--witness",
            "--out",
            "w.key",
        ],
    );
    let wkey = wkey.trim_end();
    ok(
        &moto,
        d,
        &[
            "witness",
            root,
            "--key",
            "w.key",
            "--state",
            "w-state",
            "--log-key",
            vkey,
        ],
    );
    ok(
        &moto,
        d,
        &[
            "verify",
            root,
            "--key",
            vkey,
            "--witness",
            wkey,
            "--quorum",
            "1",
        ],
    );

    // The bucket's checkpoint rolled back to the first one: alone it is a
    // valid prefix (the entry after it counted as waiting for the next
    // checkpoint), but a mirror that saw the newer one names the
    // rollback, and the witness refuses it and cosigns nothing.
    std::fs::write(d.join("third.checkpoint"), &note).unwrap();
    moto.put_object("journals", "main/.ledger/tlog/checkpoint", first.as_bytes());
    let verified = ok(&moto, d, &["verify", root, "--key", vkey]);
    assert!(
        verified.contains("checkpoint of 2 entries")
            && verified.contains("1 ledger entry follows it and waits for the next checkpoint"),
        "{verified}"
    );
    let out = run(
        &moto,
        d,
        &["verify", root, "--key", vkey, "--since", "third.checkpoint"],
    );
    cli::assert_code(&out, 1);
    assert!(
        cli::stderr(&out).contains("Rollback"),
        "{}",
        cli::stderr(&out)
    );
    let out = run(
        &moto,
        d,
        &["witness", root, "--key", "w.key", "--state", "w-state"],
    );
    cli::assert_code(&out, 1);
    assert!(
        cli::stderr(&out).contains("Rollback"),
        "{}",
        cli::stderr(&out)
    );
}

#[test]
fn append_prove_on_a_bucket_root_gives_proofs_against_its_checkpoint() {
    let moto = Moto::start();
    moto.create_bucket("journals");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let vkey = ok(
        &moto,
        d,
        &["keygen", "example.org/journal", "--out", "hub.key"],
    );
    let vkey = vkey.trim_end();
    let root = "s3://journals/proved";
    ok(&moto, d, &["init", root, "--signing-key", "hub.key"]);
    let mut files = Vec::new();
    for name in ["left-pad", "serde", "tokio"] {
        let file = format!("{name}.journal");
        std::fs::write(
            d.join(&file),
            format!(
                "FORMAT nenjim-journal/1\nARTIFACT {name}\nJOURNAL_VERSION 20261129T101530Z\n\
                 PREDECESSOR GENESIS\nDESCRIPTION \"a library\"\n"
            ),
        )
        .unwrap();
        files.push(file);
    }
    let mut args = vec![
        "append",
        root,
        "--signing-key",
        "hub.key",
        "--checkpoint-interval",
        "10ms",
        "--batch",
        "1",
        "--prove",
        "--json",
    ];
    args.extend(files.iter().map(String::as_str));
    let doc: serde_json::Value = serde_json::from_str(&ok(&moto, d, &args)).unwrap();
    let note = ok(&moto, d, &["checkpoint", root]);
    let (checkpoint, _) =
        Checkpoint::open(note.as_bytes(), &VerifierKey::parse(vkey).unwrap()).unwrap();
    assert_eq!(checkpoint.size(), 3);
    let appended = doc["appended"].as_array().unwrap();
    assert_eq!(appended.len(), 3, "{doc}");
    for (i, item) in appended.iter().enumerate() {
        let proof = &item["proof"];
        assert_eq!(proof["index"], serde_json::Value::from(i as u64));
        assert_eq!(proof["tree_size"], serde_json::Value::from(3));
        let record = proof["record"].as_str().unwrap();
        assert!(
            record.starts_with(&format!("{} REVISION ", i + 1)),
            "{record}"
        );
        verify_inclusion(
            &leaf_hash(record.as_bytes()),
            i as u64,
            3,
            checkpoint.root(),
            &hashes(proof),
        )
        .unwrap();
        // `prove` gives the same document.
        let coordinate = item["coordinate"].as_str().unwrap();
        let version = item["journal_version"].as_str().unwrap();
        let proved: serde_json::Value = serde_json::from_str(&ok(
            &moto,
            d,
            &["prove", root, coordinate, version, "--json"],
        ))
        .unwrap();
        assert_eq!(&proved, proof);
    }
}
