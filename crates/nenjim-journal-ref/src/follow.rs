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
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::{EventCursor, JournalEvent, JournalRevision, RevisionCursor};
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::{EntryKind, EntryMetadata, FileSystem};
use nenjim_journal_store::ledger::{self, Entry, FollowEntries, LedgerFollow};

/// The longest a follow cursor waits on its backend before it looks at
/// the Journal's stop flag again (a backend's own stop wakes it at once;
/// this bounds the wait of one that cannot).
const STOP_CHECK: Duration = Duration::from_millis(200);

/// What a follow cursor needs of its Journal.
#[derive(Clone, Debug)]
pub(crate) struct Following {
    pub(crate) backend: Arc<dyn LedgerFollow>,
    pub(crate) fs: Arc<dyn FileSystem>,
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
            let next = self.ingest(&entry, bytes)?;
            let before = std::mem::replace(&mut self.state, next);
            return Ok(Some((before, self.state.clone())));
        }
    }

    /// Ingests the revision `entry` records: from the bytes the backend
    /// carried, else from the revision file through the Journal's store.
    fn ingest(&self, entry: &Entry, bytes: Option<Vec<u8>>) -> Result<ChainState, JournalError> {
        let entries = std::slice::from_ref(entry);
        let root = &*self.following.root;
        match (bytes, entry.revision()) {
            (Some(bytes), Some(pointer)) => {
                let carried = Carried {
                    path: ledger::revision_path(root, pointer.coordinate(), pointer.version()),
                    bytes,
                    inner: &*self.following.fs,
                };
                nenjim_journal_fs::ingest_recorded(&carried, root, entries, &self.state)
            }
            _ => {
                nenjim_journal_fs::ingest_recorded(&*self.following.fs, root, entries, &self.state)
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

/// The Journal's store with one more file: the revision whose bytes the
/// backend carried in its entry, at the path its record names, so that it
/// is checked, parsed and ingested by the loader's own code.
#[derive(Debug)]
struct Carried<'a> {
    path: PathBuf,
    bytes: Vec<u8>,
    inner: &'a dyn FileSystem,
}

impl Carried<'_> {
    fn bytes(&self, limit: u64) -> Vec<u8> {
        let keep = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
        self.bytes[..self.bytes.len().min(keep)].to_vec()
    }
}

impl FileSystem for Carried<'_> {
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.symlink_metadata(path)
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        if path == self.path {
            return Ok(EntryMetadata::new(EntryKind::File, self.bytes.len() as u64));
        }
        self.inner.symlink_metadata(path)
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        self.inner.read_dir(path)
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        if path == self.path {
            return Ok(self.bytes(limit));
        }
        self.inner.read(path, limit)
    }

    fn read_record(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.inner.read_record(path)
    }

    fn read_recorded(
        &self,
        path: &Path,
        limit: u64,
        digest: &RevisionDigest,
    ) -> io::Result<Vec<u8>> {
        if path == self.path {
            return Ok(self.bytes(limit));
        }
        self.inner.read_recorded(path, limit, digest)
    }
}
