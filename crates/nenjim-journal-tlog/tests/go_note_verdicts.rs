//! Go's verdicts on signed notes (this file was `audit.rs`, the audit
//! against the reference implementation): the same signed note
//! through Go's `golang.org/x/mod/sumdb/note.Open` (`tests/go/note_verdict.go`)
//! and this crate's `Note::parse` / `Checkpoint::open` must get the same
//! verdict. Fails, never skips, without Go and Debian's x/mod sources (see
//! `interop_go.rs`).

use std::path::Path;
use std::process::Command;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use nenjim_journal_tlog::checkpoint::Checkpoint;
use nenjim_journal_tlog::hash::leaf_hash;
use nenjim_journal_tlog::note::{Algorithm, Note, SignerKey};

/// Go's verdict on `note` with the one verifier key `vkey`: `accept …` or
/// `reject …`.
fn go_open(dir: &Path, vkey: &str, note: &[u8]) -> String {
    let binary = nenjim_journal_testkit::go::build(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/note_verdict.go"),
        dir,
        "note_verdict",
        "golang.org/x/mod/sumdb/note/note.go",
    );
    let file = dir.join("note");
    std::fs::write(&file, note).unwrap();
    let output = Command::new(&binary)
        .arg("open")
        .arg(vkey)
        .arg(&file)
        .output()
        .expect("run the Go program");
    assert!(
        output.status.success(),
        "the Go program failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// The same bytes as `b64` (standard padded base64 ending in `=`), with
/// nonzero unused bits in its last character: what Go's
/// `base64.StdEncoding` decodes to the same bytes.
fn with_trailing_bits(b64: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let data = b64.trim_end_matches('=');
    let pad = b64.len() - data.len();
    assert!(pad > 0, "{b64} has no unused bits");
    let last = data.as_bytes()[data.len() - 1];
    let value = ALPHABET.iter().position(|c| *c == last).unwrap();
    let changed = ALPHABET[value | 1] as char;
    let out = format!("{}{changed}{}", &data[..data.len() - 1], "=".repeat(pad));
    assert_ne!(out, b64);
    assert_eq!(
        STANDARD.decode(&out).ok(),
        None,
        "the test needs bytes base64 calls non-canonical"
    );
    out
}

#[test]
fn signature_lines_with_nonzero_trailing_bits_are_read_as_go_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let log = SignerKey::from_seed("example.com/log", Algorithm::Ed25519, [7; 32]).unwrap();
    let other = SignerKey::from_seed("example.com/other", Algorithm::Ed25519, [9; 32]).unwrap();
    let checkpoint = Checkpoint::new("example.com/log", 3, leaf_hash(b"root")).unwrap();
    let signed = checkpoint.sign(&log).unwrap().to_string();
    let mut foreign = Note::new(checkpoint.text()).unwrap();
    foreign.sign(&other).unwrap();
    let foreign_line = foreign.signatures()[0].to_string();
    let (name, b64) = foreign_line["— ".len()..].split_once(' ').unwrap();

    // An unknown key's line (which C2SP says to ignore) whose base64 has
    // nonzero unused bits; and the log's own line spelled so.
    let unknown_odd = format!("{signed}— {name} {}\n", with_trailing_bits(b64));
    let log_line = signed.lines().last().unwrap();
    let (log_name, log_b64) = log_line["— ".len()..].split_once(' ').unwrap();
    let own_odd = format!(
        "{}— {log_name} {}\n",
        &signed[..signed.len() - log_line.len() - 1],
        with_trailing_bits(log_b64)
    );

    let vkey = log.verifier().to_string();
    for (what, note, unverified) in [("unknown", &unknown_odd, 1), ("log", &own_odd, 0)] {
        // The fuzz target's check holds of it (a note read writes back
        // the same but for those bits).
        nenjim_journal_testkit::tlog_checks::tlog_parsers(&[&[0u8][..], note.as_bytes()].concat());
        assert_eq!(
            go_open(dir.path(), &vkey, note.as_bytes()),
            format!("accept 1 {unverified}"),
            "Go's verdict on the {what} key's line"
        );
        let ours = Checkpoint::open(note.as_bytes(), &log.verifier())
            .map(|(c, n)| (c, n.signatures().len()))
            .map_err(|e| e.to_string());
        assert_eq!(
            ours,
            Ok((checkpoint.clone(), 1 + unverified)),
            "our verdict on the {what} key's line:\n{note}"
        );
    }
}

/// Notes at the edges of signed-note's syntax get Go's verdict: the text
/// and the signature lines as Go's `note.Open` splits and reads them.
#[test]
fn note_syntax_edges_get_gos_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let log = SignerKey::from_seed("example.com/log", Algorithm::Ed25519, [7; 32]).unwrap();
    let vkey = log.verifier();
    let signed = |text: &str| {
        let mut note = Note::new(text).unwrap();
        note.sign(&log).unwrap();
        note.to_string()
    };
    let line = |text: &str| signed(text).lines().last().unwrap().to_owned();
    let text = "a\n\nb\n";
    let good = signed(text);
    let other = SignerKey::from_seed("example.com/other", Algorithm::Ed25519, [9; 32]).unwrap();
    let mut foreign = Note::new(text).unwrap();
    foreign.sign(&other).unwrap();
    let foreign_line = foreign.signatures()[0].to_string();
    let many = |n: usize| {
        let mut out = good.clone();
        for _ in 1..n {
            out.push_str(&foreign_line);
            out.push('\n');
        }
        out
    };
    let cases: Vec<(&str, String)> = vec![
        ("a text with an empty line", good.clone()),
        ("an empty-line-only text", signed("\n")),
        ("no final newline", good.trim_end_matches('\n').to_owned()),
        ("two blank lines", good.replacen("b\n\n", "b\n\n\n", 1)),
        ("an unknown key's line", format!("{good}{foreign_line}\n")),
        ("100 lines", many(100)),
        ("101 lines", many(101)),
        ("a tab", signed("a\n").replace('a', "a\t")),
        ("a CR", format!("{}\r\n", good.trim_end_matches('\n'))),
        (
            "a name with a no-break space",
            format!(
                "{good}— x\u{a0}y {}\n",
                &foreign_line[foreign_line.rfind(' ').unwrap() + 1..]
            ),
        ),
        (
            "a name with an ideographic space",
            format!(
                "{good}— x\u{3000}y {}\n",
                &foreign_line[foreign_line.rfind(' ').unwrap() + 1..]
            ),
        ),
        (
            "a name with a plus",
            format!(
                "{good}— x+y {}\n",
                &foreign_line[foreign_line.rfind(' ').unwrap() + 1..]
            ),
        ),
        ("unpadded base64", format!("{good}— x AAAAAAA\n")),
        ("four bytes only", format!("{good}— x AAAAAA==\n")),
        (
            "two spaces",
            good.replacen("— example.com/log ", "— example.com/log  ", 1),
        ),
        ("the log's line twice", format!("{good}{}\n", line(text))),
        (
            "another text's line of the log",
            format!("{good}{}\n", line("c\n")),
        ),
    ];
    for (what, note) in cases {
        let go = go_open(dir.path(), &vkey.to_string(), note.as_bytes());
        let ours = Checkpoint::open(note.as_bytes(), &vkey)
            .map(|_| ())
            .or_else(|e| {
                Note::parse(note.as_bytes())
                    .and_then(|n| n.verify(&vkey))
                    .map_err(|_| e)
            });
        // The one chosen difference: a second, invalid line of the known
        // key. Go verifies only a key's first line and drops the others;
        // C2SP says a client SHOULD reject a note whose known key's
        // signature fails, and Note::verify does.
        let differs = what == "another text's line of the log";
        assert_eq!(
            go.starts_with("accept") != differs,
            ours.is_ok(),
            "{what}: Go says {go}, we say {ours:?}:\n{note}"
        );
    }
}
