//! Loading and refreshing a root with a ledger: the ledger alone decides
//! which revision files are read, and their sequences (format section 9).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::error::{ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::model::build;
use nenjim_journal_api::model::{JournalRevision, RefreshReport};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, RevisionDigest};
use nenjim_journal_chain::{ChainState, Outcome};
use nenjim_journal_parser::{Interner, ParsedText, SharedInterner};

use crate::layout::{self, RevisionFile};
use crate::ledger::{Ledger, RevisionPointer};
use crate::read;
use crate::{LoadOptions, pipeline};
use nenjim_journal_store::FileSystem;

fn mismatch(path: PathBuf, message: String) -> JournalError {
    nenjim_journal_store::ledger::mismatch(&path, message)
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
    dir: &Arc<Path>,
    pointer: &RevisionPointer,
    interner: &mut Interner,
    previous: Option<&ParsedText>,
) -> Result<ParsedText, JournalError> {
    let file = RevisionFile::recorded(
        dir,
        pointer.coordinate().clone(),
        pointer.version(),
        pointer.size(),
    );
    // Paths are built for errors only.
    let changed = |found: String| {
        mismatch(
            file.path(),
            format!(
                "found {found}, expected the recorded revision of {} bytes with digest {} (a recorded revision never changes: restore it)",
                pointer.size(),
                pointer.digest()
            ),
        )
    };
    let bytes = match read::read_recorded_bytes(fs, &file, pointer.digest()) {
        Ok(bytes) => bytes,
        Err(e)
            if e.kind() == ErrorKind::Io
                && fs
                    .symlink_metadata(&file.path())
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
            _ => Err(e.with_path(file.path())),
        },
    }
}

/// `<root>/<coordinate>` of the revision `pointer` points at.
fn artifact_dir(root: &Path, pointer: &RevisionPointer) -> Arc<Path> {
    Arc::from(root.join(pointer.coordinate().as_str()))
}

/// What the parallel step made of one artifact's recorded files: the
/// revisions with their sequences, up to the first error (and its sequence).
type Parsed = (Vec<(u64, JournalRevision)>, Option<(u64, JournalError)>);

/// Loads exactly the revisions `ledger` records, numbered as recorded.
///
/// The same pipeline as a load without a ledger: workers parse the
/// artifacts (each artifact's files in order, each after the one before,
/// with `parse_after`), taken in the order of their first sequence, while
/// this thread ingests in ledger order as the revisions arrive (a root whose
/// ledger was recorded from a start, or appended an artifact at a time,
/// arrives in order and never waits). The first error in ledger order wins,
/// whether the parse or ingestion finds it.
pub(crate) fn load(
    fs: &dyn FileSystem,
    root: &Path,
    ledger: &Ledger,
) -> Result<ChainState, JournalError> {
    let revisions: Vec<_> = ledger.revisions().collect();
    ingest_all(fs, root, &revisions, ChainState::new(), &mut |_| {})
}

/// Ingests the recorded revisions `revisions` (ascending by sequence, all
/// after `state`'s) into `state`, reading them as [`load`] does (artifacts
/// in parallel, in ledger order), handing each state to `publish` as soon
/// as a revision is ingested. On an error, what was published stays.
fn ingest_all(
    fs: &dyn FileSystem,
    root: &Path,
    revisions: &[(u64, &RevisionPointer)],
    mut state: ChainState,
    publish: &mut dyn FnMut(&ChainState),
) -> Result<ChainState, JournalError> {
    let groups = by_artifact(revisions);
    let shared = SharedInterner::default();
    let mut expected = revisions.iter().map(|(sequence, _)| *sequence).peekable();
    let mut pending: HashMap<u64, JournalRevision> = HashMap::new();
    let mut failed: Option<(u64, JournalError)> = None;
    pipeline::in_order(
        groups,
        || Interner::backed_by(&shared),
        |interner, files| parse_group(fs, root, files, interner),
        |(revisions, error): Parsed| {
            pending.extend(revisions);
            if let Some((sequence, error)) = error
                && failed.as_ref().is_none_or(|(s, _)| sequence < *s)
            {
                failed = Some((sequence, error));
            }
            while let Some(&next) = expected.peek() {
                if let Some(revision) = pending.remove(&next) {
                    ingest_at(&mut state, root, next, revision)?;
                    publish(&state);
                    expected.next();
                } else if let Some((s, _)) = &failed
                    && *s == next
                    && let Some((_, error)) = failed.take()
                {
                    return Err(error);
                } else {
                    break;
                }
            }
            Ok(())
        },
    )?;
    match (failed, expected.peek()) {
        (Some((_, error)), _) => Err(error),
        (None, None) => Ok(state),
        // Every recorded revision is parsed or fails: none can be missing.
        (None, Some(sequence)) => Err(unread(root, *sequence)),
    }
}

/// The error of a recorded revision that was neither parsed nor refused
/// (every one is one or the other: an invariant of the pipeline).
fn unread(root: &Path, sequence: u64) -> JournalError {
    mismatch(
        crate::ledger::entry_path(root, sequence),
        format!(
            "found no revision read for sequence {sequence}, expected every recorded revision to be read"
        ),
    )
}

/// `revisions` (ascending by sequence) by artifact, each artifact's in
/// order, the artifacts in the order of their first sequence.
fn by_artifact<'p>(
    revisions: &[(u64, &'p RevisionPointer)],
) -> Vec<Vec<(u64, &'p RevisionPointer)>> {
    let mut groups: HashMap<&ArtifactCoordinate, Vec<(u64, &RevisionPointer)>> = HashMap::new();
    for &(sequence, pointer) in revisions {
        groups
            .entry(pointer.coordinate())
            .or_default()
            .push((sequence, pointer));
    }
    let mut groups: Vec<Vec<(u64, &RevisionPointer)>> = groups.into_values().collect();
    groups.sort_unstable_by_key(|files| files.first().map_or(0, |(sequence, _)| *sequence));
    groups
}

/// Parses one artifact's recorded files in order, each after the one
/// before; stops at the first error.
fn parse_group(
    fs: &dyn FileSystem,
    root: &Path,
    files: &[(u64, &RevisionPointer)],
    interner: &mut Interner,
) -> Parsed {
    let mut revisions = Vec::with_capacity(files.len());
    let mut previous: Option<ParsedText> = None;
    // The artifact's directory, shared by its files.
    let Some(dir) = files.first().map(|(_, p)| artifact_dir(root, p)) else {
        return (revisions, None);
    };
    for &(sequence, pointer) in files {
        match read_recorded(fs, &dir, pointer, interner, previous.as_ref()) {
            Ok(parsed) => {
                revisions.push((sequence, parsed.revision().clone()));
                previous = Some(parsed);
            }
            Err(error) => return (revisions, Some((sequence, error))),
        }
    }
    (revisions, None)
}

/// Ingests a recorded revision at its sequence; a revision recorded twice is
/// a malformed ledger.
fn ingest_at(
    state: &mut ChainState,
    root: &Path,
    sequence: u64,
    revision: JournalRevision,
) -> Result<(), JournalError> {
    // The path is only built for an error (a start ingests every revision).
    let (coordinate, version) = (revision.coordinate().clone(), revision.journal_version());
    let (stored, outcome) = state
        .ingest_revision_in_place_at(revision, sequence)
        .map_err(|e| e.with_path(crate::ledger::revision_path(root, &coordinate, version)))?;
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

/// Brings `state` up to date with the ledger `reader`: only the entries
/// after the state's last sequence are read, and only the revisions they
/// record (in parallel, as a load reads them), ingested one at a time in
/// ledger order and each handed to `publish`. The revisions the state holds
/// are counted as unchanged, never read again; the revision files the
/// ledger does not record are not looked for (`check` lists them:
/// [`crate::unrecorded`]). So a refresh costs what is new, whatever the
/// size of the root.
pub(crate) fn refresh(
    fs: &dyn FileSystem,
    root: &Path,
    reader: &dyn crate::ledger::LedgerReader,
    state: &ChainState,
    publish: &mut dyn FnMut(ChainState),
) -> Result<RefreshReport, JournalError> {
    let entries = crate::ledger::read_after(reader, state.last_sequence())?;
    let revisions: Vec<_> = entries
        .iter()
        .filter_map(|e| e.revision().map(|p| (e.sequence(), p)))
        .collect();
    let mut ingested = 0;
    ingest_all(fs, root, &revisions, state.clone(), &mut |next| {
        ingested += 1;
        publish(next.clone());
    })?;
    let unchanged = usize::try_from(state.len()).unwrap_or(usize::MAX);
    Ok(build::refresh_report(ingested, unchanged, 0))
}

/// Ingests the revisions `entries` record into `state` at their sequences
/// (the writer's catch-up after `TipMoved`).
pub(crate) fn ingest(
    fs: &dyn FileSystem,
    root: &Path,
    entries: &[crate::ledger::Entry],
    state: &ChainState,
) -> Result<ChainState, JournalError> {
    let revisions: Vec<_> = entries
        .iter()
        .filter_map(|e| e.revision().map(|p| (e.sequence(), p)))
        .collect();
    ingest_all(fs, root, &revisions, state.clone(), &mut |_| {})
}

/// The revision files of `root` that the Journal loaded from its ledger
/// does not hold (`held`): files the ledger does not record. Layout errors
/// are not reported here (a root with a ledger loads by its ledger alone).
pub(crate) fn unrecorded_files(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
    held: &dyn Fn(&ArtifactCoordinate, JournalVersion) -> bool,
) -> Result<Vec<PathBuf>, JournalError> {
    let mut unrecorded = Vec::new();
    // Every artifact directory and every revision file, past misplaced
    // entries (those are `stray_entries`).
    for artifact in layout::root_items(fs, root)?.iter().flatten() {
        let Ok(items) = layout::artifact_items(fs, artifact, options) else {
            continue;
        };
        unrecorded.extend(
            items
                .iter()
                .flatten()
                .filter(|file| !held(&file.coordinate, file.version))
                .map(RevisionFile::path),
        );
    }
    Ok(unrecorded)
}

/// The entries of a root with a ledger that the layout rules of section 7
/// refuse (a `README.txt` in the root, a `latest.journal` or
/// `x.journal.bak` in an artifact directory …), each as the error a root
/// without a ledger fails with. A load through the ledger never looks at
/// them, so they are harmless but misleading.
pub(crate) fn stray_entries(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
) -> Result<Vec<JournalError>, JournalError> {
    let mut stray = Vec::new();
    for item in layout::root_items(fs, root)? {
        match item {
            Err(error) => stray.push(error),
            Ok(artifact) => match layout::artifact_items(fs, &artifact, options) {
                Err(error) => stray.push(error),
                Ok(items) => stray.extend(items.into_iter().filter_map(Result::err)),
            },
        }
    }
    Ok(stray)
}

/// Every independent error of the revisions `ledger` records, in ledger
/// order, as `check` reports them: the loader's own reading of each
/// recorded file (size and SHA-256 against its record, parse, header
/// against its place) and the chain's rules, going on after an error. An
/// artifact stops at its first error (what follows in its chain would
/// follow from it); the other artifacts go on, so one artifact's error
/// never hides another's. At most `max_errors` errors; the flag says
/// whether there were more.
pub(crate) fn diagnose(
    fs: &dyn FileSystem,
    root: &Path,
    ledger: &Ledger,
    max_errors: usize,
) -> (Vec<JournalError>, bool) {
    let revisions: Vec<_> = ledger.revisions().collect();
    let groups = by_artifact(&revisions);
    let shared = SharedInterner::default();
    let mut parsed: HashMap<u64, JournalRevision> = HashMap::new();
    // The parse errors, by sequence (each the first of its artifact).
    let mut failed: HashMap<u64, JournalError> = HashMap::new();
    let consumed: Result<(), std::convert::Infallible> = pipeline::in_order(
        groups,
        || Interner::backed_by(&shared),
        |interner, files| parse_group(fs, root, files, interner),
        |(revisions, error): Parsed| {
            parsed.extend(revisions);
            if let Some((sequence, error)) = error {
                failed.insert(sequence, error);
            }
            Ok(())
        },
    );
    let Ok(()) = consumed;
    let mut state = ChainState::new();
    let mut stopped: std::collections::HashSet<&ArtifactCoordinate> =
        std::collections::HashSet::new();
    let mut errors = Vec::new();
    for &(sequence, pointer) in &revisions {
        if stopped.contains(pointer.coordinate()) {
            continue;
        }
        let outcome = match parsed.remove(&sequence) {
            Some(revision) => ingest_at(&mut state, root, sequence, revision),
            None => Err(failed
                .remove(&sequence)
                .unwrap_or_else(|| unread(root, sequence))),
        };
        if let Err(error) = outcome {
            stopped.insert(pointer.coordinate());
            if errors.len() == max_errors {
                return (errors, true);
            }
            errors.push(error);
        }
    }
    (errors, false)
}
