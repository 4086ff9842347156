use super::text::Text;
use super::{semantic, shown, syntax_at};
use crate::error::{ErrorContext as _, JournalError};
use std::fmt;
use std::fmt::Write as _;
use std::str::FromStr;

/// A human-readable text: the decoded content of a quoted string.
///
/// It contains a non-whitespace character and is at most 4096 bytes
/// (decoded). `FromStr` reads the quoted form (`"…"` with the escapes `\\`,
/// `\"`, `\n`, `\t` and `\u{1-6 hex}`), `Display` writes it back quoted
/// (canonical escapes), and [`as_str`](Description::as_str) gives the
/// decoded text.
///
/// ```
/// use nenjim_journal_api::valuetypes::Description;
/// let d: Description = r#""tested \"twice\"\u{2713}""#.parse().unwrap();
/// assert_eq!(d.as_str(), "tested \"twice\"✓");
/// assert_eq!(d.to_string(), r#""tested \"twice\"✓""#);
/// assert!(r#""   ""#.parse::<Description>().is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Description(Text);

impl Description {
    /// The largest decoded text, in bytes.
    pub const MAX_LEN: usize = 4096;

    /// A description from decoded text; refuses blank and over-long text.
    pub fn new(text: impl AsRef<str>) -> Result<Description, JournalError> {
        let text = text.as_ref();
        if text.chars().all(char::is_whitespace) {
            return Err(semantic(
                "found a blank text, expected a description with a non-whitespace character",
            ));
        }
        if text.len() > Self::MAX_LEN {
            return Err(semantic(format!(
                "found a text of {} bytes, expected at most {}",
                text.len(),
                Self::MAX_LEN
            )));
        }
        Ok(Description(Text::new(text)))
    }

    /// The decoded text.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Reads one quoted string at the start of `input` and returns it with
    /// the number of bytes it took (quotes included). What follows is left
    /// to the caller. Errors are located by column inside `input`.
    pub(crate) fn parse_quoted_prefix(input: &str) -> Result<(Description, usize), JournalError> {
        let mut chars = input.char_indices();
        match chars.next() {
            Some((_, '"')) => {}
            other => {
                let found = other.map(|(_, c)| c.to_string()).unwrap_or_default();
                return Err(syntax_at(
                    1,
                    format!("found {}, expected a quoted string `\"…\"`", shown(&found)),
                ));
            }
        }
        // Fast path: no escape and no control character before the closing
        // quote, so the text is the slice itself (one scan, one allocation).
        // Anything else is decoded below, with its exact errors.
        let body = &input.as_bytes()[1..];
        if let Some(end) = body
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20 || b == 0x7f)
            && body[end] == b'"'
            && end <= Self::MAX_LEN * 4
        {
            let description =
                Description::new(&input[1..1 + end]).map_err(|e| e.relocated(1, 1))?;
            return Ok((description, end + 2));
        }
        let mut text = String::new();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    let description = Description::new(&text).map_err(|e| e.relocated(1, 1))?;
                    return Ok((description, i + 1));
                }
                '\\' => {
                    let Some((j, e)) = chars.next() else { break };
                    match e {
                        '\\' => text.push('\\'),
                        '"' => text.push('"'),
                        'n' => text.push('\n'),
                        't' => text.push('\t'),
                        'u' => {
                            let rest = &input[j + 1..];
                            let Some(body) = rest.strip_prefix('{') else {
                                return Err(syntax_at(
                                    j + 2,
                                    "found `\\u` without `{`, expected `\\u{1-6 hex digits}`",
                                ));
                            };
                            let Some(end) = body.find('}') else {
                                return Err(syntax_at(
                                    j + 2,
                                    "found `\\u{` without `}`, expected `\\u{1-6 hex digits}`",
                                ));
                            };
                            let hex = &body[..end];
                            if hex.is_empty()
                                || hex.len() > 6
                                || !hex.bytes().all(|b| b.is_ascii_hexdigit())
                            {
                                return Err(syntax_at(
                                    j + 3,
                                    format!(
                                        "found `\\u{{{}}}`, expected 1 to 6 hex digits",
                                        hex.escape_debug()
                                    ),
                                ));
                            }
                            let value = u32::from_str_radix(hex, 16).unwrap_or(u32::MAX);
                            let Some(decoded) = char::from_u32(value) else {
                                return Err(syntax_at(
                                    j + 3,
                                    format!(
                                        "found `\\u{{{hex}}}`, expected a Unicode scalar value (not a surrogate, at most 10FFFF)"
                                    ),
                                ));
                            };
                            text.push(decoded);
                            // Skip `{`, the digits and `}`: all ASCII, one char each.
                            for _ in 0..hex.len() + 2 {
                                chars.next();
                            }
                        }
                        other => {
                            return Err(syntax_at(
                                i + 1,
                                format!(
                                    "found escape `\\{}`, expected one of `\\\\`, `\\\"`, `\\n`, `\\t`, `\\u{{…}}`",
                                    other.escape_debug()
                                ),
                            ));
                        }
                    }
                }
                c if c.is_ascii_control() => {
                    return Err(syntax_at(
                        i + 1,
                        format!(
                            "found raw control character {} in a quoted string, expected an escape",
                            shown(&c.to_string())
                        ),
                    ));
                }
                c => text.push(c),
            }
            if text.len() > Self::MAX_LEN * 4 {
                // Far past the limit: stop decoding, the text is refused anyway.
                return Err(semantic(format!(
                    "found a quoted text over {} bytes, expected at most {}",
                    Self::MAX_LEN,
                    Self::MAX_LEN
                )));
            }
        }
        Err(syntax_at(
            input.len() + 1,
            "found the end of the line inside a quoted string, expected a closing `\"`",
        ))
    }
}

impl FromStr for Description {
    type Err = JournalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (description, used) = Description::parse_quoted_prefix(s)?;
        if used != s.len() {
            return Err(syntax_at(
                used + 1,
                format!(
                    "found {} after a quoted string, expected its end",
                    shown(&s[used..])
                ),
            ));
        }
        Ok(description)
    }
}

impl fmt::Display for Description {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        for c in self.0.as_str().chars() {
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\t' => f.write_str("\\t")?,
                c if c.is_ascii_control() => write!(f, "\\u{{{:x}}}", u32::from(c))?,
                c => f.write_char(c)?,
            }
        }
        f.write_char('"')
    }
}

impl fmt::Debug for Description {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Description({:?})", self.0.as_str())
    }
}
