//! `release` (its blob first, a republished or rewritten release,
//! precedence, policy, dependencies, refusals), the one-change commands
//! `yank`, `deprecate` and `recommend`, and a head in the future.

use super::*;

// ---------------------------------------------------------------- release

#[test]
fn release_puts_the_blob_then_appends_and_republishing_writes_nothing() {
    let f = fixture();
    let bytes = read(&f.blob);
    let blob_path = f.store.join("blobs/sha256").join(hex(&bytes));
    assert_eq!(read(&blob_path), bytes, "the blob was put");
    let head = history(&f.root, "left-pad");
    assert_eq!(head.iter().map(|(_, s)| *s).collect::<Vec<_>>(), vec![1, 2]);

    let before = snapshot(&f.root);
    let again = run_json(
        &[
            &"release",
            &f.root,
            &"left-pad",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &f.blob,
            &"--store",
            &f.store,
        ],
        0,
    );
    assert_eq!(again["new"], false);
    assert_eq!(again["sequence"], 2);
    assert_eq!(again["content"]["size"], bytes.len());
    assert_eq!(
        snapshot(&f.root),
        before,
        "an idempotent re-publish writes nothing"
    );

    let text = run(&[
        &"release",
        &f.root,
        &"left-pad",
        &"1.0.0",
        &"--license",
        &"MIT",
        &"--content",
        &f.blob,
        &"--store",
        &f.store,
    ]);
    assert_code(&text, 0);
    assert!(
        stdout(&text).contains("nothing written"),
        "{}",
        stdout(&text)
    );
}

#[test]
fn release_with_another_body_is_release_rewritten_and_writes_nothing() {
    let f = fixture();
    let other = f.dir.join("other.tgz");
    write(&other, b"other bytes");
    let before = snapshot(&f.root);
    let blobs_before = names(&f.store.join("blobs/sha256"));
    let doc = run_json(
        &[
            &"release",
            &f.root,
            &"left-pad",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &other,
            &"--store",
            &f.store,
        ],
        1,
    );
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["error"]["kind"], "ReleaseRewritten");
    // Located at the release in the head's file.
    let head = history(&f.root, "left-pad");
    let head_file = f
        .root
        .join("left-pad")
        .join(format!("{}.journal", head[1].0));
    assert_eq!(doc["error"]["path"], head_file.display().to_string());
    let head_text = String::from_utf8_lossy(&read(&head_file)).into_owned();
    let line = head_text
        .lines()
        .position(|l| l == "RELEASE 1.0.0")
        .map(|i| i + 1);
    assert_eq!(doc["error"]["line"].as_u64(), line.map(|l| l as u64));
    assert_eq!(snapshot(&f.root), before);
    assert_eq!(
        names(&f.store.join("blobs/sha256")),
        blobs_before,
        "no blob put"
    );

    let license = run(&[
        &"release",
        &f.root,
        &"left-pad",
        &"1.0.0",
        &"--license",
        &"Apache-2.0",
        &"--content",
        &f.blob,
        &"--store",
        &f.store,
    ]);
    assert_code(&license, 1);
    assert!(
        stderr(&license).contains("LICENSE `Apache-2.0`, was `MIT`"),
        "{}",
        stderr(&license)
    );
}

#[test]
fn release_keeps_precedence_policy_and_dependencies() {
    let f = fixture();
    assert_code(&run(&[&"recommend", &f.root, &"left-pad", &"1.0.0"]), 0);
    let old = f.dir.join("old.tgz");
    write(&old, b"0.9");
    let doc = run_json(
        &[
            &"release",
            &f.root,
            &"left-pad",
            &"0.9.0",
            &"--license",
            &"MIT OR Apache-2.0",
            &"--content",
            &old,
            &"--store",
            &f.store,
            &"--description",
            &"a backport",
            &"--depends",
            &"serde [1.0.0,2.0.0) \"derive\"",
            &"--excludes",
            &"openssl",
            &"--prefers",
            &"log 0.4.0",
        ],
        0,
    );
    assert_eq!(doc["sequence"], 4);
    let show = run_json(&[&"show", &f.root, &"left-pad"], 0);
    let releases = show["revision"]["releases"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let versions: Vec<&str> = releases
        .iter()
        .filter_map(|r| r["version"].as_str())
        .collect();
    assert_eq!(versions, vec!["0.9.0", "1.0.0"]);
    assert_eq!(releases[0]["dependencies"][0]["artifact"], "serde");
    assert_eq!(releases[0]["dependencies"][0]["description"], "derive");
    assert_eq!(releases[0]["exclusions"][0]["requirement"], Value::Null);
    assert_eq!(releases[0]["preferences"][0]["artifact"], "log");
    assert_eq!(releases[0]["description"], "a backport");
    assert_eq!(
        releases[1]["policy"]["recommended"], true,
        "the policy is kept"
    );
}

#[test]
fn release_refusals() {
    let f = fixture();
    let args = |coordinate: &'static str, extra: &'static str, value: &'static str| {
        run(&[
            &"release",
            &f.root,
            &coordinate,
            &"2.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &f.blob,
            &"--store",
            &f.store,
            &extra,
            &value,
        ])
    };
    let unknown = args("right-pad", "--description", "x");
    assert_code(&unknown, 1);
    assert!(
        stderr(&unknown).contains("UnknownArtifact")
            || stderr(&unknown).contains("found no artifact `right-pad`")
    );
    // A malformed --depends is a usage error; a semantic one is invalid.
    assert_code(&args("left-pad", "--depends", "serde"), 2);
    assert_code(&args("left-pad", "--depends", "serde [1.0.0"), 2);
    let own = args("left-pad", "--depends", "left-pad 1.0.0");
    assert_code(&own, 1);
    assert!(stderr(&own).contains("--depends"), "{}", stderr(&own));
    assert_code(
        &run(&[
            &"release",
            &f.root,
            &"left-pad",
            &"2.0.0",
            &"--license",
            &"NOT-A-LICENSE",
            &"--content",
            &f.blob,
            &"--store",
            &f.store,
        ]),
        2,
    );
    let missing = run(&[
        &"release",
        &f.root,
        &"left-pad",
        &"2.0.0",
        &"--license",
        &"MIT",
        &"--content",
        &f.dir.join("nope.tgz"),
        &"--store",
        &f.store,
    ]);
    assert_code(&missing, 2);
    assert_eq!(history(&f.root, "left-pad").len(), 2, "nothing appended");
}

// ---------------------------------------------------------------- policy

#[test]
fn yank_deprecate_recommend_append_one_change_each() {
    let f = fixture();
    let recommend = run_json(&[&"recommend", &f.root, &"left-pad", &"1.0.0"], 0);
    assert_eq!(
        (recommend["sequence"].as_u64(), recommend["new"].as_bool()),
        (Some(3), Some(true))
    );
    let again = run_json(&[&"recommend", &f.root, &"left-pad", &"1.0.0"], 0);
    assert_eq!(
        (again["sequence"].as_u64(), again["new"].as_bool()),
        (Some(3), Some(false))
    );

    // Yanking the recommended release is refused by the format's rules.
    let before = snapshot(&f.root);
    let refused = run_json(&[&"yank", &f.root, &"left-pad", &"1.0.0", &"broken"], 1);
    assert_eq!(refused["error"]["kind"], "Semantic");
    assert!(
        refused["error"]["diagnostic"]
            .as_str()
            .unwrap_or_default()
            .contains("left-pad/")
    );
    assert_eq!(snapshot(&f.root), before);
    let nothing = run_json(&[&"deprecate", &f.root, &"left-pad", &"9.9.9", &"why"], 1);
    assert_eq!(nothing["error"]["kind"], "Semantic");

    let deprecate = run_json(
        &[&"deprecate", &f.root, &"left-pad", &"*", &"use right-pad"],
        0,
    );
    assert_eq!(deprecate["sequence"], 4);
    let same = run_json(
        &[&"deprecate", &f.root, &"left-pad", &"*", &"use right-pad"],
        0,
    );
    assert_eq!(same["new"], false);

    let release = run_json(
        &[
            &"release",
            &f.root,
            &"left-pad",
            &"1.1.0",
            &"--license",
            &"MIT",
            &"--content",
            &f.blob,
            &"--store",
            &f.store,
        ],
        0,
    );
    assert_eq!(release["sequence"], 5);
    let moved = run_json(&[&"recommend", &f.root, &"left-pad", &"1.1.0"], 0);
    assert_eq!(moved["sequence"], 6);
    let yank = run_json(&[&"yank", &f.root, &"left-pad", &"1.0.0", &"broken"], 0);
    assert_eq!(yank["sequence"], 7);

    let show = run_json(&[&"show", &f.root, &"left-pad"], 0);
    let policy = show["revision"]["policy"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(policy.len(), 3, "{policy:?}");
    let release = run_json(&[&"show", &f.root, &"left-pad", &"--release", &"1.0.0"], 0);
    assert_eq!(release["release"]["policy"]["yanked"], "broken");
    assert_eq!(release["release"]["policy"]["deprecated"], "use right-pad");
    assert_eq!(release["release"]["policy"]["recommended"], false);

    let unknown = run(&[&"yank", &f.root, &"right-pad", &"*", &"x"]);
    assert_code(&unknown, 1);
    let text = run(&[&"yank", &f.root, &"left-pad", &"1.1.0", &"x"]);
    assert_code(&text, 1);
    // Sequences are the ledger's: history agrees with what was printed.
    let sequences: Vec<u64> = history(&f.root, "left-pad")
        .iter()
        .map(|(_, s)| *s)
        .collect();
    assert_eq!(sequences, vec![1, 2, 3, 4, 5, 6, 7]);
}

#[test]
fn a_new_revision_is_stamped_one_second_after_a_head_in_the_future() {
    let dir = tempdir();
    let root = dir.path().join("journals");
    let file = dir.path().join("future.journal");
    write(
        &file,
        genesis("clock", "20991231T235958Z", &[("1.0.0", b"x")]).as_bytes(),
    );
    fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir: {e}"));
    assert_code(&run(&[&"append", &root, &file]), 0);
    // successor without --at stamps the same way.
    let head = root.join("clock/20991231T235958Z.journal");
    let next = run(&[&"successor", &head]);
    assert_code(&next, 0);
    assert!(
        stdout(&next).contains("JOURNAL_VERSION 20991231T235959Z\n"),
        "{}",
        stdout(&next)
    );
    let doc = run_json(&[&"recommend", &root, &"clock", &"1.0.0"], 0);
    assert_eq!(doc["journal_version"], "20991231T235959Z");
    let doc = run_json(&[&"deprecate", &root, &"clock", &"*", &"old"], 0);
    assert_eq!(doc["journal_version"], "21000101T000000Z");
}
