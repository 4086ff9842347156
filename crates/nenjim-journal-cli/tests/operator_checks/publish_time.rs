//! Checks at publish time: warnings in text and JSON, `--strict`, empty
//! blobs, the shared license rules, `append`'s checks, close names for a
//! mistyped coordinate.

use super::*;

#[test]
fn release_warns_at_publish_time_in_text_and_json_and_strict_refuses_writing_nothing() {
    for (index, (extra, expected)) in PUBLISH_CHECKS.iter().enumerate() {
        let hub = acme();
        let version = format!("1.{index}.0");
        let mut strict: Vec<&str> = extra.to_vec();
        strict.push("--strict");
        // --strict: refused, nothing written (no revision, no ledger entry, no blob).
        let before = (tree(&hub.root), tree(&hub.store));
        let refused = hub.release("acme-logger", &version, &strict);
        assert_code(&refused, 1);
        for s in *expected {
            assert!(stderr(&refused).contains(s), "{s}: {}", stderr(&refused));
        }
        assert!(stderr(&refused).contains("nothing written"));
        assert_eq!((tree(&hub.root), tree(&hub.store)), before, "{extra:?}");
        let mut strict_json = strict.clone();
        strict_json.push("--json");
        let doc: Value =
            serde_json::from_slice(&hub.release("acme-logger", &version, &strict_json).stdout)
                .unwrap();
        assert_eq!(doc["error"]["kind"], "Strict", "{doc}");
        // Without it: written, with the warning in text (stderr) …
        let warned = hub.release("acme-logger", &version, extra);
        assert_code(&warned, 0);
        assert!(stdout(&warned).contains("appended"), "{}", stdout(&warned));
        let said = stderr(&warned);
        let warnings: Vec<&str> = said
            .lines()
            .filter(|l| l.starts_with("warning: "))
            .collect();
        assert_eq!(warnings.len(), 1, "{extra:?}: {}", stderr(&warned));
        for s in *expected {
            assert!(warnings[0].contains(s), "{s}: {}", warnings[0]);
        }
        assert!(
            warnings[0].contains(&format!("acme-logger {version}")),
            "{}",
            warnings[0]
        );
        // … and in JSON, for another version.
        let mut json = extra.to_vec();
        json.push("--json");
        let next = format!("1.{index}.1");
        let out = hub.release("acme-logger", &next, &json);
        assert_code(&out, 0);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let listed = strings(&doc["warnings"]);
        assert_eq!(listed.len(), 1, "{doc}");
        for s in *expected {
            assert!(listed[0].contains(s), "{s}: {}", listed[0]);
        }
    }
    // A release that none of the checks concerns has no warning.
    let hub = acme();
    let out = hub.release(
        "acme-logger",
        "1.0.0",
        &["--depends", "acme-logo 2.0.0", "--strict", "--json"],
    );
    assert_code(&out, 0);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["warnings"], serde_json::json!([]), "{doc}");
}

#[test]
fn an_empty_blob_is_warned_about_by_release_put_blob_and_check() {
    let hub = acme();
    let empty = hub.blob("empty.tgz", b"");
    let release = |strict: bool| {
        let mut args: Vec<&dyn AsRef<OsStr>> = vec![
            &"release",
            &hub.root,
            &"acme-logger",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &empty,
            &"--store",
            &hub.store,
        ];
        if strict {
            args.push(&"--strict");
        }
        run(&args)
    };
    let before = tree(&hub.root);
    assert_code(&release(true), 1);
    assert_eq!(tree(&hub.root), before);
    let warned = release(false);
    assert_code(&warned, 0);
    assert!(
        stderr(&warned).contains("is an empty (0-byte) blob"),
        "{}",
        stderr(&warned)
    );
    // put-blob says the same of an empty file, in text and JSON.
    let put = run(&[&"put-blob", &"--store", &hub.store, &empty]);
    assert_code(&put, 0);
    assert!(
        stderr(&put).contains("empty (0-byte) blob"),
        "{}",
        stderr(&put)
    );
    let doc = run_json(&[&"put-blob", &"--store", &hub.store, &empty], 0);
    assert_eq!(strings(&doc["warnings"]).len(), 1, "{doc}");
    let full = hub.blob("full.tgz", b"bytes");
    let doc = run_json(&[&"put-blob", &"--store", &hub.store, &full], 0);
    assert_eq!(doc["warnings"], serde_json::json!([]));
    // check warns about it afterwards, by the same rule.
    let check = run_json(&[&"check", &hub.root], 0);
    let warnings = strings(&check["warnings"]);
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("acme-logger 1.0.0: CONTENT") && w.contains("empty (0-byte)")),
        "{warnings:?}"
    );
}

#[test]
fn check_and_release_share_the_deprecated_license_rule() {
    let hub = acme();
    let out = hub.release("acme-logger", "1.0.0", &["--license", "GPL-2.0+", "--json"]);
    assert_code(&out, 0);
    let published = strings(&serde_json::from_slice::<Value>(&out.stdout).unwrap()["warnings"]);
    let checked = strings(&run_json(&[&"check", &hub.root], 0)["warnings"]);
    assert_eq!(published.len(), 1, "{published:?}");
    assert_eq!(checked, published, "check warns exactly as release did");
}

#[test]
fn append_checks_a_files_new_releases_and_strict_refuses() {
    let hub = acme();
    let head = run_json(&[&"history", &hub.root, &"acme-logger"], 0);
    let digest = head["revisions"][0]["digest"].as_str().unwrap().to_owned();
    let next = "20991231T000000Z";
    let blob = b"the bytes";
    fs::create_dir_all(hub.store.join("blobs/sha256")).unwrap();
    write(&hub.store.join("blobs/sha256").join(hex(blob)), blob);
    let text = format!(
        "FORMAT nenjim-journal/1\nARTIFACT acme-logger\nJOURNAL_VERSION {next}\nPREDECESSOR {digest}\nDESCRIPTION \"an artifact\"\n\nRELEASE 1.0.0\n  LICENSE MIT\n  CONTENT sha256:{} {}\n  DEPENDS acme-lgo 1.0.0\n",
        hex(blob),
        blob.len()
    );
    let file = hub.blob("next.journal", text.as_bytes());
    let before = tree(&hub.root);
    let refused = run_json(&[&"append", &hub.root, &file, &"--strict"], 1);
    assert_eq!(refused["error"]["kind"], "Strict", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `acme-logo`?"),
        "{refused}"
    );
    assert_eq!(tree(&hub.root), before, "nothing written");
    let doc = run_json(&[&"append", &hub.root, &file], 0);
    let warnings = strings(&doc["appended"][0]["warnings"]);
    assert_eq!(warnings.len(), 1, "{doc}");
    assert!(warnings[0].contains("found no artifact `acme-lgo`"));
}

#[test]
fn write_commands_offer_close_names_for_a_mistyped_coordinate() {
    let hub = acme();
    let blob = hub.blob("x.tgz", b"x");
    let commands: Vec<Vec<&dyn AsRef<OsStr>>> = vec![
        vec![&"yank", &hub.root, &"acme-loger", &"1.0.0", &"why"],
        vec![&"deprecate", &hub.root, &"acme-loger", &"1.0.0", &"why"],
        vec![&"recommend", &hub.root, &"acme-loger", &"1.0.0"],
        vec![
            &"release",
            &hub.root,
            &"acme-loger",
            &"1.0.0",
            &"--license",
            &"MIT",
            &"--content",
            &blob,
            &"--store",
            &hub.store,
        ],
    ];
    for args in commands {
        let out = run(&args);
        assert_code(&out, 1);
        assert!(
            stderr(&out).contains("did you mean `acme-logger`"),
            "{}",
            stderr(&out)
        );
    }
    // A name close to nothing still says how to create it.
    let out = run(&[&"yank", &hub.root, &"zzzzzzzz", &"1.0.0", &"why"]);
    assert_code(&out, 1);
    assert!(!stderr(&out).contains("did you mean"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nenjim-journal create"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_slash_between_licenses_suggests_or() {
    let hub = acme();
    let out = hub.release("acme-logger", "1.0.0", &["--license", "MIT/Apache-2.0"]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("did you mean `MIT OR Apache-2.0`?"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("did you mean `Apache-2.0`"));
}
