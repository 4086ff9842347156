//! Composed, immutable domain objects: what a Journal revision says.
//!
//! A [`JournalRevision`] is one artifact's complete worldview at one
//! instant: its releases ([`ArtifactRelease`], each with
//! [`Dependency`]s, [`Exclusion`]s and [`Preference`]s) and its
//! [`PolicyStatement`]s, whose effect on each release is that release's
//! [`ReleasePolicy`]. Both are cheap to clone (`Arc` inside) and
//! `Send + Sync`.
//!
//! Everything here is read-only: a consumer receives these values from a
//! [`JournalService`](crate::JournalService) and queries them. Making them
//! (builders, ingestion's sharing, error construction) is the business of
//! implementations and test doubles, in the [`build`] module, whose
//! builders enforce the semantic rules of sections 4 and 5 of the format,
//! so that every revision that exists obeys them.
//!
//! ```
//! use nenjim_journal_api::model::JournalRevision;
//!
//! /// The versions of the releases a revision recommends or does not yank.
//! fn usable(revision: &JournalRevision) -> Vec<String> {
//!     revision
//!         .releases()
//!         .iter()
//!         .filter(|r| r.policy().is_recommended() || r.policy().yanked().is_none())
//!         .map(|r| r.version().to_string())
//!         .collect()
//! }
//! # let _ = usable;
//! ```

pub mod build;
mod event;
mod feed;
mod lines;
mod policy;
mod release;
mod revision;

pub use event::{EventChange, EventCursor, JournalEvent};
pub use feed::{Position, RefreshReport, ReplayRequest, RevisionCursor};
pub use lines::{Dependency, Exclusion, Preference};
pub use policy::{PolicyStatement, ReleasePolicy};
pub use release::ArtifactRelease;
pub use revision::JournalRevision;

#[cfg(test)]
mod tests;
