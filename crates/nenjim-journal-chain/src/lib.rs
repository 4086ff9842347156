//! Pure, atomic ingestion of Journal revisions into per-artifact hash chains
//! (section 6 of the format: identity and chains).
//!
//! # Brief overview
//!
//! The principal type is [`ChainState`]: an immutable snapshot of every
//! artifact's chain of accepted [`JournalRevision`]s. Ingestion is a pure
//! function from a state and one revision to either the *next* state or a
//! typed [`JournalError`]; the old state is never touched, so a reader that
//! holds a snapshot always sees a complete, consistent Journal.
//!
//! [`ChainState::ingest_revision`] takes one parsed revision (the parser,
//! `nenjim-journal-parser`, turns a text into one whose digest is the
//! SHA-256 of its exact bytes, and refuses a blank text as `EmptyInput`)
//! and decides its place in its artifact's chain, checking in exactly the
//! order of section 6:
//!
//! 1. the artifact already has a revision at that Journal version: the same
//!    digest is an idempotent success ([`Outcome::Unchanged`], the stored
//!    revision with its original sequence), another digest is a `Conflict`;
//! 2. a genesis for a known artifact is a `DuplicateGenesis`;
//! 3. a predecessor digest that names no stored revision is an
//!    `UnknownPredecessor`;
//! 4. one that names a revision of another artifact is a
//!    `CrossArtifactPredecessor`;
//! 5. one that names a stored revision of the artifact other than its head
//!    (a fork) is a `StalePredecessor`;
//! 6. a Journal version not greater than the head's is a
//!    `NonIncreasingVersion`;
//! 7. a release of the head that is missing from the successor or whose
//!    values changed ([`build::same_values`](nenjim_journal_api::model::build::same_values)) is a
//!    `ReleaseRewritten`.
//!
//! An accepted revision gets the next sequence number of the whole state
//! (1, 2, 3 …) and shares the stored values of every release it keeps with
//! its predecessor ([`build::sharing_releases_with`](nenjim_journal_api::model::build::sharing_releases_with)), so a chain
//! of k revisions that each add one release stores O(k) release values.
//! [`ChainState::ingest_all`] ingests many revisions into a private next
//! state and returns it only if every one succeeded.
//!
//! The queries ([`latest`](ChainState::latest),
//! [`revision_as_of`](ChainState::revision_as_of),
//! [`release`](ChainState::release) …) answer from one snapshot by binary
//! search, never by scanning a chain or a release list, and
//! [`ChainState::replay`] opens a cursor over every accepted revision after a
//! sequence number, in sequence order, over the snapshot it was opened on.
//! [`ChainState::revision_by_digest`] and [`ChainState::by_sequence`] are
//! the two indexes behind them.
//! [`events`] derives what a revision changed against its predecessor (the
//! event feed of `docs/api.md`), and [`ChainState::replay_events`] is the cursor
//! over the events of a snapshot, after a sequence number.
//!
//! This crate does no I/O: the file system loader (`nenjim-journal-fs`)
//! reads the files and adds their paths to errors; the reference Journal
//! (`nenjim-journal-ref`) publishes snapshots and refuses `follow`.
//!
//! ```
//! use nenjim_journal_chain::{ChainState, Outcome};
//! use nenjim_journal_parser::parse;
//! # fn main() -> Result<(), nenjim_journal_api::error::JournalError> {
//! let genesis = "\
//! FORMAT nenjim-journal/1
//! ARTIFACT left-pad
//! JOURNAL_VERSION 20261129T101530Z
//! PREDECESSOR GENESIS
//! DESCRIPTION \"pads strings on the left\"
//!
//! RELEASE 1.0.0
//!   LICENSE MIT
//!   CONTENT sha256:1e0a5b9c3d2f4a6b8c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d 512
//! ";
//! let empty = ChainState::new();
//! let first = empty.ingest_revision(parse(genesis)?)?;
//! assert_eq!(first.outcome(), Outcome::Accepted);
//! assert_eq!(first.revision().sequence(), 1);
//! let state = first.into_state();
//!
//! // The same text again is an idempotent success; the old state is untouched.
//! let again = state.ingest_revision(parse(genesis)?)?;
//! assert_eq!(again.outcome(), Outcome::Unchanged);
//! assert_eq!(again.state().len(), 1);
//! assert!(empty.is_empty());
//!
//! let coordinate = "left-pad".parse()?;
//! let head = state.latest(&coordinate).map(|r| r.journal_version());
//! assert_eq!(head, Some("20261129T101530Z".parse()?));
//! # Ok(()) }
//! ```
//!
//! # Why persistent collections (`imbl`)
//!
//! A next state must be cheap: ingesting one revision into a state of n
//! artifacts may not copy all n chains, and a reader's snapshot (or a replay
//! cursor) must be a cheap clone that later ingestions cannot change. The
//! state is therefore built from the persistent collections of the `imbl`
//! crate (the maintained fork of `im`), which share every node a change does
//! not touch:
//!
//! - a `HashMap` (a HAMT, hashed with `rustc-hash`'s Fx function) from
//!   artifact coordinate to that artifact's chain, so a query finds its
//!   chain with one hash of the coordinate and one comparison, whichever
//!   artifact it asks about (an ordered map compared ~6 coordinates); and
//!   an `OrdSet` of the coordinates, ordered like [`ChainState::coordinates`]
//!   returns them, which changes only when an artifact is new;
//! - per chain a persistent, append-only B-tree (`chain.rs`) ascending by
//!   Journal version, whose nodes keep their versions contiguous, so
//!   `revision`/`revision_as_of`/`release` are one descent from the root
//!   (no allocation, no revision read but the one returned) and the head is
//!   kept beside it;
//! - a `Vector` of every accepted revision in ascending sequence order
//!   (sequences may have gaps: a ledger's fences take numbers no revision
//!   has), so a replay cursor finds where to resume by an O(log n) binary
//!   search on the sequence, opens with an O(log n) `skip` and steps
//!   by an amortized O(1) `pop_front`, with no sort per call;
//! - an `OrdMap` (a B-tree) from the first eight bytes of a revision digest
//!   to the revision's place in the log and position in its chain (the
//!   stored revision confirms the rest of the digest; `digests.rs`), so
//!   idempotency and the predecessor checks are look-ups, not scans.
//!
//! Each ingestion path-copies O(log n) nodes of these structures, so a batch
//! of k ingestions costs O(k log n) and cloning a [`ChainState`] is O(1).
#![forbid(unsafe_code)]

mod chain;
mod digests;
mod events;
mod ingest;
mod key;
mod replay;
mod rewrite;

use std::collections::BTreeSet;
use std::fmt;

use imbl::shared_ptr::DefaultSharedPtr;
use imbl::{GenericHashMap, OrdSet, Vector};
use rustc_hash::FxBuildHasher;

use crate::chain::Chain;
use crate::digests::DigestIndex;
use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::{ArtifactRelease, JournalRevision, RevisionCursor};
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, JournalVersion, ReleaseVersion, RevisionDigest,
};

pub use crate::events::events;
pub use crate::ingest::conflict;

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

/// Where a stored revision lives: its index in the sequence-ordered log
/// and its index in its chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Located {
    index: usize,
    position: usize,
}

/// The immutable state of every artifact's chain.
///
/// Cloning is O(1) and a clone is an independent snapshot: ingestion returns
/// a new state and never changes this one. See the [crate docs](crate) for
/// the rules ingestion enforces and the structures behind the queries.
#[derive(Clone, Default)]
pub struct ChainState {
    /// Each artifact's chain, ascending by Journal version; the last is the head.
    chains: GenericHashMap<ArtifactCoordinate, Chain, FxBuildHasher, DefaultSharedPtr>,
    /// The keys of `chains`, in order.
    coordinates: OrdSet<ArtifactCoordinate>,
    /// Every stored revision by digest.
    digests: DigestIndex,
    /// Every accepted revision in ascending sequence order. Without a ledger
    /// sequence s sits at index s - 1; a ledger's sequences may leave gaps.
    log: Vector<JournalRevision>,
}

impl fmt::Debug for ChainState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChainState")
            .field("artifacts", &self.chains.len())
            .field("revisions", &self.log.len())
            .finish_non_exhaustive()
    }
}

impl ChainState {
    /// The empty state.
    pub fn new() -> ChainState {
        ChainState::default()
    }
    /// Ingests an already parsed revision (its digest is that of its exact text).
    ///
    /// Returns the next state with the accepted revision (its sequence set,
    /// its kept releases sharing the predecessor's values), or this state
    /// and the stored revision if the identical revision is already stored,
    /// or the first rule of section 6 the revision breaks.
    pub fn ingest_revision(&self, revision: JournalRevision) -> Result<Ingested, JournalError> {
        let mut state = self.clone();
        let (revision, outcome) = state.ingest_in_place(revision, None)?;
        Ok(Ingested {
            state,
            revision,
            outcome,
        })
    }
    /// [`ingest_revision`](ChainState::ingest_revision) with the sequence a
    /// ledger recorded for the revision, instead of the next one.
    ///
    /// `sequence` must be greater than [`last_sequence`](ChainState::last_sequence)
    /// (`LedgerMismatch` otherwise); an idempotent repeat keeps the stored
    /// revision's sequence.
    pub fn ingest_revision_at(
        &self,
        revision: JournalRevision,
        sequence: u64,
    ) -> Result<Ingested, JournalError> {
        let mut state = self.clone();
        let (revision, outcome) = state.ingest_in_place(revision, Some(sequence))?;
        Ok(Ingested {
            state,
            revision,
            outcome,
        })
    }
    /// [`ingest_revision_in_place`](ChainState::ingest_revision_in_place)
    /// with the sequence a ledger recorded (see [`ChainState::ingest_revision_at`]).
    pub fn ingest_revision_in_place_at(
        &mut self,
        revision: JournalRevision,
        sequence: u64,
    ) -> Result<(JournalRevision, Outcome), JournalError> {
        self.ingest_in_place(revision, Some(sequence))
    }
    /// The sequence of the last accepted revision (0 when empty).
    pub fn last_sequence(&self) -> u64 {
        self.log.last().map_or(0, JournalRevision::sequence)
    }
    /// Ingests an already parsed revision into this state itself (see
    /// [`ChainState::ingest_revision`] for the rules and the result).
    ///
    /// On error this state is unchanged. Unlike `ingest_revision`, which
    /// builds a next state beside this one, a state held only here is changed
    /// without copying any node, which makes a long run of ingestions (a
    /// load) cheaper; other clones of the state are never affected.
    pub fn ingest_revision_in_place(
        &mut self,
        revision: JournalRevision,
    ) -> Result<(JournalRevision, Outcome), JournalError> {
        self.ingest_in_place(revision, None)
    }
    /// Ingests revisions in order into a private next state; returns it only if all succeeded.
    ///
    /// On failure the error is that of the first revision refused, and no
    /// state with a part of the batch exists.
    pub fn ingest_all<I>(&self, revisions: I) -> Result<ChainState, JournalError>
    where
        I: IntoIterator<Item = JournalRevision>,
    {
        let mut state = self.clone();
        for revision in revisions {
            state.ingest_in_place(revision, None)?;
        }
        Ok(state)
    }
    /// Number of accepted revisions.
    pub fn len(&self) -> u64 {
        self.log.len() as u64
    }
    /// Number of artifacts with a revision.
    pub fn artifact_count(&self) -> usize {
        self.chains.len()
    }
    /// Whether no revision was accepted.
    pub fn is_empty(&self) -> bool {
        self.log.is_empty()
    }
    /// The stored revision of `artifact` at exactly `version`, if any.
    pub fn revision(
        &self,
        artifact: &ArtifactCoordinate,
        version: JournalVersion,
    ) -> Option<JournalRevision> {
        self.chains.get(artifact)?.exact(version).cloned()
    }
    /// The artifact and Journal version of the revision with `digest`, if stored.
    pub fn find_digest(
        &self,
        digest: &RevisionDigest,
    ) -> Option<(ArtifactCoordinate, JournalVersion)> {
        self.revision_by_digest(digest)
            .map(|r| (r.coordinate().clone(), r.journal_version()))
    }
    /// The stored revision with `digest`, if any.
    pub fn revision_by_digest(&self, digest: &RevisionDigest) -> Option<JournalRevision> {
        let located = self.digests.get(digest, |i| self.log.get(i))?;
        self.log.get(located.index).cloned()
    }
    /// The accepted revision with sequence number `sequence`, if any.
    pub fn by_sequence(&self, sequence: u64) -> Option<JournalRevision> {
        let index = self
            .log
            .binary_search_by(|r| r.sequence().cmp(&sequence))
            .ok()?;
        self.log.get(index).cloned()
    }
    /// Every artifact with a revision.
    pub fn coordinates(&self) -> BTreeSet<ArtifactCoordinate> {
        self.coordinates.iter().cloned().collect()
    }
    /// Every revision of `artifact`, ascending.
    pub fn revisions(&self, artifact: &ArtifactCoordinate) -> Vec<JournalRevision> {
        self.chains
            .get(artifact)
            .map(Chain::to_vec)
            .unwrap_or_default()
    }
    /// The head of `artifact`.
    pub fn latest(&self, artifact: &ArtifactCoordinate) -> Option<JournalRevision> {
        Some(self.chains.get(artifact)?.last().clone())
    }
    /// The newest revision at or before `at_or_before` (binary search).
    pub fn revision_as_of(
        &self,
        artifact: &ArtifactCoordinate,
        at_or_before: JournalVersion,
    ) -> Option<JournalRevision> {
        self.chains
            .get(artifact)?
            .at_or_before(at_or_before)
            .cloned()
    }
    /// One release of the revision at exactly `revision`, with its policy context.
    pub fn release(
        &self,
        artifact: &ArtifactCoordinate,
        revision: JournalVersion,
        release: &ReleaseVersion,
    ) -> Option<ArtifactRelease> {
        self.chains
            .get(artifact)?
            .exact(revision)?
            .release(release)
            .cloned()
    }
    /// A cursor over every revision with a sequence above `after`, in sequence order.
    ///
    /// The cursor reads the snapshot it was opened on: revisions ingested
    /// into a later state are not seen. Opening is O(log n), each step O(1)
    /// amortized; `Ok(None)` means the backlog is drained.
    pub fn replay(&self, after: u64) -> Box<dyn RevisionCursor> {
        Box::new(replay::Replay::new(&self.log, self.first_after(after)))
    }

    /// The log index of the first revision with a sequence above `after`
    /// (the log's length if there is none): the one place both feeds find
    /// where to resume.
    ///
    /// Sequences ascend but need not be contiguous: in a root with a ledger
    /// a `FENCE` entry (a takeover of an expired lease) takes a sequence
    /// number that no revision has, so the index of a sequence is found by
    /// a binary search over the log, never derived from the number (after
    /// one fence, counting would skip one revision too many per gap).
    pub(crate) fn first_after(&self, after: u64) -> usize {
        // Sequences are unique and ascend along the log.
        match self.log.binary_search_by(|r| r.sequence().cmp(&after)) {
            Ok(index) => index + 1,
            Err(index) => index,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use nenjim_journal_api::model::build::RevisionBuilder;
    use nenjim_journal_api::valuetypes::Description;

    fn genesis(artifact: &str) -> JournalRevision {
        RevisionBuilder::new(
            artifact.parse().unwrap(),
            "20260101T000000Z".parse().unwrap(),
            None,
            Description::new("x").unwrap(),
        )
        .build(RevisionDigest::of_text(artifact))
    }

    /// A next state shares every chain outside the one B-tree leaf its new
    /// key lands in (a chain in a shared node is the very same value, so
    /// `ptr_eq` holds even for small inline vectors): nothing is copied per
    /// artifact, only O(log n) nodes.
    #[rstest::rstest]
    #[case::at_the_end("zzz-new")]
    #[case::in_the_middle("artifact-0500-new")]
    #[case::existing_artifact("artifact-0500")]
    fn a_next_state_shares_the_untouched_chains(#[case] touched: &str) {
        let names: Vec<String> = (0..1000).map(|i| format!("artifact-{i:04}")).collect();
        let state = ChainState::new()
            .ingest_all(names.iter().map(|n| genesis(n)))
            .unwrap();
        let coordinate: ArtifactCoordinate = touched.parse().unwrap();
        let revision = if let Some(head) = state.latest(&coordinate) {
            RevisionBuilder::new(
                head.coordinate().clone(),
                "20260102T000000Z".parse().unwrap(),
                Some(*head.digest()),
                Description::new("x").unwrap(),
            )
            .build(RevisionDigest::of_text("successor"))
        } else {
            genesis(touched)
        };
        let next = state.ingest_revision(revision).unwrap().into_state();
        let copied = names
            .iter()
            .filter(|name| {
                let c: ArtifactCoordinate = name.parse().unwrap();
                let (old, new) = (state.chains.get(&c).unwrap(), next.chains.get(&c).unwrap());
                !old.ptr_eq(new)
            })
            .count();
        assert!(copied <= 32, "{copied} of 1000 chains were copied");
        assert_eq!((state.len(), next.len()), (1000, 1001));
        assert_eq!((state.digests.len(), next.digests.len()), (1000, 1001));
    }

    #[test]
    fn the_digest_index_points_at_the_log_and_the_chain() {
        let state = ChainState::new()
            .ingest_all(["a", "b", "c"].map(genesis))
            .unwrap();
        for (i, revision) in state.log.iter().enumerate() {
            let located = state
                .digests
                .get(revision.digest(), |i| state.log.get(i))
                .unwrap();
            assert_eq!(located.index, i);
            assert_eq!(located.position, 0);
            assert_eq!(revision.sequence(), i as u64 + 1);
        }
    }
}
