//! Outcomes and exit codes: [`Status`] for a command that ran to its end,
//! [`CliError`] for one that stopped.
//!
//! The mapping of Journal errors: the root-access kinds (`RootMissing`,
//! `RootNotDirectory`, `RootUnreadable`) and `Io` are usage or I/O problems
//! (exit code 2); every other kind says the journal is invalid (exit code 1).

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
    /// A usage or I/O problem (exit code 2).
    Trouble,
}

impl Status {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Status::Ok => 0,
            Status::Invalid => 1,
            Status::Trouble => 2,
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
}

impl CliError {
    /// A refusal of `kind` (exit code 1).
    pub fn refused(kind: &'static str, message: impl Into<String>) -> CliError {
        CliError::Refused {
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
        }
    }

    /// The stable kind name shown in JSON.
    pub fn kind_name(&self) -> &'static str {
        match self {
            CliError::Journal(e) => e.kind().as_str(),
            CliError::Refused { kind, .. } => kind,
        }
    }

    /// The Journal error behind this one, if any.
    pub fn journal(&self) -> Option<&JournalError> {
        match self {
            CliError::Journal(e) => Some(e),
            CliError::Refused { .. } => None,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Journal(e) => write!(f, "{e}"),
            CliError::Refused { message, .. } => f.write_str(message),
        }
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
        assert_eq!(CliError::refused("UnknownRelease", "x").status().code(), 1);
        assert!(Status::Trouble > Status::Invalid && Status::Invalid > Status::Ok);
    }
}
