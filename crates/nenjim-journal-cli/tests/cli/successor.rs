//! `successor`: the new head accepted, its text kept (CRLF, comments,
//! spacing), its time, and the source it requires.

use super::*;

#[test]
fn successor_is_accepted_as_the_new_head() {
    let f = fixture();
    let head = f.root().join("serde").join(format!("{T3}.journal"));
    let next = "20260401T000000Z";
    let out = run(&[&"successor", &head, &"--at", &next]);
    assert_code(&out, 0);
    let text = stdout(&out);
    let expected = f.serde[2]
        .replace(
            &format!("JOURNAL_VERSION {T3}"),
            &format!("JOURNAL_VERSION {next}"),
        )
        .replace(
            &format!("PREDECESSOR {}", digest_of(&f.serde[1])),
            &format!("PREDECESSOR {}", digest_of(&f.serde[2])),
        );
    assert_eq!(text, expected);

    // Author: add a release, then check the root accepts it as the head.
    let authored = text.replace(
        "YANK",
        &format!(
            "RELEASE 2.0.0\n  LICENSE MIT\n  CONTENT sha256:{} 3\nYANK",
            hex(b"new")
        ),
    );
    put(&f.root(), "serde", next, ".journal", &authored);
    let out = run(&[&"check", &f.root(), &"--json"]);
    assert_code(&out, 0);
    assert_eq!(json(&out)["revisions"], 5);

    let out = run(&[&"show", &f.root(), &"serde", &"--json"]);
    assert_code(&out, 0);
    let v = json(&out);
    assert_eq!(v["revision"]["journal_version"], next);
    assert_eq!(v["revision"]["predecessor"], digest_of(&f.serde[2]));
    assert_eq!(v["revision"]["releases"].as_array().map(Vec::len), Some(4));
}

#[test]
fn successor_keeps_crlf_comments_and_spacing() {
    let dir = tempdir();
    let source = "# first revision\r\nFORMAT nenjim-journal/1\r\nARTIFACT serde\r\nJOURNAL_VERSION 20260101T000000Z\r\nPREDECESSOR GENESIS\r\nDESCRIPTION \"x\"\r\n\r\n# releases\nRELEASE 1.0.0\n  LICENSE MIT\r\n  CONTENT sha256:0000000000000000000000000000000000000000000000000000000000000000 0\r\n";
    let path = dir.path().join(format!("{T1}.journal"));
    fs::write(&path, source).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&[&"successor", &path, &"--at", &T2]);
    assert_code(&out, 0);
    let expected = source
        .replace(
            "JOURNAL_VERSION 20260101T000000Z\r\n",
            &format!("JOURNAL_VERSION {T2}\r\n"),
        )
        .replace(
            "PREDECESSOR GENESIS\r\n",
            &format!("PREDECESSOR {}\r\n", digest_of(source)),
        );
    assert_eq!(stdout(&out), expected);
}

#[test]
fn successor_without_at_uses_now() {
    let f = fixture();
    let head = f.root().join("serde").join(format!("{T3}.journal"));
    let out = run(&[&"successor", &head]);
    assert_code(&out, 0);
    let text = stdout(&out);
    let version = text
        .lines()
        .find_map(|l| l.strip_prefix("JOURNAL_VERSION "))
        .unwrap_or_default()
        .to_owned();
    assert_eq!(version.len(), 16, "{version}");
    assert!(version.as_str() > T3);
    put(&f.root(), "serde", &version, ".journal", &text);
    assert_code(&run(&[&"check", &f.root()]), 0);
}

#[test]
fn successor_refuses_a_timestamp_not_after_the_source() {
    let f = fixture();
    let head = f.root().join("serde").join(format!("{T3}.journal"));
    for at in [T3, T1] {
        let out = run(&[&"successor", &head, &"--at", &at]);
        assert_code(&out, 1);
        assert!(out.stdout.is_empty());
        assert!(stderr(&out).contains(T3), "{}", stderr(&out));
    }
}

#[test]
fn successor_requires_a_valid_source() {
    let dir = tempdir();
    let path = dir.path().join("bad.journal");
    fs::write(&path, "FORMAT nenjim-journal/2\n").unwrap_or_else(|e| panic!("{e}"));
    let out = run(&[&"successor", &path, &"--at", &T2]);
    assert_code(&out, 1);
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains(&format!("{}:1:", path.display())));

    let out = run(&[&"successor", &dir.path().join("missing"), &"--at", &T2]);
    assert_code(&out, 2);
}
