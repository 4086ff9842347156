//! Pure, atomic ingestion of Journal revisions into per-artifact hash chains (section 6).
//!
//! INTERFACE STUB: the chain issue replaces these bodies; the signatures are fixed.
#![forbid(unsafe_code)]

use std::collections::BTreeSet;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::{ArtifactRelease, JournalRevision, RevisionCursor};
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, JournalVersion, ReleaseVersion, RevisionDigest,
};

/// What ingesting one revision did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A new revision was accepted and got the next sequence number.
    Accepted,
    /// The identical text was already stored (idempotent success).
    Unchanged,
}

/// The result of a successful ingestion: the next state and the revision.
#[derive(Clone, Debug)]
pub struct Ingested {
    state: ChainState,
    revision: JournalRevision,
    outcome: Outcome,
}

impl Ingested {
    /// The state after ingestion (the old state is untouched).
    pub fn state(&self) -> &ChainState {
        &self.state
    }
    /// Consumes self into the next state.
    pub fn into_state(self) -> ChainState {
        self.state
    }
    /// The accepted revision (with its sequence), or the stored identical one.
    pub fn revision(&self) -> &JournalRevision {
        &self.revision
    }
    /// Whether the revision was new or already stored.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }
}

/// The immutable state of every artifact's chain.
#[derive(Clone, Debug, Default)]
pub struct ChainState {}

impl ChainState {
    /// The empty state.
    pub fn new() -> ChainState {
        ChainState::default()
    }
    /// Parses `text` and ingests it (see [`ChainState::ingest_revision`]).
    pub fn ingest(&self, text: &str) -> Result<Ingested, JournalError> {
        let _ = text;
        todo!()
    }
    /// Ingests an already parsed revision (its digest is that of its exact text).
    pub fn ingest_revision(&self, revision: JournalRevision) -> Result<Ingested, JournalError> {
        let _ = revision;
        todo!()
    }
    /// Ingests revisions in order into a private next state; returns it only if all succeeded.
    pub fn ingest_all<I>(&self, revisions: I) -> Result<ChainState, JournalError>
    where
        I: IntoIterator<Item = JournalRevision>,
    {
        let _ = revisions.into_iter();
        todo!()
    }
    /// Number of accepted revisions (= the last sequence number).
    pub fn len(&self) -> u64 {
        todo!()
    }
    /// Whether no revision was accepted.
    pub fn is_empty(&self) -> bool {
        todo!()
    }
    /// The stored revision of `artifact` at exactly `version`, if any.
    pub fn revision(
        &self,
        artifact: &ArtifactCoordinate,
        version: JournalVersion,
    ) -> Option<JournalRevision> {
        let _ = (artifact, version);
        todo!()
    }
    /// The artifact and Journal version of the revision with `digest`, if stored.
    pub fn find_digest(
        &self,
        digest: &RevisionDigest,
    ) -> Option<(ArtifactCoordinate, JournalVersion)> {
        let _ = digest;
        todo!()
    }
    /// Every artifact with a revision.
    pub fn coordinates(&self) -> BTreeSet<ArtifactCoordinate> {
        todo!()
    }
    /// Every revision of `artifact`, ascending.
    pub fn revisions(&self, artifact: &ArtifactCoordinate) -> Vec<JournalRevision> {
        let _ = artifact;
        todo!()
    }
    /// The head of `artifact`.
    pub fn latest(&self, artifact: &ArtifactCoordinate) -> Option<JournalRevision> {
        let _ = artifact;
        todo!()
    }
    /// The newest revision at or before `at_or_before` (binary search).
    pub fn revision_as_of(
        &self,
        artifact: &ArtifactCoordinate,
        at_or_before: JournalVersion,
    ) -> Option<JournalRevision> {
        let _ = (artifact, at_or_before);
        todo!()
    }
    /// One release of the revision at exactly `revision`, with its policy context.
    pub fn release(
        &self,
        artifact: &ArtifactCoordinate,
        revision: JournalVersion,
        release: &ReleaseVersion,
    ) -> Option<ArtifactRelease> {
        let _ = (artifact, revision, release);
        todo!()
    }
    /// A cursor over every revision with a sequence above `after`, in sequence order.
    pub fn replay(&self, after: u64) -> Box<dyn RevisionCursor> {
        let _ = after;
        todo!()
    }
}
