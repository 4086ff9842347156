//! Section 2 of the format: the tokens of a line.
//!
//! A [`Cursor`] walks one line's content with byte scans (nom's, and a
//! plain one for [`Cursor::token`], the innermost loop): a keyword, then tokens
//! separated by one or more spaces, a quoted string, the rest of the line (a
//! license), and the end (trailing spaces allowed). Each token is handed to
//! the value type of `nenjim_journal_api::valuetypes` that owns its syntax
//! (`FromStr`, or `model::build::quoted_prefix` for a quoted string), and
//! the value type's
//! error (located by byte inside the token) is moved to the token's line and
//! character column.

use std::str::FromStr;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::build;
use nenjim_journal_api::valuetypes::Description;
use nom::bytes::complete::{take_while, take_while1};
use nom::{IResult, Parser};

use crate::index::Index;
use crate::lines::Line;

// The token scanners: nom combinators over the line's bytes (the innermost
// loop of the parser: byte predicates, no UTF-8 decoding). A space is one
// ASCII byte, so the matched length is always a character boundary of the
// `&str`, which is split there. They return `Option` rather than a nom error
// the caller would discard anyway.

type Scanned<'a> = IResult<&'a [u8], &'a [u8], ()>;

/// Splits `input` after the `matched` bytes nom found at its start.
fn split<'a>(input: &'a str, scanned: Scanned<'_>) -> Option<(&'a str, &'a str)> {
    let (_, matched) = scanned.ok()?;
    let n = matched.len();
    Some((input.get(n..)?, input.get(..n)?))
}

/// One or more spaces; `None` when the input does not start with a space.
fn spaces1(input: &str) -> Option<(&str, &str)> {
    split(input, take_while1(|b| b == b' ').parse(input.as_bytes()))
}

/// Zero or more spaces.
fn spaces0(input: &str) -> (&str, &str) {
    split(input, take_while(|b| b == b' ').parse(input.as_bytes())).unwrap_or((input, ""))
}

/// A run of anything but spaces; `None` when it would be empty. Found by
/// [`non_spaces`], eight bytes at a time: every line's keyword is one
/// (nom's `take_till1` stepped byte by byte, 1 % of a start).
fn word(input: &str) -> Option<(&str, &str)> {
    let n = non_spaces(input.as_bytes());
    if n == 0 {
        return None;
    }
    Some((input.get(n..)?, input.get(..n)?))
}

/// The length of the run of non-space bytes at the start of `bytes`: eight
/// bytes at a time (a word test for "a byte equal to 0x20", whose lowest
/// flagged byte is exactly the first space: the test's false positives lie
/// only above a true one), then byte by byte for the last partial word.
#[inline]
pub(crate) fn non_spaces(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word) ^ (ONES * u64::from(b' '));
        let found = x.wrapping_sub(ONES) & !x & HIGH;
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    let tail = bytes.get(i..).unwrap_or_default();
    i + tail.iter().take_while(|&&b| b != b' ').count()
}

pub(crate) use nenjim_journal_api::error::shown;

/// A token read from a line: its text and its byte offset in the line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token<'a> {
    pub(crate) text: &'a str,
    pub(crate) start: usize,
}

/// A position in one line, moving left to right.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor<'a> {
    line: Line<'a>,
    rest: &'a str,
}

impl<'a> Cursor<'a> {
    /// A cursor at byte `start` of `line` (after its indentation).
    pub(crate) fn new(line: Line<'a>, start: usize) -> Cursor<'a> {
        Cursor {
            line,
            rest: line.text.get(start..).unwrap_or(""),
        }
    }

    /// The line being read.
    pub(crate) fn line(&self) -> Line<'a> {
        self.line
    }

    /// The byte offset of the cursor in the line.
    pub(crate) fn offset(&self) -> usize {
        self.line.text.len() - self.rest.len()
    }

    /// Reads the keyword at the cursor (the first run of non-spaces).
    pub(crate) fn keyword(&mut self) -> Token<'a> {
        let start = self.offset();
        match word(self.rest) {
            Some((rest, text)) => {
                self.rest = rest;
                Token { text, start }
            }
            None => Token { text: "", start },
        }
    }

    /// Whether only spaces remain.
    pub(crate) fn at_end(&self) -> bool {
        self.rest.bytes().all(|b| b == b' ')
    }

    /// Whether the next token (after spaces) starts with a double quote.
    pub(crate) fn next_is_quoted(&self) -> bool {
        self.rest.trim_start_matches(' ').starts_with('"')
    }

    /// The error for a missing token: found the end of the line.
    fn missing(&self, expected: &str) -> JournalError {
        let end = self.offset() + self.rest.trim_end_matches(' ').len();
        self.line.syntax(
            end,
            format!("found the end of the line, expected {expected}"),
        )
    }

    /// Skips the one or more spaces before the next token; returns the rest
    /// of the line and the byte offset where the token starts.
    fn separator(&self, expected: &str) -> Result<(&'a str, usize), JournalError> {
        if self.at_end() {
            return Err(self.missing(expected));
        }
        let Some((after_spaces, _)) = spaces1(self.rest) else {
            return Err(self.line.syntax(
                self.offset(),
                format!(
                    "found {} directly after the previous token, expected a space and then {expected}",
                    shown(self.rest)
                ),
            ));
        };
        Ok((after_spaces, self.line.text.len() - after_spaces.len()))
    }

    /// Reads the next token: one or more spaces, then a run of non-spaces.
    ///
    /// The innermost loop of the parser, so written as plain byte scans
    /// (the spaces byte by byte: there is usually one; the token eight
    /// bytes at a time, [`non_spaces`]) rather than nom's `take_while1` and
    /// `take_till1`, which measured slower here (callgrind, `p1_profile`);
    /// the errors (no space before the token, the end of the line) are
    /// [`separator`](Self::separator)'s.
    #[inline]
    pub(crate) fn token(&mut self, expected: &str) -> Result<Token<'a>, JournalError> {
        let bytes = self.rest.as_bytes();
        let spaces = bytes.iter().take_while(|&&b| b == b' ').count();
        if spaces == 0 || spaces == bytes.len() {
            return Err(match self.separator(expected) {
                Err(e) => e,
                Ok(_) => self.missing(expected),
            });
        }
        let len = non_spaces(bytes.get(spaces..).unwrap_or_default());
        // Both ends are at ASCII spaces (or the end): character boundaries.
        let (Some(text), Some(rest)) = (
            self.rest.get(spaces..spaces + len),
            self.rest.get(spaces + len..),
        ) else {
            return Err(self.missing(expected));
        };
        let start = self.line.text.len() - self.rest.len() + spaces;
        self.rest = rest;
        Ok(Token { text, start })
    }

    /// Reads the next token and parses it with `T::from_str`, relocating its error.
    pub(crate) fn value<T>(&mut self, expected: &str) -> Result<(T, Token<'a>), JournalError>
    where
        T: FromStr<Err = JournalError>,
    {
        let token = self.token(expected)?;
        let value = token
            .text
            .parse::<T>()
            .map_err(|e| self.line.relocate(e, token.start))?;
        Ok((value, token))
    }

    /// Reads a quoted string (after one or more spaces) and decodes it.
    #[cfg(test)]
    pub(crate) fn quoted(&mut self, expected: &str) -> Result<(Description, usize), JournalError> {
        self.quoted_raw(expected)
            .map(|(description, start, _)| (description, start))
    }

    /// [`quoted`](Self::quoted), also returning the quoted string as
    /// written, quotes included.
    pub(crate) fn quoted_raw(
        &mut self,
        expected: &str,
    ) -> Result<(Description, usize, &'a str), JournalError> {
        let (after_spaces, start) = self.separator(expected)?;
        let (description, used) =
            build::quoted_prefix(after_spaces).map_err(|e| self.line.relocate(e, start))?;
        let raw = after_spaces.get(..used).unwrap_or("");
        self.rest = after_spaces.get(used..).unwrap_or("");
        self.after_quoted()?;
        Ok((description, start, raw))
    }

    /// The quoted string the cursor is at (after one or more spaces), as
    /// written: from its opening quote to the first quote that no backslash
    /// escapes, quotes included, and where it starts. Only a candidate: it
    /// is not decoded or checked (a caller that knows it as a valid one
    /// takes it with [`take_quoted`](Self::take_quoted)).
    pub(crate) fn peek_quoted(&self) -> Option<(&'a str, usize)> {
        let (after_spaces, start) =
            spaces1(self.rest).map(|(after, _)| (after, self.line.text.len() - after.len()))?;
        let bytes = after_spaces.as_bytes();
        if bytes.first() != Some(&b'"') {
            return None;
        }
        let mut i = 1;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'\\' => i += 2,
                b'"' => return Some((after_spaces.get(..=i)?, start)),
                _ => i += 1,
            }
        }
        None
    }

    /// Steps over `raw`, a quoted string just returned by
    /// [`peek_quoted`](Self::peek_quoted), with the check that follows a
    /// quoted string.
    pub(crate) fn take_quoted(&mut self, raw: &str) -> Result<(), JournalError> {
        let after_spaces = self.rest.trim_start_matches(' ');
        self.rest = after_spaces.get(raw.len()..).unwrap_or("");
        self.after_quoted()
    }

    /// A quoted string must be followed by a space or the end of the line.
    fn after_quoted(&self) -> Result<(), JournalError> {
        if !self.rest.is_empty() && !self.rest.starts_with(' ') {
            let found = self.rest.split(' ').next().unwrap_or(self.rest);
            return Err(self.line.syntax(
                self.offset(),
                format!(
                    "found {} directly after a quoted string, expected a space or the end of the line",
                    shown(found)
                ),
            ));
        }
        Ok(())
    }

    /// Reads the rest of the line (after one or more spaces), trailing
    /// spaces trimmed.
    pub(crate) fn rest_of_line(&mut self, expected: &str) -> Result<Token<'a>, JournalError> {
        if self.at_end() {
            return Err(self.missing(expected));
        }
        let after_spaces = spaces1(self.rest).map_or(self.rest, |(rest, _)| rest);
        let start = self.line.text.len() - after_spaces.len();
        let text = after_spaces.trim_end_matches(' ');
        self.rest = "";
        Ok(Token { text, start })
    }

    /// Requires that only spaces remain.
    pub(crate) fn finish(&mut self) -> Result<(), JournalError> {
        self.finish_expecting("the end of the line")
    }

    /// Requires that only spaces remain; the error says `expected`.
    pub(crate) fn finish_expecting(&mut self, expected: &str) -> Result<(), JournalError> {
        let (rest, _) = spaces0(self.rest);
        if rest.is_empty() {
            return Ok(());
        }
        let start = self.line.text.len() - rest.len();
        let found = word(rest).map_or(rest, |(_, w)| w);
        Err(self.line.syntax(
            start,
            format!("found {}, expected {expected}", shown(found)),
        ))
    }
}

/// The tokens of a clean line (no control byte) written the usual way, read
/// on the text's structural [`Index`]: a token ends at the next space or
/// line end the index marks, found without reading the token's bytes.
///
/// It reads only what is certain: exactly one space before each token, no
/// trailing space, a quoted string that ends with an unescaped quote.
/// Anything else is `None`, and the caller reads the line with a
/// [`Cursor`] instead (which accepts every spelling the format allows and
/// locates every error), so `Quick` never decides what is an error.
/// Offsets are of the whole text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Quick<'a> {
    text: &'a str,
    index: &'a Index,
    at: usize,
    /// Where the line's content ends (its `\n`, or the end of the text).
    end: usize,
}

impl<'a> Quick<'a> {
    /// The line's content `at..end` of `text`, whose index is `index`.
    pub(crate) fn new(text: &'a str, index: &'a Index, at: usize, end: usize) -> Quick<'a> {
        Quick {
            text,
            index,
            at,
            end,
        }
    }

    /// The offset of the next unread byte.
    pub(crate) fn offset(&self) -> usize {
        self.at
    }

    /// The run of non-spaces at the cursor (a keyword), if not empty.
    #[inline]
    pub(crate) fn keyword(&mut self) -> Option<&'a str> {
        let stop = self.stop(self.at);
        let word = self.text.get(self.at..stop).filter(|w| !w.is_empty())?;
        self.at = stop;
        Some(word)
    }

    /// Where the run of non-spaces from `from` ends (the line's end at the
    /// latest).
    #[inline]
    fn stop(&self, from: usize) -> usize {
        self.index
            .next_stop(from)
            .unwrap_or(self.text.len())
            .min(self.end)
    }

    /// One space, then a token (a run of non-spaces).
    #[inline]
    pub(crate) fn token(&mut self) -> Option<&'a str> {
        if self.at >= self.end || self.text.as_bytes().get(self.at) != Some(&b' ') {
            return None;
        }
        let start = self.at + 1;
        let stop = self.stop(start);
        let token = self.text.get(start..stop).filter(|t| !t.is_empty())?;
        self.at = stop;
        Some(token)
    }

    /// Whether the line is read to its end.
    #[inline]
    pub(crate) fn at_end(&self) -> bool {
        self.at >= self.end
    }

    /// Whether one space and a double quote come next.
    #[inline]
    pub(crate) fn next_is_quoted(&self) -> bool {
        let bytes = self.text.as_bytes();
        self.at + 1 < self.end
            && bytes.get(self.at) == Some(&b' ')
            && bytes.get(self.at + 1) == Some(&b'"')
    }

    /// One space, then a quoted string as written (quotes included): from
    /// its opening quote to the first quote no backslash escapes, which
    /// must end the line or be followed by a space. Not decoded.
    #[inline]
    pub(crate) fn quoted(&mut self) -> Option<&'a str> {
        if !self.next_is_quoted() {
            return None;
        }
        let bytes = self.text.as_bytes().get(..self.end)?;
        let start = self.at + 1;
        let mut i = start + 1;
        loop {
            match *bytes.get(i)? {
                b'\\' => i += 2,
                b'"' => break,
                _ => i += 1,
            }
        }
        let raw = self.text.get(start..=i)?;
        if i + 1 < self.end && bytes.get(i + 1) != Some(&b' ') {
            return None;
        }
        self.at = i + 1;
        Some(raw)
    }

    /// How many lines from the one that starts at `line_start` on start
    /// `  DEPENDS `, `  EXCLUDES ` and `  PREFERS ` (in that order, each
    /// counted up to the first line that starts otherwise): a size hint for
    /// a release's lists, which decides nothing. `each`, if any, is given the first
    /// two tokens of each line counted (the second if it is not quoted),
    /// as a guess of its coordinate and requirement, which decides nothing
    /// either ([`Interner::warm`](crate::interner::Interner::warm)).
    pub(crate) fn list_lines(
        &self,
        line_start: usize,
        mut each: Option<impl FnMut(&'a str, Option<&'a str>)>,
    ) -> (usize, usize, usize) {
        let bytes = self.text.as_bytes();
        let mut counts = [0usize; 3];
        let mut kind = 0;
        let mut at = line_start;
        // The eight bytes after the indentation: `DEPENDS `, `EXCLUDES`
        // (then a space) or `PREFERS `.
        const WORDS: [u64; 3] = [
            u64::from_le_bytes(*b"DEPENDS "),
            u64::from_le_bytes(*b"EXCLUDES"),
            u64::from_le_bytes(*b"PREFERS "),
        ];
        while let Some(&[b' ', b' ', a, b, c, d, e, f, g, h, after, ..]) = bytes.get(at..) {
            let word = u64::from_le_bytes([a, b, c, d, e, f, g, h]);
            let Some(k) = (kind..3).find(|&k| WORDS[k] == word) else {
                break;
            };
            if k == 1 && after != b' ' {
                break;
            }
            kind = k;
            counts[k] += 1;
            let newline = self.index.next_newline(at);
            let end = newline.unwrap_or(bytes.len());
            // The tokens end at the index's stops (a space or the `\n`).
            if let Some(each) = each.as_mut() {
                let first = (at + 10 + usize::from(k == 1)).min(end);
                let second = self.index.next_stop(first).unwrap_or(end).min(end);
                let third = self.index.next_stop(second + 1).unwrap_or(end).min(end);
                if let Some(coordinate) = self.text.get(first..second) {
                    let requirement = self
                        .text
                        .get(second + 1..third)
                        .filter(|t| !t.is_empty() && !t.starts_with('"'));
                    each(coordinate, requirement);
                }
            }
            match newline {
                Some(newline) => at = newline + 1,
                None => break,
            }
        }
        (counts[0], counts[1], counts[2])
    }

    /// One space, then the rest of the line (which must not end with a space).
    #[inline]
    pub(crate) fn rest(&mut self) -> Option<&'a str> {
        if self.text.as_bytes().get(self.at) != Some(&b' ') {
            return None;
        }
        let rest = self.text.get(self.at + 1..self.end)?;
        if rest.is_empty() || rest.ends_with(' ') || rest.starts_with(' ') {
            return None;
        }
        self.at = self.end;
        Some(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nenjim_journal_api::error::ErrorKind;
    use nenjim_journal_api::valuetypes::ArtifactCoordinate;

    fn line(text: &str) -> Line<'_> {
        Line {
            number: 4,
            text,
            clean: false,
        }
    }

    #[test]
    fn tokens_are_separated_by_spaces() {
        let l = line("DEPENDS  a   1.0.0  ");
        let mut c = Cursor::new(l, 0);
        assert_eq!(c.keyword().text, "DEPENDS");
        let t = c.token("x").map_err(|e| e.to_string());
        assert_eq!(t.map(|t| (t.text, t.start)), Ok(("a", 9)));
        let t = c.token("x").map_err(|e| e.to_string());
        assert_eq!(t.map(|t| t.text), Ok("1.0.0"));
        assert!(c.at_end());
        assert!(c.finish().is_ok());
        let e = c
            .token("a requirement")
            .err()
            .map(|e| (e.line(), e.column()));
        assert_eq!(e, Some((Some(4), Some(19))));
    }

    #[test]
    fn value_errors_land_on_the_character_column() {
        let l = line("DESCRIPTION \"é\" A_b");
        let mut c = Cursor::new(l, 0);
        c.keyword();
        assert!(c.quoted("q").is_ok());
        let e = c.value::<ArtifactCoordinate>("c").err();
        // `A` is character 17 (the `é` is two bytes but one column).
        assert_eq!(
            e.map(|e| (e.kind(), e.column())),
            Some((ErrorKind::Syntax, Some(17)))
        );
    }

    #[test]
    fn the_word_scan_stops_at_the_first_space() {
        for len in 0..20 {
            for at in 0..=len {
                let mut bytes = "é~".repeat(len).into_bytes();
                bytes.insert(at, b' ');
                if at + 3 < bytes.len() {
                    bytes.insert(at + 3, b' ');
                }
                let expected = bytes.iter().position(|&b| b == b' ');
                assert_eq!(non_spaces(&bytes), expected.unwrap_or(bytes.len()));
            }
            let bytes = "a!".repeat(len).into_bytes();
            assert_eq!(non_spaces(&bytes), bytes.len());
        }
        assert_eq!(non_spaces(b"!!!!!!!!!! \x21"), 10);
        assert_eq!(non_spaces(b""), 0);
    }

    #[test]
    fn quoted_must_be_followed_by_a_space() {
        let l = line("X \"a\"b");
        let mut c = Cursor::new(l, 0);
        c.keyword();
        let e = c.quoted("q").err().and_then(|e| e.column());
        assert_eq!(e, Some(6));
    }

    #[test]
    fn list_lines_counts_the_usual_lists_and_guesses_their_tokens() {
        let text = "RELEASE 1.0.0\n  DEPENDS a.b 1.0.0\n  DEPENDS c [1.0.0,2.0.0) \"why\"\n\
            \x20 EXCLUDES d\n  EXCLUDES e \"no\"\n  EXCLUDES f (,1.0.0)\n  PREFERS g *\n\
            \x20 DEPENDS h 1.0.0\n";
        let index = crate::index::Index::new(text, false);
        let start = text.find("  DEPENDS").unwrap_or_default();
        let quick = Quick::new(text, &index, start + 2, start + 2);
        let mut seen = Vec::new();
        let counts = quick.list_lines(start, Some(|c, r| seen.push((c, r))));
        // The DEPENDS after PREFERS is out of the usual order: not counted.
        assert_eq!(counts, (2, 3, 1));
        assert_eq!(
            seen,
            [
                ("a.b", Some("1.0.0")),
                ("c", Some("[1.0.0,2.0.0)")),
                ("d", None),
                ("e", None),
                ("f", Some("(,1.0.0)")),
                ("g", Some("*")),
            ]
        );
        // The last line of a text without its newline.
        let text = "  EXCLUDES x 2.0.0";
        let index = crate::index::Index::new(text, false);
        let mut seen = Vec::new();
        let counts = Quick::new(text, &index, 2, 2).list_lines(0, Some(|c, r| seen.push((c, r))));
        assert_eq!((counts, seen), ((0, 1, 0), vec![("x", Some("2.0.0"))]));
    }

    #[test]
    fn word_is_the_run_before_the_first_space() {
        assert_eq!(word(""), None);
        assert_eq!(word(" a"), None);
        assert_eq!(word("a"), Some(("", "a")));
        assert_eq!(word("RELEASE 1.0.0"), Some((" 1.0.0", "RELEASE")));
        let long = format!("{}\u{e9}\tx y", "k".repeat(17));
        assert_eq!(word(&long), Some((" y", &long[..long.len() - 2])));
    }
}
