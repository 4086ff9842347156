//! Section 3 of the format: the header.
//!
//! `FORMAT`, `ARTIFACT`, `JOURNAL_VERSION`, `PREDECESSOR` and `DESCRIPTION`,
//! each exactly once and in this order; the optional `INFORMATION` that may
//! follow `DESCRIPTION` is read by the body (see `document.rs`), which is
//! where a header keyword after the header is refused.

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::build::RevisionBuilder;
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, RevisionDigest};

use crate::interner::Interner;
use crate::lines::LineClass;
use crate::tokens::{Cursor, Token, shown};

/// The only format this crate reads and writes.
pub(crate) const FORMAT_VALUE: &str = "nenjim-journal/1";

/// The header keywords, in their order, with the line each expects.
pub(crate) const STEPS: [(&str, &str); 5] = [
    ("FORMAT", "`FORMAT nenjim-journal/1`"),
    ("ARTIFACT", "`ARTIFACT <coordinate>`"),
    ("JOURNAL_VERSION", "`JOURNAL_VERSION <timestamp>`"),
    (
        "PREDECESSOR",
        "`PREDECESSOR GENESIS` or `PREDECESSOR <digest>`",
    ),
    ("DESCRIPTION", "`DESCRIPTION <quoted>`"),
];

/// Every keyword that belongs to the header (`INFORMATION` included).
pub(crate) fn is_header_keyword(keyword: &str) -> bool {
    keyword == "INFORMATION" || STEPS.iter().any(|(k, _)| *k == keyword)
}

/// The header read so far.
#[derive(Debug, Default)]
pub(crate) struct Header {
    step: usize,
    coordinate: Option<ArtifactCoordinate>,
    version: Option<JournalVersion>,
    predecessor: Option<Option<RevisionDigest>>,
}

impl Header {
    /// What the next header line must be.
    pub(crate) fn expected(&self) -> &'static str {
        STEPS
            .get(self.step)
            .map_or("the end of the header", |(_, e)| e)
    }

    /// Reads one non-ignorable line of the header; returns the revision
    /// builder once `DESCRIPTION`, the last required line, is read.
    pub(crate) fn line(
        &mut self,
        class: LineClass,
        keyword: Token<'_>,
        mut cursor: Cursor<'_>,
        interner: &mut Interner,
    ) -> Result<Option<RevisionBuilder>, JournalError> {
        let line = cursor.line();
        let expected = self.expected();
        if class == LineClass::Property {
            return Err(line.syntax(
                0,
                format!(
                    "found an indented line {}, expected {expected} at column 1",
                    shown(keyword.text)
                ),
            ));
        }
        let Some((want, _)) = STEPS.get(self.step) else {
            return Err(line.syntax(0, "found a line after the header, expected none"));
        };
        if keyword.text != *want {
            let earlier = STEPS
                .iter()
                .take(self.step)
                .any(|(k, _)| *k == keyword.text);
            let message = if earlier {
                format!(
                    "found a second `{}` line, expected {expected}",
                    keyword.text
                )
            } else {
                format!("found {}, expected {expected}", shown(keyword.text))
            };
            return Err(line.syntax(keyword.start, message));
        }
        match self.step {
            0 => {
                let token = cursor.token("`nenjim-journal/1`")?;
                if token.text != FORMAT_VALUE {
                    return Err(line.syntax(
                        token.start,
                        format!(
                            "found format {}, expected `{FORMAT_VALUE}`",
                            shown(token.text)
                        ),
                    ));
                }
            }
            1 => {
                // Interned: every revision of the artifact, and its
                // releases, then share one copy of the coordinate.
                let (coordinate, _) = interner.coordinate(&mut cursor, "an artifact coordinate")?;
                self.coordinate = Some(coordinate);
            }
            2 => {
                let (version, _) =
                    cursor.value::<JournalVersion>("a Journal version `YYYYMMDDTHHMMSSZ`")?;
                self.version = Some(version);
            }
            3 => {
                let token = cursor.token("`GENESIS` or a revision digest `sha256:<hex>`")?;
                let predecessor = if token.text == "GENESIS" {
                    None
                } else {
                    Some(
                        token
                            .text
                            .parse::<RevisionDigest>()
                            .map_err(|e| line.relocate(e, token.start))?,
                    )
                };
                self.predecessor = Some(predecessor);
            }
            _ => {
                let (description, _) = interner.quoted(&mut cursor, "a quoted description")?;
                cursor.finish()?;
                let (Some(coordinate), Some(version), Some(predecessor)) = (
                    self.coordinate.take(),
                    self.version,
                    self.predecessor.take(),
                ) else {
                    return Err(line.syntax(0, "found an incomplete header, expected all of it"));
                };
                self.step = STEPS.len();
                return Ok(Some(RevisionBuilder::new(
                    coordinate,
                    version,
                    predecessor,
                    description,
                )));
            }
        }
        cursor.finish()?;
        self.step += 1;
        Ok(None)
    }
}
