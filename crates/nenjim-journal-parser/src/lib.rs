//! The nom grammar of the Nenjim Journal text format (sections 1–5): text to revision, and back.
//!
//! INTERFACE STUB: the parser issue replaces these bodies; the signatures are fixed.
#![forbid(unsafe_code)]

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::JournalRevision;

/// Parses and validates one complete revision text (sections 1–5), computing
/// the SHA-256 of its exact bytes. The revision's sequence is 0.
pub fn parse(text: &str) -> Result<JournalRevision, JournalError> {
    let _ = text;
    todo!("parser issue")
}

/// Renders a revision in canonical form: `parse(&render(r))` has the same worldview as `r`.
pub fn render(revision: &JournalRevision) -> String {
    let _ = revision;
    todo!("parser issue")
}
