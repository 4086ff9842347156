//! The ledger of a root as the loader reads it (format section 9): which
//! revisions the Journal holds, and their sequences.
//!
//! The ledger's layout, records and names have one home, the storage seam
//! ([`nenjim_journal_store::ledger`], re-exported here); this module reads
//! a whole ledger through its [`LedgerReader`] and writes nothing.

use std::path::Path;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_store::FileSystem;

pub use nenjim_journal_store::ledger::{
    Entry, LEDGER_DIR, LOG_DIR, LedgerReader, MARKER, MARKER_TEXT, Record, RecordError,
    RevisionPointer, SEGMENT_SPAN, SEGMENT_SUFFIX, SEGMENTS_DIR, SegmentedReader, entry_name,
    entry_path, ledger_dir, revision_path, segment_path,
};

/// A root's ledger as read: every entry in ascending sequence order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    entries: Vec<Entry>,
    /// The last sequence a segment covers (0 when there is none).
    segmented: u64,
}

impl Ledger {
    /// A ledger of `entries` (ascending, contiguous from 1) without segments.
    pub fn from_entries(entries: Vec<Entry>) -> Ledger {
        Ledger {
            entries,
            segmented: 0,
        }
    }
    /// Every entry, ascending by sequence (contiguous from 1).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }
    /// The tip: the last entry's sequence (0 for an empty ledger).
    pub fn tip(&self) -> u64 {
        self.entries.last().map_or(0, Entry::sequence)
    }
    /// The last sequence covered by a segment (0 when there is none).
    pub fn segmented(&self) -> u64 {
        self.segmented
    }
    /// The entries that point at revisions, ascending by sequence.
    pub fn revisions(&self) -> impl Iterator<Item = (u64, &RevisionPointer)> {
        self.entries
            .iter()
            .filter_map(|e| e.revision().map(|p| (e.sequence(), p)))
    }
}

/// Whether `root` has a ledger (its marker exists).
pub fn exists(fs: &dyn FileSystem, root: &Path) -> Result<bool, JournalError> {
    SegmentedReader::new(fs, root).exists()
}

/// Reads the ledger of `root` in `fs`: `Ok(None)` for a root without one.
///
/// A malformed ledger (an unknown marker, a segment or entry that does not
/// parse, sequences that do not follow each other) is `LedgerMismatch`.
pub fn read(fs: &dyn FileSystem, root: &Path) -> Result<Option<Ledger>, JournalError> {
    let reader = SegmentedReader::new(fs, root);
    if !reader.exists()? {
        return Ok(None);
    }
    let (entries, segmented) = reader.read_all_after(0)?;
    Ok(Some(Ledger { entries, segmented }))
}

/// Reads every entry of the ledger `reader` (any backend): `Ok(None)` for
/// a root without one.
pub fn read_from(reader: &dyn LedgerReader) -> Result<Option<Ledger>, JournalError> {
    if !reader.exists()? {
        return Ok(None);
    }
    Ok(Some(Ledger {
        entries: read_after(reader, 0)?,
        segmented: 0,
    }))
}

/// How many entries [`read_after`] asks a ledger for at once.
const BATCH: usize = 4096;

/// Every entry of `reader` after sequence `after`, batch after batch (a
/// batch shorter than asked for is the last).
pub fn read_after(reader: &dyn LedgerReader, after: u64) -> Result<Vec<Entry>, JournalError> {
    let mut entries = Vec::new();
    let mut tip = after;
    loop {
        let batch = reader.read_after(tip, BATCH)?;
        let full = batch.len() == BATCH;
        if let Some(last) = batch.last() {
            tip = last.sequence();
        }
        entries.extend(batch);
        if !full {
            return Ok(entries);
        }
    }
}
