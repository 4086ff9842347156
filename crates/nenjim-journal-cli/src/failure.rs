//! Outcomes and exit codes: [`Status`] for a command that ran to its end,
//! [`CliError`] for one that stopped.
//!
//! The mapping of Journal errors: the root-access kinds (`RootMissing`,
//! `RootNotDirectory`, `RootUnreadable`), `Io` and `Usage` are usage or I/O
//! problems (exit code 2); `LeaseHeld`, `TipMoved`, `LeaseLost` and
//! `Unavailable` are refusals to retry later (exit code 75, sysexits'
//! `EX_TEMPFAIL`: another writer holds the root, committed first or took
//! this writer's expired lease over, or the backend did not answer for now;
//! nothing of the refused append was written, or the message says that
//! re-running settles it); every other kind says the
//! journal is invalid (exit code 1). A writing command stopped by SIGINT or
//! SIGTERM exits 130.

use std::fmt;
use std::path::Path;

use nenjim_journal_api::error::{self, ErrorKind, JournalError};

/// How a command ended, worst first when several files or blobs are involved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Everything checked is valid (exit code 0).
    Ok,
    /// The journal, a file or the content is invalid (exit code 1).
    Invalid,
    /// Refused for now, nothing written: retry later (exit code 75).
    Retry,
    /// A usage or I/O problem (exit code 2).
    Trouble,
    /// Stopped by SIGINT or SIGTERM (exit code 130).
    Interrupted,
}

impl Status {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Status::Ok => 0,
            Status::Invalid => 1,
            Status::Retry => 75,
            Status::Trouble => 2,
            Status::Interrupted => 130,
        }
    }

    /// The status a Journal error implies.
    pub fn of_journal_error(error: &JournalError) -> Status {
        match error.kind() {
            ErrorKind::RootMissing
            | ErrorKind::RootNotDirectory
            | ErrorKind::RootUnreadable
            | ErrorKind::Io
            | ErrorKind::Usage => Status::Trouble,
            ErrorKind::LeaseHeld
            | ErrorKind::TipMoved
            | ErrorKind::LeaseLost
            | ErrorKind::Unavailable => Status::Retry,
            _ => Status::Invalid,
        }
    }
}

/// Why a command stopped.
#[derive(Debug)]
pub enum CliError {
    /// An error of the Journal (loading, parsing, a query), shown as its diagnostic.
    Journal(JournalError),
    /// Something the user asked for does not exist or is refused (exit code 1).
    Refused {
        /// A stable name for JSON (`UnknownArtifact`, `UnknownRevision` …).
        kind: &'static str,
        /// What was found and what was expected.
        message: String,
    },
    /// Something the command was given cannot be used (exit code 2), e.g.
    /// a content store that does not exist.
    Usage {
        /// A stable name for JSON (`StoreMissing` …).
        kind: &'static str,
        /// What was found and what was expected.
        message: String,
    },
    /// SIGINT or SIGTERM stopped a writing command between two appends
    /// (exit code 130); the lease was given back.
    Interrupted {
        /// How many texts were appended (or found recorded) before.
        appended: usize,
        /// How many the command was given.
        total: usize,
    },
}

impl CliError {
    /// A refusal of `kind` (exit code 1).
    pub fn refused(kind: &'static str, message: impl Into<String>) -> CliError {
        CliError::Refused {
            kind,
            message: message.into(),
        }
    }

    /// An unusable argument of `kind` (exit code 2).
    pub fn usage(kind: &'static str, message: impl Into<String>) -> CliError {
        CliError::Usage {
            kind,
            message: message.into(),
        }
    }

    /// An I/O failure about `path` (exit code 2), keeping the OS error.
    pub fn io(path: &Path, what: &str, error: std::io::Error) -> CliError {
        CliError::Journal(error::io_error(path, what, error))
    }

    /// The exit status this error implies.
    pub fn status(&self) -> Status {
        match self {
            CliError::Journal(e) => Status::of_journal_error(e),
            CliError::Refused { .. } => Status::Invalid,
            CliError::Usage { .. } => Status::Trouble,
            CliError::Interrupted { .. } => Status::Interrupted,
        }
    }

    /// The stable kind name shown in JSON.
    pub fn kind_name(&self) -> &'static str {
        match self {
            CliError::Journal(e) => e.kind().as_str(),
            CliError::Refused { kind, .. } | CliError::Usage { kind, .. } => kind,
            CliError::Interrupted { .. } => "Interrupted",
        }
    }

    /// The Journal error behind this one, if any.
    pub fn journal(&self) -> Option<&JournalError> {
        match self {
            CliError::Journal(e) => Some(e),
            CliError::Refused { .. } | CliError::Usage { .. } | CliError::Interrupted { .. } => {
                None
            }
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Journal(e) => write!(f, "{e}"),
            CliError::Refused { message, .. } | CliError::Usage { message, .. } => {
                f.write_str(message)
            }
            CliError::Interrupted { total: 0, .. } => {
                f.write_str("interrupted before anything was written; re-run to resume")
            }
            CliError::Interrupted { appended, total } => write!(
                f,
                "interrupted: {appended} of {total} appended; re-run to resume"
            ),
        }
    }
}

/// A root copy that cannot keep the source's sequences (`CopyRefused`).
impl From<nenjim_journal_root::copy::Refused> for CliError {
    fn from(refused: nenjim_journal_root::copy::Refused) -> CliError {
        CliError::refused("CopyRefused", refused.message())
    }
}

impl From<JournalError> for CliError {
    fn from(error: JournalError) -> CliError {
        CliError::Journal(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_access_and_io_are_trouble_everything_else_is_invalid() {
        for kind in [
            ErrorKind::RootMissing,
            ErrorKind::RootNotDirectory,
            ErrorKind::RootUnreadable,
            ErrorKind::Io,
            ErrorKind::Usage,
        ] {
            let e = CliError::from(error::error(kind, "x"));
            assert_eq!(e.status().code(), 2, "{kind}");
        }
        for kind in [
            ErrorKind::Syntax,
            ErrorKind::Semantic,
            ErrorKind::EmptyInput,
            ErrorKind::InvalidUtf8,
            ErrorKind::TooLarge,
            ErrorKind::UnexpectedEntry,
            ErrorKind::StalePredecessor,
            ErrorKind::ReleaseRewritten,
        ] {
            let e = CliError::from(error::error(kind, "x"));
            assert_eq!(e.status().code(), 1, "{kind}");
        }
        for kind in [
            ErrorKind::LeaseHeld,
            ErrorKind::TipMoved,
            ErrorKind::LeaseLost,
        ] {
            let e = CliError::from(error::error(kind, "x"));
            assert_eq!(e.status().code(), 75, "{kind}");
        }
        assert_eq!(CliError::refused("UnknownRelease", "x").status().code(), 1);
        assert_eq!(CliError::usage("StoreMissing", "x").status().code(), 2);
        let stopped = CliError::Interrupted {
            appended: 1,
            total: 3,
        };
        assert_eq!(stopped.status().code(), 130);
        assert!(
            stopped
                .to_string()
                .contains("1 of 3 appended; re-run to resume")
        );
        assert!(Status::Trouble > Status::Invalid && Status::Invalid > Status::Ok);
    }
}
