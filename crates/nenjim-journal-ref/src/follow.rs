//! Follow cursors (`ReplayRequest::follow(true)`): the snapshot's backlog,
//! then every entry the backend's [`LedgerFollow`] yields, validated as
//! ingestion validates it, against a private copy of the chain state.
//!
//! Following never publishes: the Journal's queries see what its last
//! start or refresh published, whatever the cursors have read since. Each
//! cursor ingests what it follows into its own state (a persistent
//! structure: the copy shares everything with the snapshot), so a revision
//! that the chain would refuse is the cursor's error, exactly as it would
//! be a refresh's, and the next revision is judged after the ones before.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::{EventCursor, JournalEvent, JournalRevision, RevisionCursor};
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::FileSystem;
use nenjim_journal_store::ledger::{self, Entry, FollowEntries, LedgerFollow, LedgerReader};

/// The longest a follow cursor waits on its backend before it looks at
/// the Journal's stop flag again (a backend's own stop wakes it at once;
/// this bounds the wait of one that cannot).
const STOP_CHECK: Duration = Duration::from_millis(200);

/// What a follow cursor needs of its Journal.
#[derive(Clone, Debug)]
pub(crate) struct Following {
    pub(crate) backend: Arc<dyn LedgerFollow>,
    pub(crate) fs: Arc<dyn FileSystem>,
    /// The backend's own ledger (`None`: the one in `fs`).
    pub(crate) ledger: Option<Arc<dyn LedgerReader>>,
    pub(crate) root: Arc<Path>,
    pub(crate) halted: Arc<AtomicBool>,
}

impl Following {
    /// The live part of a cursor after `snapshot`, yielding what has a
    /// sequence above `after`.
    fn live(&self, snapshot: &ChainState, after: u64) -> Result<Live, JournalError> {
        let state = snapshot.clone();
        let follower = self.backend.follow(state.last_sequence())?;
        Ok(Live {
            following: self.clone(),
            follower,
            state,
            after,
            failed: None,
        })
    }

    /// A follow cursor of revisions after `after`.
    pub(crate) fn revisions(
        &self,
        snapshot: &ChainState,
        after: u64,
    ) -> Result<Box<dyn RevisionCursor>, JournalError> {
        let mut backlog = snapshot.replay(after);
        Ok(Box::new(Follow {
            backlog: Some(Box::new(move || backlog.next())),
            new: |state, after| drain(state.replay(after), |c| c.next()),
            live: self.live(snapshot, after)?,
            pending: VecDeque::new(),
        }))
    }

    /// A follow cursor of events after `after`.
    pub(crate) fn events(
        &self,
        snapshot: &ChainState,
        after: u64,
    ) -> Result<Box<dyn EventCursor>, JournalError> {
        let mut backlog = snapshot.replay_events(after);
        Ok(Box::new(Follow {
            backlog: Some(Box::new(move || backlog.next())),
            new: |state, after| drain(state.replay_events(after), |c| c.next()),
            live: self.live(snapshot, after)?,
            pending: VecDeque::new(),
        }))
    }
}

/// Everything a cold cursor yields.
fn drain<C, T>(
    mut cursor: C,
    next: impl Fn(&mut C) -> Result<Option<T>, JournalError>,
) -> Result<Vec<T>, JournalError> {
    let mut all = Vec::new();
    while let Some(item) = next(&mut cursor)? {
        all.push(item);
    }
    Ok(all)
}

/// The live part of a follow cursor: the backend's follower and the state
/// its entries are ingested into.
#[derive(Debug)]
struct Live {
    following: Following,
    follower: Box<dyn FollowEntries>,
    state: ChainState,
    /// Only what has a larger sequence is yielded (a consumer may resume
    /// after a sequence past the snapshot's).
    after: u64,
    /// A cursor's error is final: every later call returns it again.
    failed: Option<JournalError>,
}

impl Live {
    /// Waits (until `deadline`, or without limit) for the next entry that
    /// records a revision and ingests it: the state before and after it,
    /// or `None` when the deadline passed first.
    fn next_state(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<Option<(ChainState, ChainState)>, JournalError> {
        if let Some(failed) = &self.failed {
            return Err(failed.clone());
        }
        let next = self.wait(deadline);
        if let Err(error) = &next {
            self.failed = Some(error.clone());
        }
        next
    }

    fn wait(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<Option<(ChainState, ChainState)>, JournalError> {
        loop {
            if self.following.halted.load(Ordering::Acquire) {
                return Err(crate::journal::stopped());
            }
            let slice = match deadline {
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(None);
                    }
                    left.min(STOP_CHECK)
                }
                None => STOP_CHECK,
            };
            let Some(followed) = self.follower.next_timeout(Some(slice))? else {
                continue;
            };
            let (entry, bytes) = followed.into_parts();
            if entry.sequence() <= self.state.last_sequence() || entry.revision().is_none() {
                // A fence (or an entry the state already holds) changes nothing.
                continue;
            }
            let next = self.ingest(entry, bytes)?;
            let before = std::mem::replace(&mut self.state, next);
            return Ok(Some((before, self.state.clone())));
        }
    }

    /// Ingests the revision `entry` records: from the bytes the backend
    /// carried, else read through the Journal's ledger.
    fn ingest(&self, entry: Entry, bytes: Option<Vec<u8>>) -> Result<ChainState, JournalError> {
        let root = &*self.following.root;
        let fs = &*self.following.fs;
        let read = nenjim_journal_fs::ledger::Ledger::carrying(vec![(entry, bytes)]);
        match &self.following.ledger {
            Some(ledger) => {
                nenjim_journal_fs::ingest_recorded(fs, &**ledger, root, read, &self.state)
            }
            None => {
                let reader = ledger::SegmentedReader::new(fs, root);
                nenjim_journal_fs::ingest_recorded(fs, &reader, root, read, &self.state)
            }
        }
    }
}

/// The deadline of a wait of `timeout` from now (`None`: it overflows,
/// wait without limit).
fn deadline(timeout: Duration) -> Option<Instant> {
    Instant::now().checked_add(timeout)
}

/// The next item of a cold cursor over the snapshot.
type Backlog<T> = Box<dyn FnMut() -> Result<Option<T>, JournalError> + Send>;

/// A follow cursor of revisions or of events (`T`): the snapshot's
/// backlog, then what each later revision brings (`new`: the items of a
/// state after a sequence).
struct Follow<T> {
    backlog: Option<Backlog<T>>,
    new: fn(&ChainState, u64) -> Result<Vec<T>, JournalError>,
    live: Live,
    pending: VecDeque<T>,
}

impl<T> std::fmt::Debug for Follow<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Follow")
            .field("backlog", &self.backlog.is_some())
            .field("live", &self.live)
            .field("pending", &self.pending.len())
            .finish()
    }
}

impl<T> Follow<T> {
    fn next_until(&mut self, deadline: Option<Instant>) -> Result<Option<T>, JournalError> {
        // A stopped Journal ends the cursor, whatever it still holds (its
        // backlog, or the rest of a revision's events).
        if self.live.following.halted.load(Ordering::Acquire) {
            return Err(crate::journal::stopped());
        }
        if let Some(backlog) = &mut self.backlog {
            match backlog()? {
                Some(item) => return Ok(Some(item)),
                None => self.backlog = None,
            }
        }
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Ok(Some(item));
            }
            let Some((before, after)) = self.live.next_state(deadline)? else {
                return Ok(None);
            };
            let from = before.last_sequence().max(self.live.after);
            self.pending.extend((self.new)(&after, from)?);
        }
    }
}

impl RevisionCursor for Follow<JournalRevision> {
    fn next(&mut self) -> Result<Option<JournalRevision>, JournalError> {
        self.next_until(None)
    }

    fn next_timeout(&mut self, timeout: Duration) -> Result<Option<JournalRevision>, JournalError> {
        self.next_until(deadline(timeout))
    }
}

impl EventCursor for Follow<JournalEvent> {
    fn next(&mut self) -> Result<Option<JournalEvent>, JournalError> {
        self.next_until(None)
    }

    fn next_timeout(&mut self, timeout: Duration) -> Result<Option<JournalEvent>, JournalError> {
        self.next_until(deadline(timeout))
    }
}
