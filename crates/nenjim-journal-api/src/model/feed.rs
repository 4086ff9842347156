//! What a refresh reports, and the change feed: a replay request and the
//! cursor that answers it.

use std::fmt;
use std::time::Duration;

use super::revision::JournalRevision;
use crate::error::JournalError;

/// What a refresh did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RefreshReport {
    pub(crate) ingested: usize,
    pub(crate) unchanged: usize,
    pub(crate) unrecorded: usize,
    pub(crate) uncovered: usize,
}

impl RefreshReport {
    /// How many new revisions were accepted.
    pub fn ingested(&self) -> usize {
        self.ingested
    }
    /// How many files were re-read and found identical to stored revisions
    /// (for a root with a ledger: how many recorded revisions were already held).
    pub fn unchanged(&self) -> usize {
        self.unchanged
    }
    /// How many revision files a root with a ledger holds that its ledger
    /// does not record, as far as this refresh looked: they are not part of
    /// the Journal (never loaded) until they are appended. A refresh of a
    /// root with a ledger reads the ledger alone (it costs what is new, not
    /// what the root holds) and looks for none, so this is 0; the
    /// command's `check` lists them. Always 0 for a root without a ledger.
    pub fn unrecorded(&self) -> usize {
        self.unrecorded
    }
    /// How many ledger entries after the last verified checkpoint a
    /// refresh with a verifier key (`LoadOptions::verifier`) found: not
    /// published, they wait for a checkpoint that covers them (the writer
    /// publishes one at its checkpoint interval; a later refresh takes
    /// them). Always 0 without a verifier.
    pub fn uncovered(&self) -> usize {
        self.uncovered
    }
}

/// Where a Journal's published state is: its last sequence and what it
/// holds (`JournalService::position`), read without a replay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) last_sequence: u64,
    pub(crate) revisions: u64,
    pub(crate) artifacts: usize,
}

impl Position {
    /// A position of `revisions` revisions of `artifacts` artifacts, the
    /// last at `last_sequence` (0: none).
    pub fn new(last_sequence: u64, revisions: u64, artifacts: usize) -> Position {
        Position {
            last_sequence,
            revisions,
            artifacts,
        }
    }
    /// The sequence of the last revision published (0 for none): a replay
    /// `after` it yields only what comes next.
    pub fn last_sequence(&self) -> u64 {
        self.last_sequence
    }
    /// How many revisions are published.
    pub fn revisions(&self) -> u64 {
        self.revisions
    }
    /// How many artifacts have at least one.
    pub fn artifacts(&self) -> usize {
        self.artifacts
    }
}

/// A request for the change feed: every revision with a sequence above
/// [`after_sequence`](ReplayRequest::after_sequence).
///
/// Sequences ascend but can have gaps. In a root with a ledger a revision's
/// sequence is its ledger entry's number, and a writer that takes over an
/// expired lease first records a `FENCE` entry (so that the previous holder
/// can commit nothing more), which takes a number no revision has: the
/// revisions of such a root may be 1, 3, 4, 6. A consumer stores the last
/// sequence it processed, whatever it is, and resumes after it: the feed
/// gives exactly the revisions with a larger sequence, wherever the gaps
/// are. It never counts revisions to find where to resume.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReplayRequest {
    after: u64,
    follow: bool,
}

impl ReplayRequest {
    /// Revisions after `sequence` (0 = from the start), not following.
    pub fn after(sequence: u64) -> ReplayRequest {
        ReplayRequest {
            after: sequence,
            follow: false,
        }
    }
    /// Whether to wait for future revisions once the backlog is drained.
    #[must_use]
    pub fn follow(self, follow: bool) -> ReplayRequest {
        ReplayRequest { follow, ..self }
    }
    /// The last sequence the consumer already has.
    pub fn after_sequence(&self) -> u64 {
        self.after
    }
    /// Whether the request asks to follow future revisions.
    pub fn is_follow(&self) -> bool {
        self.follow
    }
}

/// A cursor over replayed revisions, in ascending sequence order.
///
/// A cold cursor (`follow(false)`) ends: `Ok(None)` once its backlog is
/// drained. A *follow* cursor (`follow(true)`, where the backend can
/// notify) never drains: after the backlog it yields every revision
/// appended later, in sequence order, each validated as ingestion
/// validates it; [`next`](Self::next) blocks until one arrives, and
/// [`next_timeout`](Self::next_timeout) returns `Ok(None)` when none did
/// within the timeout (the cursor stays usable). Stopping the Journal
/// ends a follow cursor with `Stopped`; a lost connection or an
/// unreadable record is a typed error, never a silent end.
pub trait RevisionCursor: Send {
    /// The next revision; `Ok(None)` only when the backlog is drained (a
    /// follow cursor waits for the next one instead).
    fn next(&mut self) -> Result<Option<JournalRevision>, JournalError>;

    /// [`next`](Self::next), waiting at most `timeout` for a follow cursor
    /// (`Ok(None)` when nothing arrived in time; the cursor stays usable).
    /// A cold cursor never waits: this is `next` (the default).
    fn next_timeout(&mut self, timeout: Duration) -> Result<Option<JournalRevision>, JournalError> {
        let _ = timeout;
        self.next()
    }
}

impl fmt::Debug for dyn RevisionCursor + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RevisionCursor")
    }
}
