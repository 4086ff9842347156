//! The event feed: what a revision changed against its predecessor.
//!
//! [`events`] is the one derivation of events from a revision and its
//! predecessor: the reference Journal's `replay_events` (through
//! [`ChainState::replay_events`]) and the command line's `history` and
//! `events` all use it. The order of the events of one revision is the
//! order of `docs/api.md` ("The event feed"), documented on
//! [`EventChange`].

use std::collections::VecDeque;

use imbl::Vector;
use nenjim_journal_api::error::{self, ErrorKind, JournalError};
use nenjim_journal_api::model::build;
use nenjim_journal_api::model::{
    ArtifactRelease, EventChange, EventCursor, JournalEvent, JournalRevision, PolicyStatement,
};

use crate::ChainState;

/// The events `revision` made, given its `predecessor` (`None` for a genesis).
///
/// `predecessor` is the revision that `revision` follows in an accepted
/// chain, so each of its releases is also in `revision` (section 6, release
/// immutability); a revision that changes nothing against it gives an empty
/// vector. A genesis gives `ArtifactCreated`, then every release published
/// and every policy statement stated.
///
/// ```
/// use nenjim_journal_api::model::EventChange;
/// use nenjim_journal_chain::{ChainState, events};
/// # fn main() -> Result<(), nenjim_journal_api::error::JournalError> {
/// let genesis = "\
/// FORMAT nenjim-journal/1
/// ARTIFACT left-pad
/// JOURNAL_VERSION 20261129T101530Z
/// PREDECESSOR GENESIS
/// DESCRIPTION \"pads strings on the left\"
/// ";
/// let parsed = nenjim_journal_parser::parse(genesis)?;
/// let revision = ChainState::new().ingest_revision(parsed)?.revision().clone();
/// let made = events(None, &revision);
/// assert_eq!(made.len(), 1);
/// assert_eq!(made[0].change(), &EventChange::ArtifactCreated);
/// assert_eq!(made[0].sequence(), 1);
/// # Ok(()) }
/// ```
pub fn events(
    predecessor: Option<&JournalRevision>,
    revision: &JournalRevision,
) -> Vec<JournalEvent> {
    let mut made = Vec::new();
    derive(predecessor, revision, |change| {
        made.push(event(revision, change));
    });
    made
}

/// One event of `revision`.
fn event(revision: &JournalRevision, change: EventChange) -> JournalEvent {
    build::event(
        revision.sequence(),
        revision.coordinate().clone(),
        revision.journal_version(),
        change,
    )
}

/// Hands each change `revision` made against `predecessor` to `emit`, in order.
fn derive(
    predecessor: Option<&JournalRevision>,
    revision: &JournalRevision,
    mut emit: impl FnMut(EventChange),
) {
    let Some(old) = predecessor else {
        emit(EventChange::ArtifactCreated);
        for release in revision.releases() {
            emit(EventChange::ReleasePublished(release.clone()));
        }
        for statement in revision.policy() {
            emit(EventChange::PolicyStated(statement.clone()));
        }
        return;
    };
    if revision.description() != old.description() {
        emit(EventChange::DescriptionChanged(
            revision.description().clone(),
        ));
    }
    if revision.information() != old.information() {
        emit(EventChange::InformationChanged(
            revision.information().cloned(),
        ));
    }
    published(old.releases(), revision.releases(), |release| {
        emit(EventChange::ReleasePublished(release.clone()));
    });
    let (old_policy, new_policy) = (old.policy(), revision.policy());
    if old_policy != new_policy {
        for statement in withdrawn(old_policy, new_policy) {
            emit(EventChange::PolicyWithdrawn(statement.clone()));
        }
        for statement in withdrawn(new_policy, old_policy) {
            emit(EventChange::PolicyStated(statement.clone()));
        }
    }
}

/// The statements of `from` that `to` does not state, in `from`'s order.
fn withdrawn<'a>(
    from: &'a [PolicyStatement],
    to: &'a [PolicyStatement],
) -> impl Iterator<Item = &'a PolicyStatement> {
    from.iter().filter(move |s| !to.contains(s))
}

/// Hands each release of `new` that is not in `old` to `emit`, ascending
/// (both are ascending, and every release of `old` is in `new`).
///
/// A successor usually restates its predecessor's releases and adds new
/// ones at the end: when the last of `old` stands at the same index in `new`,
/// the first `old.len()` releases of `new` are exactly `old`'s, and the new
/// ones are the rest, found without a walk. Otherwise one merge walk.
fn published<'a>(
    old: &'a [ArtifactRelease],
    new: &'a [ArtifactRelease],
    mut emit: impl FnMut(&'a ArtifactRelease),
) {
    let kept = old.len();
    if new.len() == kept {
        return;
    }
    let tail_kept = match (old.last(), kept.checked_sub(1).and_then(|i| new.get(i))) {
        (None, _) => true,
        (Some(a), Some(b)) => a.version() == b.version(),
        (Some(_), None) => false,
    };
    if tail_kept {
        new.get(kept..).unwrap_or_default().iter().for_each(emit);
        return;
    }
    let mut old = old.iter().peekable();
    for release in new {
        while old.next_if(|o| o.version() < release.version()).is_some() {}
        if old.next_if(|o| o.version() == release.version()).is_none() {
            emit(release);
        }
    }
}

impl ChainState {
    /// A cursor over the events of every revision with a sequence above
    /// `after`, in sequence order (see [`events`]).
    ///
    /// Same snapshot and guarantees as [`ChainState::replay`]: later
    /// ingestions are not seen and `Ok(None)` means drained. The events of
    /// a revision are derived when the cursor reaches it; its predecessor is
    /// the revision just stepped over (the common case: a load ingests each
    /// artifact's files in a row) or one digest look-up.
    pub fn replay_events(&self, after: u64) -> Box<dyn EventCursor> {
        Box::new(EventReplay {
            state: self.clone(),
            pending: self.log.skip(self.first_after(after)),
            touched_ahead: 0,
            previous: None,
            ready: VecDeque::new(),
        })
    }
}

/// The event cursor of one snapshot.
struct EventReplay {
    /// The snapshot, for predecessor look-ups.
    state: ChainState,
    /// The revisions not reached yet, in sequence order.
    pending: Vector<JournalRevision>,
    /// How many of the first `pending` revisions were read ahead by [`touch`].
    touched_ahead: usize,
    /// The revision whose events are in `ready` (or were the last handed out).
    previous: Option<JournalRevision>,
    /// The events of `previous` not handed out yet.
    ready: VecDeque<JournalEvent>,
}

/// How many revisions [`touch`] reads ahead of the cursor at once.
const READ_AHEAD: usize = 16;

/// Reads (plain loads, no reference count) what deriving the events of
/// `revision` will reference: its release and policy lists and its newest
/// releases.
///
/// Deriving events clones shared values, and each clone is an atomic
/// increment, which on x86 waits for its cache line before anything after
/// it may load: on a snapshot larger than the cache, every release
/// published and every reason stated would be one full memory latency, one
/// after the other. Plain reads of the next [`READ_AHEAD`] revisions first
/// let the processor fetch those lines in parallel; the sum only keeps the
/// reads from being optimized away. (The bench P9 measures the effect.)
fn touch(revision: &JournalRevision) -> u64 {
    let mut sum = (revision.releases().len() + revision.policy().len()) as u64;
    for release in revision.releases().iter().rev().take(4) {
        sum = sum
            .wrapping_add(release.content().size())
            .wrapping_add(u64::from(release.policy().is_recommended()));
    }
    for statement in revision.policy() {
        if let PolicyStatement::Recommend { version } = statement {
            sum = sum.wrapping_add(version.major());
        }
    }
    sum
}

/// The error of a revision whose predecessor the snapshot does not hold
/// (never for a state built by ingestion, which checks every predecessor).
fn missing_predecessor(revision: &JournalRevision) -> JournalError {
    error::error(
        ErrorKind::UnknownPredecessor,
        format!(
            "found revision {} of {} (sequence {}) naming a predecessor that the \
             snapshot does not hold; expected every accepted revision's predecessor \
             to be stored",
            revision.journal_version(),
            revision.coordinate(),
            revision.sequence()
        ),
    )
}

impl EventCursor for EventReplay {
    fn next(&mut self) -> Result<Option<JournalEvent>, JournalError> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Ok(Some(event));
            }
            if self.touched_ahead == 0 {
                let mut sum = 0u64;
                for revision in self.pending.iter().take(READ_AHEAD) {
                    sum = sum.wrapping_add(touch(revision));
                }
                std::hint::black_box(sum);
                self.touched_ahead = READ_AHEAD;
            }
            let Some(revision) = self.pending.pop_front() else {
                return Ok(None);
            };
            self.touched_ahead -= 1;
            // The predecessor, borrowed: usually the revision just stepped
            // over, else one digest look-up in the snapshot.
            let found;
            let predecessor = match revision.predecessor() {
                None => None,
                Some(digest) => match &self.previous {
                    Some(previous) if previous.digest() == digest => Some(previous),
                    _ => {
                        found = self
                            .state
                            .revision_by_digest(digest)
                            .ok_or_else(|| missing_predecessor(&revision))?;
                        Some(&found)
                    }
                },
            };
            let ready = &mut self.ready;
            derive(predecessor, &revision, |change| {
                ready.push_back(event(&revision, change));
            });
            self.previous = Some(revision);
        }
    }
}
