//! Building Journal values: for implementations of the Journal and for test
//! doubles, not for consumers.
//!
//! A consumer receives revisions, releases and errors from a
//! [`JournalService`](crate::JournalService) and only reads them (the rest
//! of [`model`](super), [`valuetypes`](crate::valuetypes) and
//! [`error`](crate::error)). An implementation, or a test double of one,
//! also makes them, and this module holds everything it needs for that and
//! nothing a consumer needs:
//!
//! - [`RevisionBuilder`] and [`ReleaseBuilder`], which enforce the semantic
//!   rules of sections 4 and 5 of the format one statement at a time (so a
//!   parser can locate the offending line) and cannot produce a revision
//!   that breaks them; [`dependency`], [`exclusion`], [`preference`] and
//!   [`refresh_report`] make the smaller values, [`event`] an event of the
//!   feed and [`appended`] a writer's result;
//! - what ingestion does to an accepted revision: [`with_sequence`],
//!   [`sharing_releases_with`], and the release immutability test of
//!   section 6, [`same_values`];
//! - the token readers a parser shares with the value types' `FromStr`:
//!   [`quoted_prefix`] and [`content_size`].
//!
//! Errors are made and given context in [`error`](crate::error).
//!
//! ```
//! use nenjim_journal_api::model::PolicyStatement;
//! use nenjim_journal_api::model::build::{ReleaseBuilder, RevisionBuilder};
//! use nenjim_journal_api::valuetypes::*;
//! # fn main() -> Result<(), nenjim_journal_api::error::JournalError> {
//! let coordinate: ArtifactCoordinate = "left-pad".parse()?;
//! let mut revision = RevisionBuilder::new(
//!     coordinate.clone(),
//!     "20261129T101530Z".parse()?,
//!     None,
//!     Description::new("pads strings on the left")?,
//! );
//! let release = ReleaseBuilder::new(
//!     coordinate,
//!     "1.0.0".parse()?,
//!     "MIT".parse()?,
//!     ContentPointer::new(ContentDigest::of_bytes(b"blob"), 4),
//! )
//! .build();
//! revision.push_release(release)?;
//! revision.push_policy(PolicyStatement::Recommend { version: "1.0.0".parse()? })?;
//! let revision = revision.build(RevisionDigest::of_text("the text it came from"));
//! assert!(revision.releases()[0].policy().is_recommended());
//! # Ok(()) }
//! ```

use crate::append::Appended;
use crate::error::{ErrorKind, JournalError};
use crate::model::event::{EventChange, JournalEvent};
use crate::model::feed::RefreshReport;
use crate::model::lines::{Dependency, Exclusion, Line, Preference};
use crate::model::release::ArtifactRelease;
use crate::model::revision::JournalRevision;
use crate::valuetypes::{
    ArtifactCoordinate, ContentPointer, Description, JournalVersion, VersionRequirement,
};

mod release;
mod revision;
mod share;

pub use release::ReleaseBuilder;
pub use revision::RevisionBuilder;
pub use share::{sharing_releases_with, with_sequence};

/// `items` in a new allocation of exactly their size: the list they were
/// collected in is freed whole (and the next release's list takes its
/// place), where shrinking it in place (`into_boxed_slice`) left a small
/// hole after every list of a load that only smaller allocations could use.
fn exact<T>(mut items: Vec<T>) -> Box<[T]> {
    if items.len() == items.capacity() {
        return items.into_boxed_slice();
    }
    items.drain(..).collect()
}

fn semantic(message: impl Into<String>) -> JournalError {
    JournalError::new(ErrorKind::Semantic, message)
}

/// A `DEPENDS` line: a dependency on `artifact` in `requirement`, with an
/// optional description.
pub fn dependency(
    artifact: ArtifactCoordinate,
    requirement: VersionRequirement,
    description: Option<Description>,
) -> Dependency {
    Dependency(Line {
        artifact,
        requirement,
        description,
    })
}

/// An `EXCLUDES` line: an exclusion of `artifact`, in `requirement` or (for
/// `None`) in every version.
pub fn exclusion(
    artifact: ArtifactCoordinate,
    requirement: Option<VersionRequirement>,
    description: Option<Description>,
) -> Exclusion {
    Exclusion(Line {
        artifact,
        requirement,
        description,
    })
}

/// A `PREFERS` line: a preference for `artifact` in `requirement`.
pub fn preference(
    artifact: ArtifactCoordinate,
    requirement: VersionRequirement,
    description: Option<Description>,
) -> Preference {
    Preference(Line {
        artifact,
        requirement,
        description,
    })
}

/// An event of the revision with `sequence`, of `coordinate` at
/// `journal_version`: the Journal derives events from accepted revisions (a
/// consumer receives them and never builds one), and this checks nothing.
pub fn event(
    sequence: u64,
    coordinate: ArtifactCoordinate,
    journal_version: JournalVersion,
    change: EventChange,
) -> JournalEvent {
    JournalEvent::new(sequence, coordinate, journal_version, change)
}

/// What a [`JournalWriter::append`](crate::append::JournalWriter::append)
/// recorded: `revision` carries its ledger sequence; `is_new` is `false` for
/// an idempotent repeat.
pub fn appended(revision: JournalRevision, is_new: bool) -> Appended {
    Appended::new(revision, is_new)
}

/// A report of `ingested` new revisions and `unchanged` idempotent re-reads.
pub fn refresh_report(ingested: usize, unchanged: usize, unrecorded: usize) -> RefreshReport {
    RefreshReport {
        ingested,
        unchanged,
        unrecorded,
        uncovered: 0,
    }
}

/// `report`, saying that `uncovered` ledger entries wait for a checkpoint
/// that covers them (a verifying refresh).
pub fn with_uncovered(report: RefreshReport, uncovered: u64) -> RefreshReport {
    RefreshReport {
        uncovered: usize::try_from(uncovered).unwrap_or(usize::MAX),
        ..report
    }
}

/// Whether `a` and `b` have the same values (coordinate, version, license,
/// content, description, dependencies, exclusions and preferences),
/// comparing the three lists as sets, and ignoring policy: the release
/// immutability test of section 6.
#[inline]
pub fn same_values(a: &ArtifactRelease, b: &ArtifactRelease) -> bool {
    a.same_values(b)
}

/// Whether `a` and `b` share one stored copy of their values (structural
/// sharing; implies [`same_values`]).
#[inline]
pub fn shares_values(a: &ArtifactRelease, b: &ArtifactRelease) -> bool {
    a.shares_values_with(b)
}

/// Reads one quoted string at the start of `input` and returns it with the
/// number of bytes it took (quotes included), exactly as
/// [`Description`]'s `FromStr` reads a whole token. What follows is left to
/// the caller. Errors are located by column inside `input`.
#[inline]
pub fn quoted_prefix(input: &str) -> Result<(Description, usize), JournalError> {
    Description::parse_quoted_prefix(input)
}

/// Reads a `size` token (`0` or a decimal without leading zeros that fits
/// `u64`), exactly as [`ContentPointer`]'s `FromStr` reads its second part.
#[inline]
pub fn content_size(s: &str) -> Result<u64, JournalError> {
    ContentPointer::parse_size(s)
}
