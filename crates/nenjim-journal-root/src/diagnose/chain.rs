//! The chain's errors of a scanned root: every valid file ingested into one
//! chain state, artifact by artifact, explained with what is on disk.

use std::collections::HashMap;
use std::path::Path;

use nenjim_journal_api::error::{ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::{ScannedArtifact, ScannedFile};

use super::{entry_error, files, path_text};

/// The file name of `path`, for messages.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| path_text(path), |n| n.to_string_lossy().into_owned())
}

/// A valid file whose PREDECESSOR names a file on disk not ingested yet: it
/// is ingested again once that one is.
#[derive(Clone, Copy)]
struct Waiting<'a> {
    /// The artifact's index in the walk.
    artifact: usize,
    file: &'a ScannedFile,
}

/// The first chain error of each artifact (by its index in `artifacts`),
/// explained with what is on disk; none for an artifact whose valid files
/// chain (or whose first error follows from an invalid file already
/// reported).
///
/// Every valid file goes through one [`ChainState`], in walk order, so the
/// chain's own rules decide every kind. A file whose PREDECESSOR names a
/// file on disk that is not ingested yet (a successor named before its
/// predecessor, a revision of an artifact walked later) waits for it and is
/// ingested again right after it: the chain then says what is wrong
/// (`NonIncreasingVersion`, `CrossArtifactPredecessor` …), and this names
/// the file the PREDECESSOR names. An artifact's chain stops at its first
/// error (the errors after it would follow from it).
pub(super) fn chain_errors(
    artifacts: &[&ScannedArtifact],
    digests: &HashMap<RevisionDigest, &Path>,
) -> HashMap<usize, JournalError> {
    let mut state = ChainState::new();
    // The artifacts whose chain stopped, with its error (none when it
    // follows from an invalid file already reported).
    let mut stopped: HashMap<usize, Option<JournalError>> = HashMap::new();
    let mut heads: HashMap<usize, &ScannedFile> = HashMap::new();
    let mut waiting: HashMap<RevisionDigest, Vec<Waiting<'_>>> = HashMap::new();
    // The first file of each artifact that waited, with the chain's error.
    let mut first_waiting: HashMap<usize, (&ScannedFile, JournalError)> = HashMap::new();
    for (index, artifact) in artifacts.iter().enumerate() {
        let files = files(artifact);
        // Whether the file just before is invalid (reported on its own): an
        // unknown predecessor then most likely names that file's old digest.
        let mut after_invalid = false;
        for &file in &files {
            if stopped.contains_key(&index) {
                break;
            }
            if file.revision().is_err() {
                after_invalid = true;
                continue;
            }
            let mut work = vec![Waiting {
                artifact: index,
                file,
            }];
            while let Some(next) = work.pop() {
                if stopped.contains_key(&next.artifact) {
                    continue;
                }
                let Ok(revision) = next.file.revision() else {
                    continue;
                };
                match state.ingest_revision(revision.clone()) {
                    Ok(ingested) => {
                        state = ingested.into_state();
                        heads.insert(next.artifact, next.file);
                        if let Some(digest) = next.file.digest() {
                            work.extend(waiting.remove(digest).unwrap_or_default());
                        }
                    }
                    Err(error) if error.kind() == ErrorKind::UnknownPredecessor => {
                        match revision.predecessor() {
                            Some(predecessor) if digests.contains_key(predecessor) => {
                                waiting.entry(*predecessor).or_default().push(next);
                                first_waiting
                                    .entry(next.artifact)
                                    .or_insert((next.file, error));
                            }
                            _ => {
                                let explained = (!after_invalid).then(|| {
                                    explain_unknown(
                                        artifacts[next.artifact],
                                        next.file,
                                        heads.get(&next.artifact).copied(),
                                        error,
                                    )
                                });
                                stopped.insert(next.artifact, explained);
                            }
                        }
                    }
                    Err(error) => {
                        let error = named_predecessor(error, next.file, revision, digests);
                        stopped.insert(next.artifact, Some(error));
                    }
                }
            }
            after_invalid = false;
        }
    }
    // A file still waiting names a file on disk that never joined the
    // Journal: invalid (reported on its own), or itself refused.
    for (index, (file, error)) in first_waiting {
        if stopped.contains_key(&index) || state_has(&state, file) {
            continue;
        }
        let owner = file
            .revision()
            .ok()
            .and_then(|r| r.predecessor())
            .and_then(|p| digests.get(p));
        let Some(owner) = owner else { continue };
        let invalid = artifacts
            .iter()
            .flat_map(|a| files(a))
            .any(|f| f.path() == *owner && f.revision().is_err());
        if invalid {
            stopped.insert(index, None);
            continue;
        }
        let error = error.with_path(file.path()).note(format_args!(
            "`{}` has that digest, but it is not part of the Journal: see its own error",
            path_text(owner)
        ));
        stopped.insert(index, Some(error));
    }
    stopped
        .into_iter()
        .filter_map(|(index, error)| Some((index, error?)))
        .collect()
}

/// Whether `file`'s revision was ingested (it waited and joined later).
fn state_has(state: &ChainState, file: &ScannedFile) -> bool {
    file.digest()
        .is_some_and(|digest| state.revision_by_digest(digest).is_some())
}

/// The chain's `error` about `file`, with the file its PREDECESSOR names
/// (found on disk).
fn named_predecessor(
    error: JournalError,
    file: &ScannedFile,
    revision: &nenjim_journal_api::model::JournalRevision,
    digests: &HashMap<RevisionDigest, &Path>,
) -> JournalError {
    let error = error.with_path(file.path());
    let Some(owner) = revision.predecessor().and_then(|p| digests.get(p)) else {
        return error;
    };
    match error.kind() {
        ErrorKind::NonIncreasingVersion => {
            let owner_version = owner
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            error.note(format_args!(
                "PREDECESSOR is the digest of `{}`, a later revision: this file's timestamp must be after {owner_version}",
                file_name(owner)
            ))
        }
        ErrorKind::CrossArtifactPredecessor => error.note(format_args!(
            "PREDECESSOR is the digest of `{}`, a revision of another artifact",
            path_text(owner)
        )),
        _ => error,
    }
}

/// Why `entry`'s PREDECESSOR names no revision, when no file on disk has
/// that digest: `head` (the artifact's last file that chained) was edited
/// after its successor recorded its digest, or there never was one.
fn explain_unknown(
    artifact: &ScannedArtifact,
    entry: &ScannedFile,
    head: Option<&ScannedFile>,
    error: JournalError,
) -> JournalError {
    let Some(predecessor) = entry.revision().ok().and_then(|r| r.predecessor()) else {
        return error.with_path(entry.path());
    };
    let name = file_name(entry.path());
    match head {
        Some(head) => {
            let now = head
                .digest()
                .map_or_else(|| "unknown".to_owned(), ToString::to_string);
            entry_error(
                ErrorKind::UnknownPredecessor,
                head.path(),
                format!(
                    "found digest {now}, but its successor `{}` recorded PREDECESSOR {predecessor}: `{}` no longer has the digest its successor recorded; revisions are immutable: restore it (from a backup, or the copy the hub serves) so that its digest is {predecessor} again, and leave `{name}` as it is",
                    path_text(entry.path()),
                    file_name(head.path())
                ),
            )
        }
        None => entry_error(
            ErrorKind::UnknownPredecessor,
            entry.path(),
            format!(
                "found PREDECESSOR {predecessor}, but no file in the root has that digest; expected PREDECESSOR GENESIS for the first revision of {}, or the digest of an earlier revision",
                file_name(artifact.dir())
            ),
        ),
    }
}
