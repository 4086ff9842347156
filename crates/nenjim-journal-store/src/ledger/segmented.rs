//! The ledger as `log/` entries and `segments/` checkpoints (the layout of
//! the [module docs](super)), over any store: [`SegmentedReader`] reads it
//! through a [`FileSystem`] (the loader's), [`SegmentedLedger`] also writes
//! it through a [`Store`] (the writer's).

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};

use super::{
    AfterCommit, BatchCommit, CommitError, Entry, LEDGER_FILE_MAX, LOG_DIR, Ledger, LedgerReader,
    MARKER, MARKER_TEXT, Record, SEGMENT_SPAN, SEGMENT_SUFFIX, SEGMENTS_DIR, entry_path,
    ledger_dir, segment_path,
};
use crate::blob::{Created, Store};
use crate::file_system::FileSystem;

/// The largest batch of entries read at once after the last segment.
const ENTRY_BATCH_MAX: u64 = 64;

/// The one `LedgerMismatch` constructor: a ledger (or what it records)
/// found not to be what it says, at `path`.
pub fn mismatch(path: &Path, message: String) -> JournalError {
    error::error(ErrorKind::LedgerMismatch, message).with_path(path)
}

/// The ledger of a root, read through a [`FileSystem`]: writes nothing.
#[derive(Debug)]
pub struct SegmentedReader<'a> {
    fs: &'a dyn FileSystem,
    root: &'a Path,
}

impl<'a> SegmentedReader<'a> {
    /// The ledger of `root` in `fs`.
    pub fn new(fs: &'a dyn FileSystem, root: &'a Path) -> SegmentedReader<'a> {
        SegmentedReader { fs, root }
    }

    /// Every entry after `after`, and the last sequence a segment covers.
    pub fn read_all_after(&self, after: u64) -> Result<(Vec<Entry>, u64), JournalError> {
        self.read_some_after(after, usize::MAX)
    }

    /// The entries after `after`, at least `max` of them if there are that
    /// many (whole segments are read: a few more may come), and the last
    /// sequence of the segments read: a batched reader reads what it asks
    /// for, not the rest of the ledger each time (which made a load of a
    /// ledger of n entries read O(n^2 / batch) of them).
    pub fn read_some_after(
        &self,
        after: u64,
        max: usize,
    ) -> Result<(Vec<Entry>, u64), JournalError> {
        let marker = ledger_dir(self.root).join(MARKER);
        let text = self.read_small(&marker)?;
        if text != MARKER_TEXT {
            return Err(mismatch(
                &marker,
                format!(
                    "found {text:?}, expected {MARKER_TEXT:?} (a ledger of this format version)"
                ),
            ));
        }
        let mut entries = Vec::new();
        let mut seen = HashMap::new();
        let mut tip = 0;
        let mut segmented = 0;
        for (last, path) in self.segments()? {
            if entries.len() >= max {
                return Ok((entries, segmented));
            }
            if last <= after {
                // Wholly before `after`: its last sequence is known from its name.
                tip = last;
                segmented = last;
                continue;
            }
            let text = self.read_small(&path)?;
            // Lines end at `\n` only: a CR before it is part of the line
            // (a record refuses it, as in a log entry).
            for (index, line) in text.split_terminator('\n').enumerate() {
                let entry = Entry::parse_cached(line, &mut seen)
                    .map_err(|m| mismatch(&path, format!("line {}: {m}", index + 1)))?;
                push(&mut tip, &mut entries, after, entry, &path)?;
            }
            if tip != last || !text.ends_with('\n') {
                return Err(mismatch(
                    &path,
                    format!(
                        "found a segment ending at sequence {tip}, expected its records to end at {last} (its name), each on a line of its own"
                    ),
                ));
            }
            segmented = last;
        }
        // The entries after the last segment (or after `after`), up to the
        // first absent one, in batches of concurrent reads that double from
        // one (so a tail of n entries costs O(log n) round trips and at
        // most n + 1 absent reads more than one read each).
        tip = tip.max(after);
        let mut batch = 1;
        'tail: while entries.len() < max {
            let paths: Vec<PathBuf> = (tip + 1..=tip + batch)
                .map(|s| entry_path(self.root, s))
                .collect();
            for (path, record) in paths.iter().zip(self.fs.read_records(&paths)) {
                let Some(line) = entry_text(path, record)? else {
                    break 'tail;
                };
                let entry = Entry::parse_cached(&line, &mut seen)
                    .map_err(|m| mismatch(path, m.to_string()))?;
                push(&mut tip, &mut entries, after, entry, path)?;
            }
            batch = (batch * 2).min(ENTRY_BATCH_MAX);
        }
        Ok((entries, segmented))
    }

    /// The segments of the ledger, ascending: (last sequence, path).
    fn segments(&self) -> Result<Vec<(u64, PathBuf)>, JournalError> {
        let dir = ledger_dir(self.root).join(SEGMENTS_DIR);
        let names = match self.fs.read_dir(&dir) {
            Ok(names) => names,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(error::io_error(dir, "cannot list the ledger's segments", e));
            }
        };
        let mut segments = Vec::with_capacity(names.len());
        for name in names {
            let path = dir.join(&name);
            let last = name
                .to_str()
                .and_then(|n| n.strip_suffix(SEGMENT_SUFFIX))
                // Exactly the name a writer gives it: `u64::from_str`
                // alone also reads `+0000000000000000001`.
                .filter(|n| n.len() == 20 && n.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|n| n.parse::<u64>().ok())
                // Sequences start at 1: a segment "ending at 0" would be
                // skipped as wholly read by every read, never checked.
                .filter(|last| *last > 0);
            match last {
                Some(last) => segments.push((last, path)),
                None if name.to_string_lossy().starts_with('.') => {}
                None => {
                    return Err(mismatch(
                        &path,
                        "found an entry that is not a segment, expected `<20-digit sequence>.segment`"
                            .to_owned(),
                    ));
                }
            }
        }
        segments.sort_unstable_by_key(|(last, _)| *last);
        Ok(segments)
    }

    /// Reads a small ledger file as UTF-8.
    fn read_small(&self, path: &Path) -> Result<String, JournalError> {
        let bytes = self
            .fs
            .read(path, LEDGER_FILE_MAX)
            .map_err(|e| error::io_error(path, "cannot read the ledger", e))?;
        String::from_utf8(bytes).map_err(|_| {
            mismatch(
                path,
                "found bytes that are not UTF-8, expected ledger records".to_owned(),
            )
        })
    }
}

/// Appends `entry` (checking it is the next sequence) if it is after `after`.
fn push(
    tip: &mut u64,
    entries: &mut Vec<Entry>,
    after: u64,
    entry: Entry,
    path: &Path,
) -> Result<(), JournalError> {
    let expected = *tip + 1;
    if entry.sequence() != expected {
        return Err(mismatch(
            path,
            format!(
                "found the record of sequence {}, expected sequence {expected} (ledger entries follow each other)",
                entry.sequence()
            ),
        ));
    }
    *tip = expected;
    if expected > after {
        entries.push(entry);
    }
    Ok(())
}

/// The record read from the entry at `path`, or `None` if there is no such entry.
fn entry_text(path: &Path, record: io::Result<Vec<u8>>) -> Result<Option<String>, JournalError> {
    match record {
        Ok(record) => String::from_utf8(record).map(Some).map_err(|_| {
            mismatch(
                path,
                "found a record that is not UTF-8, expected a ledger record".to_owned(),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(error::io_error(path, "cannot read the ledger entry", e)),
    }
}

impl LedgerReader for SegmentedReader<'_> {
    fn exists(&self) -> Result<bool, JournalError> {
        exists(self.fs, self.root)
    }

    fn read_after(&self, after: u64, max: usize) -> Result<Vec<Entry>, JournalError> {
        let (mut entries, _) = self.read_some_after(after, max.max(1))?;
        entries.truncate(max.max(1));
        Ok(entries)
    }

    fn entry_path(&self, sequence: u64) -> PathBuf {
        entry_path(self.root, sequence)
    }
}

/// Whether `root` has a ledger (its marker exists).
fn exists(fs: &dyn FileSystem, root: &Path) -> Result<bool, JournalError> {
    let marker = ledger_dir(root).join(MARKER);
    match fs.symlink_metadata(&marker) {
        Ok(_) => Ok(true),
        // No root, or a root that is not a directory: no ledger (the
        // layout check reports the root's problem).
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(false)
        }
        Err(e) => Err(error::io_error(marker, "cannot read the ledger marker", e)),
    }
}

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
            .and_then(|t| Entry::parse_cached(&t, &mut HashMap::new()).ok())
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

    fn commit(&self, tip: u64, record: Record) -> Result<Entry, CommitError> {
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

    /// The entries created in order through [`BlobStore::put_records`]
    /// (one directory sync locally), then the segments due, then each hook
    /// once for the batch.
    ///
    /// [`BlobStore::put_records`]: crate::BlobStore::put_records
    fn commit_batch(&self, tip: u64, records: Vec<Record>) -> BatchCommit {
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

        let first = ledger.commit(0, fence(1)).unwrap();
        assert_eq!(first.sequence(), 1);
        match ledger.commit(0, fence(2)) {
            Err(CommitError::TipMoved { found }) => assert_eq!(found, Some(first.clone())),
            other => panic!("{other:?}"),
        }
        for tip in 1..5 {
            assert_eq!(ledger.commit(tip, fence(1)).unwrap().sequence(), tip + 1);
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

    /// A batched read reads what it asks for: the segments that hold its
    /// entries, never the rest of the ledger (a load of n entries in
    /// batches read O(n^2 / batch) of them before).
    #[test]
    fn a_batch_read_reads_only_the_segments_it_needs() {
        #[derive(Debug)]
        struct Reads(Mutex<Vec<PathBuf>>);
        impl FileSystem for Reads {
            fn metadata(&self, path: &Path) -> io::Result<crate::EntryMetadata> {
                RealFileSystem.metadata(path)
            }
            fn symlink_metadata(&self, path: &Path) -> io::Result<crate::EntryMetadata> {
                RealFileSystem.symlink_metadata(path)
            }
            fn read_dir(&self, path: &Path) -> io::Result<Vec<std::ffi::OsString>> {
                RealFileSystem.read_dir(path)
            }
            fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
                self.0.lock().unwrap().push(path.to_path_buf());
                RealFileSystem.read(path, limit)
            }
            fn read_record(&self, path: &Path) -> io::Result<Vec<u8>> {
                self.0.lock().unwrap().push(path.to_path_buf());
                RealFileSystem.read_record(path)
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let ledger = SegmentedLedger::new(Arc::new(RealFileSystem), root, 10);
        ledger.create(&[]).unwrap();
        for tip in 0..45 {
            ledger.commit(tip, fence(1)).unwrap();
        }
        let fs = Reads(Mutex::new(Vec::new()));
        let reader = SegmentedReader::new(&fs, root);
        let got = reader.read_after(0, 5).unwrap();
        assert_eq!(
            got.iter().map(Entry::sequence).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
        let segments_read = |fs: &Reads| {
            fs.0.lock()
                .unwrap()
                .iter()
                .filter(|p| p.extension().is_some_and(|e| e == "segment"))
                .count()
        };
        assert_eq!(segments_read(&fs), 1, "{:?}", fs.0.lock().unwrap());
        // Batch after batch, each segment is read about once, not once per batch.
        fs.0.lock().unwrap().clear();
        let (mut tip, mut all) = (0, 0);
        loop {
            let batch = reader.read_after(tip, 10).unwrap();
            all += batch.len();
            match batch.last() {
                Some(last) if batch.len() == 10 => tip = last.sequence(),
                _ => break,
            }
        }
        assert_eq!(all, 45);
        assert!(segments_read(&fs) <= 8, "{:?}", fs.0.lock().unwrap());
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
        ledger.commit(0, fence(1)).unwrap();
        let batch = ledger.commit_batch(1, (0..7).map(|_| fence(1)).collect());
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
        let batch = ledger.commit_batch(8, (0..4).map(|_| fence(1)).collect());
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

    /// A segment's name is its 20 digits: one with a sign (which
    /// `u64::from_str` reads) is not a segment, `LedgerMismatch`, as any
    /// other name that is not (found by the fuzz target `ledger_segments`).
    #[test]
    fn a_segment_named_with_a_sign_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let ledger = SegmentedLedger::new(Arc::new(RealFileSystem), root, 1000);
        ledger.create(&[Entry::new(1, fence(1))]).unwrap();
        let signed = segment_path(root, 1).with_file_name("+0000000000000000001.segment");
        std::fs::rename(segment_path(root, 1), &signed).unwrap();
        let error = SegmentedReader::new(&RealFileSystem, root)
            .read_after(0, 10)
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LedgerMismatch, "{error}");
        assert_eq!(error.path(), Some(signed.as_path()));
    }

    /// A segment named for sequence 0 is not a segment, `LedgerMismatch`:
    /// it held records no read ever checked, every read taking it for one
    /// wholly before the sequence it reads after (found by the fuzz target
    /// `ledger_segments`: an accepted segment holds its entries' records).
    #[test]
    fn a_segment_named_for_sequence_0_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let ledger = SegmentedLedger::new(Arc::new(RealFileSystem), root, 1000);
        ledger.create(&[]).unwrap();
        ledger.commit(0, fence(1)).unwrap();
        let zero = segment_path(root, 0);
        std::fs::write(&zero, "not a record\n").unwrap();
        let error = SegmentedReader::new(&RealFileSystem, root)
            .read_after(0, 10)
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LedgerMismatch, "{error}");
        assert_eq!(error.path(), Some(zero.as_path()));
    }

    /// A segment's lines end at LF: one in CRLF is `LedgerMismatch` at its
    /// first line, as a log entry `1 FENCE 1\r` is (found by the fuzz
    /// target `ledger_segments`: an accepted segment must be the bytes a
    /// writer writes for its records).
    #[test]
    fn a_segment_in_crlf_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let ledger = SegmentedLedger::new(Arc::new(RealFileSystem), root, 1000);
        ledger
            .create(&[Entry::new(1, fence(1)), Entry::new(2, fence(1))])
            .unwrap();
        let path = segment_path(root, 2);
        std::fs::write(&path, "1 FENCE 1\r\n2 FENCE 1\r\n").unwrap();
        let error = SegmentedReader::new(&RealFileSystem, root)
            .read_after(0, 10)
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LedgerMismatch, "{error}");
        assert_eq!(error.path(), Some(path.as_path()));
        assert!(error.message().starts_with("line 1: "), "{error}");
    }

    /// A segment that does not end where its name says is `LedgerMismatch`.
    #[test]
    fn a_segment_that_lies_about_its_end_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let ledger = SegmentedLedger::new(Arc::new(RealFileSystem), root, 1000);
        ledger
            .create(&[Entry::new(1, fence(1)), Entry::new(2, fence(1))])
            .unwrap();
        std::fs::rename(segment_path(root, 2), segment_path(root, 3)).unwrap();
        let error = SegmentedReader::new(&RealFileSystem, root)
            .read_after(0, 10)
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LedgerMismatch, "{error}");
        assert_eq!(error.path(), Some(segment_path(root, 3).as_path()));
    }
}
