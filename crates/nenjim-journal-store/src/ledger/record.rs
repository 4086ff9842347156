//! A ledger entry's record (format section 9): one line of text, parsed
//! and written back exactly.

use std::collections::HashMap;
use std::fmt;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, RevisionDigest};
use rustc_hash::FxBuildHasher;

/// The coordinates a reader has seen, by their text (an artifact recurs
/// in a ledger once per revision: it is validated once). Fx-hashed: the
/// keys are the ledger's own text, and SipHash was a tenth of a
/// segment's parse.
pub(crate) type Seen = HashMap<Box<str>, ArtifactCoordinate, FxBuildHasher>;

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
    pub fn parse(line: &str) -> Result<Entry, RecordError> {
        Entry::parse_cached(line, &mut Seen::default())
    }

    /// [`Entry::parse`], taking coordinates already seen from `seen` (an
    /// artifact recurs in a ledger once per revision: it is validated once).
    pub(crate) fn parse_cached(line: &str, seen: &mut Seen) -> Result<Entry, RecordError> {
        let mut tokens = line.split(' ');
        let mut next = |what: &str| {
            tokens
                .next()
                .filter(|t| !t.is_empty())
                .ok_or_else(|| RecordError::new(format!("found `{line}`, expected {what}")))
        };
        let sequence = parse_number(next("a sequence number")?, "the sequence")?;
        if sequence == 0 {
            return Err(RecordError::new(format!(
                "found sequence 0 in `{line}`, expected a sequence from 1"
            )));
        }
        let record = match next("REVISION or FENCE")? {
            "REVISION" => {
                let token = next("a coordinate")?;
                let coordinate = match seen.get(token) {
                    Some(coordinate) => coordinate.clone(),
                    None => {
                        let coordinate: ArtifactCoordinate =
                            token.parse().map_err(RecordError::token)?;
                        seen.insert(token.into(), coordinate.clone());
                        coordinate
                    }
                };
                let version = next("a Journal version")?
                    .parse()
                    .map_err(RecordError::token)?;
                let size = parse_number(next("a byte size")?, "the byte size")?;
                let digest = next("a sha256: digest")?
                    .parse()
                    .map_err(RecordError::token)?;
                Record::Revision(RevisionPointer::new(coordinate, version, size, digest))
            }
            "FENCE" => Record::Fence {
                epoch: parse_number(next("a lease epoch")?, "the lease epoch")?,
            },
            other => {
                return Err(RecordError::new(format!(
                    "found `{other}` in `{line}`, expected REVISION or FENCE"
                )));
            }
        };
        match tokens.next() {
            None => Ok(Entry { sequence, record }),
            Some(extra) => Err(RecordError::new(format!(
                "found `{extra}` after the record `{line}`, expected the end of the line"
            ))),
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

/// Why a record line does not parse: what was found, what was expected
/// (the message of a `LedgerMismatch`), and the token's own error if a
/// token was the trouble.
#[derive(Debug)]
pub struct RecordError {
    message: String,
    source: Option<JournalError>,
}

impl RecordError {
    fn new(message: String) -> RecordError {
        RecordError {
            message,
            source: None,
        }
    }
    fn token(error: JournalError) -> RecordError {
        RecordError {
            message: error.message().to_owned(),
            source: Some(error),
        }
    }
    /// What was found and what was expected.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RecordError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// A number of a record (a sequence, a size, an epoch): the grammar of a
/// `CONTENT` size (format section 2), `0` or a decimal without leading
/// zeros that fits `u64`, read by the same function.
fn parse_number(token: &str, what: &str) -> Result<u64, RecordError> {
    nenjim_journal_api::model::build::content_size(token).map_err(|e| RecordError {
        message: format!("{what} `{token}`: {}", e.message()),
        source: Some(e),
    })
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
