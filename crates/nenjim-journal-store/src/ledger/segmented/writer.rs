//! [`SegmentedLedger`]: a root's ledger in a [`Store`], read and written
//! (the writer's side of the [module docs](super)): commits at the tip,
//! each revision's file put before its record, batches, after-commit
//! hooks, and the one place segments are written.

use std::io::{self, Read as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::RevisionDigest;

use super::{SegmentedReader, exists};
use crate::blob::{Created, Store};
use crate::ledger::{
    AfterCommit, BatchCommit, Commit, CommitError, Entry, LOG_DIR, Ledger, LedgerReader, MARKER,
    MARKER_TEXT, Record, RevisionPointer, SEGMENT_SPAN, SEGMENTS_DIR, Seen, entry_path, ledger_dir,
    revision_path, segment_path, without_bytes,
};

/// The ledger of a root in a [`Store`], read and written: the writer's.
///
/// It remembers the entries after the last segment it has seen (from its
/// reads and commits) and writes a segment of them once there are
/// `segment_span`: the one place segments are written.
#[derive(Debug)]
pub struct SegmentedLedger {
    store: Arc<dyn Store>,
    root: PathBuf,
    segment_span: u64,
    /// The entries after the last segment, in order.
    unsegmented: Mutex<Vec<Entry>>,
    hooks: Vec<Arc<dyn AfterCommit>>,
}

impl SegmentedLedger {
    /// The ledger of `root` in `store`, with a segment every `segment_span`
    /// entries (at least 1).
    pub fn new(store: Arc<dyn Store>, root: &Path, segment_span: u64) -> SegmentedLedger {
        SegmentedLedger {
            store,
            root: root.to_path_buf(),
            segment_span: segment_span.max(1),
            unsegmented: Mutex::new(Vec::new()),
            hooks: Vec::new(),
        }
    }

    /// The default span: [`SEGMENT_SPAN`].
    pub fn with_default_span(store: Arc<dyn Store>, root: &Path) -> SegmentedLedger {
        SegmentedLedger::new(store, root, SEGMENT_SPAN)
    }

    /// Calls `hook` after each commit.
    #[must_use]
    pub fn after_commit(mut self, hook: Arc<dyn AfterCommit>) -> SegmentedLedger {
        self.hooks.push(hook);
        self
    }

    fn reader(&self) -> SegmentedReader<'_> {
        SegmentedReader::new(&*self.store, &self.root)
    }

    fn unsegmented(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.unsegmented
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes a segment of the unsegmented entries once there are enough.
    /// A failure only means the entries stay unsegmented (readers read them
    /// one by one) and the next commit tries again, so it is nobody's failure.
    /// After a batch, one segment per `segment_span` entries.
    fn checkpoint(&self) {
        let mut unsegmented = self.unsegmented();
        let span = usize::try_from(self.segment_span).unwrap_or(usize::MAX);
        while unsegmented.len() >= span {
            let Some(last) = unsegmented.get(span - 1).map(Entry::sequence) else {
                return;
            };
            let path = segment_path(&self.root, last);
            let text = segment_text(unsegmented.get(..span).unwrap_or_default());
            if self.store.put_if_absent(&path, text.as_bytes()).is_err() {
                return;
            }
            unsegmented.drain(..span);
        }
    }

    /// The entry another writer created at `path`, as far as it can be read.
    fn found(&self, path: &Path) -> Option<Entry> {
        self.store
            .read_record(path)
            .ok()
            .and_then(|t| String::from_utf8(t).ok())
            .and_then(|t| Entry::parse_cached(&t, &mut Seen::default()).ok())
    }

    /// The path of the revision file `pointer` points at.
    fn revision_path(&self, pointer: &RevisionPointer) -> PathBuf {
        revision_path(&self.root, pointer.coordinate(), pointer.version())
    }

    /// Puts the revision file of `pointer` (its exact bytes `bytes`)
    /// unless the same bytes are already there: other bytes are a
    /// `Conflict` (the ledger does not record them).
    fn put_revision(&self, pointer: &RevisionPointer, bytes: &[u8]) -> Result<(), JournalError> {
        let path = self.revision_path(pointer);
        let created = self
            .store
            .put_if_absent(&path, bytes)
            .map_err(Self::io(&path, "cannot write the revision file"))?;
        match created {
            Created::New => Ok(()),
            Created::Exists => self.differs(&path, pointer, bytes)?.map_or(Ok(()), Err),
        }
    }

    /// Puts the revision files of `revisions` with one durability barrier
    /// ([`put_many_if_absent`](crate::BlobStore::put_many_if_absent); one
    /// file alone by `put_if_absent`): how many of them may be committed
    /// (all, or those before the first whose path holds other bytes) and
    /// the `Conflict` of that one.
    fn put_revisions(
        &self,
        revisions: &[(&RevisionPointer, &[u8])],
    ) -> Result<(usize, Option<JournalError>), JournalError> {
        let paths: Vec<PathBuf> = revisions
            .iter()
            .map(|(pointer, _)| self.revision_path(pointer))
            .collect();
        let objects: Vec<(&Path, &[u8])> = paths
            .iter()
            .map(PathBuf::as_path)
            .zip(revisions.iter().map(|(_, bytes)| *bytes))
            .collect();
        let created = match objects.as_slice() {
            [(path, bytes)] => self.store.put_if_absent(path, bytes).map(|c| vec![c]),
            _ => self.store.put_many_if_absent(&objects),
        };
        let created = created.map_err(|e| {
            let path = paths.first().map_or(self.root.clone(), Clone::clone);
            error::io_error(
                path,
                &format!(
                    "cannot write the revision files of a batch of {}",
                    revisions.len()
                ),
                e,
            )
        })?;
        for (i, ((path, (pointer, bytes)), created)) in
            paths.iter().zip(revisions).zip(created).enumerate()
        {
            if created == Created::Exists
                && let Some(conflict) = self.differs(path, pointer, bytes)?
            {
                return Ok((i, Some(conflict)));
            }
        }
        Ok((revisions.len(), None))
    }

    /// `Conflict` if the file found at `path` (the revision file of
    /// `pointer`) is not exactly `bytes`.
    fn differs(
        &self,
        path: &Path,
        pointer: &RevisionPointer,
        bytes: &[u8],
    ) -> Result<Option<JournalError>, JournalError> {
        let mut found = Vec::new();
        self.store
            .open(path)
            .and_then(|mut file| file.read_to_end(&mut found))
            .map_err(Self::io(path, "cannot read the existing revision file"))?;
        if found == bytes {
            return Ok(None);
        }
        Ok(Some(
            error::error(
                ErrorKind::Conflict,
                format!(
                    "found a different file ({} bytes, digest {}) at the path of {} {}, expected none or this exact text; the ledger does not record it: move it away to append this revision",
                    found.len(),
                    RevisionDigest::of_bytes(&found),
                    pointer.coordinate(),
                    pointer.version()
                ),
            )
            .with_path(path),
        ))
    }

    fn io(path: &Path, what: &str) -> impl FnOnce(io::Error) -> JournalError {
        let path = path.to_path_buf();
        let what = what.to_owned();
        move |e| error::io_error(path, &what, e)
    }
}

/// The text of a segment of `entries`: their records, one a line.
fn segment_text(entries: &[Entry]) -> String {
    let mut text = String::new();
    for entry in entries {
        text.push_str(&entry.to_string());
        text.push('\n');
    }
    text
}

impl LedgerReader for SegmentedLedger {
    fn exists(&self) -> Result<bool, JournalError> {
        exists(&*self.store, &self.root)
    }

    /// Also learns the entries after the last segment (for the checkpoint
    /// the next commit writes).
    fn read_after(&self, after: u64, max: usize) -> Result<Vec<Entry>, JournalError> {
        let (mut entries, segmented) = self.reader().read_some_after(after, max.max(1))?;
        entries.truncate(max.max(1));
        let mut unsegmented = self.unsegmented();
        unsegmented.retain(|e| e.sequence() > segmented && e.sequence() <= after);
        unsegmented.extend(entries.iter().filter(|e| e.sequence() > segmented).cloned());
        // A read writes nothing: a checkpoint due is written by the next commit.
        Ok(entries)
    }

    fn entry_path(&self, sequence: u64) -> PathBuf {
        entry_path(&self.root, sequence)
    }
}

impl Ledger for SegmentedLedger {
    /// Segments of at most `segment_span` entries (like the ones commits
    /// make: one segment for a large root would outgrow what a reader
    /// accepts), then the marker, written last, which makes the set atomic.
    fn create(&self, entries: &[Entry]) -> Result<(), JournalError> {
        let dir = ledger_dir(&self.root);
        // Leftovers of an interrupted creation (never loaded: no marker).
        for sub in [LOG_DIR, SEGMENTS_DIR] {
            let path = dir.join(sub);
            self.store
                .remove_all(&path)
                .map_err(Self::io(&path, "cannot clean an unfinished ledger"))?;
            self.store
                .make_dir(&path)
                .map_err(Self::io(&path, "cannot create the ledger directory"))?;
        }
        let span = usize::try_from(self.segment_span).unwrap_or(usize::MAX);
        for chunk in entries.chunks(span) {
            let Some(last) = chunk.last() else { continue };
            let path = segment_path(&self.root, last.sequence());
            self.store
                .put_if_absent(&path, segment_text(chunk).as_bytes())
                .map_err(Self::io(&path, "cannot write a segment of the new ledger"))?;
        }
        let marker = dir.join(MARKER);
        match self.store.put_if_absent(&marker, MARKER_TEXT.as_bytes()) {
            Ok(Created::New | Created::Exists) => Ok(()),
            Err(e) => Err(error::io_error(marker, "cannot write the ledger marker", e)),
        }?;
        self.unsegmented().clear();
        Ok(())
    }

    /// The revision file first (blobs before pointers), then the entry.
    fn commit(&self, tip: u64, commit: Commit<'_>) -> Result<Entry, CommitError> {
        let (record, bytes) = commit.into_parts();
        if let Record::Revision(pointer) = &record {
            let Some(bytes) = bytes else {
                return Err(CommitError::Failed(without_bytes(&self.root, pointer)));
            };
            self.put_revision(pointer, bytes)
                .map_err(CommitError::Failed)?;
        }
        let entry = Entry::new(tip + 1, record);
        let path = entry_path(&self.root, entry.sequence());
        match self.store.put_record(&path, &entry.to_string()) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let found = self.found(&path);
                return Err(CommitError::TipMoved { found });
            }
            Err(e) => {
                return Err(CommitError::Failed(error::io_error(
                    path,
                    "cannot create the ledger entry",
                    e,
                )));
            }
        }
        self.unsegmented().push(entry.clone());
        self.checkpoint();
        for hook in &self.hooks {
            // The entry stands whatever a hook does; the hook keeps its own
            // state and catches up at the next commit.
            let _ = hook.committed(&entry);
        }
        Ok(entry)
    }

    /// The revision files put with one barrier (a record after the first
    /// whose path holds other bytes is not committed: that `Conflict` is
    /// where the batch stops), then the entries created in order through
    /// [`BlobStore::put_records`] (one directory sync locally), then the
    /// segments due, then each hook once for the batch.
    ///
    /// [`BlobStore::put_records`]: crate::BlobStore::put_records
    fn commit_batch(&self, tip: u64, commits: Vec<Commit<'_>>) -> BatchCommit {
        // The records up to the first revision without its bytes.
        let mut missing = None;
        let mut records = Vec::with_capacity(commits.len());
        let mut revisions: Vec<(usize, &[u8])> = Vec::new();
        for commit in commits {
            let (record, bytes) = commit.into_parts();
            if let Record::Revision(pointer) = &record {
                let Some(bytes) = bytes else {
                    missing = Some(without_bytes(&self.root, pointer));
                    break;
                };
                revisions.push((records.len(), bytes));
            }
            records.push(record);
        }
        let pointers: Vec<(&RevisionPointer, &[u8])> = revisions
            .iter()
            .filter_map(|(i, bytes)| match records.get(*i) {
                Some(Record::Revision(pointer)) => Some((pointer, *bytes)),
                _ => None,
            })
            .collect();
        let (writable, conflict) = if pointers.is_empty() {
            (records.len(), None)
        } else {
            match self.put_revisions(&pointers) {
                // The records before the first revision not writable.
                Ok((written, conflict)) => (
                    revisions.get(written).map_or(records.len(), |(i, _)| *i),
                    conflict,
                ),
                Err(error) => (0, Some(error)),
            }
        };
        let conflict = conflict.or(missing);
        records.truncate(writable);
        if records.is_empty() {
            return BatchCommit {
                entries: Vec::new(),
                stopped: conflict.map(CommitError::Failed),
            };
        }
        let mut batch = self.commit_records(tip, records);
        if batch.stopped.is_none() {
            batch.stopped = conflict.map(CommitError::Failed);
        }
        batch
    }
}

impl SegmentedLedger {
    /// The entries of `records` after `tip`, created in order through
    /// [`BlobStore::put_records`](crate::BlobStore::put_records), then the
    /// segments due, then each hook once for the batch.
    fn commit_records(&self, tip: u64, records: Vec<Record>) -> BatchCommit {
        let mut entries: Vec<Entry> = (tip + 1..)
            .zip(records)
            .map(|(sequence, record)| Entry::new(sequence, record))
            .collect();
        let paths: Vec<PathBuf> = entries
            .iter()
            .map(|e| entry_path(&self.root, e.sequence()))
            .collect();
        let texts: Vec<String> = entries.iter().map(Entry::to_string).collect();
        let pairs: Vec<(&Path, &str)> = paths
            .iter()
            .map(PathBuf::as_path)
            .zip(texts.iter().map(String::as_str))
            .collect();
        let (done, result) = self.store.put_records(&pairs);
        let done = done.min(entries.len());
        let stopped = result.err().map(|e| {
            let path = paths
                .get(done)
                .or(paths.last())
                .cloned()
                .unwrap_or_default();
            if e.kind() == io::ErrorKind::AlreadyExists {
                CommitError::TipMoved {
                    found: self.found(&path),
                }
            } else {
                CommitError::Failed(error::io_error(path, "cannot create the ledger entry", e))
            }
        });
        entries.truncate(done);
        if !entries.is_empty() {
            self.unsegmented().extend(entries.iter().cloned());
            self.checkpoint();
            for hook in &self.hooks {
                // As after one commit: the entries stand whatever a hook does.
                let _ = hook.committed_batch(&entries);
            }
        }
        BatchCommit { entries, stopped }
    }
}
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)] // a test fails by panicking
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::file_system::RealFileSystem;

    fn fence(epoch: u64) -> Record {
        Record::Fence { epoch }
    }

    /// The seam's contract on the local implementation: a commit at the
    /// tip creates the next entry, a commit at an old tip is `TipMoved`
    /// carrying the entry found, reads after a sequence honour their
    /// `max`, and segments are written every span entries (and read).
    #[test]
    fn commits_at_the_tip_and_reads_after_a_sequence() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let ledger = SegmentedLedger::new(Arc::new(RealFileSystem), root, 2);
        assert!(!ledger.exists().unwrap());
        ledger.create(&[]).unwrap();
        assert!(ledger.exists().unwrap());
        assert_eq!(ledger.read_after(0, 10).unwrap(), []);

        let first = ledger.commit(0, fence(1).into()).unwrap();
        assert_eq!(first.sequence(), 1);
        match ledger.commit(0, fence(2).into()) {
            Err(CommitError::TipMoved { found }) => assert_eq!(found, Some(first.clone())),
            other => panic!("{other:?}"),
        }
        for tip in 1..5 {
            assert_eq!(
                ledger.commit(tip, fence(1).into()).unwrap().sequence(),
                tip + 1
            );
        }
        // Segments every 2 entries: 2 and 4 written, 5 not yet.
        assert!(segment_path(root, 2).is_file() && segment_path(root, 4).is_file());
        assert!(!segment_path(root, 6).exists());
        let reader = SegmentedReader::new(&RealFileSystem, root);
        let sequences =
            |entries: Vec<Entry>| entries.iter().map(Entry::sequence).collect::<Vec<_>>();
        assert_eq!(
            sequences(reader.read_after(0, 10).unwrap()),
            [1, 2, 3, 4, 5]
        );
        assert_eq!(sequences(reader.read_after(3, 10).unwrap()), [4, 5]);
        assert_eq!(sequences(reader.read_after(1, 2).unwrap()), [2, 3]);
        assert_eq!(reader.read_after(5, 10).unwrap(), []);
        let (_, segmented) = reader.read_all_after(0).unwrap();
        assert_eq!(segmented, 4);
    }
    /// A hook that counts how it is called.
    #[derive(Debug, Default)]
    struct Counting {
        singles: Mutex<Vec<u64>>,
        batches: Mutex<Vec<Vec<u64>>>,
    }

    impl AfterCommit for Counting {
        fn committed(&self, entry: &Entry) -> Result<(), JournalError> {
            self.singles.lock().unwrap().push(entry.sequence());
            Ok(())
        }
        fn committed_batch(&self, entries: &[Entry]) -> Result<(), JournalError> {
            let batch = entries.iter().map(Entry::sequence).collect();
            self.batches.lock().unwrap().push(batch);
            Ok(())
        }
    }

    /// A batch commits its records at the next sequences, in order, writes
    /// the segments due (one per span), and runs each hook once for the
    /// batch; a batch that meets another writer's entry commits the records
    /// before it and is `TipMoved` carrying that entry.
    #[test]
    fn a_batch_commits_in_order_and_calls_its_hooks_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let hook = Arc::new(Counting::default());
        let ledger =
            SegmentedLedger::new(Arc::new(RealFileSystem), root, 3).after_commit(hook.clone());
        ledger.create(&[]).unwrap();
        ledger.commit(0, fence(1).into()).unwrap();
        let batch = ledger.commit_batch(1, (0..7).map(|_| fence(1).into()).collect());
        assert!(batch.stopped.is_none(), "{:?}", batch.stopped);
        let sequences: Vec<u64> = batch.entries.iter().map(Entry::sequence).collect();
        assert_eq!(sequences, [2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(*hook.singles.lock().unwrap(), [1]);
        assert_eq!(*hook.batches.lock().unwrap(), [vec![2, 3, 4, 5, 6, 7, 8]]);
        // Segments of 3: 3, 6 (8 waits for 9).
        assert!(segment_path(root, 3).is_file() && segment_path(root, 6).is_file());
        assert!(!segment_path(root, 9).exists());
        let reader = SegmentedReader::new(&RealFileSystem, root);
        assert_eq!(reader.read_after(0, 100).unwrap().len(), 8);

        // Another writer created entry 11: a batch from tip 8 commits 9 and 10.
        std::fs::create_dir_all(root.join(".ledger/log")).unwrap();
        std::os::unix::fs::symlink("11 FENCE 2", entry_path(root, 11)).unwrap();
        let batch = ledger.commit_batch(8, (0..4).map(|_| fence(1).into()).collect());
        let sequences: Vec<u64> = batch.entries.iter().map(Entry::sequence).collect();
        assert_eq!(sequences, [9, 10]);
        match batch.stopped {
            Some(CommitError::TipMoved { found }) => {
                assert_eq!(found, Some(Entry::new(11, fence(2))));
            }
            other => panic!("{other:?}"),
        }
        assert!(!entry_path(root, 12).exists());
        assert_eq!(hook.batches.lock().unwrap().last().unwrap(), &vec![9, 10]);
    }
}
