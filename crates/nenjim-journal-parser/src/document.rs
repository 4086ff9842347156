//! The whole text: which line may come where (sections 1, 3, 4 and 5 together).
//!
//! Lines are read once, in order. Until `DESCRIPTION` they go to the
//! [`Header`]; after it the body accepts one optional `INFORMATION`, then
//! release blocks, then policy statements. A line in any other place (a
//! header keyword after the header, a `RELEASE` after a policy statement, a
//! property outside a release, an unknown keyword) is a syntax error. The
//! first error in text order is the one returned.

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::{JournalRevision, RevisionBuilder};
use nenjim_journal_api::valuetypes::{InformationUri, RevisionDigest};

use crate::header::{Header, is_header_keyword};
use crate::lines::{LineClass, Lines};
use crate::policy::{is_policy_keyword, statement};
use crate::release::{Interner, OpenRelease, Property};
use crate::tokens::{Cursor, Token, shown};

/// What the body expects next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Directly after `DESCRIPTION`: `INFORMATION` may come.
    AfterDescription,
    /// After `INFORMATION`: releases or policy.
    AfterInformation,
    /// After the first `RELEASE` line.
    Releases,
    /// After the first policy statement.
    Policy,
}

/// Everything after the header's `DESCRIPTION`.
#[derive(Debug)]
struct Body<'i> {
    revision: RevisionBuilder,
    stage: Stage,
    open: Option<OpenRelease>,
    interner: &'i mut Interner,
}

impl Body<'_> {
    fn line(
        &mut self,
        class: LineClass,
        keyword: Token<'_>,
        mut cursor: Cursor<'_>,
    ) -> Result<(), JournalError> {
        let line = cursor.line();
        let word = keyword.text;
        if class == LineClass::Property {
            return match (&mut self.open, self.stage) {
                (Some(open), _) => {
                    let coordinate = self.revision.coordinate().clone();
                    open.property(&coordinate, keyword, cursor, self.interner)
                }
                (None, Stage::Policy) => Err(line.syntax(
                    keyword.start,
                    format!(
                        "found an indented {} after a policy statement, expected a policy statement at column 1",
                        shown(word)
                    ),
                )),
                (None, _) => Err(line.syntax(
                    keyword.start,
                    format!(
                        "found an indented {} outside a release block, expected a top-level line at column 1",
                        shown(word)
                    ),
                )),
            };
        }
        if word == "INFORMATION" && self.stage == Stage::AfterDescription {
            let (uri, _) = cursor.value::<InformationUri>("an absolute URI")?;
            cursor.finish()?;
            self.revision.information(uri);
            self.stage = Stage::AfterInformation;
            return Ok(());
        }
        if word == "RELEASE" {
            if self.stage == Stage::Policy {
                return Err(line.syntax(
                    keyword.start,
                    "found `RELEASE` after a policy statement, expected a policy statement (releases come before policy)",
                ));
            }
            self.close(
                &format!("`{word}`"),
                (line.number, line.column(keyword.start)),
            )?;
            self.open = Some(OpenRelease::open(cursor, &self.revision)?);
            self.stage = Stage::Releases;
            return Ok(());
        }
        if is_policy_keyword(word) {
            self.close(
                &format!("`{word}`"),
                (line.number, line.column(keyword.start)),
            )?;
            self.stage = Stage::Policy;
            return statement(word, cursor, &mut self.revision);
        }
        let expected = match self.stage {
            Stage::Policy => "`YANK`, `DEPRECATE` or `RECOMMEND`",
            _ => "`RELEASE`, `YANK`, `DEPRECATE` or `RECOMMEND`",
        };
        let message = if word == "INFORMATION" {
            format!(
                "found `INFORMATION` here, expected it only directly after the header's `DESCRIPTION`; expected {expected}"
            )
        } else if is_header_keyword(word) {
            format!("found header line `{word}` after the header, expected {expected}")
        } else if Property::from_keyword(word).is_some() {
            format!(
                "found release property `{word}` at column 1, expected it indented by two spaces in a release block, or {expected}"
            )
        } else {
            format!("found {}, expected {expected}", shown(word))
        };
        Err(line.syntax(keyword.start, message))
    }

    /// Closes the open release block, if any, at `found` located at `at`.
    fn close(&mut self, found: &str, at: (usize, usize)) -> Result<(), JournalError> {
        match self.open.take() {
            Some(open) => open.close(&mut self.revision, found, at),
            None => Ok(()),
        }
    }
}

/// Parses and validates a whole text.
pub(crate) fn parse(text: &str, interner: &mut Interner) -> Result<JournalRevision, JournalError> {
    let mut lines = Lines::new(text)?;
    let mut header = Header::default();
    let mut body: Option<Body<'_>> = None;
    let mut any = false;
    for line in lines.by_ref() {
        let indent = match line.classify()? {
            LineClass::Ignorable => continue,
            LineClass::TopLevel => (LineClass::TopLevel, 0),
            LineClass::Property => (LineClass::Property, 2),
        };
        any = true;
        let mut cursor = Cursor::new(line, indent.1);
        let keyword = cursor.keyword();
        match body.as_mut() {
            Some(body) => body.line(indent.0, keyword, cursor)?,
            None => {
                if let Some(revision) = header.line(indent.0, keyword, cursor)? {
                    body = Some(Body {
                        revision,
                        stage: Stage::AfterDescription,
                        open: None,
                        interner: &mut *interner,
                    });
                }
            }
        }
    }
    if !any {
        return Err(JournalError::new(
            ErrorKind::EmptyInput,
            "found only blank and comment lines, expected a Journal revision starting with `FORMAT nenjim-journal/1`",
        ));
    }
    let end = lines.end();
    let Some(mut body) = body else {
        return Err(JournalError::syntax(
            end.0,
            end.1,
            format!("found the end of the text, expected {}", header.expected()),
        ));
    };
    body.close("the end of the text", end)?;
    Ok(body.revision.build(RevisionDigest::of_text(text)))
}
