//! The ledger of a root as the loader reads it (format section 9): which
//! revisions the Journal holds, and their sequences.
//!
//! The ledger's layout, records and names have one home, the storage seam
//! ([`nenjim_journal_store::ledger`], re-exported here); this module reads
//! a whole ledger through its [`LedgerReader`] and writes nothing.

use std::collections::HashMap;
use std::path::Path;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_store::FileSystem;

pub use nenjim_journal_store::ledger::{
    Entry, EntryBytes, LEDGER_DIR, LOG_DIR, LedgerReader, MARKER, MARKER_TEXT, Record, RecordError,
    RevisionPointer, SEGMENT_SPAN, SEGMENT_SUFFIX, SEGMENTS_DIR, SegmentedReader, entry_name,
    entry_path, ledger_dir, revision_path, segment_path,
};

/// The bytes of revisions a ledger carried, by sequence (sequences are
/// small distinct integers: a cheap hash serves them).
pub(crate) type Carried = HashMap<u64, Vec<u8>, rustc_hash::FxBuildHasher>;

/// A root's ledger as read: every entry in ascending sequence order, and
/// the bytes of the revisions the backend carried with them (a NATS
/// message does; a directory's or a bucket's ledger carries none: the
/// loader reads those through [`LedgerReader::read_revision`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    entries: Vec<Entry>,
    /// The last sequence a segment covers (0 when there is none).
    segmented: u64,
    /// The revisions' bytes carried with their entries, by sequence.
    carried: Carried,
}

impl Ledger {
    /// A ledger of `entries` (ascending, contiguous from 1) without segments.
    pub fn from_entries(entries: Vec<Entry>) -> Ledger {
        Ledger {
            entries,
            segmented: 0,
            carried: Carried::default(),
        }
    }
    /// A ledger of `entries` (ascending), each with the bytes of the
    /// revision it records where the backend carried them (a follower's
    /// entry, say: [`crate::ingest_recorded`] checks and parses those bytes
    /// instead of reading the revision again).
    pub fn carrying(entries: Vec<EntryBytes>) -> Ledger {
        let mut ledger = Ledger::default();
        for (entry, bytes) in entries {
            if let (Some(bytes), true) = (bytes, entry.revision().is_some()) {
                ledger.carried.insert(entry.sequence(), bytes);
            }
            ledger.entries.push(entry);
        }
        ledger
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
    /// The carried bytes, taken out (the ledger keeps its entries).
    pub(crate) fn take_carried(&mut self) -> Carried {
        std::mem::take(&mut self.carried)
    }
    /// Every entry with its carried bytes, in order.
    pub(crate) fn into_carried(mut self) -> Vec<EntryBytes> {
        let mut carried = std::mem::take(&mut self.carried);
        self.entries
            .into_iter()
            .map(|entry| {
                let bytes = carried.remove(&entry.sequence());
                (entry, bytes)
            })
            .collect()
    }
    /// Keeps the first `len` entries (and their carried bytes): a
    /// verifying load serves what the checkpoint covers.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.entries.truncate(len);
        let tip = self.tip();
        self.carried.retain(|sequence, _| *sequence <= tip);
        self.segmented = self.segmented.min(tip);
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
    Ok(Some(Ledger {
        entries,
        segmented,
        carried: Carried::default(),
    }))
}

/// Reads every entry of the ledger `reader` (any backend), with the
/// revisions' bytes it carries ([`read_ledger_after`]): `Ok(None)` for a
/// root without one.
pub fn read_from(reader: &dyn LedgerReader) -> Result<Option<Ledger>, JournalError> {
    if !reader.exists()? {
        return Ok(None);
    }
    read_ledger_after(reader, 0).map(Some)
}

/// The most bytes of carried revisions a read keeps (256 MiB): past it, a
/// revision's bytes are dropped and read again, by its entry, when the
/// loader comes to it ([`LedgerReader::read_revision`]). So a load of a
/// large root holds a bounded amount of them at once.
pub const CARRIED_MAX: usize = 256 * 1024 * 1024;

/// Every entry of `reader` after sequence `after`, batch after batch (a
/// batch shorter than asked for is the last).
pub fn read_after(reader: &dyn LedgerReader, after: u64) -> Result<Vec<Entry>, JournalError> {
    let mut entries = Vec::new();
    let mut tip = after;
    loop {
        let asked = reader.read_batch().max(1);
        let batch = reader.read_after(tip, asked)?;
        let full = batch.len() == asked;
        if let Some(last) = batch.last() {
            tip = last.sequence();
        }
        entries.extend(batch);
        if !full {
            return Ok(entries);
        }
    }
}

/// [`read_after`], keeping the bytes of the revisions the backend carries
/// with its entries ([`LedgerReader::read_after_with_bytes`]), at most
/// [`CARRIED_MAX`] of them.
pub fn read_ledger_after(reader: &dyn LedgerReader, after: u64) -> Result<Ledger, JournalError> {
    let mut ledger = Ledger::default();
    let mut kept = 0usize;
    let mut tip = after;
    loop {
        let asked = reader.read_batch().max(1);
        let batch = reader.read_after_with_bytes(tip, asked)?;
        let full = batch.len() == asked;
        if let Some((last, _)) = batch.last() {
            tip = last.sequence();
        }
        ledger.entries.reserve(batch.len());
        for (entry, bytes) in batch {
            if let Some(bytes) = bytes
                && entry.revision().is_some()
                && kept + bytes.len() <= CARRIED_MAX
            {
                kept += bytes.len();
                ledger.carried.insert(entry.sequence(), bytes);
            }
            ledger.entries.push(entry);
        }
        if !full {
            return Ok(ledger);
        }
    }
}
