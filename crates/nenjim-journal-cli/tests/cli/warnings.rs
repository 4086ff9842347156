//! Issue 30, item 8: `check` summarises warnings that repeat. Of each kind
//! (stray entry, unrecorded revision file, deprecated license, empty blob)
//! the text shows the first 5, then one line with how many more;
//! `--all-warnings` shows every one; `--json` lists every one and counts
//! them by kind in `warning_summary`.

use super::*;

/// The line that counts the warnings of a kind not shown.
fn more_line(more: usize, kind: &str, all: usize) -> String {
    let plural = if more == 1 { "" } else { "s" };
    format!(
        "warning: … and {more} more `{kind}` warning{plural} ({all} in all; --all-warnings lists every one)"
    )
}

/// The `warning:` lines of a run's stderr.
fn warning_lines(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .map(str::to_owned)
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|s| {
            s.as_str()
                .unwrap_or_else(|| panic!("not a string: {s}"))
                .to_owned()
        })
        .collect()
}

/// The versions `1.0.0` … `1.0.<n - 1>`, ascending.
fn versions(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("1.0.{i}")).collect()
}

/// A root without a ledger: `hollow` with `empty` releases whose content
/// is the empty blob, in one revision, and `licensed` with one release
/// under a deprecated license identifier.
fn hollow_root(empty: usize) -> (TempDir, PathBuf) {
    let dir = tempdir();
    let root = dir.path().join("journals");
    let versions = versions(empty);
    let releases: Vec<Release<'_>> = versions
        .iter()
        .map(|v| release_with_blob(v, Vec::new()))
        .collect();
    put(
        &root,
        "hollow",
        T1,
        ".journal",
        &journal("hollow", T1, None, &releases, &[]),
    );
    let licensed = journal("licensed", T1, None, &[release("2.0.0")], &[])
        .replace("LICENSE MIT", "LICENSE GPL-3.0");
    put(&root, "licensed", T1, ".journal", &licensed);
    (dir, root)
}

fn is_empty_blob(line: &str) -> bool {
    line.contains("is an empty (0-byte) blob")
}

#[test]
fn check_summarises_a_flood_of_empty_blobs_and_all_warnings_lists_every_one() {
    let (_dir, root) = hollow_root(12);

    // Text: the first 5 empty blobs in release order, the one deprecated
    // license, then the count of the rest and how to see them.
    let out = run(&[&"check", &root]);
    assert_code(&out, 0);
    assert!(
        stdout(&out).contains("2 artifacts, 2 revisions, 13 releases"),
        "{}",
        stdout(&out)
    );
    let lines = warning_lines(&out);
    let empty: Vec<&String> = lines.iter().filter(|l| is_empty_blob(l)).collect();
    assert_eq!(empty.len(), 5, "{lines:#?}");
    for (line, version) in empty.iter().zip(versions(5)) {
        assert!(
            line.starts_with(&format!("warning: hollow {version}: CONTENT sha256:")),
            "{line}"
        );
    }
    let licenses: Vec<&String> = lines.iter().filter(|l| l.contains("GPL-3.0")).collect();
    assert_eq!(licenses.len(), 1, "{lines:#?}");
    assert_eq!(
        lines.last(),
        Some(&more_line(7, "empty blob", 12)),
        "{lines:#?}"
    );
    assert_eq!(lines.len(), 7, "5 + 1 + the count: {lines:#?}");

    // JSON: every warning listed (as before), the counts by kind exact,
    // and what the text shows.
    let doc = json(&run(&[&"check", &root, &"--json"]));
    assert_eq!(doc["ok"], true, "{doc}");
    let all = strings(&doc["warnings"]);
    assert_eq!(all.len(), 13, "{doc}");
    assert_eq!(all.iter().filter(|w| is_empty_blob(w)).count(), 12);
    let summary = &doc["warning_summary"];
    assert_eq!(summary["count"], 13, "{summary}");
    assert_eq!(summary["limit"], 5, "{summary}");
    assert_eq!(summary["cut"], true, "{summary}");
    let kinds = &summary["kinds"];
    assert_eq!(kinds["empty_blob"]["count"], 12, "{summary}");
    assert_eq!(kinds["empty_blob"]["more"], 7, "{summary}");
    let first_empty: Vec<String> = all
        .iter()
        .filter(|w| is_empty_blob(w))
        .take(5)
        .cloned()
        .collect();
    assert_eq!(strings(&kinds["empty_blob"]["shown"]), first_empty);
    assert_eq!(kinds["deprecated_license"]["count"], 1, "{summary}");
    assert_eq!(kinds["deprecated_license"]["more"], 0, "{summary}");
    assert_eq!(strings(&kinds["deprecated_license"]["shown"]).len(), 1);
    for kind in ["stray", "unrecorded"] {
        assert_eq!(kinds[kind]["count"], 0, "{kind}: {summary}");
        assert_eq!(kinds[kind]["shown"], serde_json::json!([]), "{summary}");
    }

    // --all-warnings: every one, no count line; the JSON says nothing is cut.
    let out = run(&[&"check", &root, &"--all-warnings"]);
    assert_code(&out, 0);
    let lines = warning_lines(&out);
    assert_eq!(
        lines.iter().filter(|l| is_empty_blob(l)).count(),
        12,
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.contains("more `")), "{lines:#?}");
    assert_eq!(lines.len(), 13, "{lines:#?}");
    let doc = json(&run(&[&"check", &root, &"--json", &"--all-warnings"]));
    let summary = &doc["warning_summary"];
    assert_eq!(summary["limit"], Value::Null, "{summary}");
    assert_eq!(summary["cut"], false, "{summary}");
    assert_eq!(summary["kinds"]["empty_blob"]["more"], 0, "{summary}");
    assert_eq!(
        strings(&summary["kinds"]["empty_blob"]["shown"]),
        strings(&doc["warnings"])
            .into_iter()
            .filter(|w| is_empty_blob(w))
            .collect::<Vec<_>>()
    );

    // --quiet silences the warnings and the count alike.
    let out = run(&[&"check", &root, &"--quiet"]);
    assert_code(&out, 0);
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
}

#[test]
fn check_with_few_warnings_prints_each_one_and_no_count() {
    // Exactly as many as are shown: all of them, nothing cut.
    let (_dir, root) = hollow_root(5);
    let out = run(&[&"check", &root]);
    assert_code(&out, 0);
    let lines = warning_lines(&out);
    assert_eq!(
        lines.iter().filter(|l| is_empty_blob(l)).count(),
        5,
        "{lines:#?}"
    );
    assert_eq!(lines.len(), 6, "{lines:#?}");
    assert!(!stderr(&out).contains("more `"), "{}", stderr(&out));
    let doc = json(&run(&[&"check", &root, &"--json"]));
    assert_eq!(doc["warning_summary"]["cut"], false, "{doc}");
    assert_eq!(doc["warning_summary"]["count"], 6, "{doc}");
    assert_eq!(strings(&doc["warnings"]).len(), 6, "{doc}");

    // One more: the count line, in the singular.
    let (_dir, root) = hollow_root(6);
    let lines = warning_lines(&run(&[&"check", &root]));
    assert_eq!(
        lines.iter().filter(|l| is_empty_blob(l)).count(),
        5,
        "{lines:#?}"
    );
    assert_eq!(
        lines.last(),
        Some(&more_line(1, "empty blob", 6)),
        "{lines:#?}"
    );
}

#[test]
fn check_summarises_unrecorded_and_stray_files_of_a_root_with_a_ledger() {
    let dir = tempdir();
    let root = dir.path().join("journals");
    assert_code(&run(&[&"init", &root]), 0);
    for i in 1..=8 {
        let text = journal("ghost", &format!("2099010{i}T000000Z"), None, &[], &[]);
        put(
            &root,
            "ghost",
            &format!("2099010{i}T000000Z"),
            ".journal",
            &text,
        );
    }
    for i in 1..=7 {
        fs::write(root.join(format!("README-{i}.txt")), b"notes")
            .unwrap_or_else(|e| panic!("write: {e}"));
    }

    for json_too in [false, true] {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"check", &root];
        if json_too {
            args.push(&"--json");
        }
        let out = run(&args);
        assert_code(&out, 0);
        // The same lines on stderr with or without --json.
        let lines = warning_lines(&out);
        let stray: Vec<&String> = lines
            .iter()
            .filter(|l| l.contains("move it out of the root"))
            .collect();
        let unrecorded: Vec<&String> = lines
            .iter()
            .filter(|l| l.contains("not recorded by the root's ledger"))
            .collect();
        assert_eq!(stray.len(), 5, "{lines:#?}");
        assert_eq!(unrecorded.len(), 5, "{lines:#?}");
        assert!(
            lines.contains(&more_line(2, "stray entry", 7)),
            "{lines:#?}"
        );
        assert!(
            lines.contains(&more_line(3, "unrecorded revision file", 8)),
            "{lines:#?}"
        );
        assert_eq!(lines.len(), 12, "{lines:#?}");
        if json_too {
            let doc = json(&out);
            assert_eq!(strings(&doc["stray"]).len(), 7, "{doc}");
            assert_eq!(strings(&doc["unrecorded"]).len(), 8, "{doc}");
            let kinds = &doc["warning_summary"]["kinds"];
            assert_eq!(kinds["stray"]["count"], 7, "{doc}");
            assert_eq!(kinds["stray"]["more"], 2, "{doc}");
            assert_eq!(kinds["unrecorded"]["count"], 8, "{doc}");
            assert_eq!(kinds["unrecorded"]["more"], 3, "{doc}");
            assert_eq!(
                strings(&kinds["unrecorded"]["shown"]),
                strings(&doc["unrecorded"])[..5].to_vec()
            );
            assert_eq!(doc["warning_summary"]["count"], 15, "{doc}");
            assert_eq!(doc["warning_summary"]["cut"], true, "{doc}");
        }
    }

    let out = run(&[&"check", &root, &"--all-warnings"]);
    assert_code(&out, 0);
    let lines = warning_lines(&out);
    assert_eq!(lines.len(), 15, "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains("more `")), "{lines:#?}");
}
