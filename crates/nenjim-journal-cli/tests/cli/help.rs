//! Usage errors and help: exit code 2, a help for every subcommand, and
//! NATS roots named in the help of every command that takes a root, in
//! `init`'s, the top-level help and the man page.

use super::*;

#[test]
fn usage_errors_exit_2() {
    let f = fixture();
    for args in [
        vec!["frobnicate".to_owned()],
        vec![],
        vec!["check".to_owned()],
        vec![
            "show".to_owned(),
            f.root().to_string_lossy().into_owned(),
            "Not_A_Coordinate!".to_owned(),
        ],
        vec![
            "show".to_owned(),
            f.root().to_string_lossy().into_owned(),
            "serde".to_owned(),
            "--at".to_owned(),
            "2026-13-45".to_owned(),
        ],
        vec![
            "show".to_owned(),
            f.root().to_string_lossy().into_owned(),
            "serde".to_owned(),
            "--at".to_owned(),
            T1.to_owned(),
            "--as-of".to_owned(),
            T2.to_owned(),
        ],
        vec![
            "successor".to_owned(),
            "x".to_owned(),
            "--at".to_owned(),
            "soon".to_owned(),
        ],
        vec!["successor".to_owned(), "x".to_owned(), "--json".to_owned()],
        vec![
            "verify-content".to_owned(),
            f.root().to_string_lossy().into_owned(),
        ],
    ] {
        let args: Vec<&dyn AsRef<std::ffi::OsStr>> = args
            .iter()
            .map(|a| a as &dyn AsRef<std::ffi::OsStr>)
            .collect();
        let out = run(&args);
        assert_code(&out, 2);
        assert!(out.stdout.is_empty());
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn every_subcommand_has_help() {
    let out = run(&[&"--help"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    for name in [
        "check",
        "lint",
        "digest",
        "successor",
        "history",
        "show",
        "verify-content",
    ] {
        assert!(text.contains(name), "{name} missing from --help:\n{text}");
        let out = run(&[&name, &"--help"]);
        assert_code(&out, 0);
        assert!(stdout(&out).contains("Usage: nenjim-journal"));
    }
}

/// The subcommands that take a root (`<ROOT>`): api.md, "The command":
/// each takes a directory, a bucket URL or a NATS root.
const TAKES_A_ROOT: [&str; 19] = [
    "check",
    "history",
    "events",
    "show",
    "verify-content",
    "list",
    "versions",
    "diff",
    "init",
    "append",
    "create",
    "release",
    "yank",
    "deprecate",
    "recommend",
    "checkpoint",
    "verify",
    "prove",
    "witness",
];

/// The subcommands `nenjim-journal --help` lists (clap's `help` aside).
fn subcommands() -> Vec<String> {
    let top = stdout(&run(&[&"--help"]));
    top.lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_help_of_every_subcommand_that_takes_a_root_names_nats_roots() {
    let all = subcommands();
    assert!(all.len() > TAKES_A_ROOT.len(), "{all:?}");
    for name in &all {
        let help = stdout(&run(&[name, &"--help"]));
        let takes_a_root = help
            .lines()
            .any(|line| line.starts_with("Usage:") && line.contains("<ROOT>"));
        assert_eq!(
            takes_a_root,
            TAKES_A_ROOT.contains(&name.as_str()),
            "the table of subcommands that take a root is out of date for `{name}`:\n{help}"
        );
    }
    for name in TAKES_A_ROOT {
        for flag in ["--help", "-h"] {
            let out = run(&[&name, &flag]);
            assert_code(&out, 0);
            let text = stdout(&out);
            for kind in [
                "a directory",
                "s3://bucket/prefix",
                "nats://host:port/<name>",
                "nats://h1:p1,h2:p2,…/<name>",
            ] {
                assert!(
                    text.contains(kind),
                    "`{name} {flag}` does not name {kind}:\n{text}"
                );
            }
        }
    }
    // A content store may be a NATS root's own bucket too.
    let put_blob = stdout(&run(&[&"put-blob", &"--help"]));
    assert!(put_blob.contains("nats://"), "{put_blob}");
}

#[test]
fn init_help_says_what_init_does_on_a_nats_root() {
    let out = run(&[&"init", &"--help"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    // The description, not only the option's own line.
    let description: String = text
        .lines()
        .take_while(|line| !line.starts_with("Usage:"))
        .collect();
    for said in [
        "nats://",
        "NENJIM_<name>",
        "`--replicas N`",
        "`--store`",
        "NATS_CREDS",
        "exit 75",
    ] {
        assert!(
            description.contains(said),
            "`init --help` does not say {said}:\n{text}"
        );
    }
    assert!(text.contains("--replicas <N>"), "{text}");
    assert!(stdout(&run(&[&"init", &"-h"])).contains("--replicas <N>"));
}

#[test]
fn the_top_level_help_and_the_man_page_name_nats_roots() {
    let help = stdout(&run(&[&"--help"]));
    let out = run(&[&"man"]);
    assert_code(&out, 0);
    // roff escapes every `-` as `\-`.
    let page = stdout(&out).replace("\\-", "-");
    for text in [&help, &page] {
        for said in [
            "nats://host:port/<name>",
            "nats://h1:p1,h2:p2,…/<name>",
            "--replicas N",
            "NATS_CREDS",
            "NATS_NKEY",
            "NATS_USER",
            "NATS_PASSWORD",
            "NATS_TOKEN",
            "NATS_CA",
            "NATS_CERT",
            "NATS_KEY",
            "75",
        ] {
            assert!(text.contains(said), "{said} missing from:\n{text}");
        }
    }
    // The man page's list of subcommands says what init makes on NATS.
    assert!(page.contains("on NATS: its stream and buckets"), "{page}");
}
