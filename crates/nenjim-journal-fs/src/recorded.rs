//! Loading and refreshing a root with a ledger: the ledger alone decides
//! which revisions are read, and their sequences (format section 9). A
//! revision's bytes come through the ledger ([`LedgerReader`]): those it
//! carried with its entries (a NATS message), or those its
//! [`read_revision`](LedgerReader::read_revision) reads (by default the
//! revision file through the root's [`FileSystem`], as before), never by a
//! path of the backend's file system that the backend would have to fake.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::error::{ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::model::build;
use nenjim_journal_api::model::{JournalRevision, RefreshReport};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, RevisionDigest};
use nenjim_journal_chain::{ChainState, Outcome};
use nenjim_journal_parser::{Interner, ParsedText};
use rustc_hash::FxBuildHasher;

use crate::layout::{self, RevisionFile};
use crate::ledger::{Carried, Ledger, LedgerReader, RevisionPointer};
use crate::read;
use crate::{LoadOptions, pipeline};
use nenjim_journal_store::FileSystem;

/// Where a load reads recorded revisions: the ledger, over the root's
/// file system (which its default read of a revision goes through).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Source<'a> {
    pub(crate) fs: &'a dyn FileSystem,
    pub(crate) reader: &'a dyn LedgerReader,
    pub(crate) root: &'a Path,
}

/// One recorded revision to read: its sequence, its record's pointer, and
/// its bytes if the ledger carried them.
struct Recorded<'p> {
    sequence: u64,
    pointer: &'p RevisionPointer,
    carried: Option<Vec<u8>>,
}

fn mismatch(path: PathBuf, message: String) -> JournalError {
    nenjim_journal_store::ledger::mismatch(&path, message)
}

/// Reads the revision `recorded` points at (the bytes the ledger carried,
/// else through the ledger's `read_revision`), checks its size and SHA-256
/// against the pointer, parses it (after `previous`, the artifact's
/// revision before it) and checks its header against its place.
///
/// The SHA-256 of a text is the digest its parse computes, so a text that
/// parses is compared by that digest, and only a text that does not parse
/// is hashed on its own (to tell a changed revision from a recorded one
/// that never parsed): the check precedes the parse's verdict without
/// hashing every revision twice.
fn read_recorded(
    source: Source<'_>,
    dir: &Arc<Path>,
    recorded: Recorded<'_>,
    interner: &mut Interner,
    previous: Option<&ParsedText>,
) -> Result<ParsedText, JournalError> {
    let Recorded {
        sequence,
        pointer,
        carried,
    } = recorded;
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
    let read = |again: bool| {
        source
            .reader
            .read_revision(source.fs, source.root, sequence, pointer, again)
    };
    let bytes = match carried {
        Some(bytes) => read::read_recorded_bytes(&file, || Ok(Some(bytes))),
        None => read::read_recorded_bytes(&file, || read(false)),
    };
    let bytes = match bytes {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Err(changed("no file".to_owned())),
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
        // changed revision from a recorded one that never parsed.
        Err(e) => match read::read_recorded_bytes(&file, || read(true)) {
            Ok(Some(again)) if RevisionDigest::of_bytes(&again) != *pointer.digest() => Err(
                changed(format!("digest {}", RevisionDigest::of_bytes(&again))),
            ),
            _ => Err(e.with_path(file.path())),
        },
    }
}

/// `<root>/<coordinate>` of the revision `pointer` points at.
fn artifact_dir(root: &Path, pointer: &RevisionPointer) -> Arc<Path> {
    Arc::from(root.join(pointer.coordinate().as_str()))
}

/// What the parallel step made of one artifact's recorded revisions: the
/// revisions with their sequences, up to the first error (and its sequence).
type Parsed = (Vec<(u64, JournalRevision)>, Option<(u64, JournalError)>);

/// Loads exactly the revisions `ledger` records, numbered as recorded.
///
/// The same pipeline as a load without a ledger: workers parse the
/// artifacts (each artifact's revisions in order, each after the one
/// before, with `parse_after`), taken in the order of their first
/// sequence, while this thread ingests in ledger order as the revisions
/// arrive (a root whose ledger was recorded from a start, or appended an
/// artifact at a time, arrives in order and never waits). The first error
/// in ledger order wins, whether the parse or ingestion finds it.
/// `carried`: the bytes the ledger carried (taken out of it).
pub(crate) fn load(
    source: Source<'_>,
    ledger: &Ledger,
    mut carried: Carried,
) -> Result<ChainState, JournalError> {
    let revisions = recorded(ledger, &mut carried);
    ingest_all(source, revisions, ChainState::new(), &mut |_| {})
}

/// The revisions `ledger` records, each with the bytes it carried.
fn recorded<'p>(ledger: &'p Ledger, carried: &mut Carried) -> Vec<Recorded<'p>> {
    ledger
        .revisions()
        .map(|(sequence, pointer)| Recorded {
            sequence,
            pointer,
            carried: carried.remove(&sequence),
        })
        .collect()
}

/// Ingests the recorded revisions `revisions` (ascending by sequence, all
/// after `state`'s) into `state`, reading them as [`load`] does (artifacts
/// in parallel, in ledger order), handing each state to `publish` as soon
/// as a revision is ingested. On an error, what was published stays.
fn ingest_all(
    source: Source<'_>,
    revisions: Vec<Recorded<'_>>,
    mut state: ChainState,
    publish: &mut dyn FnMut(&ChainState),
) -> Result<ChainState, JournalError> {
    let root = source.root;
    let sequences: Vec<u64> = revisions.iter().map(|r| r.sequence).collect();
    let groups = by_artifact(revisions);
    // The revisions parsed ahead of their turn, at their places in
    // `sequences` (found by binary search: no hashing, no allocation a
    // revision; an interleaved ledger holds most of a start here).
    let mut pending: Vec<Option<JournalRevision>> = std::iter::repeat_with(|| None)
        .take(sequences.len())
        .collect();
    // The place in `sequences` of the next revision to ingest.
    let mut next = 0;
    let mut failed: Option<(u64, JournalError)> = None;
    pipeline::in_order(
        groups,
        Interner::default,
        |interner, files| parse_group(source, files, interner),
        |(revisions, error): Parsed| {
            for (sequence, revision) in revisions {
                if let Ok(place) = sequences.binary_search(&sequence) {
                    pending[place] = Some(revision);
                }
            }
            if let Some((sequence, error)) = error
                && failed.as_ref().is_none_or(|(s, _)| sequence < *s)
            {
                failed = Some((sequence, error));
            }
            while let Some(&sequence) = sequences.get(next) {
                if let Some(revision) = pending[next].take() {
                    ingest_at(&mut state, root, sequence, revision)?;
                    publish(&state);
                    next += 1;
                } else if let Some((s, _)) = &failed
                    && *s == sequence
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
    match (failed, sequences.get(next)) {
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
fn by_artifact(revisions: Vec<Recorded<'_>>) -> Vec<Vec<Recorded<'_>>> {
    let mut groups: HashMap<&ArtifactCoordinate, Vec<Recorded<'_>>, FxBuildHasher> =
        HashMap::default();
    for recorded in revisions {
        groups
            .entry(recorded.pointer.coordinate())
            .or_default()
            .push(recorded);
    }
    let mut groups: Vec<Vec<Recorded<'_>>> = groups.into_values().collect();
    groups.sort_unstable_by_key(|files| files.first().map_or(0, |r| r.sequence));
    groups
}

/// Parses one artifact's recorded revisions in order, each after the one
/// before; stops at the first error.
fn parse_group(source: Source<'_>, files: Vec<Recorded<'_>>, interner: &mut Interner) -> Parsed {
    let mut revisions = Vec::with_capacity(files.len());
    let mut previous: Option<ParsedText> = None;
    // The artifact's directory, shared by its files.
    let Some(dir) = files.first().map(|r| artifact_dir(source.root, r.pointer)) else {
        return (revisions, None);
    };
    for recorded in files {
        let sequence = recorded.sequence;
        match read_recorded(source, &dir, recorded, interner, previous.as_ref()) {
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

/// Brings `state` up to date with the ledger of `source`: only the
/// entries after the state's last sequence are read, and only the
/// revisions they record (in parallel, as a load reads them), ingested one
/// at a time in ledger order and each handed to `publish`. The revisions
/// the state holds are counted as unchanged, never read again; the
/// revision files the ledger does not record are not looked for (`check`
/// lists them: [`crate::unrecorded`]). So a refresh costs what is new,
/// whatever the size of the root.
pub(crate) fn refresh(
    source: Source<'_>,
    state: &ChainState,
    publish: &mut dyn FnMut(ChainState),
) -> Result<RefreshReport, JournalError> {
    let mut read = crate::ledger::read_ledger_after(source.reader, state.last_sequence())?;
    let mut carried = read.take_carried();
    let revisions = recorded(&read, &mut carried);
    let mut ingested = 0;
    ingest_all(source, revisions, state.clone(), &mut |next| {
        ingested += 1;
        publish(next.clone());
    })?;
    let unchanged = usize::try_from(state.len()).unwrap_or(usize::MAX);
    Ok(build::refresh_report(ingested, unchanged, 0))
}

/// Ingests the revisions the entries of `read` record into `state` at
/// their sequences (the writer's catch-up after `TipMoved`, a follower's
/// entry, a verified refresh).
pub(crate) fn ingest(
    source: Source<'_>,
    mut read: Ledger,
    state: &ChainState,
) -> Result<ChainState, JournalError> {
    let mut carried = read.take_carried();
    let revisions = recorded(&read, &mut carried);
    ingest_all(source, revisions, state.clone(), &mut |_| {})
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
    source: Source<'_>,
    mut ledger: Ledger,
    max_errors: usize,
) -> (Vec<JournalError>, bool) {
    let root = source.root;
    let mut carried = ledger.take_carried();
    let revisions = recorded(&ledger, &mut carried);
    let order: Vec<(u64, &ArtifactCoordinate)> = revisions
        .iter()
        .map(|r| (r.sequence, r.pointer.coordinate()))
        .collect();
    let groups = by_artifact(revisions);
    let mut parsed: HashMap<u64, JournalRevision> = HashMap::new();
    // The parse errors, by sequence (each the first of its artifact).
    let mut failed: HashMap<u64, JournalError> = HashMap::new();
    let consumed: Result<(), std::convert::Infallible> = pipeline::in_order(
        groups,
        Interner::default,
        |interner, files| parse_group(source, files, interner),
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
    for &(sequence, coordinate) in &order {
        if stopped.contains(coordinate) {
            continue;
        }
        let outcome = match parsed.remove(&sequence) {
            Some(revision) => ingest_at(&mut state, root, sequence, revision),
            None => Err(failed
                .remove(&sequence)
                .unwrap_or_else(|| unread(root, sequence))),
        };
        if let Err(error) = outcome {
            stopped.insert(coordinate);
            if errors.len() == max_errors {
                return (errors, true);
            }
            errors.push(error);
        }
    }
    (errors, false)
}
