//! Every independent error of a root, for `check` (the loader stops at the
//! first one).
//!
//! [`nenjim_journal_fs::scan`] applies the loader's own rules of section 7
//! (entries, names, sizes, UTF-8, header against place) to every entry and
//! file, going on after an error; this module then ingests each artifact's
//! valid files into a chain of its own, so one artifact's error never hides
//! another's. An artifact's chain stops at its first error (the errors after
//! it would follow from it), and a successor of a file that is itself
//! invalid is not reported again.
//!
//! Because it sees every file on disk, it can say where an unknown digest
//! comes from: a file of the same artifact with a later timestamp (the
//! successor's name sorts before its predecessor's), a file of another
//! artifact, or no file at all (its predecessor was edited after the fact).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::build::{self, ErrorContext as _};
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::{
    EntryKind, FileSystem, LoadOptions, ScannedArtifact, ScannedEntry, ScannedFile, ScannedItem,
    Store as _,
};

use crate::address::Address;

use crate::failure::CliError;
use crate::report::path_text;

/// The suffix of a runtime revision file.
const RUNTIME_SUFFIX: &str = ".journal";
/// The suffix of a version-controlled example file.
const EXAMPLE_SUFFIX: &str = ".journal.example";

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
    let mut diagnosis = scan_with(&*fs, inner, examples, max_errors)?;
    if let Address::Object { store, .. } = &address {
        let location = store.location();
        diagnosis.errors = diagnosis
            .errors
            .into_iter()
            .map(|e| in_store(e, &location))
            .collect();
    }
    Ok(diagnosis)
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
    let mut errors = Vec::new();
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
                if let Some(error) = chain_error(artifact, &files(artifact), &digests) {
                    errors.push(error);
                }
            }
            _ => {}
        }
    }
    truncated |= errors.len() > max_errors;
    errors.truncate(max_errors);
    Ok(Diagnosis { errors, truncated })
}

/// `error` with its path (inside a store) named by the store's URL: the
/// path `/prefix/a/x.journal` of `s3://bucket` is `s3://bucket/prefix/a/x.journal`.
pub fn in_store(error: CliError, location: &str) -> CliError {
    match error {
        CliError::Journal(e) => match e.path() {
            Some(path) => {
                let url = PathBuf::from(format!("{location}{}", path_text(path)));
                let mut moved = build::error(e.kind(), e.message()).with_path(url);
                if let (Some(line), Some(column)) = (e.line(), e.column()) {
                    moved = moved.at(line, column);
                }
                CliError::Journal(moved)
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

/// A copy of an error for the report (the OS error source is dropped).
fn copy(e: &JournalError) -> CliError {
    let mut copy = build::error(e.kind(), e.message());
    if let (Some(line), Some(column)) = (e.line(), e.column()) {
        copy = copy.at(line, column);
    }
    if let Some(path) = e.path() {
        copy = copy.with_path(path);
    }
    CliError::Journal(copy)
}

fn entry_error(kind: ErrorKind, path: &Path, message: String) -> CliError {
    CliError::Journal(build::error(kind, message).with_path(path))
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

/// The first chain error of one artifact, explained with what is on disk,
/// or `None` when its valid files chain (or its first error follows from an
/// invalid file already reported).
fn chain_error(
    artifact: &ScannedArtifact,
    files: &[&ScannedFile],
    digests: &HashMap<RevisionDigest, &Path>,
) -> Option<CliError> {
    let mut state = ChainState::new();
    let mut head: Option<&ScannedFile> = None;
    // Whether the file just before is invalid (reported on its own): an
    // unknown predecessor then most likely names that file's old digest.
    let mut after_invalid = false;
    for &file in files {
        let Ok(revision) = file.revision() else {
            after_invalid = true;
            continue;
        };
        match state.ingest_revision(revision.clone()) {
            Ok(ingested) => {
                state = ingested.into_state();
                head = Some(file);
                after_invalid = false;
            }
            Err(error) if error.kind() == ErrorKind::UnknownPredecessor => {
                let predecessor = revision.predecessor()?;
                if after_invalid && !digests.contains_key(predecessor) {
                    return None;
                }
                return explain_unknown(artifact, files, file, predecessor, head, digests, error);
            }
            Err(error) => return Some(CliError::Journal(error.with_path(file.path()))),
        }
    }
    None
}

/// Why `entry`'s PREDECESSOR is not a stored revision, from the files on disk.
fn explain_unknown(
    artifact: &ScannedArtifact,
    files: &[&ScannedFile],
    entry: &ScannedFile,
    predecessor: &RevisionDigest,
    head: Option<&ScannedFile>,
    digests: &HashMap<RevisionDigest, &Path>,
    error: JournalError,
) -> Option<CliError> {
    let name = file_name(entry.path());
    if let Some(owner) = digests.get(predecessor) {
        let owner_name = file_name(owner);
        if owner.parent() != Some(artifact.dir()) {
            return Some(entry_error(
                ErrorKind::CrossArtifactPredecessor,
                entry.path(),
                format!(
                    "found PREDECESSOR {predecessor}, the digest of `{}`, a revision of another artifact; expected the digest of this artifact's previous revision",
                    path_text(owner)
                ),
            ));
        }
        let owner_entry = files.iter().find(|e| e.path() == *owner)?;
        // A predecessor that is itself invalid was reported on its own.
        owner_entry.revision().ok()?;
        if owner_entry.version() > entry.version() {
            return Some(entry_error(
                ErrorKind::NonIncreasingVersion,
                entry.path(),
                format!(
                    "found PREDECESSOR {predecessor}, the digest of `{owner_name}`, whose Journal version {} is later than this file's {}; expected a successor's JOURNAL_VERSION (and file name) later than its predecessor's: this file's timestamp must be after {}",
                    owner_entry.version(),
                    entry.version(),
                    owner_entry.version()
                ),
            ));
        }
        return Some(CliError::Journal(error.with_path(entry.path())));
    }
    match head {
        Some(head) => {
            let now = head
                .digest()
                .map_or_else(|| "unknown".to_owned(), ToString::to_string);
            Some(entry_error(
                ErrorKind::UnknownPredecessor,
                head.path(),
                format!(
                    "found digest {now}, but its successor `{}` recorded PREDECESSOR {predecessor}: `{}` no longer has the digest its successor recorded; revisions are immutable: restore it (from a backup, or the copy the hub serves) so that its digest is {predecessor} again, and leave `{name}` as it is",
                    path_text(entry.path()),
                    file_name(head.path())
                ),
            ))
        }
        None => Some(entry_error(
            ErrorKind::UnknownPredecessor,
            entry.path(),
            format!(
                "found PREDECESSOR {predecessor}, but no file in the root has that digest; expected PREDECESSOR GENESIS for the first revision of {}, or the digest of an earlier revision",
                file_name(artifact.dir())
            ),
        )),
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
#[allow(clippy::unwrap_used, clippy::panic)] // a test fails by panicking
mod tests {
    use std::path::Path;

    use nenjim_journal_fs::{RealFileSystem, Store as _};
    use nenjim_journal_objstore::ObjectFs;
    use nenjim_journal_testkit::texts::{broken_root, files};

    use super::{Diagnosis, scan_with};
    use crate::failure::CliError;
    use crate::report::path_text;

    /// Each error as (kind, path relative to `root`, line, column, message
    /// with `root` left out).
    fn rows(diagnosis: &Diagnosis, root: &Path) -> Vec<(String, String, usize, usize, String)> {
        let prefix = format!("{}/", path_text(root));
        diagnosis
            .errors
            .iter()
            .map(|e| match e {
                CliError::Journal(e) => (
                    e.kind().as_str().to_owned(),
                    path_text(e.path().unwrap()).replace(&prefix, ""),
                    e.line().unwrap_or(0),
                    e.column().unwrap_or(0),
                    e.message().replace(&prefix, ""),
                ),
                other => panic!("{other}"),
            })
            .collect()
    }

    #[test]
    fn a_broken_root_gives_the_same_errors_from_a_directory_and_a_bucket() {
        let dir = broken_root();
        let local = scan_with(&RealFileSystem, dir.path(), false, usize::MAX).unwrap();
        let expected = rows(&local, dir.path());
        let kinds: Vec<&str> = expected.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "InvalidFileName",
                "UnexpectedEntry",
                "Syntax",
                "Semantic",
                "UnknownPredecessor",
                "InvalidFileName"
            ],
            "{expected:#?}"
        );
        // The same tree in an in-memory bucket, under a prefix.
        let bucket = ObjectFs::memory().unwrap();
        let root = Path::new("/journals/broken");
        for (relative, bytes) in files(dir.path()) {
            bucket
                .create(&root.join(relative), &bytes, Path::new("/tmp"))
                .unwrap();
        }
        let from_bucket = scan_with(&bucket, root, false, usize::MAX).unwrap();
        assert_eq!(rows(&from_bucket, root), expected);
        assert!(!from_bucket.truncated);
        // The limit applies the same way.
        let first_two = scan_with(&bucket, root, false, 2).unwrap();
        assert_eq!(rows(&first_two, root), expected[..2]);
        assert!(first_two.truncated);
    }
}
