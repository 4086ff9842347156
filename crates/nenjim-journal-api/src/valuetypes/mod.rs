//! Validated value types: one per token of the format.
//!
//! Every type here validates on construction and cannot hold an invalid
//! value. `FromStr` parses exactly the token syntax of `docs/format.md`
//! section 2 and `Display` writes it back, so `s.parse::<T>()?.to_string() ==
//! s` for every valid token `s` (for [`Description`], `s` is the quoted form).
//! Parse errors are [`JournalError`]s of kind
//! `Syntax` or `Semantic`, located at line 1 and the 1-based column inside
//! the token, ready to be [`relocated`](crate::error::JournalError::relocated)
//! into a text.
//!
//! ```
//! use nenjim_journal_api::valuetypes::{ReleaseVersion, VersionRequirement};
//! let req: VersionRequirement = "[1.2.0,2.0.0)".parse().unwrap();
//! assert!(req.matches(&"1.4.0-rc.1".parse::<ReleaseVersion>().unwrap()));
//! // 2.0.0-alpha precedes 2.0.0, so it lies inside the interval.
//! assert!(req.matches(&"2.0.0-alpha".parse::<ReleaseVersion>().unwrap()));
//! assert!(!req.matches(&"2.0.0".parse::<ReleaseVersion>().unwrap()));
//! assert_eq!(req.to_string(), "[1.2.0,2.0.0)");
//! ```

mod coordinate;
mod description;
mod digest;
mod interned;
mod journal_version;
mod license;
mod license_hint;
mod release_version;
mod requirement;
mod requirement_hint;
mod text;
mod uri;

pub use coordinate::ArtifactCoordinate;
pub use description::Description;
pub use digest::{ContentDigest, ContentPointer, RevisionDigest};
pub use journal_version::JournalVersion;
pub use license::LicenseExpression;
pub use release_version::ReleaseVersion;
pub use requirement::VersionRequirement;
pub use uri::InformationUri;

use crate::error::{ErrorContext as _, ErrorKind, JournalError};

/// A syntax error at `column` (1-based) of a token.
pub(crate) fn syntax_at(column: usize, message: impl Into<String>) -> JournalError {
    JournalError::new(ErrorKind::Syntax, message).at(1, column)
}

/// A semantic error about a whole token.
pub(crate) fn semantic(message: impl Into<String>) -> JournalError {
    JournalError::new(ErrorKind::Semantic, message).at(1, 1)
}

pub(crate) use crate::error::shown;
