//! The one error type of the Journal, [`JournalError`], and its [`ErrorKind`].
//!
//! A `JournalError` is a leaf (its [`ErrorKind`] and a message saying what was
//! found and what was expected) plus typed context: the file or directory it
//! concerns, and the 1-based line and column inside a text. Context never
//! hides the leaf: [`JournalError::kind`] is always the leaf's kind, and
//! [`std::error::Error::source`] reaches the underlying cause (for
//! [`ErrorKind::Io`], the operating system's `std::io::Error`).
//!
//! An implementation of the Journal (or a test double of one) makes errors
//! with [`error`], [`syntax_error`] and [`io_error`], and adds context with
//! the [`ErrorContext`] trait on the way out: where ([`ErrorContext::at`],
//! [`ErrorContext::with_path`]), why ([`ErrorContext::with_source`]) and
//! what it was doing ([`ErrorContext::context`], [`ErrorContext::note`]),
//! each keeping everything the error already carries. [`shown`] shows a
//! found token the way every message of the Journal does. A
//! `JournalError` is `Clone` (its source is shared), so a writer that
//! refuses every later call can hand out the error that poisoned it.
//!
//! `Display` reads like a compiler diagnostic:
//!
//! ```
//! use nenjim_journal_api::error::ErrorKind;
//! # use nenjim_journal_api::error::{error, ErrorContext};
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
use std::sync::Arc;

/// What went wrong, independent of where.
///
/// The kinds are grouped by the layer that reports them: lifecycle
/// (`NotStarted` …), text (`EmptyInput`, `Syntax`, `Semantic`), chain
/// (`Conflict` … `ReleaseRewritten`), filesystem (`RootMissing` … `Io`),
/// the change feed (`FollowUnsupported`), the append path (`LeaseHeld` …
/// `LedgerMismatch`), the verifiable ledger (`CheckpointInvalid`,
/// `CheckpointMismatch`, `Rollback`) and the caller (`Usage`). New kinds
/// may be added.
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
    /// The caller asked for something its own configuration rules out (a
    /// blob put by a writer with no content store): a usage error, not the
    /// journal's nor the machine's.
    Usage,
    /// The backend did not answer for now (a request that timed out, a
    /// stream whose leader is being elected, a server that is down): retry
    /// later. The message says whether anything was committed ("nothing
    /// was committed", or "re-running settles it" where a commit's answer
    /// was lost: an append is idempotent).
    Unavailable,
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
            ErrorKind::Usage => "Usage",
            ErrorKind::Unavailable => "Unavailable",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The cause kept behind a [`JournalError`] (shared, so the error is `Clone`).
type Source = Arc<dyn std::error::Error + Send + Sync + 'static>;

/// An error of the Journal: a kind, a message, and where it happened.
///
/// Implementations make one with [`error`], [`syntax_error`] or
/// [`io_error`] and add context with the [`ErrorContext`] trait. See the
/// [module docs](self) for the `Display` form.
///
/// One pointer wide (the fields are boxed): every `Result` of the parser's
/// inner loops carries it, and a `Result` as wide as the whole error made
/// each of them a copy of ~100 bytes (callgrind: a `memcpy` per token).
#[derive(Clone, thiserror::Error)]
#[error(transparent)]
pub struct JournalError(Box<Inner>);

/// The fields of a [`JournalError`], which shows them (`Display` is the
/// error's, through `transparent`) and gives its source.
#[derive(Clone, Debug)]
struct Inner {
    kind: ErrorKind,
    message: String,
    path: Option<PathBuf>,
    line: Option<usize>,
    column: Option<usize>,
    source: Option<Source>,
}

impl fmt::Display for Inner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Diagnostic(self).fmt(f)
    }
}

impl std::error::Error for Inner {
    /// The cause itself (for `Io`, the `std::io::Error`), not the shared
    /// pointer that holds it, so a caller can downcast it.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let source: &(dyn std::error::Error + Send + Sync + 'static) = self.source.as_deref()?;
        Some(source)
    }
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

    /// What is wrong (with any [`ErrorContext::context`] before it and any
    /// [`ErrorContext::note`] after it), without the location prefix.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

/// A new error of `kind` with a message saying what was found and what was
/// expected; [`ErrorContext`] adds where.
pub fn error(kind: ErrorKind, message: impl Into<String>) -> JournalError {
    JournalError::new(kind, message)
}

/// A syntax error at a 1-based line and column.
pub fn syntax_error(line: usize, column: usize, message: impl Into<String>) -> JournalError {
    JournalError::new(ErrorKind::Syntax, message).at(line, column)
}

/// An [`ErrorKind::Io`] error about `path`, keeping the OS error as
/// `source()`; [`ErrorKind::Unavailable`] when the I/O timed out (or the
/// io error carries a backend's `Unavailable`): retry later.
pub fn io_error(path: impl Into<PathBuf>, what: &str, error: std::io::Error) -> JournalError {
    // An I/O that timed out is an outage to retry, as is a backend's own
    // `Unavailable` carried through an io error.
    let unavailable = error.kind() == std::io::ErrorKind::TimedOut
        || error
            .get_ref()
            .and_then(|e| e.downcast_ref::<JournalError>())
            .is_some_and(|e| e.kind() == ErrorKind::Unavailable);
    let kind = if unavailable {
        ErrorKind::Unavailable
    } else {
        ErrorKind::Io
    };
    JournalError::new(kind, format!("{what}: {error}"))
        .with_path(path)
        .with_source(error)
}

/// Where an error happened, what caused it, and what the code that passes
/// it on was doing: the context an implementation adds to a
/// [`JournalError`] on its way out. Each method keeps everything else the
/// error carries (kind, source, path, line and column).
pub trait ErrorContext {
    /// Sets the 1-based line and column (replacing any earlier location).
    #[must_use]
    fn at(self, line: usize, column: usize) -> Self;
    /// Moves an error found inside a token to the token's place in a text.
    ///
    /// Errors from the value types' `FromStr` are located relative to the
    /// token (line 1, column = offset in the token + 1); this shifts them to
    /// `line` and `column` of the token's first character.
    #[must_use]
    fn relocated(self, line: usize, column: usize) -> Self;
    /// Adds the file or directory the error concerns, unless one is already
    /// set (the innermost path is the most precise).
    #[must_use]
    fn with_path(self, path: impl Into<PathBuf>) -> Self;
    /// Names the error's file or directory anew, replacing any earlier path
    /// (a path inside a store, named by the store's URL).
    #[must_use]
    fn moved_to(self, path: impl Into<PathBuf>) -> Self;
    /// Keeps `source` as the underlying cause, reachable through `source()`.
    #[must_use]
    fn with_source(self, source: impl std::error::Error + Send + Sync + 'static) -> Self;
    /// Says what the error concerns, before the message:
    /// `context: message` (`left-pad 1.0.0: found no blob …`).
    #[must_use]
    fn context(self, context: impl fmt::Display) -> Self;
    /// Adds a note after the message: `message (note)`.
    #[must_use]
    fn note(self, note: impl fmt::Display) -> Self;
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
    fn moved_to(mut self, path: impl Into<PathBuf>) -> JournalError {
        self.0.path = Some(path.into());
        self
    }
    fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> JournalError {
        self.0.source = Some(Arc::new(source));
        self
    }
    fn context(mut self, context: impl fmt::Display) -> JournalError {
        self.0.message = format!("{context}: {}", self.0.message);
        self
    }
    fn note(mut self, note: impl fmt::Display) -> JournalError {
        self.0.message = format!("{} ({note})", self.0.message);
        self
    }
}

/// Reads like the message, as a `main` that returns the error prints it:
/// the kind, the located diagnostic (`path:line:column: message`) and each
/// cause on a line of its own. `{:#?}` shows the fields instead.
impl fmt::Debug for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.0;
        if !f.alternate() {
            write!(f, "{}: {self}", inner.kind.as_str())?;
            let mut cause = std::error::Error::source(self);
            while let Some(error) = cause {
                write!(f, "\n  caused by: {error}")?;
                cause = error.source();
            }
            return Ok(());
        }
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

/// Shows a found token in a diagnostic: back-quoted, escaped like a Rust
/// string, cut after 40 characters; `nothing` for an empty token.
///
/// Every "found …, expected …" message of the Journal shows its token this
/// way, so messages look alike whichever crate writes them.
///
/// ```
/// use nenjim_journal_api::error::shown;
/// assert_eq!(shown("RELEASE"), "`RELEASE`");
/// assert_eq!(shown("a\tb"), "`a\\tb`");
/// assert_eq!(shown(""), "nothing");
/// ```
pub fn shown(found: &str) -> String {
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

    /// What a `main` returning the error prints: its kind, where and what,
    /// and its causes, not a struct dump (which `{:#?}` still gives).
    #[test]
    fn debug_reads_like_the_message_with_its_kind_and_causes() {
        let e = syntax_error(2, 5, "found `x`, expected a keyword").with_path("a/b.journal");
        assert_eq!(
            format!("{e:?}"),
            "Syntax: a/b.journal:2:5: found `x`, expected a keyword"
        );
        let io = io_error(
            "root",
            "cannot read the root",
            std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied"),
        );
        assert_eq!(
            format!("{io:?}"),
            "Io: root: cannot read the root: denied\n  caused by: denied"
        );
        assert!(format!("{e:#?}").starts_with("JournalError {"), "{e:#?}");
    }

    #[test]
    fn display_with_line_only() {
        let e = syntax_error(2, 5, "found `x`, expected a keyword");
        assert_eq!(e.to_string(), "2:5: found `x`, expected a keyword");
    }

    #[test]
    fn relocation_adds_the_token_column() {
        let e = syntax_error(1, 3, "bad").relocated(7, 10);
        assert_eq!((e.line(), e.column()), (Some(7), Some(12)));
    }

    #[test]
    fn io_keeps_the_os_error_as_source() {
        let os = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let e = io_error("/x/y", "cannot read", os);
        assert_eq!(e.kind(), ErrorKind::Io);
        assert_eq!(e.path(), Some(Path::new("/x/y")));
        let source = e.source().and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(
            source.map(std::io::Error::kind),
            Some(std::io::ErrorKind::PermissionDenied)
        );
    }

    /// Context and notes change the message only: the kind, the source, the
    /// path, the line and the column stay; a clone keeps the source too.
    #[test]
    fn context_keeps_kind_source_and_location() {
        let os = std::io::Error::from(std::io::ErrorKind::NotFound);
        let e = syntax_error(3, 7, "found `x`, expected `y`")
            .with_path("a/b.journal")
            .with_source(os)
            .context("--depends")
            .note("see section 4");
        assert_eq!(
            e.to_string(),
            "a/b.journal:3:7: --depends: found `x`, expected `y` (see section 4)"
        );
        assert_eq!(
            e.message(),
            "--depends: found `x`, expected `y` (see section 4)"
        );
        assert_eq!(
            (e.kind(), e.line(), e.column()),
            (ErrorKind::Syntax, Some(3), Some(7))
        );
        let copy = e.clone().moved_to("s3://bucket/a/b.journal");
        assert_eq!(copy.path(), Some(Path::new("s3://bucket/a/b.journal")));
        assert_eq!(e.path(), Some(Path::new("a/b.journal")));
        for error in [&e, &copy] {
            let source = error
                .source()
                .and_then(|s| s.downcast_ref::<std::io::Error>());
            assert_eq!(
                source.map(std::io::Error::kind),
                Some(std::io::ErrorKind::NotFound)
            );
        }
    }

    #[test]
    fn the_innermost_path_wins() {
        let e = JournalError::new(ErrorKind::Syntax, "x")
            .with_path("inner")
            .with_path("outer");
        assert_eq!(e.path(), Some(Path::new("inner")));
    }
}
