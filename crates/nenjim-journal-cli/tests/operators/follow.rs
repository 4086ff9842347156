//! Bucket roots and `events --follow`: what another process appends, each
//! new event printed, a clean end on SIGINT, a timed-out write, changed
//! recorded files.

use super::*;

#[test]
fn a_bucket_root_knows_its_store_and_follow_prints_what_another_process_appends() {
    let moto = Moto::start();
    moto.create_bucket("journals");
    let dir = tempdir();
    let d = dir.path();
    let missing = s3_run(
        &moto,
        d,
        &["create", "s3://journals/main", "a", "--description", "x"],
        2,
    );
    assert!(
        cli::stderr(&missing).contains("nenjim-journal init s3://journals/main"),
        "{}",
        cli::stderr(&missing)
    );
    let refused = s3_run(
        &moto,
        d,
        &[
            "init",
            "s3://journals/main",
            "--store",
            "s3://journals/store",
        ],
        2,
    );
    assert!(
        cli::stderr(&refused).contains("--create"),
        "{}",
        cli::stderr(&refused)
    );
    s3_run(
        &moto,
        d,
        &[
            "init",
            "s3://journals/main",
            "--store",
            "s3://journals/store",
            "--create",
        ],
        0,
    );
    s3_run(
        &moto,
        d,
        &["create", "s3://journals/main", "a", "--description", "x"],
        0,
    );
    write(&d.join("a.tgz"), b"the bytes of a 1.0.0");
    s3_run(
        &moto,
        d,
        &[
            "release",
            "s3://journals/main",
            "a",
            "1.0.0",
            "--license",
            "MIT",
            "--content",
            "a.tgz",
        ],
        0,
    );
    let verified = s3_run(
        &moto,
        d,
        &["verify-content", "s3://journals/main", "--json"],
        0,
    );
    let doc: Value = serde_json::from_slice(&verified.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["store"], "s3://journals/store", "{doc}");

    // Follow the bucket root from after sequence 1: the release, then a new
    // artifact created by another process.
    let mut child = s3(
        &moto,
        d,
        &[
            "events",
            "s3://journals/main",
            "--follow",
            "--json",
            "--after",
            "1",
            "--interval",
            "0.2",
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut stdout = Lines::stdout(&mut child);
    let backlog = stdout.until("\"sequence\"");
    assert!(
        backlog.contains("\"sequence\":2") && backlog.contains("release_published"),
        "{backlog}"
    );
    s3_run(
        &moto,
        d,
        &["create", "s3://journals/main", "b", "--description", "y"],
        0,
    );
    let new = stdout.until("\"coordinate\":\"b\"");
    let event: Value = serde_json::from_str(&new).unwrap_or_else(|e| panic!("{e}: {new}"));
    assert_eq!(event["sequence"], 3, "{event}");
    assert_eq!(event["kind"], "artifact_created", "{event}");
    signal(&child, "INT");
    let status = exit_of(&mut child);
    assert_eq!(
        status.code(),
        Some(0),
        "{}",
        Lines::stderr(&mut child).rest()
    );
}

// ---------------------------------------------------------------- follow

#[test]
fn follow_prints_each_new_event_from_after_and_ends_cleanly_on_sigint() {
    let (dir, root) = initialized();
    run_json(&[&"create", &root, &"a", &"--description", &"x"], 0);
    // A takeover of a dead holder's lease: sequence 2 is a FENCE, b is 3.
    let epoch = lease(&root).1 + 1;
    let dead = dead_holder();
    hold_lease(&root, &dead, epoch, now_millis() + 3_600_000);
    run_json(&[&"create", &root, &"b", &"--description", &"y"], 0);
    let mut child = command(&[
        &"events",
        &root,
        &"--follow",
        &"--json",
        &"--after",
        &"2",
        &"--interval",
        &"0.1",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap_or_else(|e| panic!("spawn: {e}"));
    let mut stdout = Lines::stdout(&mut child);
    // The backlog resumes exactly after sequence 2 (across the fence's gap).
    let first = stdout.until("\"sequence\"");
    let event: Value = serde_json::from_str(&first).unwrap_or_else(|e| panic!("{e}: {first}"));
    assert_eq!(
        (&event["sequence"], &event["coordinate"]),
        (&Value::from(3), &Value::from("b"))
    );
    // An append by another process is printed as it is ingested.
    let file = dir.path().join("c.journal");
    write(&file, genesis("c", "20260101T000000Z").as_bytes());
    run_json(&[&"append", &root, &file], 0);
    let new = stdout.until("\"coordinate\":\"c\"");
    let event: Value = serde_json::from_str(&new).unwrap_or_else(|e| panic!("{e}: {new}"));
    assert_eq!(event["sequence"], 4, "{event}");
    signal(&child, "INT");
    let status = exit_of(&mut child);
    assert_eq!(
        status.code(),
        Some(0),
        "{}",
        Lines::stderr(&mut child).rest()
    );
    assert_eq!(stdout.rest().lines().count(), 2, "no line twice");

    // The help says it polls; Atom cannot be followed.
    let help = run(&[&"events", &"--help"]);
    assert!(
        cli::stdout(&help).contains("polls"),
        "{}",
        cli::stdout(&help)
    );
    let atom = run(&[&"events", &root, &"--follow", &"--format", &"atom"]);
    assert_code(&atom, 2);
}

// ---------------------------------------------------------------- a write that timed out

#[test]
fn a_bucket_write_that_timed_out_says_that_rerunning_the_same_command_settles_it() {
    let moto = Moto::start();
    moto.create_bucket("journals");
    let proxy = Proxy::start(&moto.endpoint());
    let dir = tempdir();
    let d = dir.path();
    let run_at = |args: &[&str]| -> Output {
        s3_at(&proxy.endpoint, d, args)
            .env("AWS_TIMEOUT", "1s")
            .output()
            .unwrap_or_else(|e| panic!("cannot run nenjim-journal: {e}"))
    };
    assert_code(&run_at(&["init", "s3://journals/main"]), 0);
    assert_code(
        &run_at(&["create", "s3://journals/main", "a", "--description", "x"]),
        0,
    );

    proxy.armed.store(true, Ordering::SeqCst);
    let create = ["create", "s3://journals/main", "b", "--description", "y"];
    let lost = run_at(&create);
    assert_code(&lost, 2);
    assert_eq!(
        proxy.held.load(Ordering::SeqCst),
        1,
        "the entry's PUT timed out"
    );
    let errors = cli::stderr(&lost);
    assert!(
        errors.contains("re-running the same command settles it"),
        "{errors}"
    );

    proxy.armed.store(false, Ordering::SeqCst);
    let doc: Value = serde_json::from_slice(&run_at(&[&create[..], &["--json"]].concat()).stdout)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (&doc["ok"], &doc["sequence"]),
        (&Value::Bool(true), &Value::from(2)),
        "{doc}"
    );
    let again = run_at(&create);
    assert_code(&again, 1); // b exists now: DuplicateGenesis, nothing written twice
    let list = run_at(&["list", "s3://journals/main", "--json"]);
    assert_code(&list, 0);
    let listed: Value = serde_json::from_slice(&list.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        listed["artifacts"].as_array().map(Vec::len),
        Some(2),
        "{listed}"
    );
}

#[test]
fn check_of_a_ledger_root_reports_each_changed_recorded_file() {
    let (_dir, root) = initialized();
    for coordinate in ["left-pad", "right-pad"] {
        run_json(
            &[&"create", &root, &coordinate, &"--description", &"pads"],
            0,
        );
    }
    // Both recorded files changed into other valid texts: the files alone
    // are fine, only their records tell.
    let mut changed = Vec::new();
    for coordinate in ["left-pad", "right-pad"] {
        let dir = root.join(coordinate);
        let file = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{e}"))
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "journal"))
            .unwrap_or_else(|| panic!("no revision file in {}", dir.display()));
        let text = read_text(&file).replace("pads", "pads, changed");
        let mut permissions = fs::metadata(&file)
            .unwrap_or_else(|e| panic!("{e}"))
            .permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        permissions.set_readonly(false);
        fs::set_permissions(&file, permissions).unwrap_or_else(|e| panic!("{e}"));
        fs::write(&file, text).unwrap_or_else(|e| panic!("{e}"));
        changed.push(file);
    }
    let out = run(&[&"check", &root, &"--json"]);
    assert_code(&out, 1);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["error_count"], 2, "{doc}");
    let errors = doc["errors"].as_array().cloned().unwrap_or_default();
    for (error, file) in errors.iter().zip(&changed) {
        assert_eq!(error["kind"], "LedgerMismatch", "{doc}");
        let path = error["path"].as_str().unwrap_or_default();
        assert_eq!(path, file.to_string_lossy(), "{doc}");
    }
}
