//! The public contract of the Nenjim Journal.
//!
//! # Brief overview
//!
//! The Nenjim Journal is an immutable, hash-chained, per-artifact record of
//! what a software hub knows about artifacts: every release with its
//! license, content pointer, dependencies, exclusions and preferences, and
//! the policy (yank, deprecate, recommend) that applies to them, queryable as
//! of any point in its history.
//!
//! This crate holds only the contract, and no implementation:
//!
//! - [`JournalService`]: the read-only queries a consumer makes (latest,
//!   exact, as-of, release, replay of whole revisions or of their changes as
//!   events). It is filesystem-independent.
//! - [`JournalServiceManager`]: the one passive administration operation,
//!   [`refresh`](JournalServiceManager::refresh), for the owner of the Journal.
//! - [`append`]: the writer contract ([`append::JournalWriter`]), for the
//!   one process that records new revisions.
//! - [`component`]: the lifecycle shared by Nenjim services.
//! - [`model`]: the immutable domain objects ([`model::JournalRevision`],
//!   [`model::ArtifactRelease`] …) the queries return.
//!   Implementations and test doubles make them with
//!   [`model::build`], the one module a consumer does not need.
//! - [`valuetypes`]: the validated value types, one per token of the text
//!   format, each with a `FromStr`/`Display` round trip.
//! - [`error`]: [`error::JournalError`], a compiler-style diagnostic with a
//!   typed [`error::ErrorKind`].
//!
//! Consumers depend on this crate alone and receive a
//! `Arc<dyn JournalService>` from an implementation (the reference one is
//! `nenjim-journal-ref`).
//!
//! ```
//! use nenjim_journal_api::JournalService;
//! use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion};
//!
//! /// Which releases of `artifact` were known at `instant`, and which were yanked.
//! fn known_at(
//!     journal: &dyn JournalService,
//!     artifact: &ArtifactCoordinate,
//!     instant: JournalVersion,
//! ) -> Result<Vec<(String, bool)>, nenjim_journal_api::error::JournalError> {
//!     let Some(revision) = journal.revision_as_of(artifact, instant)? else {
//!         return Ok(Vec::new());
//!     };
//!     Ok(revision
//!         .releases()
//!         .iter()
//!         .map(|r| (r.version().to_string(), r.policy().yanked().is_some()))
//!         .collect())
//! }
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::collections::BTreeSet;
use std::path::Path;

pub mod append;
pub mod component;
pub mod error;
pub mod model;
pub mod valuetypes;

use error::JournalError;
use model::{
    ArtifactRelease, EventCursor, JournalRevision, RefreshReport, ReplayRequest, RevisionCursor,
};
use valuetypes::{ArtifactCoordinate, JournalVersion, ReleaseVersion};

/// The read-only Journal: every accepted revision of every artifact.
///
/// Unknown things give `Ok(None)` or an empty collection, never an error.
/// Before a successful start (or after a failed one) every method fails with
/// [`ErrorKind::NotStarted`](error::ErrorKind::NotStarted); after stop, with
/// [`ErrorKind::Stopped`](error::ErrorKind::Stopped). No method starts,
/// stops, refreshes, parses, ingests, names a path, or mutates anything.
pub trait JournalService: component::NenjimComponent {
    /// Every artifact with at least one accepted revision.
    fn coordinates(&self) -> Result<BTreeSet<ArtifactCoordinate>, JournalError>;

    /// Where the published state is: its last sequence, how many revisions
    /// and artifacts it holds. The reference Journal reads it from its
    /// snapshot (no replay); this default counts through the queries.
    fn position(&self) -> Result<model::Position, JournalError> {
        let mut position = model::Position::default();
        for coordinate in self.coordinates()? {
            let revisions = self.revisions(&coordinate)?;
            position.artifacts += 1;
            position.revisions += revisions.len() as u64;
            for revision in &revisions {
                position.last_sequence = position.last_sequence.max(revision.sequence());
            }
        }
        Ok(position)
    }

    /// Every revision of `artifact`, ascending by Journal version.
    fn revisions(
        &self,
        artifact: &ArtifactCoordinate,
    ) -> Result<Vec<JournalRevision>, JournalError>;

    /// The head revision of `artifact`.
    fn latest(
        &self,
        artifact: &ArtifactCoordinate,
    ) -> Result<Option<JournalRevision>, JournalError>;

    /// The revision of `artifact` with exactly this Journal version.
    fn revision(
        &self,
        artifact: &ArtifactCoordinate,
        version: JournalVersion,
    ) -> Result<Option<JournalRevision>, JournalError>;

    /// The newest revision of `artifact` at or before `at_or_before`.
    fn revision_as_of(
        &self,
        artifact: &ArtifactCoordinate,
        at_or_before: JournalVersion,
    ) -> Result<Option<JournalRevision>, JournalError>;

    /// One release as the revision `revision` of `artifact` sees it, with its
    /// policy context in that revision.
    fn release(
        &self,
        artifact: &ArtifactCoordinate,
        revision: JournalVersion,
        release: &ReleaseVersion,
    ) -> Result<Option<ArtifactRelease>, JournalError>;

    /// The cold change feed: a cursor over every accepted revision with
    /// `sequence() > request.after_sequence()`, in ascending sequence order,
    /// over the snapshot taken now. `follow(true)` is refused with
    /// [`ErrorKind::FollowUnsupported`](error::ErrorKind::FollowUnsupported).
    fn replay(&self, request: &ReplayRequest) -> Result<Box<dyn RevisionCursor>, JournalError>;

    /// The event feed: a cursor over the changes each revision of
    /// [`replay`](JournalService::replay) made to its artifact's worldview
    /// (same snapshot, same sequence space, same request), in ascending
    /// sequence order and, within a revision, in the order documented on
    /// [`EventChange`](model::EventChange). A revision that changes nothing
    /// yields no event. `Ok(None)` only when the backlog is drained;
    /// `follow(true)` is refused with
    /// [`ErrorKind::FollowUnsupported`](error::ErrorKind::FollowUnsupported).
    fn replay_events(&self, request: &ReplayRequest) -> Result<Box<dyn EventCursor>, JournalError>;
}

/// Passive administration of a Journal by its one owner.
pub trait JournalServiceManager: Send + Sync {
    /// The Journal's root as its errors name it: a directory's path,
    /// normalized and absolute; a path inside a bucket (`/journals/main`);
    /// or a NATS root's `nats://host:port/<name>`.
    fn journal_root(&self) -> &Path;

    /// Re-reads the root and ingests new revisions, each atomically.
    /// Fails with [`ErrorKind::NotStarted`](error::ErrorKind::NotStarted)
    /// before a successful start.
    fn refresh(&self) -> Result<RefreshReport, JournalError>;
}
