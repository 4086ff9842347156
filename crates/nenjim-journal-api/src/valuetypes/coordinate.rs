use super::text::{COORDINATES, Text};
use super::{shown, syntax_at};
use crate::error::JournalError;
use std::fmt;
use std::str::FromStr;

/// The name of an artifact: lower-case ASCII letters and digits in runs
/// joined by single `.`, `_` or `-`, 1 to 128 characters.
///
/// It names the artifact's directory on disk, so it is portable and free of
/// case collisions. Ordered by text. Cheap to clone (shared).
///
/// ```
/// use nenjim_journal_api::valuetypes::ArtifactCoordinate;
/// let c: ArtifactCoordinate = "com.r35157.nenjim-hubd-api".parse().unwrap();
/// assert_eq!(c.as_str(), "com.r35157.nenjim-hubd-api");
/// assert!("Serde".parse::<ArtifactCoordinate>().is_err());
/// assert!("left--pad".parse::<ArtifactCoordinate>().is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArtifactCoordinate(Text);

impl ArtifactCoordinate {
    /// The longest coordinate, in characters (all ASCII, so also bytes).
    pub const MAX_LEN: usize = 128;

    /// The coordinate's text.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The coordinate's text as bytes (what `as_str` returns), without
    /// `as_str`'s UTF-8 check of a short text: for a table that compares
    /// many tokens with stored coordinates.
    ///
    /// ```
    /// use nenjim_journal_api::valuetypes::ArtifactCoordinate;
    /// let coordinate: ArtifactCoordinate = "left-pad".parse()?;
    /// assert_eq!(coordinate.as_bytes(), b"left-pad");
    /// # Ok::<(), nenjim_journal_api::error::JournalError>(())
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// Whether both share one stored copy of the text.
    pub(crate) fn shares_text_with(&self, other: &ArtifactCoordinate) -> bool {
        self.0.ptr_eq(&other.0)
    }

    fn validate(s: &str) -> Result<(), JournalError> {
        if s.is_empty() {
            return Err(syntax_at(
                1,
                "found nothing, expected an artifact coordinate",
            ));
        }
        let mut previous_separator = true; // no separator at the start
        for (i, c) in s.char_indices() {
            let column = i + 1;
            match c {
                'a'..='z' | '0'..='9' => previous_separator = false,
                '.' | '_' | '-' => {
                    if previous_separator {
                        return Err(syntax_at(
                            column,
                            format!(
                                "found {} in a coordinate, expected a lower-case letter or digit \
                                 (separators `.`, `_`, `-` stand only between letters and digits)",
                                shown(&c.to_string())
                            ),
                        ));
                    }
                    previous_separator = true;
                }
                _ => {
                    return Err(syntax_at(
                        column,
                        format!(
                            "found {} in a coordinate, expected a lower-case letter, digit, `.`, `_` or `-`",
                            shown(&c.to_string())
                        ),
                    ));
                }
            }
        }
        if previous_separator {
            return Err(syntax_at(
                s.len(),
                "found a separator at the end of a coordinate, expected a lower-case letter or digit",
            ));
        }
        if s.len() > Self::MAX_LEN {
            return Err(syntax_at(
                Self::MAX_LEN + 1,
                format!(
                    "found a coordinate of {} characters, expected at most {}",
                    s.len(),
                    Self::MAX_LEN
                ),
            ));
        }
        Ok(())
    }
}

impl FromStr for ArtifactCoordinate {
    type Err = JournalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // Only valid coordinates are stored there: one seen before in this
        // process needs no validation.
        if let Some(text) = Text::found_in(&COORDINATES, s) {
            return Ok(ArtifactCoordinate(text));
        }
        Self::validate(s)?;
        Ok(ArtifactCoordinate(Text::stored_in(&COORDINATES, s)))
    }
}

impl fmt::Display for ArtifactCoordinate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_str())
    }
}

impl fmt::Debug for ArtifactCoordinate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ArtifactCoordinate({:?})", self.0.as_str())
    }
}

impl AsRef<str> for ArtifactCoordinate {
    fn as_ref(&self) -> &str {
        self.0.as_str()
    }
}

impl std::borrow::Borrow<str> for ArtifactCoordinate {
    fn borrow(&self) -> &str {
        self.0.as_str()
    }
}
