//! `check`: its summary, its JSON, diagnostics located at the file and
//! line, its exit codes, and examples loaded only when asked.

use super::*;

#[test]
fn check_reports_a_summary() {
    let f = fixture();
    let out = run(&[&"check", &f.root()]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(text.starts_with("ok "), "{text}");
    assert!(
        text.contains("2 artifacts, 4 revisions, 4 releases"),
        "{text}"
    );
    assert!(text.contains("loaded in"), "{text}");
    assert!(
        !text.contains('\x1b'),
        "no colour when not a terminal: {text:?}"
    );
}

#[test]
fn check_json_shape() {
    let f = fixture();
    let out = run(&[&"check", &f.root(), &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["command"], "check");
    assert_eq!(v["ok"], true);
    assert_eq!(v["root"], f.root().to_string_lossy().as_ref());
    assert_eq!(v["examples"], false);
    assert_eq!(v["artifacts"], 2);
    assert_eq!(v["revisions"], 4);
    assert_eq!(v["releases"], 4);
    assert!(v["elapsed_ms"].is_u64());
}

#[test]
fn check_diagnostic_points_at_the_file_and_line() {
    let f = fixture();
    // Line 7 (the first release's LICENSE) holds an unknown license.
    let bad = journal("zlib", T1, None, &[release("1.0.0")], &[])
        .replace("LICENSE MIT", "LICENSE NOT-A-LICENSE");
    assert_eq!(bad.lines().nth(6), Some("  LICENSE NOT-A-LICENSE"));
    put(&f.root(), "zlib", T1, ".journal", &bad);

    let out = run(&[&"check", &f.root()]);
    assert_code(&out, 1);
    assert!(out.stdout.is_empty(), "results only on success");
    let err = stderr(&out);
    let located = format!("zlib/{T1}.journal:7:");
    assert!(err.contains(&located), "{err}");

    let out = run(&[&"check", &f.root(), &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    assert_eq!(v["command"], "check");
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["kind"], "Semantic");
    assert_eq!(v["error"]["line"], 7);
    assert!(v["error"]["column"].is_u64());
    let path = v["error"]["path"].as_str().unwrap_or_default();
    assert!(path.ends_with(&format!("zlib/{T1}.journal")), "{path}");
    let diagnostic = v["error"]["diagnostic"].as_str().unwrap_or_default();
    assert!(diagnostic.contains(&located), "{diagnostic}");
    assert!(v["error"]["message"].is_string());
}

#[test]
fn check_syntax_error_line() {
    let f = fixture();
    let mut bad = journal("zlib", T1, None, &[release("1.0.0")], &[]);
    bad.push_str("RELEASE 1.0.1+build\n  LICENSE MIT\n");
    put(&f.root(), "zlib", T1, ".journal", &bad);
    let out = run(&[&"check", &f.root(), &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    assert_eq!(v["error"]["kind"], "Syntax");
    assert_eq!(v["error"]["line"], 9);
}

#[test]
fn check_chain_error_exits_1() {
    let f = fixture();
    let orphan = journal(
        "left-pad",
        T3,
        Some(&digest_of("not a stored revision")),
        &[release("0.1.0")],
        &[],
    );
    put(&f.root(), "left-pad", T3, ".journal", &orphan);
    let out = run(&[&"check", &f.root(), &"--json"]);
    assert_code(&out, 1);
    assert_eq!(json(&out)["error"]["kind"], "UnknownPredecessor");
    assert!(stderr(&out).contains(&format!("left-pad/{T3}.journal")));
}

#[test]
fn check_missing_root_exits_2() {
    let dir = tempdir();
    let missing = dir.path().join("nowhere");
    let out = run(&[&"check", &missing]);
    assert_code(&out, 2);
    assert!(stderr(&out).contains("nowhere"), "{}", stderr(&out));

    let out = run(&[&"check", &missing, &"--json"]);
    assert_code(&out, 2);
    let v = json(&out);
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["kind"], "RootMissing");
}

#[test]
fn check_root_that_is_a_file_exits_2() {
    let dir = tempdir();
    let file = dir.path().join("file");
    fs::write(&file, "x").unwrap_or_else(|e| panic!("{e}"));
    let out = run(&[&"check", &file, &"--json"]);
    assert_code(&out, 2);
    assert_eq!(json(&out)["error"]["kind"], "RootNotDirectory");
}

#[test]
fn check_examples_are_loaded_only_when_asked() {
    let dir = tempdir();
    let root = dir.path();
    let text = journal("demo", T1, None, &[release("1.0.0")], &[]);
    put(root, "demo", T1, ".journal.example", &text);

    let out = run(&[&"check", &root, &"--json"]);
    assert_code(&out, 0);
    assert_eq!(json(&out)["artifacts"], 0);

    let out = run(&[&"check", &root, &"--examples", &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["examples"], true);
    assert_eq!(v["artifacts"], 1);
    assert_eq!(v["revisions"], 1);
    assert_eq!(v["releases"], 1);
    // Nothing on disk changed.
    let names: Vec<String> = fs::read_dir(root.join("demo"))
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec![format!("{T1}.journal.example")]);
}
