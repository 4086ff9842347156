//! Where the semantic rules of sections 4 and 5 meet the text.
//!
//! The rules themselves live in the api builders
//! ([`RevisionBuilder`](nenjim_journal_api::model::RevisionBuilder) and
//! [`ReleaseBuilder`](nenjim_journal_api::model::ReleaseBuilder)), so that no
//! revision breaking them can exist whoever builds it. Their errors carry no
//! location; this module attaches the line and column of the statement that
//! broke the rule. It is the only place the parser turns a builder error
//! into a located one, so every semantic error points into the text.

use nenjim_journal_api::error::{ErrorContext as _, JournalError};

use crate::lines::Line;

/// Locates a builder's error at byte `byte` of `line`.
pub(crate) fn located<T>(
    result: Result<T, JournalError>,
    line: &Line<'_>,
    byte: usize,
) -> Result<T, JournalError> {
    result.map_err(|e| e.at(line.number, line.column(byte)))
}
