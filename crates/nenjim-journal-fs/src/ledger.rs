//! The ledger of a root (format section 9): which revisions the Journal
//! holds, and their sequences.
//!
//! # On disk
//!
//! ```text
//! <root>/.ledger/LEDGER                          "nenjim-ledger/1": the root has a ledger
//! <root>/.ledger/log/<sequence>                  one entry (20-digit, zero-padded name)
//! <root>/.ledger/segments/<sequence>.segment     the entries up to <sequence>, one a line
//! <root>/.ledger/lease, lease.lock, tmp/         the writer's (see nenjim-journal-writer)
//! <root>/.ledger/store, store.lock               the root's content store, recorded by the command's `init`
//! ```
//!
//! `store` is metadata for the command (`nenjim-store/1`, then `store
//! <store>`); no reader of the ledger reads it.
//!
//! An entry is one *record*, a line of text:
//!
//! ```text
//! <sequence> REVISION <coordinate> <journal-version> <size> sha256:<hex>
//! <sequence> FENCE <epoch>
//! ```
//!
//! A `REVISION` record points at the revision file
//! `<root>/<coordinate>/<journal-version>.journal` by the size and SHA-256 of
//! its exact bytes. A `FENCE` record holds no revision: a writer that took
//! over an expired lease of epoch `e - 1` writes it at the tip, so that the
//! previous holder's next entry (at the same sequence) cannot be created.
//!
//! Entries are only ever created, each by a create-if-absent of
//! `log/<sequence>` at the tip (the compare-and-set of the append path),
//! never rewritten. On a local file system an entry is a symbolic link whose
//! target text is the record: `symlink(2)` is an atomic create-if-absent
//! that carries its content, so an entry is never torn and costs one
//! directory sync (on an object store it is an object created by a
//! conditional put). A *segment* is a checkpoint: a regular file holding the
//! records of the contiguous entries after the previous segment, up to the
//! sequence in its name, so that a reader opens one file per segment instead
//! of one per entry. Segments are written (create-if-absent, never
//! rewritten) once a thousand entries have no segment, and, a thousand
//! entries each, for the revisions a root held when its ledger was created.
//!
//! A reader lists `segments/`, reads them in order (each must start where
//! the one before ended), then reads `log/<n>` for the sequences after the
//! last segment until one is absent. `LEDGER` is written last when a ledger
//! is created, so a root whose ledger creation was interrupted still loads
//! as a root without one.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, RevisionDigest};

use crate::MAX_FILE_LEN;
use crate::file_system::FileSystem;

/// The ledger's directory under the root (a dot-entry: the layout rules of
/// section 7 ignore it).
pub const LEDGER_DIR: &str = ".ledger";
/// The marker file whose presence makes a root a root with a ledger.
pub const MARKER: &str = "LEDGER";
/// The marker's exact content: the ledger format and its version.
pub const MARKER_TEXT: &str = "nenjim-ledger/1\n";
/// The entries' directory.
pub const LOG_DIR: &str = "log";
/// The segments' (checkpoints') directory.
pub const SEGMENTS_DIR: &str = "segments";
/// The suffix of a segment file.
pub const SEGMENT_SUFFIX: &str = ".segment";
/// How many entries may go without a segment before the writer writes one.
pub const SEGMENT_SPAN: u64 = 1000;

/// The ledger directory of `root`.
pub fn ledger_dir(root: &Path) -> PathBuf {
    root.join(LEDGER_DIR)
}

/// The file name of the entry with `sequence` (20 digits, so names sort as numbers).
pub fn entry_name(sequence: u64) -> String {
    format!("{sequence:020}")
}

/// The path of the entry with `sequence`.
pub fn entry_path(root: &Path, sequence: u64) -> PathBuf {
    ledger_dir(root).join(LOG_DIR).join(entry_name(sequence))
}

/// The path of the segment ending at `last`.
pub fn segment_path(root: &Path, last: u64) -> PathBuf {
    ledger_dir(root)
        .join(SEGMENTS_DIR)
        .join(format!("{}{SEGMENT_SUFFIX}", entry_name(last)))
}

/// The path of the revision file a record points at.
pub fn revision_path(
    root: &Path,
    coordinate: &ArtifactCoordinate,
    version: JournalVersion,
) -> PathBuf {
    root.join(coordinate.as_str())
        .join(format!("{version}{}", crate::layout::RUNTIME_SUFFIX))
}

/// A pointer to one revision file: what a `REVISION` entry records.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RevisionPointer {
    coordinate: ArtifactCoordinate,
    version: JournalVersion,
    size: u64,
    digest: RevisionDigest,
}

impl RevisionPointer {
    /// A pointer to `<coordinate>/<version>.journal` holding `size` bytes with `digest`.
    pub fn new(
        coordinate: ArtifactCoordinate,
        version: JournalVersion,
        size: u64,
        digest: RevisionDigest,
    ) -> RevisionPointer {
        RevisionPointer {
            coordinate,
            version,
            size,
            digest,
        }
    }
    /// The artifact.
    pub fn coordinate(&self) -> &ArtifactCoordinate {
        &self.coordinate
    }
    /// The revision's Journal version (the file name stem).
    pub fn version(&self) -> JournalVersion {
        self.version
    }
    /// The exact byte size of the revision file.
    pub fn size(&self) -> u64 {
        self.size
    }
    /// The SHA-256 of the revision file's exact bytes.
    pub fn digest(&self) -> &RevisionDigest {
        &self.digest
    }
}

/// What one ledger entry records.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Record {
    /// A revision of the Journal.
    Revision(RevisionPointer),
    /// A writer of lease epoch `epoch` took the root over at this sequence.
    Fence {
        /// The new holder's lease epoch.
        epoch: u64,
    },
}

/// One entry: a sequence and its record.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    sequence: u64,
    record: Record,
}

impl Entry {
    /// The entry at `sequence` recording `record`.
    pub fn new(sequence: u64, record: Record) -> Entry {
        Entry { sequence, record }
    }
    /// The entry's sequence.
    pub fn sequence(&self) -> u64 {
        self.sequence
    }
    /// What it records.
    pub fn record(&self) -> &Record {
        &self.record
    }
    /// The revision it points at, unless it is a fence.
    pub fn revision(&self) -> Option<&RevisionPointer> {
        match &self.record {
            Record::Revision(pointer) => Some(pointer),
            Record::Fence { .. } => None,
        }
    }

    /// Parses one record line (without its line terminator).
    pub fn parse(line: &str) -> Result<Entry, String> {
        Entry::parse_cached(line, &mut HashMap::new())
    }

    /// [`Entry::parse`], taking coordinates already seen from `seen` (an
    /// artifact recurs in a ledger once per revision: it is validated once).
    fn parse_cached(
        line: &str,
        seen: &mut HashMap<Box<str>, ArtifactCoordinate>,
    ) -> Result<Entry, String> {
        let mut tokens = line.split(' ');
        let mut next = |what: &str| {
            tokens
                .next()
                .filter(|t| !t.is_empty())
                .ok_or_else(|| format!("found `{line}`, expected {what}"))
        };
        let sequence = parse_number(next("a sequence number")?)?;
        if sequence == 0 {
            return Err(format!(
                "found sequence 0 in `{line}`, expected a sequence from 1"
            ));
        }
        let record = match next("REVISION or FENCE")? {
            "REVISION" => {
                let token = next("a coordinate")?;
                let coordinate = match seen.get(token) {
                    Some(coordinate) => coordinate.clone(),
                    None => {
                        let coordinate: ArtifactCoordinate = token
                            .parse()
                            .map_err(|e: JournalError| e.message().to_owned())?;
                        seen.insert(token.into(), coordinate.clone());
                        coordinate
                    }
                };
                let version = next("a Journal version")?
                    .parse()
                    .map_err(|e: JournalError| e.message().to_owned())?;
                let size = parse_number(next("a byte size")?)?;
                let digest = next("a sha256: digest")?
                    .parse()
                    .map_err(|e: JournalError| e.message().to_owned())?;
                Record::Revision(RevisionPointer::new(coordinate, version, size, digest))
            }
            "FENCE" => Record::Fence {
                epoch: parse_number(next("a lease epoch")?)?,
            },
            other => {
                return Err(format!(
                    "found `{other}` in `{line}`, expected REVISION or FENCE"
                ));
            }
        };
        match tokens.next() {
            None => Ok(Entry { sequence, record }),
            Some(extra) => Err(format!(
                "found `{extra}` after the record `{line}`, expected the end of the line"
            )),
        }
    }
}

/// `Display` is the record line that [`Entry::parse`] reads back.
impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.record {
            Record::Revision(p) => write!(
                f,
                "{} REVISION {} {} {} {}",
                self.sequence, p.coordinate, p.version, p.size, p.digest
            ),
            Record::Fence { epoch } => write!(f, "{} FENCE {epoch}", self.sequence),
        }
    }
}

/// A decimal number without sign or leading zero.
fn parse_number(token: &str) -> Result<u64, String> {
    let canonical =
        token == "0" || (!token.starts_with('0') && token.bytes().all(|b| b.is_ascii_digit()));
    match token.parse::<u64>() {
        Ok(n) if canonical => Ok(n),
        _ => Err(format!("found `{token}`, expected a decimal number")),
    }
}

/// A root's ledger as read: every entry in ascending sequence order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    entries: Vec<Entry>,
    /// The last sequence a segment covers (0 when there is none).
    segmented: u64,
}

impl Ledger {
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
            .filter_map(|e| e.revision().map(|p| (e.sequence, p)))
    }
}

fn mismatch(path: &Path, message: String) -> JournalError {
    error::error(ErrorKind::LedgerMismatch, message).with_path(path)
}

/// Whether `root` has a ledger (its marker exists).
pub fn exists(fs: &dyn FileSystem, root: &Path) -> Result<bool, JournalError> {
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

/// Reads the ledger of `root`: `Ok(None)` for a root without one.
///
/// A malformed ledger (an unknown marker, a segment or entry that does not
/// parse, sequences that do not follow each other) is `LedgerMismatch`.
pub fn read(fs: &dyn FileSystem, root: &Path) -> Result<Option<Ledger>, JournalError> {
    if !exists(fs, root)? {
        return Ok(None);
    }
    let dir = ledger_dir(root);
    let marker = dir.join(MARKER);
    let text = read_small(fs, &marker)?;
    if text != MARKER_TEXT {
        return Err(mismatch(
            &marker,
            format!("found {text:?}, expected {MARKER_TEXT:?} (a ledger of this format version)"),
        ));
    }
    let mut ledger = Ledger::default();
    let mut seen = HashMap::new();
    for (last, path) in segments(fs, root)? {
        let text = read_small(fs, &path)?;
        for (index, line) in text.lines().enumerate() {
            let entry = Entry::parse_cached(line, &mut seen)
                .map_err(|m| mismatch(&path, format!("line {}: {m}", index + 1)))?;
            push(&mut ledger, entry, &path)?;
        }
        if ledger.tip() != last || !text.ends_with('\n') {
            return Err(mismatch(
                &path,
                format!(
                    "found a segment ending at sequence {}, expected its records to end at {last} (its name), each on a line of its own",
                    ledger.tip()
                ),
            ));
        }
        ledger.segmented = last;
    }
    loop {
        let sequence = ledger.tip() + 1;
        let path = entry_path(root, sequence);
        let Some(line) = read_entry(fs, &path)? else {
            break;
        };
        let entry = Entry::parse_cached(&line, &mut seen).map_err(|m| mismatch(&path, m))?;
        push(&mut ledger, entry, &path)?;
    }
    Ok(Some(ledger))
}

/// Appends `entry` to `ledger`, checking it is the next sequence.
fn push(ledger: &mut Ledger, entry: Entry, path: &Path) -> Result<(), JournalError> {
    let expected = ledger.tip() + 1;
    if entry.sequence != expected {
        return Err(mismatch(
            path,
            format!(
                "found the record of sequence {}, expected sequence {expected} (ledger entries follow each other)",
                entry.sequence
            ),
        ));
    }
    ledger.entries.push(entry);
    Ok(())
}

/// The segments of `root`'s ledger, ascending: (last sequence, path).
fn segments(fs: &dyn FileSystem, root: &Path) -> Result<Vec<(u64, PathBuf)>, JournalError> {
    let dir = ledger_dir(root).join(SEGMENTS_DIR);
    let names = match fs.read_dir(&dir) {
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
            .filter(|n| n.len() == 20)
            .and_then(|n| n.parse::<u64>().ok());
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
fn read_small(fs: &dyn FileSystem, path: &Path) -> Result<String, JournalError> {
    let bytes = fs
        .read(path, MAX_FILE_LEN)
        .map_err(|e| error::io_error(path, "cannot read the ledger", e))?;
    String::from_utf8(bytes).map_err(|_| {
        mismatch(
            path,
            "found bytes that are not UTF-8, expected ledger records".to_owned(),
        )
    })
}

/// The record of the entry at `path`, or `None` if there is no such entry.
fn read_entry(fs: &dyn FileSystem, path: &Path) -> Result<Option<String>, JournalError> {
    match fs.read_record(path) {
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn records_round_trip_through_their_line() {
        for line in [
            "1 REVISION left-pad 20261129T101530Z 123 sha256:9f2c0d4e5a3b7c1d8e6f00112233445566778899aabbccddeeff001122334455",
            "42 FENCE 7",
        ] {
            assert_eq!(Entry::parse(line).unwrap().to_string(), line);
        }
    }

    #[test]
    fn malformed_records_are_refused() {
        for line in [
            "",
            "0 FENCE 1",
            "01 FENCE 1",
            "1 FENCE",
            "1 FENCE 1 extra",
            "1  FENCE 1",
            "1 REVISION Left-pad 20261129T101530Z 1 sha256:9f2c0d4e5a3b7c1d8e6f00112233445566778899aabbccddeeff001122334455",
            "1 REVISION left-pad 20261129T101530Z -1 sha256:9f2c0d4e5a3b7c1d8e6f00112233445566778899aabbccddeeff001122334455",
            "1 REVISION left-pad 20261129T101530Z 1 sha256:9F2C",
            "1 WHATEVER",
        ] {
            assert!(Entry::parse(line).is_err(), "{line:?} was accepted");
        }
    }
}
