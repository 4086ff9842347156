//! What the commands say: a hand-edited old revision, a republished
//! release with other values, several versions in one revision, S3
//! errors, `--at` without an exact revision, `check` above a root, `list`,
//! the columns of `versions` and `events`, `check --help`.

use super::*;

// ---------------------------------------------------------------- 6: a hand-edited old revision

#[test]
fn a_hand_edited_old_revision_is_to_be_restored_and_read_commands_name_its_artifact() {
    for with_ledger in [true, false] {
        let hub = acme();
        hub.create("serde");
        let dir = hub.root.join("acme-logo");
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert_eq!(files.len(), 4, "genesis, 1.0.0, 2.0.0, the yank");
        if !with_ledger {
            fs::remove_dir_all(hub.root.join(".ledger")).unwrap();
        }
        // The middle revision, edited by hand.
        let text = fs::read_to_string(&files[1]).unwrap();
        write(
            &files[1],
            text.replace("an artifact", "an edited artifact").as_bytes(),
        );
        let check = run(&[&"check", &hub.root]);
        assert_code(&check, 1);
        let said = stderr(&check);
        assert!(said.contains("restore it"), "{said}");
        assert!(
            !said.contains("names the wrong predecessor") && !said.contains("expected sha256"),
            "check must not invite editing a second revision: {said}"
        );
        for args in [
            vec![&"list" as &dyn AsRef<OsStr>, &hub.root],
            vec![&"show", &hub.root, &"serde"],
            vec![&"versions", &hub.root, &"acme-logo"],
        ] {
            let out = run(&args);
            assert_code(&out, 1);
            assert!(
                stderr(&out).contains("until artifact `acme-logo` is repaired"),
                "{}",
                stderr(&out)
            );
            assert!(
                stderr(&out).contains("nenjim-journal check"),
                "{}",
                stderr(&out)
            );
        }
    }
}

// ---------------------------------------------------------------- 6: a rewritten release

#[test]
fn republishing_a_release_with_other_values_says_what_to_do() {
    let hub = acme();
    let out = hub.release("acme-logo", "2.0.0", &["--license", "Apache-2.0"]);
    assert_code(&out, 1);
    let said = stderr(&out);
    assert!(
        said.contains("ReleaseRewritten") || said.contains("already published"),
        "{said}"
    );
    assert!(
        said.contains("publish the change as a new version"),
        "{said}"
    );
    assert!(said.contains("nenjim-journal yank"), "{said}");
    assert!(
        said.contains("has LICENSE `Apache-2.0`, was `MIT`"),
        "{said}"
    );
    // Every revision it names was written.
    let written: Vec<String> = fs::read_dir(hub.root.join("acme-logo"))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .replace(".journal", "")
        })
        .collect();
    let named: Vec<&str> = said
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() == 16 && w.as_bytes().get(8) == Some(&b'T') && w.ends_with('Z'))
        .collect();
    assert!(!named.is_empty(), "{said}");
    for version in named {
        assert!(
            written.iter().any(|w| w == version),
            "{version} was never written: {said}"
        );
    }
    // A hand-written successor that changes the release says the same.
    let mut files: Vec<PathBuf> = fs::read_dir(hub.root.join("acme-logo"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let head = files.last().unwrap();
    let out = run(&[&"successor", head, &"--at", &"20991231T000000Z"]);
    assert_code(&out, 0);
    let edited = stdout(&out).replace("LICENSE MIT", "LICENSE Apache-2.0");
    let file = hub.blob("edited.journal", edited.as_bytes());
    let out = run(&[&"append", &hub.root, &file]);
    assert_code(&out, 1);
    assert!(stderr(&out).contains("rewritten"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("publish the change as a new version"),
        "{}",
        stderr(&out)
    );
}

// ---------------------------------------------------------------- 6: several versions in one revision

#[test]
fn release_takes_several_versions_in_one_revision_and_documents_the_resolution() {
    let hub = acme();
    let a = hub.blob("a.tgz", b"a");
    let b = hub.blob("b.tgz", b"b");
    let doc = run_json(
        &[
            &"release",
            &hub.root,
            &"acme-logger",
            &"1.1.0",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--license",
            &"Apache-2.0",
            &"--content",
            &a,
            &"--content",
            &b,
            &"--store",
            &hub.store,
        ],
        0,
    );
    let released: Vec<(String, u64)> = doc["releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["version"].as_str().unwrap().to_owned(),
                r["content"]["size"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(released, [("1.1.0".to_owned(), 1), ("1.0.0".to_owned(), 1)]);
    let history = run_json(&[&"history", &hub.root, &"acme-logger"], 0);
    assert_eq!(
        history["revisions"].as_array().unwrap().len(),
        2,
        "one revision"
    );
    let versions = run_json(&[&"versions", &hub.root, &"acme-logger"], 0);
    let listed: Vec<(String, String)> = versions["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["version"].as_str().unwrap().to_owned(),
                v["license"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("1.0.0".to_owned(), "Apache-2.0".to_owned()),
            ("1.1.0".to_owned(), "MIT".to_owned())
        ]
    );
    // Each version needs its content.
    let out = run(&[
        &"release",
        &hub.root,
        &"acme-logger",
        &"2.0.0",
        &"2.1.0",
        &"--license",
        &"MIT",
        &"--content",
        &a,
        &"--store",
        &hub.store,
    ]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("one --content per version"),
        "{}",
        stderr(&out)
    );
    let help = stdout(&run(&[&"release", &"--help"]));
    assert!(help.contains("resolution of one second"), "{help}");
}

// ---------------------------------------------------------------- 6: S3 errors

#[test]
fn s3_errors_name_the_setting_keep_urls_and_never_dump_xml() {
    let moto = nenjim_journal_testkit::moto::Moto::start();
    moto.create_bucket("journals");
    let endpoint = moto.endpoint();
    let base = [
        ("AWS_ENDPOINT_URL", endpoint.as_str()),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "us-east-1"),
    ];
    // An http:// endpoint without AWS_ALLOW_HTTP.
    let out = run_env(
        &[
            &"create",
            &"s3://journals/main",
            &"x",
            &"--description",
            &"y",
        ],
        &base,
    );
    assert_code(&out, 2);
    let said = stderr(&out);
    assert!(said.contains("AWS_ALLOW_HTTP=true"), "{said}");
    assert!(said.contains("s3://journals/main"), "{said}");
    // A bucket that does not exist.
    let mut allowed = base.to_vec();
    allowed.push(("AWS_ALLOW_HTTP", "true"));
    for args in [
        vec![&"list" as &dyn AsRef<OsStr>, &"s3://nobucket/main"],
        vec![
            &"create",
            &"s3://nobucket/main",
            &"x",
            &"--description",
            &"y",
        ],
        vec![
            &"put-blob",
            &"--store",
            &"s3://nobucket/store",
            &"Cargo.toml",
        ],
    ] {
        let out = run_env(&args, &allowed);
        assert_code(&out, 2);
        let said = stderr(&out);
        assert!(!said.contains('<'), "raw XML: {said}");
        assert!(said.contains("NoSuchBucket"), "{said}");
        assert!(said.contains("create bucket `nobucket` first"), "{said}");
        assert!(said.contains("s3://nobucket/"), "{said}");
    }
    // A missing root keeps its URL.
    let out = run_env(&[&"list", &"s3://journals/nothing"], &allowed);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("s3://journals/nothing"),
        "{}",
        stderr(&out)
    );
}

// ---------------------------------------------------------------- 6: the smaller things

#[test]
fn at_a_date_without_an_exact_revision_suggests_as_of() {
    let hub = acme();
    let out = run(&[&"show", &hub.root, &"acme-logo", &"--at", &"2999-12-01"]);
    assert_code(&out, 1);
    assert!(
        stderr(&out).contains("use --as-of 29991201T000000Z"),
        "{}",
        stderr(&out)
    );
    let out = run(&[&"versions", &hub.root, &"acme-logo", &"--at", &"2000-01-01"]);
    assert_code(&out, 1);
    assert!(stderr(&out).contains("--as-of"), "{}", stderr(&out));
}

#[test]
fn check_one_level_above_a_root_says_pass_the_root() {
    let hub = acme();
    let out = run(&[&"check", &hub.dir.path()]);
    assert_code(&out, 1);
    assert!(stderr(&out).contains("pass the root"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("nenjim-journal check {}", hub.root.display())),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("1 error"), "{}", stderr(&out));
}

#[test]
fn list_counts_one_release_and_offers_close_names() {
    let hub = acme();
    assert_code(&hub.release("acme-logger", "1.0.0", &[]), 0);
    let out = run(&[&"list", &hub.root]);
    assert_code(&out, 0);
    assert!(
        stdout(&out).contains("1 release, latest 1.0.0"),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("1 releases"), "{}", stdout(&out));
    assert!(stdout(&out).contains("2 releases"), "{}", stdout(&out));
    let out = run(&[&"list", &hub.root, &"acmee"]);
    assert_code(&out, 1);
    assert!(stderr(&out).contains("did you mean"), "{}", stderr(&out));
    assert!(stderr(&out).contains("`acme-logger`"), "{}", stderr(&out));
}

/// The character offsets at which each line's columns (runs of text
/// separated by two spaces) start.
fn column_starts(line: &str, columns: usize) -> Vec<usize> {
    let mut starts = vec![line.len() - line.trim_start().len()];
    let mut rest = line;
    let mut offset = 0;
    while starts.len() < columns {
        let Some(gap) = rest.trim_start().find("  ") else {
            break;
        };
        let lead = rest.len() - rest.trim_start().len();
        let after = &rest[lead + gap..];
        let spaces = after.len() - after.trim_start().len();
        offset += lead + gap + spaces;
        starts.push(offset);
        rest = &rest[lead + gap + spaces..];
    }
    starts
}

#[test]
fn the_columns_of_versions_and_events_line_up() {
    let hub = Hub::new();
    // Ten artifacts: sequences 9 and 10 differ in width.
    let names = [
        "a",
        "bb",
        "ccc",
        "dddd",
        "eeeee",
        "ffffff",
        "ggggggg",
        "hhhhhhhh",
        "iiiiiiiii",
        "jj",
    ];
    for name in names {
        hub.create(name);
    }
    assert_code(&hub.release("jj", "1.0.0", &["--license", "MIT"]), 0);
    assert_code(
        &hub.release("jj", "1.10.0", &["--license", "Apache-2.0 OR MIT"]),
        0,
    );
    assert_code(&run(&[&"recommend", &hub.root, &"jj", &"1.0.0"]), 0);
    let versions = stdout(&run(&[&"versions", &hub.root, &"jj"]));
    let rows: Vec<Vec<usize>> = versions.lines().map(|l| column_starts(l, 3)).collect();
    assert_eq!(rows.len(), 2, "{versions}");
    assert_eq!(rows[0][..2], rows[1][..2], "{versions}");
    assert!(versions.lines().next().unwrap().ends_with("recommended"));
    let recommended_at = versions
        .lines()
        .next()
        .unwrap()
        .find("recommended")
        .unwrap();
    assert_eq!(
        recommended_at,
        "1.10.0  Apache-2.0 OR MIT  ".len(),
        "{versions}"
    );
    let events = stdout(&run(&[&"events", &hub.root]));
    let rows: Vec<Vec<usize>> = events.lines().map(|l| column_starts(l, 4)).collect();
    assert!(rows.len() >= 12, "{events}");
    for row in &rows {
        assert_eq!(row.len(), 4, "{events}");
        assert_eq!(row[1..], rows[rows.len() - 1][1..], "{events}");
    }
    assert!(
        events.lines().next().unwrap().starts_with(" 1  "),
        "{events}"
    );
}

#[test]
fn check_help_says_it_reports_every_independent_error() {
    let help = stdout(&run(&[&"check", &"--help"]));
    assert!(help.contains("every independent error"), "{help}");
    assert!(!help.contains("the first error"), "{help}");
}
