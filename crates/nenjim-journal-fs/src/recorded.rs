//! Loading and refreshing a root with a ledger: the ledger alone decides
//! which revision files are read, and their sequences (format section 9).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::build::{self, ErrorContext as _};
use nenjim_journal_api::model::{JournalRevision, RefreshReport};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, RevisionDigest};
use nenjim_journal_chain::{ChainState, Outcome};
use nenjim_journal_parser::{Interner, ParsedText, SharedInterner};
use rayon::prelude::*;

use crate::LoadOptions;
use crate::file_system::FileSystem;
use crate::layout::{self, RevisionFile};
use crate::ledger::{Ledger, RevisionPointer};
use crate::read;

fn mismatch(path: PathBuf, message: String) -> JournalError {
    build::error(ErrorKind::LedgerMismatch, message).with_path(path)
}

/// Reads the file `pointer` points at, checks its size and SHA-256 against
/// the pointer, parses it (after `previous`, the artifact's file before it)
/// and checks its header against its place.
///
/// The SHA-256 of a text is the digest its parse computes, so a text that
/// parses is compared by that digest, and only a text that does not parse
/// is hashed on its own (to tell a changed file from a recorded one that
/// never parsed): the check precedes the parse's verdict without hashing
/// every file twice.
fn read_recorded(
    fs: &dyn FileSystem,
    root: &Path,
    pointer: &RevisionPointer,
    interner: &mut Interner,
    previous: Option<&ParsedText>,
) -> Result<ParsedText, JournalError> {
    let file = RevisionFile::recorded(
        root,
        pointer.coordinate().clone(),
        pointer.version(),
        pointer.size(),
    );
    let path = file.path();
    let changed = |found: String| {
        mismatch(
            path.clone(),
            format!(
                "found {found}, expected the recorded revision of {} bytes with digest {} (a recorded revision never changes: restore it)",
                pointer.size(),
                pointer.digest()
            ),
        )
    };
    let bytes = match read::read_bytes(fs, &file) {
        Ok(bytes) => bytes,
        Err(e)
            if e.kind() == ErrorKind::Io
                && fs
                    .symlink_metadata(&path)
                    .is_err_and(|m| m.kind() == std::io::ErrorKind::NotFound) =>
        {
            return Err(changed("no file".to_owned()));
        }
        Err(e) if e.kind() == ErrorKind::TooLarge => {
            return Err(changed("a file over the size limit".to_owned()));
        }
        Err(e) => return Err(e),
    };
    if bytes.len() as u64 != pointer.size() {
        return Err(changed(format!("a file of {} bytes", bytes.len())));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        changed(format!(
            "bytes with digest {}",
            RevisionDigest::of_bytes(e.as_bytes())
        ))
    })?;
    match nenjim_journal_parser::parse_after(text, interner, previous) {
        Ok(parsed) if parsed.revision().digest() == pointer.digest() => {
            read::check_place(&file, parsed.revision())?;
            Ok(parsed)
        }
        Ok(parsed) => Err(changed(format!("digest {}", parsed.revision().digest()))),
        // The text was consumed by the parse: read it again to tell a
        // changed file from a recorded one that never parsed.
        Err(e) => match read::read_bytes(fs, &file) {
            Ok(again) if RevisionDigest::of_bytes(&again) != *pointer.digest() => Err(changed(
                format!("digest {}", RevisionDigest::of_bytes(&again)),
            )),
            _ => Err(e.with_path(path)),
        },
    }
}

/// What the parallel step made of one artifact's recorded files: the
/// revisions with their sequences, up to the first error (and its sequence).
type Parsed = (Vec<(u64, JournalRevision)>, Option<(u64, JournalError)>);

/// Loads exactly the revisions `ledger` records, numbered as recorded.
pub(crate) fn load(
    fs: &dyn FileSystem,
    root: &Path,
    ledger: &Ledger,
) -> Result<ChainState, JournalError> {
    // Each artifact's files are parsed in order (each after the one before,
    // as a load without a ledger does), artifacts in parallel; ingestion
    // then follows the ledger's order.
    let mut groups: BTreeMap<&ArtifactCoordinate, Vec<(u64, &RevisionPointer)>> = BTreeMap::new();
    for (sequence, pointer) in ledger.revisions() {
        groups
            .entry(pointer.coordinate())
            .or_default()
            .push((sequence, pointer));
    }
    let groups: Vec<Vec<(u64, &RevisionPointer)>> = groups.into_values().collect();
    let shared = SharedInterner::default();
    let parsed: Vec<Parsed> = groups
        .par_iter()
        .map_init(
            || Interner::backed_by(&shared),
            |interner, files| {
                let mut revisions = Vec::with_capacity(files.len());
                let mut previous: Option<ParsedText> = None;
                for &(sequence, pointer) in files {
                    match read_recorded(fs, root, pointer, interner, previous.as_ref()) {
                        Ok(parsed) => {
                            revisions.push((sequence, parsed.revision().clone()));
                            previous = Some(parsed);
                        }
                        Err(error) => return (revisions, Some((sequence, error))),
                    }
                }
                (revisions, None)
            },
        )
        .collect();
    // The first error in ledger order wins, whether the parallel step or
    // ingestion finds it.
    let mut first_error: Option<(u64, JournalError)> = None;
    let mut revisions = Vec::with_capacity(ledger.entries().len());
    for (group, error) in parsed {
        revisions.extend(group);
        if let Some((sequence, error)) = error
            && first_error.as_ref().is_none_or(|(s, _)| sequence < *s)
        {
            first_error = Some((sequence, error));
        }
    }
    revisions.sort_unstable_by_key(|(sequence, _)| *sequence);
    let mut state = ChainState::new();
    for (sequence, revision) in revisions {
        if let Some((s, _)) = &first_error
            && *s < sequence
        {
            break;
        }
        ingest_at(&mut state, root, sequence, revision)?;
    }
    match first_error {
        Some((_, error)) => Err(error),
        None => Ok(state),
    }
}

/// Ingests a recorded revision at its sequence; a revision recorded twice is
/// a malformed ledger.
fn ingest_at(
    state: &mut ChainState,
    root: &Path,
    sequence: u64,
    revision: JournalRevision,
) -> Result<(), JournalError> {
    let path =
        crate::ledger::revision_path(root, revision.coordinate(), revision.journal_version());
    let (stored, outcome) = state
        .ingest_revision_in_place_at(revision, sequence)
        .map_err(|e| e.with_path(&path))?;
    match outcome {
        Outcome::Accepted => Ok(()),
        Outcome::Unchanged => Err(mismatch(
            crate::ledger::entry_path(root, sequence),
            format!(
                "found a second record of {} {} at sequence {sequence}, expected each revision recorded once (first at sequence {})",
                stored.coordinate(),
                stored.journal_version(),
                stored.sequence()
            ),
        )),
    }
}

/// Brings `state` up to date with `ledger`: the revisions recorded after
/// the state's last sequence are read and ingested one at a time, each
/// handed to `publish`; the recorded revisions the state already holds must
/// be held under their recorded sequences. Counts the revision files of the
/// root that the ledger does not record.
pub(crate) fn refresh(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
    ledger: &Ledger,
    state: &ChainState,
    publish: &mut dyn FnMut(ChainState),
) -> Result<RefreshReport, JournalError> {
    let last = state.last_sequence();
    let mut current = state.clone();
    let (mut ingested, mut unchanged) = (0, 0);
    let mut interner = Interner::default();
    for (sequence, pointer) in ledger.revisions() {
        if sequence <= last {
            let held = state.by_sequence(sequence);
            if held.as_ref().map(JournalRevision::digest) != Some(pointer.digest()) {
                return Err(mismatch(
                    crate::ledger::entry_path(root, sequence),
                    format!(
                        "found {} {} recorded at sequence {sequence}, but this Journal holds {} there; expected the numbering it was started with (restart it to load the ledger's)",
                        pointer.coordinate(),
                        pointer.version(),
                        held.map_or_else(
                            || "no revision".to_owned(),
                            |r| format!("{} {}", r.coordinate(), r.journal_version())
                        ),
                    ),
                ));
            }
            unchanged += 1;
            continue;
        }
        let parsed = read_recorded(fs, root, pointer, &mut interner, None)?;
        let mut next = current.clone();
        ingest_at(&mut next, root, sequence, parsed.into_revision())?;
        current = next;
        publish(current.clone());
        ingested += 1;
    }
    let unrecorded = unrecorded_files(fs, root, options, &current)?.len();
    Ok(build::refresh_report(ingested, unchanged, unrecorded))
}

/// The revision files of `root` that `state` (loaded from its ledger) does
/// not hold: files the ledger does not record. Layout errors are not
/// reported here (a root with a ledger loads by its ledger alone).
pub(crate) fn unrecorded_files(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
    state: &ChainState,
) -> Result<Vec<PathBuf>, JournalError> {
    let walk = layout::walk(fs, root, options)?;
    Ok(walk
        .files
        .iter()
        .filter(|file| state.revision(&file.coordinate, file.version).is_none())
        .map(RevisionFile::path)
        .collect())
}
