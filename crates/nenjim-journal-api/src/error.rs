//! The one error type of the Journal, [`JournalError`], and its [`ErrorKind`].
//!
//! A `JournalError` is a leaf (its [`ErrorKind`] and a message saying what was
//! found and what was expected) plus typed context: the file or directory it
//! concerns, and the 1-based line and column inside a text. Context never
//! hides the leaf: [`JournalError::kind`] is always the leaf's kind, and
//! [`std::error::Error::source`] reaches the underlying cause (for
//! [`ErrorKind::Io`], the operating system's `std::io::Error`).
//!
//! `Display` reads like a compiler diagnostic:
//!
//! ```
//! use nenjim_journal_api::error::ErrorKind;
//! # use nenjim_journal_api::model::build::{error, ErrorContext};
//! # let e = error(ErrorKind::Syntax, "found `RELEASE`, expected `FORMAT nenjim-journal/1`")
//! #     .at(3, 1)
//! #     .with_path("journals/serde/20261129T101530Z.journal");
//! // `e`: an error a Journal returned
//! assert_eq!(
//!     e.to_string(),
//!     "journals/serde/20261129T101530Z.journal:3:1: found `RELEASE`, expected `FORMAT nenjim-journal/1`"
//! );
//! assert_eq!(e.kind(), ErrorKind::Syntax);
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use crate::model::build::ErrorContext;

/// What went wrong, independent of where.
///
/// The kinds are grouped by the layer that reports them: lifecycle
/// (`NotStarted` …), text (`EmptyInput`, `Syntax`, `Semantic`), chain
/// (`Conflict` … `ReleaseRewritten`), filesystem (`RootMissing` … `Io`),
/// the change feed (`FollowUnsupported`), the append path (`LeaseHeld` …
/// `LedgerMismatch`) and the verifiable ledger (`CheckpointInvalid`,
/// `CheckpointMismatch`, `Rollback`). New kinds may be added.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    /// A query or refresh before a successful start (or after a failed one).
    NotStarted,
    /// A second `start()`: the first call is the only accepted attempt.
    AlreadyStarted,
    /// A query or refresh after `stop()`.
    Stopped,
    /// A text with no non-ignorable line.
    EmptyInput,
    /// The text does not follow the grammar of the format.
    Syntax,
    /// The text follows the grammar but breaks a semantic rule.
    Semantic,
    /// The same artifact and Journal version is already stored with another digest.
    Conflict,
    /// A second genesis revision for an artifact that already has one.
    DuplicateGenesis,
    /// The predecessor digest names no stored revision.
    UnknownPredecessor,
    /// The predecessor digest names a revision of another artifact.
    CrossArtifactPredecessor,
    /// The predecessor is a stored revision of the artifact but not its head (a fork).
    StalePredecessor,
    /// The Journal version is not greater than the head's.
    NonIncreasingVersion,
    /// A release of the predecessor is missing or changed in the successor.
    ReleaseRewritten,
    /// The configured root does not exist.
    RootMissing,
    /// The configured root is not a directory.
    RootNotDirectory,
    /// The configured root cannot be read.
    RootUnreadable,
    /// An entry that has no place in the on-disk layout.
    UnexpectedEntry,
    /// A file whose name is not a valid revision or example file name.
    InvalidFileName,
    /// A revision whose `ARTIFACT` differs from its directory name.
    CoordinateMismatch,
    /// A revision whose `JOURNAL_VERSION` differs from its file name stem.
    VersionMismatch,
    /// A file that is not valid UTF-8.
    InvalidUtf8,
    /// A file over the loader's size limit.
    TooLarge,
    /// An input/output failure; the OS error is the `source()`.
    Io,
    /// A replay request asked to follow future revisions, which is not supported.
    FollowUnsupported,
    /// Another live writer holds the root's lease.
    LeaseHeld,
    /// This writer's lease expired or was taken over: every later append is refused.
    LeaseLost,
    /// The ledger advanced under this writer: nothing of this append was committed.
    TipMoved,
    /// A new release's content has no blob in the content store.
    BlobMissing,
    /// A new release's content blob differs from its pointer (size or SHA-256).
    BlobMismatch,
    /// A recorded revision is missing or its bytes no longer match the ledger,
    /// or the ledger itself is malformed.
    LedgerMismatch,
    /// A signed ledger's checkpoint is missing, malformed or wrongly
    /// signed (a bad signature, no signature of the expected key), a note
    /// key is malformed, or a writer lacks the key of a signed root
    /// (format section 10).
    CheckpointInvalid,
    /// The records do not hash to the checkpoint's root, or its size
    /// differs from the ledger's (format section 10).
    CheckpointMismatch,
    /// A checkpoint smaller than, or not consistent with, one already
    /// verified (format section 10).
    Rollback,
}

impl ErrorKind {
    /// The kind's name, as written in the API (`"Syntax"`, `"StalePredecessor"` …).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NotStarted => "NotStarted",
            ErrorKind::AlreadyStarted => "AlreadyStarted",
            ErrorKind::Stopped => "Stopped",
            ErrorKind::EmptyInput => "EmptyInput",
            ErrorKind::Syntax => "Syntax",
            ErrorKind::Semantic => "Semantic",
            ErrorKind::Conflict => "Conflict",
            ErrorKind::DuplicateGenesis => "DuplicateGenesis",
            ErrorKind::UnknownPredecessor => "UnknownPredecessor",
            ErrorKind::CrossArtifactPredecessor => "CrossArtifactPredecessor",
            ErrorKind::StalePredecessor => "StalePredecessor",
            ErrorKind::NonIncreasingVersion => "NonIncreasingVersion",
            ErrorKind::ReleaseRewritten => "ReleaseRewritten",
            ErrorKind::RootMissing => "RootMissing",
            ErrorKind::RootNotDirectory => "RootNotDirectory",
            ErrorKind::RootUnreadable => "RootUnreadable",
            ErrorKind::UnexpectedEntry => "UnexpectedEntry",
            ErrorKind::InvalidFileName => "InvalidFileName",
            ErrorKind::CoordinateMismatch => "CoordinateMismatch",
            ErrorKind::VersionMismatch => "VersionMismatch",
            ErrorKind::InvalidUtf8 => "InvalidUtf8",
            ErrorKind::TooLarge => "TooLarge",
            ErrorKind::Io => "Io",
            ErrorKind::FollowUnsupported => "FollowUnsupported",
            ErrorKind::LeaseHeld => "LeaseHeld",
            ErrorKind::LeaseLost => "LeaseLost",
            ErrorKind::TipMoved => "TipMoved",
            ErrorKind::BlobMissing => "BlobMissing",
            ErrorKind::BlobMismatch => "BlobMismatch",
            ErrorKind::LedgerMismatch => "LedgerMismatch",
            ErrorKind::CheckpointInvalid => "CheckpointInvalid",
            ErrorKind::CheckpointMismatch => "CheckpointMismatch",
            ErrorKind::Rollback => "Rollback",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The cause kept behind a [`JournalError`].
type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

/// An error of the Journal: a kind, a message, and where it happened.
///
/// Implementations make one with the functions of
/// [`model::build`](crate::model::build) and add context with its
/// [`ErrorContext`] trait. See the
/// [module docs](self) for the `Display` form.
///
/// One pointer wide (the fields are boxed): every `Result` of the parser's
/// inner loops carries it, and a `Result` as wide as the whole error made
/// each of them a copy of ~100 bytes (callgrind: a `memcpy` per token).
#[derive(thiserror::Error)]
#[error(transparent)]
pub struct JournalError(Box<Inner>);

/// The fields of a [`JournalError`], which shows them (`Display` is the
/// error's, through `transparent`) and gives its source.
#[derive(Debug, thiserror::Error)]
#[error("{}", Diagnostic(self))]
struct Inner {
    kind: ErrorKind,
    message: String,
    path: Option<PathBuf>,
    line: Option<usize>,
    column: Option<usize>,
    #[source]
    source: Option<Source>,
}

impl JournalError {
    /// A new error of `kind` with a message saying what was found and what was expected.
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> JournalError {
        JournalError(Box::new(Inner {
            kind,
            message: message.into(),
            path: None,
            line: None,
            column: None,
            source: None,
        }))
    }

    /// The leaf's kind, through any context.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The file or directory it concerns, if any.
    pub fn path(&self) -> Option<&Path> {
        self.0.path.as_deref()
    }

    /// The 1-based line in the text, for `Syntax` and `Semantic` errors.
    pub fn line(&self) -> Option<usize> {
        self.0.line
    }

    /// The 1-based column in the line, for `Syntax` and `Semantic` errors.
    pub fn column(&self) -> Option<usize> {
        self.0.column
    }

    /// What is wrong, without the location prefix.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

/// The context an implementation adds (see [`ErrorContext`]).
impl ErrorContext for JournalError {
    fn at(mut self, line: usize, column: usize) -> JournalError {
        self.0.line = Some(line.max(1));
        self.0.column = Some(column.max(1));
        self
    }
    fn relocated(mut self, line: usize, column: usize) -> JournalError {
        let inner_column = self.0.column.unwrap_or(1);
        self.0.line = Some(line.max(1));
        self.0.column = Some(column.max(1) + inner_column - 1);
        self
    }
    fn with_path(mut self, path: impl Into<PathBuf>) -> JournalError {
        if self.0.path.is_none() {
            self.0.path = Some(path.into());
        }
        self
    }
    fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> JournalError {
        self.0.source = Some(Box::new(source));
        self
    }
}

impl fmt::Debug for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.0;
        f.debug_struct("JournalError")
            .field("kind", &inner.kind)
            .field("message", &inner.message)
            .field("path", &inner.path)
            .field("line", &inner.line)
            .field("column", &inner.column)
            .field("source", &inner.source)
            .finish()
    }
}

/// Shows a found token in a diagnostic (see [`crate::model::build::shown`]).
pub(crate) fn shown(found: &str) -> String {
    const MAX: usize = 40;
    if found.is_empty() {
        return "nothing".to_owned();
    }
    let mut out = String::from("`");
    for (i, c) in found.chars().enumerate() {
        if i == MAX {
            out.push('…');
            break;
        }
        out.extend(c.escape_debug());
    }
    out.push('`');
    out
}

struct Diagnostic<'a>(&'a Inner);

impl fmt::Display for Diagnostic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = self.0;
        let mut prefixed = false;
        if let Some(path) = &inner.path {
            write!(f, "{}", path.display())?;
            prefixed = true;
        }
        if let Some(line) = inner.line {
            if prefixed {
                f.write_str(":")?;
            }
            write!(f, "{line}")?;
            if let Some(column) = inner.column {
                write!(f, ":{column}")?;
            }
            prefixed = true;
        }
        if prefixed {
            f.write_str(": ")?;
        }
        f.write_str(&inner.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn display_without_location_is_the_message() {
        let e = JournalError::new(ErrorKind::NotStarted, "the journal has not been started");
        assert_eq!(e.to_string(), "the journal has not been started");
        assert_eq!(e.line(), None);
    }

    #[test]
    fn display_with_line_only() {
        let e = crate::model::build::syntax_error(2, 5, "found `x`, expected a keyword");
        assert_eq!(e.to_string(), "2:5: found `x`, expected a keyword");
    }

    #[test]
    fn relocation_adds_the_token_column() {
        let e = crate::model::build::syntax_error(1, 3, "bad").relocated(7, 10);
        assert_eq!((e.line(), e.column()), (Some(7), Some(12)));
    }

    #[test]
    fn io_keeps_the_os_error_as_source() {
        let os = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let e = crate::model::build::io_error("/x/y", "cannot read", os);
        assert_eq!(e.kind(), ErrorKind::Io);
        assert_eq!(e.path(), Some(Path::new("/x/y")));
        let source = e.source().and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(
            source.map(std::io::Error::kind),
            Some(std::io::ErrorKind::PermissionDenied)
        );
    }

    #[test]
    fn the_innermost_path_wins() {
        let e = JournalError::new(ErrorKind::Syntax, "x")
            .with_path("inner")
            .with_path("outer");
        assert_eq!(e.path(), Some(Path::new("inner")));
    }
}
