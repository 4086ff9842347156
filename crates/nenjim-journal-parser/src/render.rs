//! The canonical text of a revision: the inverse of parsing.
//!
//! The canonical form is the grammar with every choice fixed: LF line
//! endings and a final LF, no comments, single spaces between tokens, no
//! trailing spaces, the header lines in order (`INFORMATION` only when
//! present), one blank line before each `RELEASE` block and one before the
//! policy statements, properties in grammar order with `DEPENDS`,
//! `EXCLUDES` and `PREFERS` in the revision's order, and every token in its
//! value type's `Display` form (quoted strings with canonical escapes).

use std::fmt::Write as _;

use nenjim_journal_api::model::JournalRevision;

use crate::header::FORMAT_VALUE;

/// Writes the canonical text of `revision`.
pub(crate) fn render(revision: &JournalRevision) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_revision(&mut out, revision);
    out
}

fn write_revision(out: &mut String, revision: &JournalRevision) -> std::fmt::Result {
    writeln!(out, "FORMAT {FORMAT_VALUE}")?;
    writeln!(out, "ARTIFACT {}", revision.coordinate())?;
    writeln!(out, "JOURNAL_VERSION {}", revision.journal_version())?;
    match revision.predecessor() {
        Some(digest) => writeln!(out, "PREDECESSOR {digest}")?,
        None => writeln!(out, "PREDECESSOR GENESIS")?,
    }
    writeln!(out, "DESCRIPTION {}", revision.description())?;
    if let Some(uri) = revision.information() {
        writeln!(out, "INFORMATION {uri}")?;
    }
    for release in revision.releases() {
        writeln!(out)?;
        writeln!(out, "RELEASE {}", release.version())?;
        writeln!(out, "  LICENSE {}", release.license())?;
        writeln!(out, "  CONTENT {}", release.content())?;
        if let Some(description) = release.description() {
            writeln!(out, "  DESCRIPTION {description}")?;
        }
        for d in release.dependencies() {
            writeln!(out, "  DEPENDS {d}")?;
        }
        for x in release.exclusions() {
            writeln!(out, "  EXCLUDES {x}")?;
        }
        for p in release.preferences() {
            writeln!(out, "  PREFERS {p}")?;
        }
    }
    if !revision.policy().is_empty() {
        writeln!(out)?;
    }
    // A statement's line is its `Display` (the one the command prints).
    for statement in revision.policy() {
        writeln!(out, "{statement}")?;
    }
    Ok(())
}
