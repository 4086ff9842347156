//! Checkpoints on a cadence from the command line (format section 10,
//! "Writing"): `--checkpoint-interval` on the writing commands (accepted,
//! refused when malformed or without `--signing-key`), and `append
//! --prove` (each revision's inclusion proof, checked with the tlog crate
//! and against `prove`). No assertion depends on timing: whatever the
//! interval, the command's last checkpoint covers everything it appended.

use super::*;

/// Writes the genesis revisions of `<prefix>-<from>` … `<prefix>-<to - 1>`
/// into `dir` and returns their files, in that order.
fn genesis_files(dir: &Path, prefix: &str, from: usize, to: usize) -> Vec<PathBuf> {
    (from..to)
        .map(|i| {
            let file = dir.join(format!("{prefix}-{i}.journal"));
            let text = format!(
                "FORMAT nenjim-journal/1\nARTIFACT {prefix}-{i}\nJOURNAL_VERSION 20261129T101530Z\n\
                 PREDECESSOR GENESIS\nDESCRIPTION \"a library\"\n"
            );
            fs::write(&file, text).unwrap();
            file
        })
        .collect()
}

/// `args` followed by `files`.
fn with_files<'a>(
    args: &[&'a dyn AsRef<std::ffi::OsStr>],
    files: &'a [PathBuf],
) -> Vec<&'a dyn AsRef<std::ffi::OsStr>> {
    let mut all = args.to_vec();
    all.extend(files.iter().map(|f| f as &dyn AsRef<std::ffi::OsStr>));
    all
}

/// The hashes of a proof document's `proof`.
fn hashes(proof: &Value) -> Vec<Hash> {
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

/// Checks that `proof` (`prove`'s document) proves ledger entry
/// `sequence` of `root` in the root's current checkpoint, verified by
/// `vkey`, and that `prove` gives the same document.
fn assert_proves(root: &Path, vkey: &str, proof: &Value, sequence: u64) {
    let (checkpoint, _) = Checkpoint::open(
        checkpoint_of(root).as_bytes(),
        &VerifierKey::parse(vkey).unwrap(),
    )
    .unwrap();
    let record = &records(root)[usize::try_from(sequence - 1).unwrap()];
    assert_eq!(proof["record"], Value::from(record.clone()), "{proof}");
    assert_eq!(proof["index"], Value::from(sequence - 1));
    assert_eq!(proof["tree_size"], Value::from(checkpoint.size()));
    assert_eq!(proof["root"], Value::from(checkpoint.root().to_base64()));
    verify_inclusion(
        &leaf_hash(record.as_bytes()),
        sequence - 1,
        checkpoint.size(),
        checkpoint.root(),
        &hashes(proof),
    )
    .unwrap();
    let fields: Vec<&str> = record.split(' ').collect();
    let proved = json(&run(&[&"prove", &root, &fields[2], &fields[3], &"--json"]));
    assert_eq!(&proved, proof);
}

#[test]
fn checkpoint_interval_is_taken_by_the_writing_commands_and_refused_when_malformed() {
    let dir = tempdir();
    let (key, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = dir.path().join("root");
    let sk: &dyn AsRef<std::ffi::OsStr> = &"--signing-key";
    let ci: &dyn AsRef<std::ffi::OsStr> = &"--checkpoint-interval";
    ok(&[&"init", &root, sk, &key, ci, &"500ms"]);
    // One append of several batches at an interval: whatever the timer
    // published in between, the close covers everything.
    let files = genesis_files(dir.path(), "lib", 0, 3);
    ok(&with_files(
        &[&"append", &root, sk, &key, ci, &"1s", &"--batch", &"1"],
        &files,
    ));
    let doc = json(&run(&[&"verify", &root, &"--key", &vkey, &"--json"]));
    assert_eq!(doc["tree_size"], Value::from(3));
    assert_eq!(doc["uncovered"], Value::from(0));
    // A publishing command takes it too (`0`: after every commit).
    ok(&[
        &"create",
        &root,
        &"serde",
        &"--description",
        &"serializes",
        sk,
        &key,
        ci,
        &"2m",
    ]);
    ok(&[
        &"create",
        &root,
        &"tokio",
        &"--description",
        &"async",
        sk,
        &key,
        ci,
        &"0",
    ]);
    let doc = json(&run(&[&"verify", &root, &"--key", &vkey, &"--json"]));
    assert_eq!(doc["tree_size"], Value::from(5));
    assert_eq!(doc["uncovered"], Value::from(0));

    // Malformed: a usage error naming the option and the value, nothing written.
    let before = nenjim_journal_testkit::cli::tree(&root);
    let more = genesis_files(dir.path(), "lib", 3, 4);
    for bad in ["soon", "-1", "5 parsecs", ""] {
        let option = format!("--checkpoint-interval={bad}");
        let out = run(&with_files(&[&"append", &root, sk, &key, &option], &more));
        assert_code(&out, 2);
        let err = stderr(&out);
        assert!(
            err.contains("--checkpoint-interval <DURATION>") && err.contains(&format!("`{bad}`")),
            "{err}"
        );
    }
    let out = run(&[
        &"yank",
        &root,
        &"serde",
        &"*",
        &"why",
        sk,
        &key,
        ci,
        &"1 fortnight",
    ]);
    assert_code(&out, 2);
    assert!(stderr(&out).contains("--checkpoint-interval"));
    // Without --signing-key there is no checkpoint to space out.
    let out = run(&with_files(&[&"append", &root, ci, &"1s"], &more));
    assert_code(&out, 2);
    assert!(stderr(&out).contains("--signing-key"), "{}", stderr(&out));
    assert_eq!(nenjim_journal_testkit::cli::tree(&root), before);
}

#[test]
fn append_prove_gives_each_revision_a_proof_that_verifies() {
    let dir = tempdir();
    let (key, vkey) = keygen(dir.path(), "example.org/journal", false);
    let root = root_with(dir.path(), 0, &key);
    let sk: &dyn AsRef<std::ffi::OsStr> = &"--signing-key";

    // At interval zero (the default): proofs against the checkpoint of the
    // run's last commit.
    let files = genesis_files(dir.path(), "lib", 0, 4);
    let doc = json(&run(&with_files(
        &[&"append", &root, sk, &key, &"--prove", &"--json"],
        &files[..3],
    )));
    assert_eq!(doc["ok"], Value::Bool(true), "{doc}");
    let appended = doc["appended"].as_array().unwrap();
    assert_eq!(appended.len(), 3);
    for (i, item) in appended.iter().enumerate() {
        assert_eq!(item["sequence"], Value::from(i as u64 + 1));
        assert_eq!(item["proof"]["tree_size"], Value::from(3));
        assert_proves(&root, &vkey, &item["proof"], i as u64 + 1);
    }

    // At an interval, in batches of one, a file recorded already among
    // them: every revision of the run is proved, against one checkpoint
    // that covers them all.
    let doc = json(&run(&with_files(
        &[
            &"append",
            &root,
            sk,
            &key,
            &"--checkpoint-interval",
            &"1ms",
            &"--batch",
            &"1",
            &"--prove",
            &"--json",
        ],
        &files[2..],
    )));
    let appended = doc["appended"].as_array().unwrap();
    assert_eq!(appended.len(), 2, "{doc}");
    assert_eq!(appended[0]["new"], Value::Bool(false));
    assert_eq!(appended[1]["new"], Value::Bool(true));
    for (item, sequence) in appended.iter().zip([3, 4]) {
        assert_eq!(item["proof"]["tree_size"], Value::from(4));
        assert_proves(&root, &vkey, &item["proof"], sequence);
    }

    // The text form: after the appended lines, each proof as `prove`
    // prints it.
    let more = genesis_files(dir.path(), "lib", 4, 5);
    let text = ok(&with_files(
        &[&"append", &root, sk, &key, &"--prove"],
        &more,
    ));
    let record = records(&root).pop().unwrap();
    let fields: Vec<&str> = record.split(' ').collect();
    let proved = ok(&[&"prove", &root, &fields[2], &fields[3]]);
    assert!(
        text.starts_with("appended ") && text.ends_with(&format!("\n\n{proved}")),
        "{text}"
    );
    assert!(proved.starts_with("index 4\ntree_size 5\n"), "{proved}");

    // Without --prove, `proof` is null.
    let more = genesis_files(dir.path(), "lib", 5, 6);
    let doc = json(&run(&with_files(
        &[&"append", &root, sk, &key, &"--json"],
        &more,
    )));
    assert_eq!(doc["appended"][0]["proof"], Value::Null, "{doc}");

    // Without --signing-key (an unsigned root has no checkpoint to prove
    // against; a signed one needs its key): a usage error, nothing written.
    let before = nenjim_journal_testkit::cli::tree(&root);
    let more = genesis_files(dir.path(), "lib", 6, 7);
    let out = run(&with_files(&[&"append", &root, &"--prove"], &more));
    assert_code(&out, 2);
    assert!(stderr(&out).contains("--signing-key"), "{}", stderr(&out));
    assert_eq!(nenjim_journal_testkit::cli::tree(&root), before);
    let plain = dir.path().join("plain");
    ok(&[&"init", &plain]);
    let before = nenjim_journal_testkit::cli::tree(&plain);
    let out = run(&with_files(
        &[&"append", &plain, &"--prove", &"--json"],
        &more,
    ));
    assert_code(&out, 2);
    assert_eq!(nenjim_journal_testkit::cli::tree(&plain), before);
}
