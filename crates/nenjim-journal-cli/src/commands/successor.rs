//! `successor <file> [--at <timestamp>] [-o <file>]`: print a revision that follows the
//! given one. The text is the source's, byte for byte, except two header
//! lines: `JOURNAL_VERSION` (the new instant) and `PREDECESSOR` (the
//! source's digest). Line endings, comments and spacing elsewhere are kept.
//!
//! The source must parse (it is linted first), and the new instant must be
//! strictly after the source's; otherwise nothing is printed and the exit
//! code is 1.
//!
//! With `-o <file>` the text goes to a new file instead: built whole in
//! memory first, then created without ever replacing an existing file
//! (exit code 2 if it exists) and never left empty or partial.

use std::ops::Range;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind};
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_store::{BlobStore as _, Created, RealFileSystem};

use super::lint::parse_text;
use super::read_text;
use crate::args::SuccessorArgs;
use crate::failure::{CliError, Status};
use crate::report::path_text;
use crate::ui::Ui;

pub fn run(args: &SuccessorArgs, ui: &Ui) -> Result<Status, CliError> {
    let path = &args.file;
    if let Some(output) = &args.output
        && std::fs::symlink_metadata(output).is_ok()
    {
        // Refused before anything else; the create below is the real guard.
        return Err(exists(output));
    }
    let text = read_text(path)?;
    let source = parse_text(path, &text)?;
    // Without --at: now, or one second after the source when the clock is
    // at or behind it (as the publishing commands stamp).
    let at = match args.at {
        Some(at) => at,
        None => super::publish::stamp(Some(&source))?,
    };
    if at <= source.journal_version() {
        return Err(CliError::refused(
            "NotAfterSource",
            format!(
                "{}: found --at {at}, expected a JOURNAL_VERSION after the source's {}",
                path_text(path),
                source.journal_version()
            ),
        ));
    }
    let digest = RevisionDigest::of_text(&text);
    let version_line = header_line(&text, "JOURNAL_VERSION").ok_or_else(|| missing_header(path))?;
    let predecessor_line = header_line(&text, "PREDECESSOR").ok_or_else(|| missing_header(path))?;
    let mut edits = [
        (version_line, format!("JOURNAL_VERSION {at}")),
        (predecessor_line, format!("PREDECESSOR {digest}")),
    ];
    // Replace the later line first so the earlier range stays valid.
    edits.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
    let mut edited = text.clone();
    for (range, line) in edits {
        edited.replace_range(range, &line);
    }
    // The edit must give a valid revision that says exactly what was asked.
    let successor = parse_text(path, &edited)?;
    if successor.journal_version() != at || successor.predecessor() != Some(&digest) {
        return Err(missing_header(path));
    }
    match &args.output {
        None => ui.print(&edited)?,
        Some(output) => {
            // The writer's create-if-absent: a temporary file beside the
            // output, synced, linked to its name (never replacing a file).
            let created = RealFileSystem
                .put_if_absent(output, edited.as_bytes())
                .map_err(|e| CliError::io(output, "cannot write the successor", e))?;
            if created == Created::Exists {
                return Err(exists(output));
            }
            ui.print(&format!(
                "wrote {}: {} {} following {digest}\n",
                path_text(output),
                successor.coordinate(),
                successor.journal_version()
            ))?;
        }
    }
    Ok(Status::Ok)
}

/// The byte range (terminator excluded) of the first top-level line whose
/// first token is `keyword`. In a text that parses, that is the header line:
/// header lines start in column 1, comments start with `#`, and quoted
/// strings cannot span lines.
fn header_line(text: &str, keyword: &str) -> Option<Range<usize>> {
    let mut start = 0;
    for raw in text.split_inclusive('\n') {
        let content = raw.strip_suffix('\n').unwrap_or(raw);
        let content = content.strip_suffix('\r').unwrap_or(content);
        if let Some(rest) = content.strip_prefix(keyword)
            && (rest.is_empty() || rest.starts_with(' '))
        {
            return Some(start..start + content.len());
        }
        start += raw.len();
    }
    None
}

/// `-o` names a file that exists: an I/O refusal (exit code 2).
fn exists(output: &std::path::Path) -> CliError {
    CliError::io(
        output,
        "cannot write the successor: the file exists (successor -o never overwrites; name a new file)",
        std::io::Error::from(std::io::ErrorKind::AlreadyExists),
    )
}

fn missing_header(path: &std::path::Path) -> CliError {
    error::error(
        ErrorKind::Syntax,
        "found no JOURNAL_VERSION or PREDECESSOR line to edit, expected a parsed revision's header",
    )
    .with_path(path)
    .into()
}

#[cfg(test)]
mod tests {
    use super::header_line;

    #[test]
    fn finds_header_lines_and_keeps_terminators_out() {
        let text = "# JOURNAL_VERSION in a comment\r\nJOURNAL_VERSION 20260101T000000Z  \r\nPREDECESSOR GENESIS\nX";
        let jv = header_line(text, "JOURNAL_VERSION").unwrap_or(0..0);
        assert_eq!(&text[jv], "JOURNAL_VERSION 20260101T000000Z  ");
        let p = header_line(text, "PREDECESSOR").unwrap_or(0..0);
        assert_eq!(&text[p], "PREDECESSOR GENESIS");
        assert_eq!(header_line(text, "INFORMATION"), None);
    }
}
