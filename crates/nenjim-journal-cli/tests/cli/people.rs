//! Issue 13: diagnostics that point at the cause, every error of a root,
//! and the views people reach for (`list`, `versions`, `diff`).

use std::process::Output;

use nenjim_journal_testkit::cli::{output_with_stdin, write};

use super::*;

fn run_with_stdin(args: &[&dyn AsRef<std::ffi::OsStr>], input: &str) -> Output {
    output_with_stdin(
        command(env!("CARGO_BIN_EXE_nenjim-journal"), args).env_remove("NO_COLOR"),
        input,
    )
}

fn errors(v: &Value) -> Vec<Value> {
    v["errors"].as_array().cloned().unwrap_or_default()
}

// ---------------------------------------------------------------- check: every error

#[test]
fn check_reports_every_independent_error_with_a_count() {
    let f = fixture();
    // A stray file in the root, and a license typo in another artifact.
    write(&f.root().join("README.txt"), "notes\n");
    let bad = journal("zlib", T1, None, &[release("1.0.0")], &[])
        .replace("LICENSE MIT", "LICENSE Apache2");
    put(&f.root(), "zlib", T1, ".journal", &bad);

    let out = run(&[&"check", &f.root(), &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    assert_eq!(v["ok"], false);
    assert_eq!(v["error_count"], 2);
    assert_eq!(v["truncated"], false);
    let kinds: Vec<String> = errors(&v)
        .iter()
        .map(|e| e["kind"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(kinds, ["UnexpectedEntry", "Semantic"]);
    let err = stderr(&out);
    assert!(err.contains("README.txt"), "{err}");
    assert!(err.contains(&format!("zlib/{T1}.journal:7:")), "{err}");
    assert!(err.contains("did you mean `Apache-2.0`?"), "{err}");
    assert_eq!(err.matches("2 errors").count(), 1, "one summary: {err}");

    let out = run(&[&"check", &f.root(), &"--max-errors", &"1", &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    assert_eq!(v["error_count"], 1);
    assert_eq!(v["truncated"], true);
    assert!(stderr(&out).contains("--max-errors"), "{}", stderr(&out));
}

#[test]
fn a_successor_dated_before_its_predecessor_names_the_predecessor() {
    let dir = tempdir();
    let root = dir.path();
    let genesis = journal("demo", T1, None, &[release("1.0.0")], &[]);
    put(root, "demo", T1, ".journal", &genesis);
    let second = journal(
        "demo",
        T3,
        Some(&digest_of(&genesis)),
        &[release("1.0.0"), release("1.1.0")],
        &[],
    );
    put(root, "demo", T3, ".journal", &second);
    // Follows T3 but is dated T2: its name sorts before its predecessor's.
    let third = journal(
        "demo",
        T2,
        Some(&digest_of(&second)),
        &[release("1.0.0"), release("1.1.0"), release("1.2.0")],
        &[],
    );
    put(root, "demo", T2, ".journal", &third);

    let out = run(&[&"check", &root, &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    let e = &v["error"];
    let message = e["message"].as_str().unwrap_or_default();
    assert!(
        e["path"]
            .as_str()
            .unwrap_or_default()
            .ends_with(&format!("{T2}.journal")),
        "{e}"
    );
    assert!(message.contains(&format!("`{T3}.journal`")), "{message}");
    assert!(message.contains("later"), "{message}");
    assert!(!message.contains("no stored revision"), "{message}");
}

#[test]
fn an_edited_old_revision_is_named_with_the_digest_it_must_have() {
    let f = fixture();
    let original = digest_of(&f.serde[0]);
    // Edit the genesis after its successor recorded its digest.
    let edited = f.serde[0].replace("the serde artifact", "the serde artifact, edited");
    let genesis = put(&f.root(), "serde", T1, ".journal", &edited);

    let out = run(&[&"check", &f.root(), &"--json"]);
    assert_code(&out, 1);
    let v = json(&out);
    assert_eq!(v["error_count"], 1);
    let e = &v["error"];
    assert_eq!(e["path"], genesis.to_string_lossy().as_ref());
    let message = e["message"].as_str().unwrap_or_default();
    assert!(message.contains("no longer has the digest"), "{message}");
    assert!(message.contains("immutable"), "{message}");
    assert!(message.contains(&original), "{message}");
}

#[test]
fn an_artifact_directory_as_root_says_to_pass_its_parent() {
    let f = fixture();
    let out = run(&[&"check", &f.root().join("serde")]);
    assert_code(&out, 1);
    let err = stderr(&out);
    assert!(err.contains("pass its parent"), "{err}");
    assert!(err.contains(f.root().to_string_lossy().as_ref()), "{err}");
}

#[test]
fn check_without_examples_says_how_many_it_skipped() {
    let dir = tempdir();
    let text = journal("demo", T1, None, &[release("1.0.0")], &[]);
    put(dir.path(), "demo", T1, ".journal.example", &text);
    let out = run(&[&"check", &dir.path()]);
    assert_code(&out, 0);
    assert!(
        stdout(&out).contains("skipped 1 example file"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        json(&run(&[&"check", &dir.path(), &"--json"]))["skipped_examples"],
        1
    );
}

#[test]
fn deprecated_license_is_a_warning_with_replacements() {
    let dir = tempdir();
    let text = journal("demo", T1, None, &[release("1.0.0")], &[])
        .replace("LICENSE MIT", "LICENSE GPL-3.0");
    put(dir.path(), "demo", T1, ".journal", &text);
    let out = run(&[&"check", &dir.path()]);
    assert_code(&out, 0);
    let err = stderr(&out);
    assert!(err.contains("warning:"), "{err}");
    assert!(
        err.contains("`GPL-3.0-only` or `GPL-3.0-or-later`"),
        "{err}"
    );
    let v = json(&run(&[&"check", &dir.path(), &"--json"]));
    assert_eq!(v["warnings"].as_array().map(Vec::len), Some(1));
    // --quiet silences the warning and the summary.
    let out = run(&[&"check", &dir.path(), &"--quiet"]);
    assert_code(&out, 0);
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

// ---------------------------------------------------------------- helpful messages

#[test]
fn messages_suggest_what_was_meant() {
    let dir = tempdir();
    let cases = [
        ("LICENSE MIT", "LICENSE mit", "did you mean `MIT`?"),
        (
            "LICENSE MIT",
            "LICENSE Apache2",
            "did you mean `Apache-2.0`?",
        ),
    ];
    for (from, to, expected) in cases {
        let text = journal("demo", T1, None, &[release("1.0.0")], &[]).replace(from, to);
        let path = dir.path().join("x.journal");
        write(&path, &text);
        let out = run(&[&"lint", &path]);
        assert_code(&out, 1);
        assert!(stderr(&out).contains(expected), "{}", stderr(&out));
    }
    for (requirement, expected) in [
        ("^1.3", "`^1.3` means `[1.3.0,2.0.0)`"),
        (">=1.0.0,<2.0.0", "means `[1.0.0,2.0.0)`"),
        ("[1.0.0, 2.0.0)", "space inside it"),
    ] {
        // The release block ends the text: DEPENDS goes after its CONTENT.
        let text = format!(
            "{}  DEPENDS serde {requirement}\n",
            journal("demo", T1, None, &[release("1.0.0")], &[])
        );
        let path = dir.path().join("x.journal");
        write(&path, &text);
        let out = run(&[&"lint", &path]);
        assert_code(&out, 1);
        let err = stderr(&out);
        assert!(err.contains(expected), "{requirement}: {err}");
        if requirement.starts_with(['^', '>']) {
            assert!(err.contains("three forms"), "{err}");
        }
    }
}

#[test]
fn unknown_coordinate_suggests_the_close_one_and_a_trailing_slash_is_accepted() {
    let dir = tempdir();
    let text = journal("serde_json", T1, None, &[release("1.0.0")], &[]);
    put(dir.path(), "serde_json", T1, ".journal", &text);
    let out = run(&[&"versions", &dir.path(), &"serde-json"]);
    assert_code(&out, 1);
    assert!(
        stderr(&out).contains("did you mean `serde_json`?"),
        "{}",
        stderr(&out)
    );
    let out = run(&[&"versions", &dir.path(), &"serde_json/"]);
    assert_code(&out, 0);
    assert!(stdout(&out).starts_with("1.0.0"), "{}", stdout(&out));
}

#[test]
fn as_of_accepts_now_and_a_date() {
    let f = fixture();
    let out = run(&[&"show", &f.root(), &"serde", &"--as-of", &"now", &"--json"]);
    assert_code(&out, 0);
    assert_eq!(json(&out)["revision"]["journal_version"], T3);
    let out = run(&[
        &"show",
        &f.root(),
        &"serde",
        &"--as-of",
        &"2026-02-15",
        &"--json",
    ]);
    assert_code(&out, 0);
    assert_eq!(json(&out)["revision"]["journal_version"], T2);
    let out = run(&[
        &"show",
        &f.root(),
        &"serde",
        &"--as-of",
        &"2026-02-01T00:00:00Z",
        &"--json",
    ]);
    assert_code(&out, 0);
    assert_eq!(json(&out)["revision"]["journal_version"], T2);
}

#[test]
fn verify_content_store_one_level_too_deep_names_the_expected_layout() {
    let f = fixture();
    let store = f.dir.path().join("store");
    let blobs = store.join("blobs").join("sha256");
    fs::create_dir_all(&blobs).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&[
        &"verify-content",
        &f.root(),
        &"--store",
        &store.join("blobs"),
    ]);
    assert_code(&out, 2);
    let err = stderr(&out);
    assert!(err.contains("blobs/sha256"), "{err}");
    assert!(err.contains(store.to_string_lossy().as_ref()), "{err}");
}

// ---------------------------------------------------------------- lint

#[test]
fn lint_walks_directories_reads_stdin_and_summarises() {
    let f = fixture();
    let out = run(&[&"lint", &f.root()]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(text.contains("4 files checked, all valid"), "{text}");

    let out = run(&[&"lint", &"-q", &f.root()]);
    assert_code(&out, 0);
    assert!(out.stdout.is_empty() && out.stderr.is_empty());

    let list = format!(
        "{}\n{}\n",
        f.root()
            .join("serde")
            .join(format!("{T1}.journal"))
            .display(),
        f.root().join("left-pad").display()
    );
    let out = run_with_stdin(&[&"lint", &"-", &"--json"], &list);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["checked"], 2);
    assert_eq!(v["invalid"], 0);

    write(&f.root().join("serde").join("bad.journal"), "FORMAT nope\n");
    let out = run(&[&"lint", &f.root()]);
    assert_code(&out, 1);
    assert!(
        stderr(&out).contains("5 files checked, 1 invalid"),
        "{}",
        stderr(&out)
    );
}

// ---------------------------------------------------------------- views

#[test]
fn list_shows_each_artifact_head() {
    let f = fixture();
    let out = run(&[&"list", &f.root()]);
    assert_code(&out, 0);
    let text = stdout(&out);
    let serde = text
        .lines()
        .find(|l| l.starts_with("serde"))
        .unwrap_or_default();
    assert!(serde.contains(T3), "{text}");
    assert!(
        serde.contains("3 releases, latest 2.0.0-rc.1, 1 yanked"),
        "{text}"
    );

    let v = json(&run(&[&"list", &f.root(), &"left*", &"--json"]));
    assert_eq!(v["command"], "list");
    assert_eq!(v["artifacts"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["artifacts"][0]["coordinate"], "left-pad");
    assert_eq!(v["artifacts"][0]["releases"], 1);

    let out = run(&[&"list", &f.root(), &"nothing-like-it"]);
    assert_code(&out, 1);
}

#[test]
fn versions_lists_one_line_per_release_with_markers() {
    let f = fixture();
    let out = run(&[&"versions", &f.root(), &"serde"]);
    assert_code(&out, 0);
    let lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].starts_with("1.0.0") && lines[0].contains("yanked: broken build"));
    assert!(lines[1].contains("recommended") && lines[1].contains("deprecated: use 2.x"));

    let v = json(&run(&[
        &"versions",
        &f.root(),
        &"serde",
        &"--as-of",
        &T2,
        &"--json",
    ]));
    assert_eq!(v["command"], "versions");
    assert_eq!(v["journal_version"], T2);
    assert_eq!(v["versions"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["versions"][1]["recommended"], true);
}

#[test]
fn diff_shows_header_release_and_policy_changes() {
    let dir = tempdir();
    let root = dir.path();
    let first = journal("demo", T1, None, &[release("1.0.0")], &["RECOMMEND 1.0.0"]);
    let second = journal(
        "demo",
        T2,
        Some(&digest_of(&first)),
        &[release("1.0.0"), release("1.1.0")],
        &["YANK 1.0.0 \"bad\""],
    )
    .replace("the demo artifact", "the demo artifact, renamed");
    put(root, "demo", T1, ".journal", &first);
    put(root, "demo", T2, ".journal", &second);

    let out = run(&[&"diff", &root, &"demo", &"genesis", &"latest"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains("- DESCRIPTION \"the demo artifact\""),
        "{text}"
    );
    assert!(
        text.contains("+ DESCRIPTION \"the demo artifact, renamed\""),
        "{text}"
    );
    assert!(text.contains("+ RELEASE 1.1.0"), "{text}");
    assert!(text.contains("- RECOMMEND 1.0.0"), "{text}");
    assert!(text.contains("+ YANK 1.0.0 \"bad\""), "{text}");

    let v = json(&run(&[&"diff", &root, &"demo", &T1, &T2, &"--json"]));
    assert_eq!(v["command"], "diff");
    assert_eq!(v["changed"], true);
    assert_eq!(v["header"][0]["field"], "DESCRIPTION");
    assert_eq!(v["releases_added"][0], "1.1.0");
    assert_eq!(v["policy_added"][0]["kind"], "yank");

    let v = json(&run(&[&"diff", &root, &"demo", &T2, &T2, &"--json"]));
    assert_eq!(v["changed"], false);

    let out = run(&[&"diff", &root, &"demo", &"19990101T000000Z", &T2]);
    assert_code(&out, 1);
}

#[test]
fn color_can_be_forced_and_every_new_command_has_help() {
    let f = fixture();
    let out = run(&[&"list", &f.root(), &"--color=always"]);
    assert_code(&out, 0);
    assert!(stdout(&out).contains('\x1b'), "{}", stdout(&out));
    let out = run(&[&"list", &f.root(), &"--color", &"never"]);
    assert!(!stdout(&out).contains('\x1b'));
    for command in ["list", "versions", "diff"] {
        let out = run(&[&command, &"--help"]);
        assert_code(&out, 0);
        assert!(stdout(&out).contains("--json"), "{command}");
    }
}

#[test]
fn completions_and_man_page_come_from_the_definition() {
    let out = run(&[&"completions", &"bash"]);
    assert_code(&out, 0);
    let script = stdout(&out);
    assert!(script.contains("nenjim-journal"), "{script}");
    assert!(script.contains("versions") && script.contains("--max-errors"));
    let out = run(&[&"man"]);
    assert_code(&out, 0);
    let page = stdout(&out);
    assert!(page.contains(".TH nenjim-journal 1"), "{page}");
    let v = json(&run(&[&"completions", &"zsh", &"--json"]));
    assert_eq!(v["command"], "completions");
    assert_eq!(v["shell"], "zsh");
    assert!(v["text"].as_str().is_some_and(|t| t.contains("#compdef")));
    assert_eq!(json(&run(&[&"man", &"--json"]))["ok"], true);
    let out = run(&[&"completions", &"tcsh"]);
    assert_code(&out, 2);
}

#[test]
fn no_pager_is_accepted_and_output_through_a_pipe_is_never_paged() {
    let f = fixture();
    let out = run(&[&"versions", &f.root(), &"serde", &"--no-pager"]);
    assert_code(&out, 0);
    assert_eq!(stdout(&out).lines().count(), 3);
}
