//! [`SegmentedReader`]: a root's ledger read through a [`FileSystem`], in
//! batches that read only the segments holding their entries; writes
//! nothing (the loader's side of the [module docs](super)).

use std::io;
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{self, JournalError};

use super::{exists, mismatch};
use crate::file_system::FileSystem;
use crate::ledger::{
    Entry, LEDGER_FILE_MAX, LedgerReader, MARKER, MARKER_TEXT, SEGMENT_SPAN, SEGMENT_SUFFIX,
    SEGMENTS_DIR, Seen, entry_path, ledger_dir,
};

/// What was read of a run of consecutive segments: their records, up to
/// the first error; for each segment read whole, how many records it gave
/// and whether its text ends with a line end; and that error (of the
/// segment after those, whose records before it end `entries`).
struct Run {
    entries: Vec<Entry>,
    segments: Vec<(usize, bool)>,
    error: Option<JournalError>,
}

/// The entries a writer's segment holds, as a length: the most a read
/// makes room for a segment, whatever its name says.
const READ_SPAN: usize = SEGMENT_SPAN as usize;

/// The largest batch of entries read at once after the last segment.
const ENTRY_BATCH_MAX: u64 = 64;

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
        let mut seen = Seen::default();
        let mut tip = 0;
        let mut segmented = 0;
        // The segments to read: those after `after`, until they hold `max`
        // entries by their names (a name that lies is found when its
        // records are pushed below).
        let mut wanted = Vec::new();
        let mut named = 0u64;
        let mut before = 0u64;
        for (last, path) in self.segments()? {
            if usize::try_from(named).unwrap_or(usize::MAX) >= max {
                break;
            }
            if last <= after {
                // Wholly before `after`: its last sequence is known from its name.
                tip = last;
                segmented = last;
            } else {
                named += last.saturating_sub(before.max(after));
                wanted.push((last, path));
            }
            before = last;
        }
        // Read and parsed in parallel (most of a start's reading of a
        // large ledger), then checked in order: the first error in ledger
        // order is the one returned, as when they were read one by one.
        // Room for what the names say, but never more than a writer's
        // segments hold (a name is the ledger's word, not a size to trust).
        entries.reserve(
            usize::try_from(named)
                .unwrap_or(usize::MAX)
                .min(max)
                .min(wanted.len().saturating_mul(READ_SPAN)),
        );
        for (run, read) in self.read_segments(&wanted) {
            let mut records = read.entries.into_iter();
            let whole = read.segments.len();
            for ((last, path), (count, ended)) in run.iter().zip(read.segments) {
                for entry in records.by_ref().take(count) {
                    push(&mut tip, &mut entries, after, entry, path)?;
                }
                if tip != *last || !ended {
                    return Err(mismatch(
                        path,
                        format!(
                            "found a segment ending at sequence {tip}, expected its records to end at {last} (its name), each on a line of its own"
                        ),
                    ));
                }
                segmented = *last;
            }
            if let Some(error) = read.error {
                // The records of the segment that failed, before its
                // error: an order error among them comes first, as when
                // each record was checked as it was parsed.
                if let Some((_, path)) = run.get(whole) {
                    for entry in records {
                        push(&mut tip, &mut entries, after, entry, path)?;
                    }
                }
                return Err(error);
            }
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

    /// Reads and parses the segments `wanted`, on as many threads as the
    /// machine runs at once, each a run of consecutive segments: each run
    /// with what was read of it.
    fn read_segments<'w>(&self, wanted: &'w [(u64, PathBuf)]) -> Vec<(&'w [(u64, PathBuf)], Run)> {
        let threads = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(wanted.len());
        if threads <= 1 {
            return vec![(wanted, self.read_run(wanted))];
        }
        let size = wanted.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let handles: Vec<_> = wanted
                .chunks(size)
                .map(|run| (run, scope.spawn(|| self.read_run(run))))
                .collect();
            handles
                .into_iter()
                .map(|(run, handle)| {
                    // A reader that panicked (none does) reads its run here.
                    (run, handle.join().unwrap_or_else(|_| self.read_run(run)))
                })
                .collect()
        })
    }

    /// [`read_segments`](Self::read_segments) of one run, on this thread,
    /// up to its first error. Its records go to one vector (one
    /// allocation a run, not one a segment).
    fn read_run(&self, run: &[(u64, PathBuf)]) -> Run {
        let mut read = Run {
            entries: Vec::with_capacity(run.len().saturating_mul(READ_SPAN)),
            segments: Vec::with_capacity(run.len()),
            error: None,
        };
        let mut seen = Seen::default();
        for (_, path) in run {
            // The coordinates of one segment (an artifact's revisions are
            // mostly near each other): the set of a whole run, freed when
            // its thread ends, stayed in that thread's arena and grew a
            // start's peak memory (P7 with a ledger) by 5 MB.
            seen.clear();
            let text = match self.read_small(path) {
                Ok(text) => text,
                Err(error) => {
                    read.error = Some(error);
                    break;
                }
            };
            let before = read.entries.len();
            // Lines end at `\n` only: a CR before it is part of the line
            // (a record refuses it, as in a log entry).
            for (index, line) in text.split_terminator('\n').enumerate() {
                match Entry::parse_cached(line, &mut seen) {
                    Ok(entry) => read.entries.push(entry),
                    Err(m) => {
                        read.error = Some(mismatch(path, format!("line {}: {m}", index + 1)));
                        break;
                    }
                }
            }
            if read.error.is_some() {
                // The records before the error stay, the last ones of
                // `entries`: checked before the error is returned.
                break;
            }
            read.segments
                .push((read.entries.len() - before, text.ends_with('\n')));
        }
        read
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

    /// Every entry at once: a batch lists the segments and reads the
    /// marker again, and the entries are small (a start holds them all).
    fn read_batch(&self) -> usize {
        usize::MAX
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
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)] // a test fails by panicking
mod tests {
    use std::sync::Arc;

    use std::sync::Mutex;

    use nenjim_journal_api::error::ErrorKind;

    use super::*;
    use crate::file_system::RealFileSystem;
    use crate::ledger::{Ledger, Record, SegmentedLedger, segment_path};

    fn fence(epoch: u64) -> Record {
        Record::Fence { epoch }
    }

    /// A ledger made in `root` with segments of `span` entries, created
    /// with `entries`.
    fn created(root: &Path, span: u64, entries: &[Entry]) -> SegmentedLedger {
        let ledger = SegmentedLedger::new(Arc::new(RealFileSystem), root, span);
        ledger.create(entries).unwrap();
        ledger
    }

    /// The error of a read of the whole ledger of `root`: `LedgerMismatch`.
    fn mismatch_of(root: &Path) -> JournalError {
        let reader = SegmentedReader::new(&RealFileSystem, root);
        let error = reader.read_after(0, reader.read_batch()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LedgerMismatch, "{error}");
        error
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
        let ledger = created(root, 10, &[]);
        for tip in 0..45 {
            ledger.commit(tip, fence(1).into()).unwrap();
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

    /// A segment's name is its 20 digits: one with a sign (which
    /// `u64::from_str` reads) is not a segment, `LedgerMismatch`, as any
    /// other name that is not (found by the fuzz target `ledger_segments`).
    #[test]
    fn a_segment_named_with_a_sign_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        created(root, 1000, &[Entry::new(1, fence(1))]);
        let signed = segment_path(root, 1).with_file_name("+0000000000000000001.segment");
        std::fs::rename(segment_path(root, 1), &signed).unwrap();
        let error = mismatch_of(root);
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
        let ledger = created(root, 1000, &[]);
        ledger.commit(0, fence(1).into()).unwrap();
        let zero = segment_path(root, 0);
        std::fs::write(&zero, "not a record\n").unwrap();
        let error = mismatch_of(root);
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
        created(
            root,
            1000,
            &[Entry::new(1, fence(1)), Entry::new(2, fence(1))],
        );
        let path = segment_path(root, 2);
        std::fs::write(&path, "1 FENCE 1\r\n2 FENCE 1\r\n").unwrap();
        let error = mismatch_of(root);
        assert_eq!(error.path(), Some(path.as_path()));
        assert!(error.message().starts_with("line 1: "), "{error}");
    }

    /// Segments are read and parsed in parallel, and checked in ledger
    /// order: of two broken segments, the first one's error is returned,
    /// as a read of one segment after the other returns it.
    #[test]
    fn of_segments_read_in_parallel_the_first_error_in_ledger_order_is_returned() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let ledger = created(root, 10, &[]);
        for tip in 0..45 {
            ledger.commit(tip, fence(1).into()).unwrap();
        }
        let reader = SegmentedReader::new(&RealFileSystem, root);
        let whole = reader.read_after(0, reader.read_batch()).unwrap();
        assert_eq!(
            whole.iter().map(Entry::sequence).collect::<Vec<_>>(),
            (1..=45).collect::<Vec<_>>()
        );
        // The second segment does not parse at its line 3; the fourth not
        // at its line 1.
        let second = segment_path(root, 20);
        let text = std::fs::read_to_string(&second).unwrap();
        std::fs::write(&second, text.replacen("13 FENCE 1", "13 FENCE x", 1)).unwrap();
        std::fs::write(segment_path(root, 40), "garbage\n").unwrap();
        let error = mismatch_of(root);
        assert_eq!(error.path(), Some(second.as_path()), "{error}");
        assert!(error.message().starts_with("line 3: "), "{error}");
        // The first segment whole again, and the second one lying about
        // its end (it ends at 20 as named, but a record is missing): its
        // order error still comes before the fourth's parse error.
        std::fs::write(&second, text.replacen("13 FENCE 1\n", "", 1)).unwrap();
        let error = mismatch_of(root);
        assert_eq!(error.path(), Some(second.as_path()), "{error}");
        assert!(error.message().contains("expected sequence 13"), "{error}");
    }

    /// A segment named for the last sequence there is holds one record:
    /// `LedgerMismatch`, and the room a read makes for the entries its
    /// names promise is bounded by what segments hold (it was an overflow
    /// of a reservation for 2^64 entries).
    #[test]
    fn a_segment_named_for_the_largest_sequence_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        created(root, 1000, &[Entry::new(1, fence(1))]);
        let last = segment_path(root, u64::MAX);
        std::fs::rename(segment_path(root, 1), &last).unwrap();
        let error = mismatch_of(root);
        assert_eq!(error.path(), Some(last.as_path()));
    }

    /// A segment that does not end where its name says is `LedgerMismatch`.
    #[test]
    fn a_segment_that_lies_about_its_end_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        created(
            root,
            1000,
            &[Entry::new(1, fence(1)), Entry::new(2, fence(1))],
        );
        std::fs::rename(segment_path(root, 2), segment_path(root, 3)).unwrap();
        let error = mismatch_of(root);
        assert_eq!(error.path(), Some(segment_path(root, 3).as_path()));
    }
}
