//! `history` and `show`: text and JSON, worldviews at and as of a time, one
//! release with its policy context, unknown coordinates, and the shipped
//! examples' history.

use super::*;

// ---------------------------------------------------------------- history

#[test]
fn history_text() {
    let f = fixture();
    let out = run(&[&"history", &f.root(), &"serde"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(text.starts_with("serde: 3 revisions\n"), "{text}");
    assert!(text.contains(&digest_of(&f.serde[0])), "{text}");
    assert!(text.contains("+ RELEASE 2.0.0-rc.1"), "{text}");
    assert!(text.contains("+ YANK 1.0.0 \"broken build\""), "{text}");
    assert!(text.contains("- RECOMMEND 1.0.0"), "{text}");
}

#[test]
fn history_json_shape() {
    let f = fixture();
    let out = run(&[&"history", &f.root(), &"serde", &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["command"], "history");
    assert_eq!(v["ok"], true);
    assert_eq!(v["coordinate"], "serde");
    let revs = v["revisions"].as_array().cloned().unwrap_or_default();
    assert_eq!(revs.len(), 3);

    assert_eq!(revs[0]["journal_version"], T1);
    assert_eq!(revs[0]["digest"], digest_of(&f.serde[0]));
    assert!(revs[0]["predecessor"].is_null());
    assert!(revs[0]["sequence"].as_u64().is_some_and(|s| s >= 1));
    assert_eq!(revs[0]["releases"], 1);
    assert_eq!(revs[0]["releases_added"], serde_json::json!(["1.0.0"]));
    assert_eq!(
        revs[0]["policy_added"],
        serde_json::json!([{"kind": "recommend", "version": "1.0.0"}])
    );
    assert_eq!(revs[0]["policy_removed"], serde_json::json!([]));

    assert_eq!(revs[1]["predecessor"], digest_of(&f.serde[0]));
    assert_eq!(revs[1]["releases_added"], serde_json::json!(["1.1.0"]));
    assert_eq!(
        revs[1]["policy_added"],
        serde_json::json!([{"kind": "recommend", "version": "1.1.0"}])
    );
    assert_eq!(
        revs[1]["policy_removed"],
        serde_json::json!([{"kind": "recommend", "version": "1.0.0"}])
    );
    assert!(revs[1]["sequence"].as_u64() > revs[0]["sequence"].as_u64());

    assert_eq!(revs[2]["releases"], 3);
    assert_eq!(revs[2]["releases_added"], serde_json::json!(["2.0.0-rc.1"]));
    assert_eq!(
        revs[2]["policy_added"],
        serde_json::json!([
            {"kind": "yank", "requirement": "1.0.0", "reason": "broken build"},
            {"kind": "deprecate", "requirement": "[1.1.0,2.0.0)", "reason": "use 2.x"}
        ])
    );
    assert_eq!(revs[2]["policy_removed"], serde_json::json!([]));
}

#[test]
fn history_unknown_coordinate_exits_1() {
    let f = fixture();
    let out = run(&[&"history", &f.root(), &"tokio"]);
    assert_code(&out, 1);
    let err = stderr(&out);
    assert!(
        err.contains("tokio") && err.contains("left-pad, serde"),
        "{err}"
    );
    let out = run(&[&"history", &f.root(), &"tokio", &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    assert_eq!(v["command"], "history");
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["kind"], "UnknownArtifact");
}

// ---------------------------------------------------------------- show

#[test]
fn show_latest_worldview() {
    let f = fixture();
    let out = run(&[&"show", &f.root(), &"serde"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(text.starts_with(&format!("serde {T3}")), "{text}");
    assert!(text.contains("yanked       yes \"broken build\""), "{text}");
    assert!(
        text.contains("DEPRECATE [1.1.0,2.0.0) \"use 2.x\""),
        "{text}"
    );

    let out = run(&[&"show", &f.root(), &"serde", &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["command"], "show");
    assert_eq!(v["ok"], true);
    let r = &v["revision"];
    assert_eq!(r["coordinate"], "serde");
    assert_eq!(r["journal_version"], T3);
    assert_eq!(r["digest"], digest_of(&f.serde[2]));
    assert_eq!(r["predecessor"], digest_of(&f.serde[1]));
    assert_eq!(r["description"], "the serde artifact");
    assert!(r["information"].is_null());
    assert!(r["sequence"].is_u64());
    let releases = r["releases"].as_array().cloned().unwrap_or_default();
    let versions: Vec<&str> = releases
        .iter()
        .filter_map(|x| x["version"].as_str())
        .collect();
    assert_eq!(versions, ["1.0.0", "1.1.0", "2.0.0-rc.1"]);
    assert_eq!(releases[0]["license"], "MIT");
    assert_eq!(
        releases[0]["content"]["digest"],
        format!("sha256:{}", hex(b"blob of 1.0.0"))
    );
    assert_eq!(releases[0]["content"]["size"], 13);
    assert_eq!(releases[0]["policy"]["yanked"], "broken build");
    assert!(releases[0]["policy"]["deprecated"].is_null());
    assert_eq!(releases[0]["policy"]["recommended"], false);
    assert_eq!(releases[1]["policy"]["deprecated"], "use 2.x");
    assert_eq!(releases[1]["policy"]["recommended"], true);
    assert_eq!(
        r["policy"][2],
        serde_json::json!({"kind": "recommend", "version": "1.1.0"})
    );
}

#[test]
fn show_at_and_as_of() {
    let f = fixture();
    let out = run(&[&"show", &f.root(), &"serde", &"--at", &T2, &"--json"]);
    assert_code(&out, 0);
    assert_eq!(json(&out)["revision"]["journal_version"], T2);

    let out = run(&[
        &"show",
        &f.root(),
        &"serde",
        &"--as-of",
        &"20260215T000000Z",
        &"--json",
    ]);
    assert_code(&out, 0);
    assert_eq!(json(&out)["revision"]["journal_version"], T2);

    let out = run(&[&"show", &f.root(), &"serde", &"--at", &"20260215T000000Z"]);
    assert_code(&out, 1);
    assert!(stderr(&out).contains(T2), "{}", stderr(&out));

    let out = run(&[
        &"show",
        &f.root(),
        &"serde",
        &"--as-of",
        &"20251231T235959Z",
        &"--json",
    ]);
    assert_code(&out, 1);
    assert_eq!(json(&out)["error"]["kind"], "UnknownRevision");
}

#[test]
fn show_one_release_with_policy_context() {
    let dir = tempdir();
    let text = "FORMAT nenjim-journal/1\nARTIFACT com.example.hub\nJOURNAL_VERSION 20260101T000000Z\nPREDECESSOR GENESIS\nDESCRIPTION \"hub\"\nINFORMATION https://example.org/hub\nRELEASE 1.0.0\n  LICENSE Apache-2.0 OR MIT\n  CONTENT sha256:1e0a5b9c3d2f4a6b8c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d 48213\n  DESCRIPTION \"first\"\n  DEPENDS com.example.valuetypes [1.2.0,2.0.0)\n  DEPENDS org.slf4j 2.0.9 \"logging facade\"\n  EXCLUDES commons-logging\n  PREFERS com.example.valuetypes [1.4.0,1.5.0) \"tested\"\nRELEASE 1.1.0\n  LICENSE MIT\n  CONTENT sha256:2b1c6d0e4f3a5b7c9d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c 1\nDEPRECATE 1.0.0 \"maintenance only\"\nRECOMMEND 1.0.0\n";
    put(dir.path(), "com.example.hub", T1, ".journal", text);

    let out = run(&[
        &"show",
        &dir.path(),
        &"com.example.hub",
        &"--release",
        &"1.0.0",
    ]);
    assert_code(&out, 0);
    let shown = stdout(&out);
    assert!(
        shown.starts_with("com.example.hub 1.0.0 (revision 20260101T000000Z"),
        "{shown}"
    );
    assert!(shown.contains("license      Apache-2.0 OR MIT"), "{shown}");
    assert!(
        shown.contains("depends      org.slf4j 2.0.9 \"logging facade\""),
        "{shown}"
    );
    assert!(
        shown.contains("deprecated   yes \"maintenance only\""),
        "{shown}"
    );
    assert!(shown.contains("recommended  yes"), "{shown}");

    let out = run(&[
        &"show",
        &dir.path(),
        &"com.example.hub",
        &"--release",
        &"1.0.0",
        &"--json",
    ]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["command"], "show");
    assert_eq!(v["in_revision"]["coordinate"], "com.example.hub");
    assert_eq!(v["in_revision"]["journal_version"], T1);
    assert_eq!(v["in_revision"]["digest"], digest_of(text));
    let r = &v["release"];
    assert_eq!(r["version"], "1.0.0");
    assert_eq!(r["license"], "Apache-2.0 OR MIT");
    assert_eq!(r["content"]["size"], 48213);
    assert_eq!(r["description"], "first");
    assert_eq!(
        r["dependencies"],
        serde_json::json!([
            {"artifact": "com.example.valuetypes", "requirement": "[1.2.0,2.0.0)", "description": null},
            {"artifact": "org.slf4j", "requirement": "2.0.9", "description": "logging facade"}
        ])
    );
    assert_eq!(
        r["exclusions"],
        serde_json::json!([{"artifact": "commons-logging", "requirement": null, "description": null}])
    );
    assert_eq!(
        r["preferences"],
        serde_json::json!([{"artifact": "com.example.valuetypes", "requirement": "[1.4.0,1.5.0)", "description": "tested"}])
    );
    assert_eq!(
        r["policy"],
        serde_json::json!({"yanked": null, "deprecated": "maintenance only", "recommended": true})
    );

    let out = run(&[&"show", &dir.path(), &"com.example.hub", &"--json"]);
    assert_eq!(
        json(&out)["revision"]["information"],
        "https://example.org/hub"
    );
}

#[test]
fn show_unknown_things_exit_1() {
    let f = fixture();
    let out = run(&[&"show", &f.root(), &"tokio", &"--json"]);
    assert_code(&out, 1);
    assert_eq!(json(&out)["error"]["kind"], "UnknownArtifact");

    let out = run(&[&"show", &f.root(), &"serde", &"--release", &"3.0.0"]);
    assert_code(&out, 1);
    let err = stderr(&out);
    assert!(
        err.contains("3.0.0") && err.contains("1.0.0, 1.1.0, 2.0.0-rc.1"),
        "{err}"
    );

    // A release that exists later but not in the chosen revision.
    let out = run(&[
        &"show",
        &f.root(),
        &"serde",
        &"--at",
        &T1,
        &"--release",
        &"1.1.0",
        &"--json",
    ]);
    assert_code(&out, 1);
    assert_eq!(json(&out)["error"]["kind"], "UnknownRelease");
}

#[test]
fn shipped_examples_check_and_history() {
    let root = shipped_root();
    let out = run(&[&"check", &root, &"--examples", &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["ok"], true);
    let coordinate =
        shipped_coordinate().unwrap_or_else(|| panic!("no example artifact in {}", root.display()));
    assert!(v["artifacts"].as_u64().is_some_and(|n| n >= 1));

    let out = run(&[&"history", &root, &coordinate, &"--examples"]);
    assert_code(&out, 0);
    assert!(stdout(&out).starts_with(&format!("{coordinate}: ")));

    let out = run(&[&"history", &root, &coordinate, &"--examples", &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["coordinate"], coordinate.as_str());
    let revisions = v["revisions"].as_array().cloned().unwrap_or_default();
    assert!(!revisions.is_empty());
    assert!(
        revisions[0]["predecessor"].is_null(),
        "the first is the genesis"
    );
}
