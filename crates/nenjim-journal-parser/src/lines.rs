//! Section 1 of the format: lines, terminators, ignorable lines, forbidden
//! characters and indentation.
//!
//! [`Lines`] splits a text into [`Line`]s (slices of the text, never
//! copies; one scan over the bytes finds each line's terminator and whether
//! the line holds a control byte), and [`Line::classify`] decides what a line is: ignorable
//! (blank or comment), top-level, or a release property (exactly two spaces
//! of indentation). Everything that can be wrong with a line before its
//! tokens are read is found here: a lone CR, a tab or other control
//! character, and any other indentation.

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nom::bytes::complete::take_until;
use nom::{IResult, Parser};

/// One line of the text, without its terminator, with its 1-based number.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line<'a> {
    /// 1-based line number.
    pub(crate) number: usize,
    /// The line's content, without `\n` or `\r\n`.
    pub(crate) text: &'a str,
    /// Whether the newline scan already found that `text` holds no control
    /// byte (below 0x20, or 0x7f): then [`Line::classify`] reads only the
    /// indentation. `false` means "not known", and `classify` scans.
    pub(crate) clean: bool,
}

/// What a non-erroneous line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineClass {
    /// Blank or comment: it means nothing.
    Ignorable,
    /// A line starting in column 1.
    TopLevel,
    /// A line indented by exactly two spaces (a release property).
    Property,
}

/// The byte-order mark, refused at the start of a text.
const BOM: char = '\u{feff}';

impl<'a> Line<'a> {
    /// The 1-based column, in characters, of byte offset `byte` of the line
    /// (clamped to the line; the end of the line is one past its last character).
    pub(crate) fn column(&self, byte: usize) -> usize {
        let mut end = byte.min(self.text.len());
        while end > 0 && !self.text.is_char_boundary(end) {
            end -= 1;
        }
        self.text.get(..end).map_or(0, |s| s.chars().count()) + 1
    }

    /// An error of `kind` at byte offset `byte` of this line.
    pub(crate) fn error_at(
        &self,
        kind: ErrorKind,
        byte: usize,
        message: impl Into<String>,
    ) -> JournalError {
        error::error(kind, message).at(self.number, self.column(byte))
    }

    /// A syntax error at byte offset `byte` of this line.
    pub(crate) fn syntax(&self, byte: usize, message: impl Into<String>) -> JournalError {
        self.error_at(ErrorKind::Syntax, byte, message)
    }

    /// Moves an error located inside a token (line 1, 1-based *byte* column
    /// in the token, as the value types report them) to the token's place:
    /// this line, and the character column of the same byte.
    pub(crate) fn relocate(&self, error: JournalError, token_start: usize) -> JournalError {
        let inner = error.column().unwrap_or(1).saturating_sub(1);
        let byte = token_start.saturating_add(inner);
        error.at(self.number, self.column(byte))
    }

    /// Classifies the line (section 1), refusing a lone CR anywhere, a
    /// control character outside a comment and indentation other than none
    /// or exactly two spaces.
    pub(crate) fn classify(&self) -> Result<LineClass, JournalError> {
        let bytes = self.text.as_bytes();
        if self.clean {
            let indent = bytes.iter().take_while(|&&b| b == b' ').count();
            if matches!(bytes.get(indent), None | Some(b'#')) {
                return Ok(LineClass::Ignorable);
            }
            return self.indentation(indent);
        }
        // One scan for the common case: a CR and every other control
        // character are bytes below 0x20 or 0x7f, so a line without any is
        // only a matter of indentation. Otherwise the checks below run in
        // their order (a CR anywhere first).
        // (A fold without early exit, so the scan is vectorized.)
        let control = bytes
            .iter()
            .fold(false, |seen, &b| seen | (b < 0x20) | (b == 0x7f));
        if !control {
            let indent = bytes.iter().take_while(|&&b| b == b' ').count();
            if matches!(bytes.get(indent), None | Some(b'#')) {
                return Ok(LineClass::Ignorable);
            }
            return self.indentation(indent);
        }
        if let Some(cr) = self.text.find('\r') {
            return Err(self.syntax(
                cr,
                "found a carriage return not followed by a line feed, expected `\\n` or `\\r\\n` as line terminator",
            ));
        }
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        if matches!(bytes.get(indent), None | Some(b'#')) {
            return Ok(LineClass::Ignorable);
        }
        // Byte by byte: an ASCII control character is one byte, never part
        // of a multi-byte character, and its byte offset is its char index.
        if let Some(i) = bytes.iter().position(|&b| b < 0x20 || b == 0x7f) {
            let c = char::from(bytes[i]);
            let what = if c == '\t' {
                "a tab".to_owned()
            } else {
                format!("control character U+{:04X}", u32::from(c))
            };
            return Err(self.syntax(
                i,
                format!(
                    "found {what}, expected printable text (spaces separate tokens; write `\\t` or `\\u{{…}}` inside a quoted string)"
                ),
            ));
        }
        self.indentation(indent)
    }

    /// The class of a line with no control character whose content starts
    /// after `indent` spaces.
    fn indentation(&self, indent: usize) -> Result<LineClass, JournalError> {
        match indent {
            0 => Ok(LineClass::TopLevel),
            2 => Ok(LineClass::Property),
            n => Err(self.syntax(
                0,
                format!(
                    "found an indentation of {n} space{}, expected none (a top-level line) or exactly two (a release property)",
                    if n == 1 { "" } else { "s" }
                ),
            )),
        }
    }
}

/// Whether `b` is a control byte: below 0x20 (LF and CR among them) or DEL.
const fn is_control(b: u8) -> bool {
    b < 0x20 || b == 0x7f
}

/// The offset of the first control byte of `bytes` (its length if none):
/// eight bytes at a time (a word test for "a byte below 0x20" and "a byte
/// equal to 0x7f"), then byte by byte from the word that has one. The word
/// test only decides where the byte-wise scan starts; the offset is always
/// the byte-wise scan's, so the result is exact whatever the word test says.
fn first_control(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let below = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        let x = w ^ (ONES * 0x7f);
        let del = x.wrapping_sub(ONES) & !x & HIGH;
        if below | del != 0 {
            break;
        }
        i += 8;
    }
    let tail = bytes.get(i..).unwrap_or_default();
    i + tail
        .iter()
        .position(|&b| is_control(b))
        .unwrap_or(tail.len())
}

/// One line of `input`: `(rest, content, terminated, clean)`, where
/// `content` excludes the `\n` or `\r\n` terminator and `clean` says that
/// it holds no control byte. One scan finds the terminator and classifies
/// the line's bytes at once (section 1): in a line without control bytes
/// the first control byte is its `\n` (or the `\r` of its `\r\n`);
/// otherwise the line is scanned again for its `\n` (nom's `take_until`,
/// which is `memchr`) and `classify` reports the first offending byte.
fn line(input: &str) -> (&str, &str, bool, bool) {
    let bytes = input.as_bytes();
    let k = first_control(bytes);
    let (end, next, terminated, clean) = match (bytes.get(k), bytes.get(k + 1)) {
        (None, _) => (k, k, false, true),
        (Some(b'\n'), _) => (k, k + 1, true, true),
        (Some(b'\r'), Some(b'\n')) => (k, k + 2, true, true),
        (Some(_), _) => {
            let rest = bytes.get(k..).unwrap_or_default();
            let scanned: IResult<&[u8], &[u8], ()> = take_until(&b"\n"[..]).parse(rest);
            match scanned {
                Ok((_, before)) => {
                    let n = k + before.len();
                    // A CR just before the LF belongs to the terminator.
                    let end = if n > 0 && bytes.get(n - 1) == Some(&b'\r') {
                        n - 1
                    } else {
                        n
                    };
                    (end, n + 1, true, false)
                }
                Err(_) => (bytes.len(), bytes.len(), false, false),
            }
        }
    };
    // `end` and `next` are at ASCII bytes (or the end): character boundaries.
    match (input.get(..end), input.get(next..)) {
        (Some(content), Some(rest)) => (rest, content, terminated, clean),
        _ => ("", input, false, false),
    }
}

/// The lines of a text, in order, as slices of it.
#[derive(Clone, Debug)]
pub(crate) struct Lines<'a> {
    rest: &'a str,
    /// The length of the whole text, so that `len - rest.len()` is the byte
    /// offset of the next line.
    len: usize,
    number: usize,
    /// Where the text ends: line and character column just after its last character.
    end: (usize, usize),
}

impl<'a> Lines<'a> {
    /// Splits `text`; refuses a byte-order mark at 1:1.
    pub(crate) fn new(text: &'a str) -> Result<Lines<'a>, JournalError> {
        if text.starts_with(BOM) {
            return Err(error::syntax_error(
                1,
                1,
                "found a byte-order mark (U+FEFF), expected the text to start without one",
            ));
        }
        Ok(Lines {
            rest: text,
            len: text.len(),
            number: 0,
            end: (1, 1),
        })
    }

    /// The line and column just after the last character of the text
    /// (valid once the iterator is exhausted).
    pub(crate) fn end(&self) -> (usize, usize) {
        self.end
    }

    /// The byte offset in the text of the line [`next`](Iterator::next)
    /// returns (the text's length at its end).
    pub(crate) fn offset(&self) -> usize {
        self.len - self.rest.len()
    }

    /// Steps over the next `len` bytes, which hold `newlines` line
    /// terminators, without reading their lines, as if they had been
    /// iterated: `len` ends at the end of a line (after its `\n`, or at the
    /// end of the text). Used for a release block already read in an
    /// identical text.
    pub(crate) fn skip_block(&mut self, len: usize, newlines: usize) {
        let Some(skipped) = self.rest.get(..len) else {
            return;
        };
        if skipped.ends_with('\n') {
            self.number += newlines;
            self.rest = self.rest.get(len..).unwrap_or_default();
            self.end = (self.number + 1, 1);
        } else {
            // The text's unterminated last line: iterated, for its column.
            let target = self.offset() + len;
            while self.offset() < target && self.next().is_some() {}
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        let (rest, text, terminated, clean) = line(self.rest);
        self.rest = rest;
        self.number += 1;
        let here = Line {
            number: self.number,
            text,
            clean,
        };
        self.end = if terminated {
            (self.number + 1, 1)
        } else {
            (self.number, here.column(text.len()))
        };
        Some(here)
    }
}

/// Whether `text` has no non-ignorable line: every line is empty, spaces
/// only, or a comment, by the one classification of section 1 the parser
/// uses ([`Line::classify`]); such a text is `EmptyInput`. A text with a
/// byte-order mark, a lone CR or a control character outside a comment is
/// not blank (the parser reports it), so this never hides a syntax error.
pub(crate) fn is_blank(text: &str) -> bool {
    Lines::new(text).is_ok_and(|mut lines| {
        lines.all(|line| matches!(line.classify(), Ok(LineClass::Ignorable)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(text: &str) -> Vec<(usize, &str)> {
        Lines::new(text)
            .map(|lines| lines.map(|l| (l.number, l.text)).collect())
            .unwrap_or_default()
    }

    #[test]
    fn terminators_are_stripped() {
        assert_eq!(classes("a\r\nb\nc"), vec![(1, "a"), (2, "b"), (3, "c")]);
        assert_eq!(classes("a\n"), vec![(1, "a")]);
        assert_eq!(classes(""), vec![]);
        assert_eq!(classes("\n\n"), vec![(1, ""), (2, "")]);
    }

    #[test]
    fn the_word_scan_finds_the_first_control_byte_anywhere() {
        // Every position of a control byte, in texts longer than a word,
        // among multi-byte characters (bytes >= 0x80 are not controls).
        for control in [b'\n', b'\r', b'\t', 0x00, 0x1f, 0x7f] {
            for len in 0..20 {
                for at in 0..=len {
                    let mut bytes = "é".repeat(len).into_bytes();
                    let offset = 2 * at;
                    bytes.insert(offset, control);
                    let expected = bytes.iter().position(|&b| is_control(b));
                    assert_eq!(first_control(&bytes), expected.unwrap_or(bytes.len()));
                }
            }
        }
        // 0x7e and 0x20, next to the controls, are not controls.
        assert_eq!(first_control(b"~~~~~~~~~~~~ \x20"), 14);
        assert_eq!(first_control(b"~~~~~~~~~~~~ \x1f"), 13);
        assert_eq!(first_control(b""), 0);
    }

    #[test]
    fn the_scan_marks_clean_lines_only() {
        let lines: Vec<(&str, bool)> = Lines::new("a\r\nb\tc\r\nd\r\re\n\x7f\nlast\r")
            .map(|lines| lines.map(|l| (l.text, l.clean)).collect())
            .unwrap_or_default();
        assert_eq!(
            lines,
            vec![
                ("a", true),
                ("b\tc", false),
                ("d\r\re", false),
                ("\x7f", false),
                ("last\r", false)
            ]
        );
    }

    #[test]
    fn end_position() {
        let mut lines = Lines::new("ab\nçd").unwrap_or_else(|_| unreachable!());
        for _ in lines.by_ref() {}
        assert_eq!(lines.end(), (2, 3));
        let mut lines = Lines::new("ab\n").unwrap_or_else(|_| unreachable!());
        for _ in lines.by_ref() {}
        assert_eq!(lines.end(), (2, 1));
    }

    #[test]
    fn columns_count_characters() {
        let line = Line {
            number: 1,
            text: "åäö x",
            clean: true,
        };
        assert_eq!(line.column(0), 1);
        assert_eq!(line.column(7), 5);
        assert_eq!(line.column(100), 6);
        assert_eq!(line.column(1), 1); // inside `å`: its start
    }

    #[test]
    fn classification() {
        let class = |t: &'static str| {
            Line {
                number: 1,
                text: t,
                clean: false,
            }
            .classify()
            .map_err(|e| e.column())
        };
        assert_eq!(class(""), Ok(LineClass::Ignorable));
        assert_eq!(class("   "), Ok(LineClass::Ignorable));
        assert_eq!(class("  # \t x"), Ok(LineClass::Ignorable));
        assert_eq!(class("X"), Ok(LineClass::TopLevel));
        assert_eq!(class("  X"), Ok(LineClass::Property));
        assert_eq!(class(" X"), Err(Some(1)));
        assert_eq!(class("   X"), Err(Some(1)));
        assert_eq!(class("X\tY"), Err(Some(2)));
        assert_eq!(class("\t"), Err(Some(1)));
        assert_eq!(class("# a\rb"), Err(Some(4)));
    }
}
