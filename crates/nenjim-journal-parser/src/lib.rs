//! The grammar of the Nenjim Journal text format (nom tokens, hand-written
//! line dispatch): text to revision, and back.
//!
//! # Brief overview
//!
//! [`parse`] takes the text of one Journal revision (a `&str`, already read
//! and decoded as UTF-8 by the caller: this crate does no I/O) and returns a
//! validated [`JournalRevision`] whose digest is the SHA-256 of the exact
//! text, or the first error in text order as a [`JournalError`] of kind
//! `EmptyInput`, `Syntax` or `Semantic`, located by 1-based line and
//! character column, saying what was found and what was expected.
//! [`render`] goes the other way and writes a revision in canonical form.
//!
//! The text flows through files named after the format's parts
//! (`docs/format.md`, sections 1 to 5):
//!
//! - `index.rs` (sections 1 and 2) makes the text's structural index in
//!   one pass over its bytes, 64 at a time (vector compares): a bitmask of
//!   its `\n` bytes, one of its `\n` and space bytes (where tokens end),
//!   whether it holds any other control byte; and the text's SHA-256 over
//!   the same bytes while they are in cache;
//! - `lines.rs` (section 1) splits the text into lines on the index,
//!   without copying, and refuses a byte-order mark, a lone CR, tabs and
//!   control characters, and wrong indentation;
//! - `tokens.rs` (section 2) reads keywords and tokens: `Quick` reads the
//!   property lines written the usual way (one space between tokens) on
//!   the index, and a `Cursor` (byte scans) reads every other line, and
//!   any line `Quick` does not take, with every error located; each token
//!   goes to its value type in `nenjim_journal_api::valuetypes`, which
//!   owns the token's syntax;
//! - `header.rs` (section 3), `release.rs` (section 4) and `policy.rs`
//!   (section 5) read their lines, and `document.rs` decides which line may
//!   come where;
//! - `semantic.rs` locates the errors of the api builders, which own the
//!   semantic rules of sections 4 and 5;
//! - `render.rs` writes the canonical text.
//!
//! Chains (section 6) and files (section 7) are not this crate's business.
//!
//! # Where the specification is silent
//!
//! - A lone CR is a syntax error everywhere, comment lines included.
//! - Within one line, a lone CR or control character is reported first (at
//!   its column), then token errors from left to right, then the semantic
//!   rule the whole statement breaks (at the token it concerns: the
//!   artifact of a `DEPENDS`, the requirement of a `YANK`…).
//! - Release order is checked at the `RELEASE` line, before the block's
//!   properties; a missing `LICENSE` or `CONTENT` is reported where the block
//!   ends (the next top-level line, or the end of the text).
//! - The end of the text is located just after its last character (the line
//!   after the last terminator, column 1, when the text ends with one).
//!   `EmptyInput` has no location.
//! - Tokens may be separated by any number of spaces, everywhere; the
//!   license is the rest of the line as written (trailing spaces trimmed).
//! - `PREFERS` may name the release's own artifact, or one it depends on.
//!
//! ```
//! use nenjim_journal_api::error::ErrorKind;
//!
//! let text = "\
//! FORMAT nenjim-journal/1
//! ARTIFACT left-pad
//! JOURNAL_VERSION 20261129T101530Z
//! PREDECESSOR GENESIS
//! DESCRIPTION \"pads strings on the left\"
//!
//! RELEASE 1.0.0
//!   LICENSE MIT
//!   CONTENT sha256:1e0a5b9c3d2f4a6b8c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d 4821
//! RECOMMEND 1.0.0
//! ";
//! let revision = nenjim_journal_parser::parse(text)?;
//! assert_eq!(revision.coordinate().as_str(), "left-pad");
//! assert!(revision.releases()[0].policy().is_recommended());
//!
//! // The canonical text says the same thing.
//! let again = nenjim_journal_parser::parse(&nenjim_journal_parser::render(&revision))?;
//! assert!(again.same_worldview(&revision));
//!
//! // Errors are located and say what was found and what was expected.
//! let error = nenjim_journal_parser::parse("FORMAT nenjim-journal/2\n").unwrap_err();
//! assert_eq!(error.kind(), ErrorKind::Syntax);
//! assert_eq!((error.line(), error.column()), (Some(1), Some(8)));
//! assert_eq!(
//!     error.to_string(),
//!     "1:8: found format `nenjim-journal/2`, expected `nenjim-journal/1`"
//! );
//! # Ok::<(), nenjim_journal_api::error::JournalError>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(test)]
mod differential;
mod document;
mod header;
mod index;
mod interner;
mod lines;
mod policy;
mod release;
mod render;
mod semantic;
mod tokens;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::JournalRevision;

pub use interner::Interner;

/// The value of the `FORMAT` line this crate reads and writes.
pub const FORMAT: &str = header::FORMAT_VALUE;

/// Whether `text` has no line other than blank and comment lines (section
/// 1): exactly the texts [`parse`] refuses as
/// [`ErrorKind::EmptyInput`](nenjim_journal_api::error::ErrorKind::EmptyInput).
///
/// A carriage return that is not part of a CRLF terminator (one inside a
/// line, or one that ends the text) is a lone CR, so its line is not
/// ignorable (the parser reports it): this never hides a syntax error.
///
/// ```
/// use nenjim_journal_parser::is_blank;
/// assert!(is_blank(""));
/// assert!(is_blank("  \r\n\n# only a comment\n"));
/// assert!(!is_blank("FORMAT nenjim-journal/1\n"));
/// assert!(!is_blank("\t\n"));
/// assert!(!is_blank("\r"));
/// ```
pub fn is_blank(text: &str) -> bool {
    lines::is_blank(text)
}

/// Parses and validates one complete revision text (sections 1–5), computing
/// the SHA-256 of its exact bytes. The revision's sequence is 0.
///
/// A text with no line other than blank and comment lines is
/// [`ErrorKind::EmptyInput`](nenjim_journal_api::error::ErrorKind::EmptyInput)
/// (a byte-order mark is a syntax error at 1:1 first). Otherwise the first
/// error in text order is returned, of kind `Syntax` or `Semantic`, with its
/// 1-based line and column (in characters). Never panics.
pub fn parse(text: &str) -> Result<JournalRevision, JournalError> {
    document::parse(text, &mut Interner::for_text(text), None).map(|(revision, _)| revision)
}

/// [`parse`], sharing validated coordinates and licenses with the other
/// texts parsed through the same `interner` (equal values then share one
/// allocation across revisions). The result, and any error, is exactly
/// [`parse`]'s.
pub fn parse_with(text: &str, interner: &mut Interner) -> Result<JournalRevision, JournalError> {
    document::parse(text, interner, None).map(|(revision, _)| revision)
}

/// A revision parsed by [`parse_after`], kept with its text and the place of
/// each of its release blocks, so that the next revision of the same
/// artifact can be parsed after it.
#[derive(Clone, Debug)]
pub struct ParsedText {
    text: String,
    revision: JournalRevision,
    /// Where each release block is in `text`, one per release (a `Vec`
    /// kept as the parse built it: boxing it would copy it).
    blocks: Vec<document::Block>,
}

impl ParsedText {
    /// The revision.
    pub fn revision(&self) -> &JournalRevision {
        &self.revision
    }

    /// The text it was parsed from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The revision, dropping the text.
    pub fn into_revision(self) -> JournalRevision {
        self.revision
    }

    /// The text, dropping the revision: a loader reads the file after the
    /// next into its allocation.
    pub fn into_text(self) -> String {
        self.text
    }
}

/// [`parse_with`], after `previous`: a successor restates every release of
/// its predecessor, usually byte for byte, and those blocks need not be read
/// again.
///
/// A release block (its `RELEASE` line and everything up to the next
/// top-level line or the end of the text, comment and blank lines included,
/// less the empty lines that end it) that is byte-for-byte a block of
/// `previous`, for the same version of the same artifact and ending the
/// same way (the empty lines after it, then a line that cannot continue
/// it, or the end of the text), gets `previous`'s release values
/// (shared, not copied) instead of being read line by line. Identical bytes
/// in the same artifact always give identical values, and the rules that
/// look beyond a block (release order, policy) are still checked, so the
/// result, and any error, is exactly [`parse_with`]'s on the same text; only
/// the work differs. `previous` may be anything, of any artifact: what does
/// not match is simply read. When `previous` is of the same artifact, the
/// result shares its values as
/// [`sharing_releases_with`](nenjim_journal_api::model::build::sharing_releases_with)
/// does (equal, not only the reused blocks).
///
/// ```
/// use nenjim_journal_parser::{Interner, parse_after};
///
/// let genesis = "FORMAT nenjim-journal/1\nARTIFACT left-pad\n\
///     JOURNAL_VERSION 20261129T101530Z\nPREDECESSOR GENESIS\nDESCRIPTION \"pads\"\n\
///     \nRELEASE 1.0.0\n  LICENSE MIT\n  CONTENT sha256:1e0a5b9c3d2f4a6b8c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d 4821\n";
/// let mut interner = Interner::default();
/// let first = parse_after(genesis.to_owned(), &mut interner, None)?;
/// let successor = format!(
///     "{}RECOMMEND 1.0.0\n",
///     genesis
///         .replace("T101530Z", "T111530Z")
///         .replace("GENESIS", &first.revision().digest().to_string())
/// );
/// let second = parse_after(successor.clone(), &mut interner, Some(&first))?;
/// let (old, new) = (&first.revision().releases()[0], &second.revision().releases()[0]);
/// assert!(nenjim_journal_api::model::build::shares_values(new, old));
/// assert!(new.policy().is_recommended() && !old.policy().is_recommended());
/// assert_eq!(second.into_revision(), nenjim_journal_parser::parse(&successor)?);
/// # Ok::<(), nenjim_journal_api::error::JournalError>(())
/// ```
pub fn parse_after(
    text: String,
    interner: &mut Interner,
    previous: Option<&ParsedText>,
) -> Result<ParsedText, JournalError> {
    let previous = previous.map(|p| document::Previous {
        text: &p.text,
        revision: &p.revision,
        blocks: &p.blocks,
    });
    let (revision, blocks) = document::parse(&text, interner, previous)?;
    // The rest of the revision (header values, policy, the releases read
    // line by line that equal one of `previous`'s) shares `previous`'s
    // values here, on the parsing thread: the chain's ingestion shares
    // with its head again, and finds them already shared.
    let revision = match previous {
        Some(p) if p.revision.coordinate() == revision.coordinate() => {
            nenjim_journal_api::model::build::sharing_releases_with(revision, p.revision)
        }
        _ => revision,
    };
    Ok(ParsedText {
        text,
        revision,
        blocks,
    })
}

/// Renders a revision in canonical form: `parse(&render(r))` has the same
/// worldview as `r`, and rendering that again gives the same text.
///
/// The canonical form: LF line endings with a final LF, no comments, single
/// spaces, the header in order, a blank line before each `RELEASE` block and
/// before the policy statements, and every token in its `Display` form.
pub fn render(revision: &JournalRevision) -> String {
    render::render(revision)
}
