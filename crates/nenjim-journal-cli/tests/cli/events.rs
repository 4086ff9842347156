//! `events`: text, JSON lines and Atom, resumed after a sequence and across
//! fence gaps, filtered; `history` as a view of the events.

use super::*;

const T4: &str = "20260401T000000Z";

/// The fixture plus a fourth `serde` revision that changes only its header
/// (description and information) and a fifth that changes nothing.
fn events_fixture() -> Fixture {
    let f = fixture();
    let s4 = journal(
        "serde",
        T4,
        Some(&digest_of(&f.serde[2])),
        &[release("1.0.0"), release("1.1.0"), release("2.0.0-rc.1")],
        &[
            "YANK 1.0.0 \"broken build\"",
            "DEPRECATE [1.1.0,2.0.0) \"use 2.x\"",
            "RECOMMEND 1.1.0",
        ],
    )
    .replace(
        "DESCRIPTION \"the serde artifact\"\n",
        "DESCRIPTION \"serialization & <more>\"\nINFORMATION https://serde.rs\n",
    );
    put(&f.root(), "serde", T4, ".journal", &s4);
    let s5 = format!(
        "# nothing changes\n{}",
        s4.replace(T4, "20260501T000000Z")
            .replace(&digest_of(&f.serde[2]), &digest_of(&s4))
    );
    put(&f.root(), "serde", "20260501T000000Z", ".journal", &s5);
    f
}

/// Every line of the feed, with the root's own events.
const EVENT_LINES: &[&str] = &[
    "1  20260201T000000Z  left-pad  * created",
    "1  20260201T000000Z  left-pad  + RELEASE 0.1.0",
    "2  20260101T000000Z  serde     * created",
    "2  20260101T000000Z  serde     + RELEASE 1.0.0",
    "2  20260101T000000Z  serde     + RECOMMEND 1.0.0",
    "3  20260201T000000Z  serde     + RELEASE 1.1.0",
    "3  20260201T000000Z  serde     - RECOMMEND 1.0.0",
    "3  20260201T000000Z  serde     + RECOMMEND 1.1.0",
    "4  20260301T120000Z  serde     + RELEASE 2.0.0-rc.1",
    "4  20260301T120000Z  serde     + YANK 1.0.0 \"broken build\"",
    "4  20260301T120000Z  serde     + DEPRECATE [1.1.0,2.0.0) \"use 2.x\"",
    "5  20260401T000000Z  serde     ~ DESCRIPTION \"serialization & <more>\"",
    "5  20260401T000000Z  serde     ~ INFORMATION https://serde.rs",
];

fn lines(output: &Output) -> Vec<String> {
    stdout(output).lines().map(str::to_owned).collect()
}

#[test]
fn events_text_lists_every_event_in_order() {
    let f = events_fixture();
    let out = run(&[&"events", &f.root()]);
    assert_code(&out, 0);
    // Sequence 6 changes nothing: no line.
    assert_eq!(lines(&out), EVENT_LINES);
}

#[test]
fn events_resume_after_a_sequence() {
    let f = events_fixture();
    for after in 0..=6u64 {
        let out = run(&[&"events", &f.root(), &"--after", &after.to_string()]);
        assert_code(&out, 0);
        let expected: Vec<&str> = EVENT_LINES
            .iter()
            .copied()
            .filter(|l| l.split(' ').next().and_then(|s| s.parse::<u64>().ok()) > Some(after))
            .collect();
        assert_eq!(lines(&out), expected, "after {after}");
    }
}

#[test]
fn events_filters_by_coordinate_kind_and_limit() {
    let f = events_fixture();
    let out = run(&[&"events", &f.root(), &"--coordinate", &"left-pad"]);
    assert_code(&out, 0);
    assert_eq!(lines(&out), EVENT_LINES[..2]);

    let out = run(&[
        &"events",
        &f.root(),
        &"--kind",
        &"release",
        &"--kind",
        &"created",
    ]);
    assert_code(&out, 0);
    let expected: Vec<&str> = EVENT_LINES
        .iter()
        .copied()
        .filter(|l| l.contains("* created") || l.contains("+ RELEASE"))
        .collect();
    assert_eq!(lines(&out), expected);

    let out = run(&[&"events", &f.root(), &"--kind", &"header"]);
    assert_eq!(lines(&out), EVENT_LINES[11..]);

    let out = run(&[
        &"events",
        &f.root(),
        &"--kind",
        &"policy",
        &"--coordinate",
        &"serde",
        &"--coordinate",
        &"left-pad",
        &"--after",
        &"2",
    ]);
    assert_eq!(
        lines(&out),
        [
            EVENT_LINES[6],
            EVENT_LINES[7],
            EVENT_LINES[9],
            EVENT_LINES[10]
        ]
    );

    // --limit keeps the newest of the selected events, oldest first.
    let out = run(&[&"events", &f.root(), &"--limit", &"3"]);
    assert_eq!(lines(&out), EVENT_LINES[10..]);

    // An unknown coordinate is refused with the known ones; a bad kind is usage.
    let out = run(&[&"events", &f.root(), &"--coordinate", &"tokio"]);
    assert_code(&out, 1);
    assert!(stderr(&out).contains("left-pad, serde"), "{}", stderr(&out));
    let out = run(&[&"events", &f.root(), &"--coordinate", &"tokio", &"--json"]);
    assert_code(&out, 1);
    assert_eq!(json(&out)["error"]["kind"], "UnknownArtifact");
    let out = run(&[&"events", &f.root(), &"--kind", &"yank"]);
    assert_code(&out, 2);
    let out = run(&[&"events", &f.root(), &"--json", &"--format", &"atom"]);
    assert_code(&out, 2);
}

#[test]
fn events_json_lines_shape() {
    let f = events_fixture();
    let out = run(&[&"events", &f.root(), &"--json"]);
    assert_code(&out, 0);
    let same = run(&[&"events", &f.root(), &"--format", &"json"]);
    assert_eq!(out.stdout, same.stdout);
    let events: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(events.len(), EVENT_LINES.len());
    for e in &events {
        let mut keys: Vec<&str> = e
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "change",
                "coordinate",
                "journal_version",
                "kind",
                "sequence"
            ]
        );
    }
    assert_eq!(
        events[0],
        serde_json::json!({"sequence": 1, "coordinate": "left-pad",
            "journal_version": T2, "kind": "artifact_created", "change": {}})
    );
    assert_eq!(events[1]["kind"], "release_published");
    assert_eq!(events[1]["change"]["release"]["version"], "0.1.0");
    assert_eq!(events[1]["change"]["release"]["license"], "MIT");
    assert_eq!(
        events[1]["change"]["release"]["content"]["digest"],
        format!("sha256:{}", hex(b"blob of 0.1.0"))
    );
    assert_eq!(
        events[1]["change"]["release"]["policy"],
        serde_json::json!({"yanked": null, "deprecated": null, "recommended": false})
    );
    assert_eq!(
        events[6],
        serde_json::json!({"sequence": 3, "coordinate": "serde",
            "journal_version": T2, "kind": "policy_withdrawn",
            "change": {"statement": {"kind": "recommend", "version": "1.0.0"}}})
    );
    assert_eq!(events[9]["kind"], "policy_stated");
    assert_eq!(
        events[9]["change"]["statement"],
        serde_json::json!({"kind": "yank", "requirement": "1.0.0", "reason": "broken build"})
    );
    assert_eq!(
        events[11]["change"],
        serde_json::json!({"description": "serialization & <more>"})
    );
    assert_eq!(events[11]["kind"], "description_changed");
    assert_eq!(
        events[12]["change"],
        serde_json::json!({"information": "https://serde.rs"})
    );
}

/// What python's `feedparser` makes of an Atom document: a JSON summary.
/// Fails (never skips) when python3 or feedparser is missing: CI installs it.
fn parse_feed(xml: &[u8]) -> Value {
    use std::io::Write as _;
    const SCRIPT: &str = r#"
import json, sys, time
import feedparser
d = feedparser.parse(sys.stdin.buffer.read())
print(json.dumps({
    "bozo": int(d.bozo),
    "bozo_exception": str(d.get("bozo_exception", "")),
    "version": d.version,
    "title": d.feed.get("title"),
    "id": d.feed.get("id"),
    "updated": d.feed.get("updated"),
    "updated_parsed": bool(d.feed.get("updated_parsed")),
    "entries": [{
        "id": e.get("id"),
        "title": e.get("title"),
        "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", e.updated_parsed),
        "category": [t.term for t in e.get("tags", [])],
        "content": [c.value for c in e.get("content", [])],
    } for e in d.entries],
}))

"#;

    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python3 is required to check the Atom feed: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(xml)
            .unwrap_or_else(|e| panic!("writing to python3: {e}"));
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("python3: {e}"));
    assert!(
        out.status.success(),
        "python3 with feedparser is required to check the Atom feed \
         (`python3 -m pip install 'feedparser==6.0.11'`):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("feedparser summary: {e}"))
}

#[test]
fn events_atom_is_a_valid_feed_of_the_newest_events() {
    let f = events_fixture();
    let out = run(&[&"events", &f.root(), &"--format", &"atom", &"--limit", &"4"]);
    assert_code(&out, 0);
    let feed = parse_feed(&out.stdout);
    assert_eq!(feed["bozo"], 0, "{feed}");
    assert_eq!(feed["version"], "atom10");
    assert!(
        feed["title"]
            .as_str()
            .is_some_and(|t| t.contains("journals"))
    );
    assert!(
        feed["id"]
            .as_str()
            .is_some_and(|i| i.starts_with("urn:nenjim-journal:feed:"))
    );
    assert_eq!(feed["updated"], "2026-04-01T00:00:00Z");
    assert_eq!(feed["updated_parsed"], true);
    let entries = feed["entries"].as_array().cloned().unwrap_or_default();
    // The 4 newest events, newest first.
    let ids: Vec<&str> = entries.iter().filter_map(|e| e["id"].as_str()).collect();
    assert_eq!(
        ids,
        [
            "urn:nenjim-journal:event:serde:20260401T000000Z:1",
            "urn:nenjim-journal:event:serde:20260401T000000Z:0",
            "urn:nenjim-journal:event:serde:20260301T120000Z:2",
            "urn:nenjim-journal:event:serde:20260301T120000Z:1",
        ]
    );
    assert_eq!(entries[0]["title"], "serde: information changed");
    assert_eq!(
        entries[0]["category"],
        serde_json::json!(["information_changed"])
    );
    assert_eq!(entries[0]["updated"], "2026-04-01T00:00:00Z");
    // Escaped text comes back as written.
    let content = entries[1]["content"][0].as_str().unwrap_or_default();
    assert!(
        content.starts_with("~ DESCRIPTION \"serialization & <more>\""),
        "{content}"
    );
    assert_eq!(entries[3]["title"], "serde: YANK 1.0.0 \"broken build\"");
    assert_eq!(entries[3]["updated"], "2026-03-01T12:00:00Z");

    // By default the 50 newest: here every event; the ids do not depend on filters.
    let out = run(&[&"events", &f.root(), &"--format", &"atom"]);
    let feed = parse_feed(&out.stdout);
    assert_eq!(feed["bozo"], 0, "{feed}");
    let all = feed["entries"].as_array().cloned().unwrap_or_default();
    assert_eq!(all.len(), EVENT_LINES.len());
    let out = run(&[
        &"events",
        &f.root(),
        &"--format",
        &"atom",
        &"--kind",
        &"release",
    ]);
    let feed = parse_feed(&out.stdout);
    let releases = feed["entries"].as_array().cloned().unwrap_or_default();
    assert_eq!(releases.len(), 4);
    assert_eq!(
        releases[0]["id"],
        "urn:nenjim-journal:event:serde:20260301T120000Z:0"
    );
    assert_eq!(releases[0]["title"], "serde 2.0.0-rc.1 published");

    // An empty selection is still a valid feed.
    let out = run(&[
        &"events",
        &f.root(),
        &"--format",
        &"atom",
        &"--after",
        &"99",
    ]);
    let feed = parse_feed(&out.stdout);
    assert_eq!(feed["bozo"], 0, "{feed}");
    assert_eq!(feed["entries"], serde_json::json!([]));
}

#[test]
fn history_is_a_view_of_the_events_with_header_changes() {
    let f = events_fixture();
    let out = run(&[&"history", &f.root(), &"serde"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains(
            "  ~ DESCRIPTION \"serialization & <more>\"\n  ~ INFORMATION https://serde.rs\n"
        ),
        "{text}"
    );
    let out = run(&[&"history", &f.root(), &"serde", &"--json"]);
    let v = json(&out);
    let revisions = v["revisions"].as_array().cloned().unwrap_or_default();
    assert_eq!(revisions.len(), 5);
    // Each revision lists exactly the feed's events of its sequence.
    let feed = run(&[&"events", &f.root(), &"--json", &"--coordinate", &"serde"]);
    let feed: Vec<Value> = stdout(&feed)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let listed: Vec<Value> = revisions
        .iter()
        .flat_map(|r| r["events"].as_array().cloned().unwrap_or_default())
        .collect();
    assert_eq!(listed, feed);
    assert_eq!(revisions[4]["events"], serde_json::json!([]));
    assert_eq!(revisions[3]["releases_added"], serde_json::json!([]));
}

#[test]
fn shipped_examples_events() {
    let root = shipped_root();
    let out = run(&[&"events", &root, &"--examples"]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(text.starts_with("1  "), "{text}");
    assert!(text.contains("* created"), "{text}");
    let out = run(&[&"events", &root, &"--examples", &"--format", &"atom"]);
    assert_code(&out, 0);
    let feed = parse_feed(&out.stdout);
    assert_eq!(feed["bozo"], 0, "{feed}");
    assert!(!feed["entries"].as_array().is_none_or(Vec::is_empty));
}

/// Issue 20: a root whose ledger has fences (takeovers of expired leases)
/// has gaps in its sequences; `events --after N` in every format gives
/// exactly the events of the revisions after N, before, at and after each
/// gap. The root is made with the publishing commands: aaa (1), a fence (2),
/// bbb (3), ccc (4), a fence (5), ddd (6).
#[test]
fn events_after_resumes_exactly_across_fence_gaps() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let root = dir.path().join("journals");
    fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let create = |coordinate: &str| {
        let out = run(&[&"create", &root, &coordinate, &"--description", &"made"]);
        assert_code(&out, 0);
    };
    create("aaa");
    nenjim_journal_testkit::feeds::expire_lease_of(&root);
    create("bbb");
    create("ccc");
    nenjim_journal_testkit::feeds::expire_lease_of(&root);
    create("ddd");
    let sequences = [(1, "aaa"), (3, "bbb"), (4, "ccc"), (6, "ddd")];
    for after in 0..=7u64 {
        let expected: Vec<(u64, &str)> = sequences
            .iter()
            .copied()
            .filter(|(s, _)| *s > after)
            .collect();
        // Text lines: `<sequence>  <version>  <coordinate>  * created`.
        let out = run(&[&"events", &root, &"--after", &after.to_string()]);
        assert_code(&out, 0);
        let got: Vec<(u64, String)> = lines(&out)
            .iter()
            .map(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                (words[0].parse().unwrap_or(0), words[2].to_owned())
            })
            .collect();
        let want: Vec<(u64, String)> = expected
            .iter()
            .map(|(s, c)| (*s, (*c).to_owned()))
            .collect();
        assert_eq!(got, want, "text after {after}");
        // JSON lines.
        let out = run(&[&"events", &root, &"--after", &after.to_string(), &"--json"]);
        assert_code(&out, 0);
        let got: Vec<(u64, String)> = stdout(&out)
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
                (
                    v["sequence"].as_u64().unwrap_or(0),
                    v["coordinate"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        assert_eq!(got, want, "JSON after {after}");
        // Atom: the same events, newest first, read by a real feed parser.
        let out = run(&[
            &"events",
            &root,
            &"--after",
            &after.to_string(),
            &"--format",
            &"atom",
        ]);
        assert_code(&out, 0);
        let feed = parse_feed(&out.stdout);
        assert_eq!(feed["bozo"], 0, "{feed}");
        let ids: Vec<String> = feed["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .filter_map(|e| e["id"].as_str().map(str::to_owned))
            .collect();
        let want_ids: Vec<String> = expected
            .iter()
            .rev()
            .map(|(_, c)| format!("urn:nenjim-journal:event:{c}:"))
            .collect();
        assert_eq!(ids.len(), want_ids.len(), "Atom after {after}: {ids:?}");
        for (id, prefix) in ids.iter().zip(&want_ids) {
            assert!(
                id.starts_with(prefix.as_str()),
                "Atom after {after}: {id} vs {prefix}"
            );
        }
    }
}
