//! `parse_after` is `parse` with less work: on any text, after any previous
//! revision, it returns exactly what `parse` returns (the same revision or
//! the same located error), and it shares the values of the release blocks
//! it did not read again.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use nenjim_journal_api::model::build;
use std::path::Path;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_parser::{Interner, ParsedText, parse, parse_after};
use proptest::prelude::*;

fn example(artifact: &str, stem: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/nenjim/journals")
        .join(artifact)
        .join(format!("{stem}.journal.example"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const HUBD: &str = "com.r35157.nenjim-hubd-api";
const HUBD_STEMS: [&str; 3] = ["20261101T090000Z", "20261115T120000Z", "20261129T101530Z"];

fn parsed(text: &str) -> ParsedText {
    parse_after(text.to_owned(), &mut Interner::default(), None)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// What a result says, errors compared by kind, place and message.
fn outcome(result: Result<JournalRevision, JournalError>) -> Result<JournalRevision, String> {
    result.map_err(|e| format!("{:?} {:?}:{:?} {e}", e.kind(), e.line(), e.column()))
}

fn assert_same_as_parse(text: &str, previous: Option<&ParsedText>) {
    let after = parse_after(text.to_owned(), &mut Interner::default(), previous)
        .map(ParsedText::into_revision);
    assert_eq!(outcome(after), outcome(parse(text)), "text:\n{text}");
}

fn shared(a: &JournalRevision, b: &JournalRevision) -> usize {
    a.releases()
        .iter()
        .filter(|r| {
            b.release(r.version())
                .is_some_and(|o| build::shares_values(o, r))
        })
        .count()
}

#[test]
fn the_example_chain_reuses_every_unchanged_block() {
    let texts: Vec<String> = HUBD_STEMS.iter().map(|s| example(HUBD, s)).collect();
    let mut interner = Interner::default();
    let mut previous: Option<ParsedText> = None;
    let mut shares = Vec::new();
    for text in &texts {
        let next = parse_after(text.clone(), &mut interner, previous.as_ref())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(next.text(), text);
        assert_eq!(
            outcome(Ok(next.revision().clone())),
            outcome(parse(text)),
            "parse_after differs from parse"
        );
        if let Some(p) = &previous {
            shares.push(shared(next.revision(), p.revision()));
        }
        previous = Some(next);
    }
    // 0.9.0 is restated byte for byte by the second revision, 0.9.0 and
    // 1.1.0-rc.1 by the third; each rewrites the block of 1.0.0 (same
    // values, dependencies reordered), which is therefore read again.
    assert_eq!(shares, [1, 2]);
}

#[test]
fn a_previous_revision_of_another_artifact_is_not_reused() {
    let hubd = parsed(&example(HUBD, HUBD_STEMS[2]));
    let renamed = example(HUBD, HUBD_STEMS[2]).replace(
        "ARTIFACT com.r35157.nenjim-hubd-api",
        "ARTIFACT com.r35157.other",
    );
    let other = parse_after(renamed.clone(), &mut Interner::default(), Some(&hubd))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shared(other.revision(), hubd.revision()), 0);
    assert_eq!(outcome(Ok(other.into_revision())), outcome(parse(&renamed)));
}

#[test]
fn a_block_that_continues_after_the_identical_bytes_is_read() {
    let base = example(HUBD, HUBD_STEMS[2]);
    let previous = parsed(&base);
    // A property or an indented comment right after the block: the block is
    // longer than the previous one, so it is read.
    for insert in [
        "  LICENSE MIT\n",
        "   \n  CONTENT x\n",
        "  # c\n",
        "  DEPENDS org.x.y *\n",
    ] {
        let text = base.replacen(
            "\nRELEASE 1.0.0\n",
            &format!("\n{insert}RELEASE 1.0.0\n"),
            1,
        );
        assert_same_as_parse(&text, Some(&previous));
        if let Ok(read) = parse_after(text, &mut Interner::default(), Some(&previous)) {
            // 0.9.0 read again, then sharing the previous values only if it
            // says the same (the comment); 1.0.0 to 1.1.0 reused.
            let releases = read.revision().releases();
            let old = releases
                .first()
                .and_then(|r| previous.revision().release(r.version()));
            let Some(old) = old else {
                panic!("0.9.0 is in both revisions")
            };
            let same = build::same_values(old, &releases[0]);
            assert_eq!(same, insert == "  # c\n", "{insert:?}");
            assert_eq!(build::shares_values(old, &releases[0]), same);
            assert_eq!(
                shared(read.revision(), previous.revision()),
                releases.len() - 1 + usize::from(same)
            );
        }
    }
    // Trailing comments and blank lines of the block: read, then reused later.
    let text = base.replacen("\nRELEASE 1.0.0\n", "\n# note\n\n\nRELEASE 1.0.0\n", 1);
    assert_same_as_parse(&text, Some(&previous));
    let again = parsed(&text);
    assert_same_as_parse(&text, Some(&again));
}

#[test]
fn errors_after_reused_blocks_keep_their_lines() {
    let base = example(HUBD, HUBD_STEMS[2]);
    let previous = parsed(&base);
    for (from, to) in [
        ("RECOMMEND 1.1.0", "RECOMMEND 7.0.0"),
        ("RECOMMEND 1.1.0", "RECOMMEND 1.1.0-rc.1"),
        ("RELEASE 1.1.0\n", "RELEASE 1.0.0\n"),
        ("RELEASE 1.1.0\n", "RELEASE 1.1.0\n\t\n"),
        ("YANK 1.1.0-rc.1", "\tYANK"),
    ] {
        let text = base.replacen(from, to, 1);
        let error = parse(&text).expect_err(to);
        assert!(error.line().is_some_and(|l| l > 20), "{error}");
        assert_same_as_parse(&text, Some(&previous));
    }
}

/// A restated block is recognized before its `RELEASE` line is read: two
/// restated blocks swapped, or one restated twice, fail as `parse` fails
/// them (the release order, located at the version), and blocks restated
/// after a dropped one are still found.
#[test]
fn restated_blocks_out_of_order_twice_or_after_a_gap_read_as_parse_reads_them() {
    let base = example(HUBD, HUBD_STEMS[2]);
    let previous = parsed(&base);
    let starts: Vec<usize> = base
        .match_indices("\nRELEASE ")
        .map(|(i, _)| i + 1)
        .collect();
    assert!(starts.len() >= 3, "{base}");
    let (a, b, c) = (starts[0], starts[1], starts[2]);
    let (first, second) = (&base[a..b], &base[b..c]);
    let swapped = format!("{}{second}{first}{}", &base[..a], &base[c..]);
    let twice = format!("{}{first}{first}{}", &base[..a], &base[b..]);
    for text in [&swapped, &twice] {
        let error = parse(text).expect_err(text);
        assert!(error.line().is_some(), "{error}");
        assert_same_as_parse(text, Some(&previous));
    }
    // The second block (1.0.0) dropped with the statement that names it:
    // the blocks after it are restated after a gap.
    let statement = "DEPRECATE [1.0.0,1.1.0-rc.1) \"1.0 line is in maintenance only\"\n";
    assert!(base.contains(statement), "{base}");
    let gap = format!("{}{}", &base[..b], &base[c..]).replace(statement, "");
    assert_same_as_parse(&gap, Some(&previous));
    let read = parse_after(gap, &mut Interner::default(), Some(&previous))
        .unwrap_or_else(|e| panic!("{e}"));
    let releases = read.revision().releases().len();
    assert_eq!(shared(read.revision(), previous.revision()), releases);
}

#[test]
fn empty_lines_after_a_restated_block_read_as_parse_reads_them() {
    // The last block before the policy ends with an empty line; its
    // successor restates it without one, before one more release, or with
    // more, and errors and values after it keep their lines.
    let base = example(HUBD, HUBD_STEMS[2]);
    let previous = parsed(&base);
    let last = "  PREFERS org.slf4j.slf4j-api *\n\nYANK";
    assert!(base.contains(last));
    let added = "RELEASE 1.2.0\n  LICENSE MIT\n  CONTENT sha256:3c2d7e1f5a4b6c8d0e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d 1\n";
    for then in [
        format!("{added}\nYANK"),
        format!("{added}YANK"),
        format!("\n\n{added}\n\nYANK"),
        format!("{}\nYANK", added.replace(" 1\n", " x\n")),
        format!("\n\n{}\nYANK", added.replace("MIT", "NOT A LICENSE")),
        "\n\nYANK 9.9.9 \"no such release\"\nYANK".to_owned(),
        "\n\n  DESCRIPTION \"late\"\nYANK".to_owned(),
        "\n\n\u{e9}\nYANK".to_owned(),
    ] {
        let text = base.replacen(last, &format!("  PREFERS org.slf4j.slf4j-api *\n{then}"), 1);
        assert_same_as_parse(&text, Some(&previous));
        let again = parsed(&base.replacen(
            last,
            &format!("  PREFERS org.slf4j.slf4j-api *\n{added}\nYANK"),
            1,
        ));
        assert_same_as_parse(&text, Some(&again));
    }
}

#[test]
fn a_restated_information_uri_reads_as_parse_reads_it() {
    let base = example(HUBD, HUBD_STEMS[2]);
    let line = "INFORMATION https://example.org/nenjim/hubd-api\n";
    assert!(base.contains(line));
    let previous = parsed(&base);
    for replaced in [
        line.to_owned(),
        "INFORMATION https://example.org/nenjim/other\n".to_owned(),
        "INFORMATION https://example.org/nenjim/hubd-api/\n".to_owned(),
        "INFORMATION https://example.org/nenjim/hubd-api extra\n".to_owned(),
        "INFORMATION relative/path\n".to_owned(),
        "INFORMATION https://example.org/nenjim/hubd-\u{e9}\n".to_owned(),
        "INFORMATION\n".to_owned(),
        String::new(),
    ] {
        let text = base.replacen(line, &replaced, 1);
        assert_same_as_parse(&text, Some(&previous));
        if replaced == line {
            let again = parse_after(text.clone(), &mut Interner::default(), Some(&previous))
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                again.revision().information().map(|u| u.as_str()),
                Some("https://example.org/nenjim/hubd-api")
            );
        }
    }
}

#[test]
fn crlf_and_a_missing_final_newline_are_compared_byte_for_byte() {
    let base = example(HUBD, HUBD_STEMS[2]);
    let crlf = base.replace('\n', "\r\n");
    let last_block = base.find("\nYANK").map_or(base.len(), |i| i + 1);
    let unterminated = base
        .get(..last_block)
        .unwrap_or_default()
        .trim_end_matches('\n')
        .to_owned();
    assert!(unterminated.ends_with('*'), "{unterminated}");
    for previous in [&base, &crlf, &unterminated] {
        let previous = parsed(previous);
        for text in [&base, &crlf, &unterminated] {
            assert_same_as_parse(text, Some(&previous));
        }
        // The last block at the end of the text, without a final newline:
        // reused only where the previous text ended the same way.
        let mut text = unterminated.clone();
        text.pop();
        assert_same_as_parse(&text, Some(&previous));
        // The unterminated last line continued: a different size, not reused.
        let longer = format!("{unterminated}0\n");
        assert_same_as_parse(&longer, Some(&previous));
    }
}

/// Edits that matter to block boundaries and line structure.
const SNIPPETS: &[&str] = &[
    "\n",
    "\r\n",
    "\r",
    "\t",
    " ",
    "  ",
    "#",
    "# c\n",
    "  # c\n",
    "x",
    "\u{e9}",
    "\"",
    "  DEPENDS org.example.lib [1.0.0,2.0.0)\n",
    "  DESCRIPTION \"more\"\n",
    "  EXCLUDES org.example.bad\n",
    "RELEASE 0.0.1\n",
    "RELEASE 9.9.9\n  LICENSE MIT\n  CONTENT sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9 1\n",
    "YANK *\n",
    "RECOMMEND 1.0.0\n",
];

#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, usize),
    /// A snippet at the start of a line (where block boundaries are).
    InsertLine(usize, usize),
    Delete(usize, usize),
}

fn edit(text: &str, edits: &[Edit]) -> String {
    let mut out = text.to_owned();
    for e in edits {
        let at = |p: usize| {
            let mut p = p % (out.len() + 1);
            while !out.is_char_boundary(p) {
                p -= 1;
            }
            p
        };
        match *e {
            Edit::Insert(p, s) => {
                let p = at(p);
                out.insert_str(p, SNIPPETS[s % SNIPPETS.len()]);
            }
            Edit::InsertLine(line, s) => {
                let starts: Vec<usize> = std::iter::once(0)
                    .chain(out.match_indices('\n').map(|(i, _)| i + 1))
                    .collect();
                let p = starts[line % starts.len()];
                out.insert_str(p, SNIPPETS[s % SNIPPETS.len()]);
            }
            Edit::Delete(p, n) => {
                let start = at(p);
                let mut end = (start + n).min(out.len());
                while !out.is_char_boundary(end) {
                    end += 1;
                }
                out.replace_range(start..end, "");
            }
        }
    }
    out
}

fn edits(max: usize) -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(
        prop_oneof![
            (any::<usize>(), any::<usize>()).prop_map(|(p, s)| Edit::Insert(p, s)),
            (any::<usize>(), any::<usize>()).prop_map(|(p, s)| Edit::InsertLine(p, s)),
            (any::<usize>(), 1usize..40).prop_map(|(p, n)| Edit::Delete(p, n)),
        ],
        0..=max,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// A previous text and a current one, each the example with a few random
    /// edits (most blocks stay identical, some change at their boundaries):
    /// whatever the previous text parsed to, `parse_after` agrees with `parse`.
    #[test]
    fn parse_after_is_parse(
        base in 0usize..3,
        crlf in any::<bool>(),
        before in prop_oneof![Just(Vec::new()), edits(2)],
        after in edits(3),
    ) {
        let mut base = example(HUBD, HUBD_STEMS[base]);
        if crlf {
            base = base.replace('\n', "\r\n");
        }
        let previous_text = edit(&base, &before);
        let text = edit(&base, &after);
        let previous = parse_after(previous_text, &mut Interner::default(), None).ok();
        let after = parse_after(text.clone(), &mut Interner::default(), previous.as_ref())
            .map(ParsedText::into_revision);
        prop_assert_eq!(outcome(after), outcome(parse(&text)), "text:\n{}", text);
    }
}
