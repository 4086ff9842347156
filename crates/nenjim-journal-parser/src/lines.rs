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
use nenjim_journal_api::valuetypes::RevisionDigest;

use crate::index::{Buffers, Index};

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

/// The lines of a text, in order, as slices of it, found through its
/// structural [`Index`] (one pass over the bytes, made when the lines are).
#[derive(Clone, Debug)]
pub(crate) struct Lines<'a> {
    text: &'a str,
    index: Index,
    /// The byte offset of the next line.
    at: usize,
    number: usize,
    /// Where the text ends: line and character column just after its last character.
    end: (usize, usize),
}

impl<'a> Lines<'a> {
    /// Splits `text`; refuses a byte-order mark at 1:1.
    pub(crate) fn new(text: &'a str) -> Result<Lines<'a>, JournalError> {
        Lines::with_index(text, Index::new(text, false))
    }

    /// [`new`](Self::new), also computing the SHA-256 of the text in the
    /// same pass ([`digest`](Self::digest)).
    pub(crate) fn hashed(text: &'a str, buffers: Buffers) -> Result<Lines<'a>, JournalError> {
        Lines::with_index(text, Index::with_buffers(text, true, buffers))
    }

    /// The index's allocations, for the next text.
    pub(crate) fn into_buffers(self) -> Buffers {
        self.index.into_buffers()
    }

    fn with_index(text: &'a str, index: Index) -> Result<Lines<'a>, JournalError> {
        if text.starts_with(BOM) {
            return Err(error::syntax_error(
                1,
                1,
                "found a byte-order mark (U+FEFF), expected the text to start without one",
            ));
        }
        Ok(Lines {
            text,
            index,
            at: 0,
            number: 0,
            end: (1, 1),
        })
    }

    /// The SHA-256 of the text (of a [`hashed`](Self::hashed) one).
    pub(crate) fn digest(&self) -> RevisionDigest {
        self.index.digest()
    }

    /// The text's structural index.
    pub(crate) fn index(&self) -> &Index {
        &self.index
    }

    /// The line and column just after the last character of the text
    /// (valid once the iterator is exhausted).
    pub(crate) fn end(&self) -> (usize, usize) {
        self.end
    }

    /// The byte offset in the text of the line [`next`](Iterator::next)
    /// returns (the text's length at its end).
    pub(crate) fn offset(&self) -> usize {
        self.at
    }

    /// Steps over the next `len` bytes, which hold `newlines` line
    /// terminators, without reading their lines, as if they had been
    /// iterated: `len` ends at the end of a line (after its `\n`, or at the
    /// end of the text). Used for a release block already read in an
    /// identical text.
    pub(crate) fn skip_block(&mut self, len: usize, newlines: usize) {
        let Some(skipped) = self.text.get(self.at..self.at + len) else {
            return;
        };
        if skipped.ends_with('\n') {
            self.number += newlines;
            self.at += len;
            self.end = (self.number + 1, 1);
        } else {
            // The text's unterminated last line: iterated, for its column.
            let target = self.at + len;
            while self.at < target && self.next().is_some() {}
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    #[inline]
    fn next(&mut self) -> Option<Line<'a>> {
        let len = self.text.len();
        if self.at >= len {
            return None;
        }
        let start = self.at;
        // A line ends at its `\n` (a CR just before it belongs to the
        // terminator), or at the end of the text.
        let (end, terminated) = match self.index.next_newline(start) {
            Some(n) => {
                self.at = n + 1;
                let cr = n > start && self.text.as_bytes().get(n - 1) == Some(&b'\r');
                (if cr { n - 1 } else { n }, true)
            }
            None => {
                self.at = len;
                (len, false)
            }
        };
        // `end` is at an ASCII byte (or the end): a character boundary.
        let text = self.text.get(start..end).unwrap_or_default();
        self.number += 1;
        let here = Line {
            number: self.number,
            text,
            clean: !self.index.controls(),
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

    /// The lines the index finds, against a byte-by-byte split (`\n`, a CR
    /// just before it belonging to the terminator), for a control byte at
    /// every place of texts longer than a block, among multi-byte
    /// characters.
    #[test]
    fn lines_end_at_every_newline_among_control_bytes() {
        fn split(text: &str) -> Vec<&str> {
            let mut lines: Vec<&str> = text.split('\n').collect();
            if text.ends_with('\n') {
                lines.pop();
            }
            let terminated = lines
                .len()
                .saturating_sub(usize::from(!text.ends_with('\n')));
            for line in lines.iter_mut().take(terminated) {
                *line = line.strip_suffix('\r').unwrap_or(line);
            }
            lines
        }
        for control in [b'\n', b'\r', b'\t', 0x00, 0x1f, 0x7f] {
            for len in [0usize, 1, 7, 40, 70] {
                for at in 0..=len {
                    let mut bytes = "é".repeat(len).into_bytes();
                    bytes.insert(2 * at, control);
                    bytes.extend_from_slice(b"\nz\r\n\r");
                    let Ok(text) = String::from_utf8(bytes) else {
                        unreachable!()
                    };
                    let found: Vec<&str> = Lines::new(&text)
                        .map(|lines| lines.map(|l| l.text).collect())
                        .unwrap_or_default();
                    assert_eq!(found, split(&text), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn lines_are_clean_only_in_a_text_without_other_control_bytes() {
        let lines: Vec<(&str, bool)> = Lines::new("a\r\nb\tc\r\nd\r\re\n\x7f\nlast\r")
            .map(|lines| lines.map(|l| (l.text, l.clean)).collect())
            .unwrap_or_default();
        assert_eq!(
            lines,
            vec![
                ("a", false),
                ("b\tc", false),
                ("d\r\re", false),
                ("\x7f", false),
                ("last\r", false)
            ]
        );
        let lines: Vec<(&str, bool)> = Lines::new("a b\n\nc")
            .map(|lines| lines.map(|l| (l.text, l.clean)).collect())
            .unwrap_or_default();
        assert_eq!(lines, vec![("a b", true), ("", true), ("c", true)]);
        let lines: Vec<(&str, bool)> = Lines::new("a b\r\n\r\nc\r\n")
            .map(|lines| lines.map(|l| (l.text, l.clean)).collect())
            .unwrap_or_default();
        assert_eq!(lines, vec![("a b", true), ("", true), ("c", true)]);
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
