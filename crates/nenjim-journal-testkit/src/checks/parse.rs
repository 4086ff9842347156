//! The parser's targets: arbitrary bytes ([`parse_bytes`]) and valid
//! journals mutated line by line ([`parse_mutated`]).

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_parser::is_blank;

use super::Choices;

/// Decodes bytes the way the loader does (UTF-8 or nothing); invalid UTF-8
/// is replaced so that the parser still sees every other byte.
pub(super) fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Target 1: the parser on arbitrary bytes.
pub fn parse_bytes(data: &[u8]) {
    check_text(&text_of(data));
}

/// The parser's guarantees on one text.
pub fn check_text(text: &str) {
    match nenjim_journal_parser::parse(text) {
        Ok(revision) => check_accepted(text, &revision),
        Err(error) => check_refused(text, &error),
    }
}

fn check_accepted(text: &str, revision: &JournalRevision) {
    assert!(!is_blank(text), "a blank text was accepted: {text:?}");
    assert_eq!(
        *revision.digest(),
        RevisionDigest::of_text(text),
        "the digest is not that of the exact text"
    );
    let canonical = nenjim_journal_parser::render(revision);
    let again = nenjim_journal_parser::parse(&canonical).unwrap_or_else(|e| {
        panic!("the canonical text of an accepted text is refused: {e}\n{canonical}")
    });
    assert!(
        again.same_worldview(revision),
        "the canonical text means something else:\n{text}\n---\n{canonical}"
    );
    assert_eq!(
        nenjim_journal_parser::render(&again),
        canonical,
        "rendering is not idempotent"
    );
}

fn check_refused(text: &str, error: &JournalError) {
    assert!(!error.message().is_empty(), "an error without message");
    assert_eq!(error.path(), None, "the parser names no path: {error}");
    match error.kind() {
        ErrorKind::EmptyInput => {
            assert!(is_blank(text), "EmptyInput for a non-blank text: {text:?}");
            assert_eq!((error.line(), error.column()), (None, None), "{error}");
        }
        ErrorKind::Syntax | ErrorKind::Semantic => {
            assert!(
                !is_blank(text),
                "a blank text gave {error} instead of EmptyInput"
            );
            let (Some(line), Some(column)) = (error.line(), error.column()) else {
                panic!("an unlocated {:?} error: {error}", error.kind());
            };
            // The lines of the text; the end of a text that ends with a
            // terminator is the (empty) line after it.
            let lines: Vec<&str> = text.split('\n').collect();
            assert!(
                (1..=lines.len()).contains(&line),
                "line {line} outside a text of {} lines: {error}\n{text:?}",
                lines.len()
            );
            let width = lines[line - 1].chars().count();
            assert!(
                (1..=width + 1).contains(&column),
                "column {column} outside line {line} of {width} characters: {error}\n{text:?}"
            );
            let display = error.to_string();
            assert!(
                display.starts_with(&format!("{line}:{column}: ")),
                "Display does not start with the location: {display}"
            );
        }
        other => panic!("the parser returned a {other:?} error: {error}"),
    }
}

/// Valid journals the structure-aware target starts from.
pub const SEEDS: [&str; 3] = [
    "\
FORMAT nenjim-journal/1
ARTIFACT left-pad
JOURNAL_VERSION 20261129T101530Z
PREDECESSOR GENESIS
DESCRIPTION \"pads strings on the left\"
",
    "\
# The Nenjim hub API, second revision
FORMAT nenjim-journal/1
ARTIFACT com.r35157.nenjim-hubd-api
JOURNAL_VERSION 20261129T101530Z
PREDECESSOR sha256:9f2c0d4e5a3b7c1d8e6f00112233445566778899aabbccddeeff001122334455
DESCRIPTION \"Public API of the Nenjim hub daemon\"
INFORMATION https://example.org/nenjim/hubd-api

RELEASE 1.0.0
  LICENSE Apache-2.0
  CONTENT sha256:1e0a5b9c3d2f4a6b8c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d 48213
  DEPENDS com.r35157.libs-valuetypes [1.2.0,2.0.0)
  DEPENDS org.slf4j.slf4j-api 2.0.9 \"logging facade\"
  EXCLUDES commons-logging.commons-logging
RELEASE 1.1.0-rc.1
  LICENSE Apache-2.0 OR MIT
  CONTENT sha256:2b1c6d0e4f3a5b7c9d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c 50117
  DESCRIPTION \"Release candidate with the refresh report\"
  DEPENDS com.r35157.libs-valuetypes [1.3.0,2.0.0)
  PREFERS com.r35157.libs-valuetypes [1.4.0,1.5.0) \"tested combination\"

DEPRECATE [1.0.0,1.1.0-rc.1) \"1.0 line is in maintenance only\"
RECOMMEND 1.0.0
",
    "\
FORMAT nenjim-journal/1
ARTIFACT serde
JOURNAL_VERSION 20260101T000000Z
PREDECESSOR GENESIS
DESCRIPTION \"tab\\there, \\u{1F600} and \\\"quotes\\\"\"
RELEASE 0.9.0
  LICENSE (MIT OR Apache-2.0) AND LicenseRef-custom
  CONTENT sha256:0000000000000000000000000000000000000000000000000000000000000000 0
  EXCLUDES log (,1.0.0)
RELEASE 1.0.0-alpha.1
  LICENSE GPL-2.0-or-later WITH Classpath-exception-2.0
  CONTENT sha256:1111111111111111111111111111111111111111111111111111111111111111 18446744073709551615
  DEPENDS log *
RELEASE 1.0.0
  LICENSE NOASSERTION
  CONTENT sha256:2222222222222222222222222222222222222222222222222222222222222222 7
YANK [0.9.0,1.0.0-alpha.1] \"broken\"
DEPRECATE 1.0.0-alpha.1 \"pre-release\"
RECOMMEND 1.0.0
",
];

/// Lines the structure-aware target may insert: every keyword, right and wrong.
const INSERTS: [&str; 24] = [
    "FORMAT nenjim-journal/1",
    "ARTIFACT left-pad",
    "JOURNAL_VERSION 20261129T101530Z",
    "PREDECESSOR GENESIS",
    "DESCRIPTION \"x\"",
    "INFORMATION urn:x",
    "RELEASE 1.0.0",
    "RELEASE 0.1.0",
    "RELEASE 9.9.9-rc.1",
    "  LICENSE MIT",
    "  CONTENT sha256:3333333333333333333333333333333333333333333333333333333333333333 1",
    "  DESCRIPTION \"d\"",
    "  DEPENDS log [1.0.0,2.0.0)",
    "  EXCLUDES log",
    "  PREFERS log 1.0.0",
    "YANK * \"r\"",
    "DEPRECATE [1.0.0,1.0.0] \"r\"",
    "RECOMMEND 1.0.0",
    "# comment",
    "",
    "   ",
    "\u{feff}",
    "  LICENSE ((MIT)",
    "\"unterminated",
];

/// Target 2: a valid journal mutated line by line, then checked like
/// [`parse_bytes`], and parsed once more after the unmutated journal with
/// `parse_after`, which must say exactly what `parse` says (most of its
/// release blocks are still the seed's, byte for byte, so they are reused).
pub fn parse_mutated(data: &[u8]) {
    let text = text_of(&mutate(data));
    check_text(&text);
    check_after(&pristine(data), &text);
}

/// The seed [`mutate`] starts from, with its line terminators, unmutated.
pub fn pristine(data: &[u8]) -> String {
    let first = data.first().copied().unwrap_or(0);
    let seed = SEEDS[usize::from(first) % SEEDS.len()];
    let terminator = if first & 0x80 != 0 { "\r\n" } else { "\n" };
    seed.lines().map(|l| format!("{l}{terminator}")).collect()
}

/// `parse_after(text, previous)` against `parse(text)`: the same revision,
/// or the same error at the same place. Both parses after `previous` share
/// one interner, as a load's do.
pub fn check_after(previous: &str, text: &str) {
    let mut interner = nenjim_journal_parser::Interner::default();
    let Ok(previous) = nenjim_journal_parser::parse_after(previous.to_owned(), &mut interner, None)
    else {
        return;
    };
    let after = nenjim_journal_parser::parse_after(text.to_owned(), &mut interner, Some(&previous))
        .map(nenjim_journal_parser::ParsedText::into_revision);
    match (after, nenjim_journal_parser::parse(text)) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "parse_after and parse differ on:\n{text}"),
        (Err(a), Err(b)) => assert_eq!(
            (a.kind(), a.line(), a.column(), a.message()),
            (b.kind(), b.line(), b.column(), b.message()),
            "parse_after and parse refuse differently:\n{text}"
        ),
        (a, b) => panic!("parse_after gave {a:?}, parse gave {b:?}, on:\n{text}"),
    }
}

/// The mutated journal the bytes describe: the first byte picks a seed and
/// the line terminator; then each group of bytes is one edit.
pub fn mutate(data: &[u8]) -> Vec<u8> {
    let mut choices = Choices::new(data);
    let first = choices.byte();
    let seed = SEEDS[usize::from(first) % SEEDS.len()];
    let crlf = first & 0x80 != 0;
    let mut lines: Vec<Vec<u8>> = seed.lines().map(|l| l.as_bytes().to_vec()).collect();
    let mut edits = 0;
    while !choices.is_empty() && edits < 64 {
        edits += 1;
        let op = choices.byte() % 8;
        if lines.is_empty() {
            lines.push(Vec::new());
        }
        let i = choices.below(lines.len());
        match op {
            0 => {
                lines.remove(i);
            }
            1 => {
                let copy = lines[i].clone();
                lines.insert(i, copy);
            }
            2 => {
                let j = choices.below(lines.len());
                lines.swap(i, j);
            }
            3 => {
                // Overwrite one byte (possibly past the end: append it).
                let at = choices.below(lines[i].len() + 1);
                let value = choices.byte();
                match lines[i].get_mut(at) {
                    Some(b) => *b = value,
                    None => lines[i].push(value),
                }
            }
            4 => {
                let at = choices.below(lines[i].len() + 1);
                lines[i].truncate(at);
            }
            5 => {
                let insert = INSERTS[choices.below(INSERTS.len())];
                lines.insert(i, insert.as_bytes().to_vec());
            }
            6 => {
                // Insert a byte inside the line.
                let at = choices.below(lines[i].len() + 1);
                let value = choices.byte();
                lines[i].insert(at, value);
            }
            _ => {
                // Remove a byte of the line.
                if !lines[i].is_empty() {
                    let at = choices.below(lines[i].len());
                    lines[i].remove(at);
                }
            }
        }
    }
    let terminator: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let mut text = lines.join(terminator);
    if choices.byte() & 1 == 0 {
        text.extend_from_slice(terminator);
    }
    text
}
