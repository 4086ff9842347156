//! Every independent error of a root, for `check` (the loader stops at the
//! first one).
//!
//! (This file is over 600 lines because of its unit tests, which compare
//! the report of broken roots in a directory and in a bucket and check the
//! chain's kinds it names: its code is under 490.)
//!
//! [`nenjim_journal_fs::scan`] applies the loader's own rules of section 7
//! (entries, names, sizes, UTF-8, header against place) to every entry and
//! file, going on after an error; this module then ingests the valid files
//! into one chain state, artifact by artifact, so the chain's rules decide
//! every kind and one artifact's error never hides another's (a refused
//! revision leaves the state as it was). An artifact's chain stops at its
//! first error (the errors after it would follow from it), and a successor
//! of a file that is itself invalid is not reported again.
//!
//! Because it sees every file on disk, it can say where an unknown digest
//! comes from. A file whose PREDECESSOR names a file not ingested yet (a
//! successor whose name sorts before its predecessor's, a revision of an
//! artifact walked later) waits for it and is ingested again right after
//! it, and the chain's error then names that file; a digest that no file
//! has means its predecessor was edited after the fact, or never existed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::{
    EXAMPLE_SUFFIX, EntryKind, FileSystem, LoadOptions, RUNTIME_SUFFIX, ScannedArtifact,
    ScannedEntry, ScannedFile, ScannedItem,
};

use crate::failure::CliError;
use crate::report::path_text;
use nenjim_journal_root::Root;

/// What the scan found.
#[derive(Debug, Default)]
pub struct Diagnosis {
    /// Every independent error, in walk order (at most the limit asked for).
    pub errors: Vec<CliError>,
    /// Whether the scan stopped at the limit before the end.
    pub truncated: bool,
}

/// Scans `root` (a path or a URL, as typed: a root in a bucket is read
/// through its store, as `start()` reads it) for every independent error,
/// stopping after `max_errors`. The errors of a root given by URL name
/// their files by URL (`s3://bucket/prefix/<artifact>/<file>`).
pub fn scan(root: &Path, examples: bool, max_errors: usize) -> Result<Diagnosis, CliError> {
    let address = crate::address::locate(root)?;
    let (fs, inner) = crate::address::file_system(&address);
    let diagnosis = scan_with(&*fs, inner, examples, max_errors)?;
    Ok(Diagnosis {
        errors: named_for(&address, diagnosis.errors),
        truncated: diagnosis.truncated,
    })
}

/// [`scan`] of the root at `root` in `fs` (paths inside the store).
pub fn scan_with(
    fs: &dyn FileSystem,
    root: &Path,
    examples: bool,
    max_errors: usize,
) -> Result<Diagnosis, CliError> {
    let looks_like_artifact = fs
        .read_dir(root)
        .map_err(|e| CliError::io(root, "cannot list the Journal root", e))?
        .iter()
        .any(|n| {
            let n = n.to_string_lossy();
            n.ends_with(RUNTIME_SUFFIX) || n.ends_with(EXAMPLE_SUFFIX)
        });
    if looks_like_artifact {
        return Ok(Diagnosis {
            errors: vec![artifact_as_root(root)],
            truncated: false,
        });
    }
    if let Some(error) = parent_as_root(fs, root) {
        return Ok(Diagnosis {
            errors: vec![error],
            truncated: false,
        });
    }
    let options = LoadOptions::new().with_examples(examples);
    let (items, mut truncated) = nenjim_journal_fs::scan_with(fs, root, options, max_errors)?;
    let digests: HashMap<RevisionDigest, &Path> = items
        .iter()
        .filter_map(|item| match item {
            ScannedItem::Artifact(a) => Some(files(a)),
            _ => None,
        })
        .flatten()
        .filter_map(|f| f.digest().map(|d| (*d, f.path())))
        .collect();
    let artifacts: Vec<&ScannedArtifact> = items
        .iter()
        .filter_map(|item| match item {
            ScannedItem::Artifact(a) => Some(a),
            _ => None,
        })
        .collect();
    let mut chain_errors = chain_errors(&artifacts, &digests);
    let mut errors = Vec::new();
    let mut index = 0;
    for item in &items {
        match item {
            ScannedItem::Misplaced(error) => errors.push(copy(error)),
            ScannedItem::Artifact(artifact) => {
                for entry in artifact.entries() {
                    match entry {
                        ScannedEntry::Misplaced(error) => errors.push(copy(error)),
                        ScannedEntry::File(file) => {
                            if let Err(error) = file.revision() {
                                errors.push(copy(error));
                            }
                        }
                        _ => {}
                    }
                }
                if let Some(error) = chain_errors.remove(&index) {
                    errors.push(error);
                }
                index += 1;
            }
            _ => {}
        }
    }
    truncated |= errors.len() > max_errors;
    errors.truncate(max_errors);
    Ok(Diagnosis { errors, truncated })
}

/// Every independent error of the revisions `root`'s ledger records (any
/// backend: a directory's or a bucket's `.ledger/`, a NATS stream), read
/// as the loader reads them: `None` for a root without a ledger. What a
/// failed load reports when the scan of the root's files finds nothing
/// (a recorded file changed into another valid text, a NATS root, whose
/// revisions are only in its ledger).
pub fn scan_ledger(root: &Path, max_errors: usize) -> Result<Option<Diagnosis>, CliError> {
    let address = crate::address::locate(root)?;
    let reading = address.backend().reading();
    let inner = address.path();
    let fs = reading.file_system;
    let found = match reading.ledger {
        // The backend's own ledger (a NATS stream).
        Some(ledger) => nenjim_journal_fs::diagnose_recorded(&*fs, &*ledger, inner, max_errors)?,
        None => {
            let reader = nenjim_journal_fs::ledger::SegmentedReader::new(&*fs, inner);
            nenjim_journal_fs::diagnose_recorded(&*fs, &reader, inner, max_errors)?
        }
    };
    Ok(found.map(|(errors, truncated)| Diagnosis {
        errors: named_for(
            &address,
            errors.into_iter().map(CliError::Journal).collect(),
        ),
        truncated,
    }))
}

/// `errors` of the root at `address` with their files named as the root
/// was given: a root in a bucket names them by the bucket's URL
/// ([`in_store`]), any other root as they are.
pub fn named_for(address: &Root, errors: Vec<CliError>) -> Vec<CliError> {
    match crate::address::location(address) {
        Some(location) => errors.into_iter().map(|e| in_store(e, &location)).collect(),
        None => errors,
    }
}

/// `error` with its path (inside a store) named by the store's URL: the
/// path `/prefix/a/x.journal` of `s3://bucket` is `s3://bucket/prefix/a/x.journal`.
pub fn in_store(error: CliError, location: &str) -> CliError {
    match error {
        CliError::Journal(e) => match e.path() {
            Some(path) => {
                let url = PathBuf::from(format!("{location}{}", path_text(path)));
                CliError::Journal(e.moved_to(url))
            }
            None => CliError::Journal(e),
        },
        other => other,
    }
}

/// The revision files of `artifact`, in ingestion order.
fn files(artifact: &ScannedArtifact) -> Vec<&ScannedFile> {
    artifact
        .entries()
        .iter()
        .filter_map(|e| match e {
            ScannedEntry::File(f) => Some(f),
            _ => None,
        })
        .collect()
}

/// A copy of an error for the report (its source shared).
fn copy(e: &JournalError) -> CliError {
    CliError::Journal(e.clone())
}

fn entry_error(kind: ErrorKind, path: &Path, message: String) -> CliError {
    CliError::Journal(error::error(kind, message).with_path(path))
}

/// The error for a root that holds revision files: an artifact directory.
fn artifact_as_root(root: &Path) -> CliError {
    let parent = match root.parent() {
        Some(p) if !p.as_os_str().is_empty() => Some(p.to_path_buf()),
        _ => std::fs::canonicalize(root)
            .ok()
            .and_then(|r| r.parent().map(Path::to_path_buf)),
    };
    let parent = parent.map_or_else(
        || "its parent".to_owned(),
        |p| format!("`{}`", path_text(&p)),
    );
    entry_error(
        ErrorKind::UnexpectedEntry,
        root,
        format!(
            "found revision files in the Journal root, expected artifact directories: this is an artifact directory, pass its parent {parent} as the root"
        ),
    )
}

/// The error for a path one level above Journal roots (a directory holding
/// roots, none of its own): `None` when `root` has a ledger itself, or no
/// subdirectory of it looks like a root (one with a ledger, or whose
/// subdirectories hold revision files).
fn parent_as_root(fs: &dyn FileSystem, root: &Path) -> Option<CliError> {
    let is_dir = |path: &Path| {
        fs.metadata(path)
            .is_ok_and(|m| m.kind() == EntryKind::Directory)
    };
    if is_dir(&root.join(nenjim_journal_fs::ledger::LEDGER_DIR)) {
        return None;
    }
    let mut names = fs.read_dir(root).ok()?;
    names.sort();
    let roots: Vec<PathBuf> = names
        .iter()
        .map(|name| root.join(name))
        .filter(|child| is_dir(child))
        .filter(|child| {
            is_dir(&child.join(nenjim_journal_fs::ledger::LEDGER_DIR))
                || fs.read_dir(child).is_ok_and(|artifacts| {
                    artifacts.iter().any(|artifact| {
                        fs.read_dir(&child.join(artifact)).is_ok_and(|files| {
                            files.iter().any(|f| {
                                let f = f.to_string_lossy();
                                f.ends_with(RUNTIME_SUFFIX) || f.ends_with(EXAMPLE_SUFFIX)
                            })
                        })
                    })
                })
        })
        .collect();
    let first = roots.first()?;
    let listed: Vec<String> = roots
        .iter()
        .map(|r| format!("`{}`", path_text(r)))
        .collect();
    Some(entry_error(
        ErrorKind::UnexpectedEntry,
        root,
        format!(
            "found {} inside it, expected artifact directories: this directory is one level above a Journal root; pass the root (nenjim-journal check {})",
            if roots.len() == 1 {
                format!("the Journal root {}", listed.join(", "))
            } else {
                format!("Journal roots {}", listed.join(", "))
            },
            path_text(first)
        ),
    ))
}

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
fn chain_errors(
    artifacts: &[&ScannedArtifact],
    digests: &HashMap<RevisionDigest, &Path>,
) -> HashMap<usize, CliError> {
    let mut state = ChainState::new();
    // The artifacts whose chain stopped, with its error (none when it
    // follows from an invalid file already reported).
    let mut stopped: HashMap<usize, Option<CliError>> = HashMap::new();
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
                        stopped.insert(next.artifact, Some(CliError::Journal(error)));
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
        stopped.insert(index, Some(CliError::Journal(error)));
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
) -> CliError {
    let Some(predecessor) = entry.revision().ok().and_then(|r| r.predecessor()) else {
        return CliError::Journal(error.with_path(entry.path()));
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

/// How many `*.journal.example` files the artifact directories of the root
/// at `root` in `fs` hold.
pub fn count_examples(fs: &dyn FileSystem, root: &Path) -> usize {
    let Ok(listing) = fs.read_dir_with_kinds(root) else {
        return 0;
    };
    listing
        .into_iter()
        .filter(|(name, kind)| {
            *kind == Some(EntryKind::Directory)
                || kind.is_none()
                    && fs
                        .metadata(&root.join(name))
                        .is_ok_and(|m| m.kind() == EntryKind::Directory)
        })
        .filter_map(|(name, _)| fs.read_dir(&root.join(name)).ok())
        .flatten()
        .filter(|n| n.to_string_lossy().ends_with(EXAMPLE_SUFFIX))
        .count()
}

#[cfg(test)]
mod tests;
