//! Checkpoints on a cadence from the command line (format section 10,
//! "Writing"): `--checkpoint-interval` on the writing commands (accepted,
//! refused when malformed or without `--signing-key`). No assertion
//! depends on timing: whatever the interval, the command's last
//! checkpoint covers everything it appended.

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
