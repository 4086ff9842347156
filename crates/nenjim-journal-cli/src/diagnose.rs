//! Every independent error of a root, for `check` (the loader stops at the
//! first one).
//!
//! The walk repeats the loader's rules of section 7 (entries, names, sizes,
//! UTF-8, header against place) but keeps going after an error, then
//! ingests each artifact's valid files into a chain of its own, so one
//! artifact's error never hides another's. An artifact's chain stops at its
//! first error (the errors after it would follow from it), and a successor
//! of a file that is itself invalid is not reported again.
//!
//! Because it sees every file on disk, it can say where an unknown digest
//! comes from: a file of the same artifact with a later timestamp (the
//! successor's name sorts before its predecessor's), a file of another
//! artifact, or no file at all (its predecessor was edited after the fact).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::model::build::{self, ErrorContext as _};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, RevisionDigest};
use nenjim_journal_chain::ChainState;

use crate::commands::read_text;
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

/// One revision file of an artifact, read and parsed (or not).
struct Entry {
    path: PathBuf,
    version: JournalVersion,
    /// The digest of its text, when it could be read as text.
    digest: Option<RevisionDigest>,
    /// The parsed revision, when it is valid on its own.
    revision: Option<JournalRevision>,
}

/// One artifact directory: its files in ingestion order, and the errors of
/// its entries and files.
struct Artifact {
    dir: PathBuf,
    entries: Vec<Entry>,
    errors: Vec<CliError>,
}

/// A root-level item in walk order.
enum Item {
    Error(CliError),
    Artifact(Artifact),
}

/// Scans `root` for every independent error, stopping after `max_errors`.
pub fn scan(root: &Path, examples: bool, max_errors: usize) -> Result<Diagnosis, CliError> {
    let mut names: Vec<_> = std::fs::read_dir(root)
        .map_err(|e| CliError::io(root, "cannot list the Journal root", e))?
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    names.sort();
    let looks_like_artifact = names.iter().any(|n| {
        let n = n.to_string_lossy();
        n.ends_with(RUNTIME_SUFFIX) || n.ends_with(EXAMPLE_SUFFIX)
    });
    if looks_like_artifact {
        return Ok(Diagnosis {
            errors: vec![artifact_as_root(root)],
            truncated: false,
        });
    }
    let mut items = Vec::new();
    let mut found = 0usize;
    let mut truncated = false;
    for name in names {
        if name.as_encoded_bytes().first() == Some(&b'.') {
            continue;
        }
        if found >= max_errors {
            // Enough errors to stop early; the chains are not checked further.
            truncated = true;
            break;
        }
        let path = root.join(&name);
        match artifact_dir(&path, &name) {
            Ok(coordinate) => {
                let artifact = read_artifact(&path, &coordinate, examples);
                found += artifact.errors.len();
                items.push(Item::Artifact(artifact));
            }
            Err(error) => {
                found += 1;
                items.push(Item::Error(error));
            }
        }
    }
    let digests: HashMap<RevisionDigest, &Path> = items
        .iter()
        .filter_map(|item| match item {
            Item::Artifact(a) => Some(a),
            Item::Error(_) => None,
        })
        .flat_map(|a| a.entries.iter())
        .filter_map(|e| e.digest.map(|d| (d, e.path.as_path())))
        .collect();
    let mut errors = Vec::new();
    for item in &items {
        match item {
            Item::Error(error) => errors.push(clone_error(error)),
            Item::Artifact(artifact) => {
                errors.extend(artifact.errors.iter().map(clone_error));
                if let Some(error) = chain_error(artifact, &digests) {
                    errors.push(error);
                }
            }
        }
    }
    truncated |= errors.len() > max_errors;
    errors.truncate(max_errors);
    Ok(Diagnosis { errors, truncated })
}

/// A copy of an error for the report (the OS error source is dropped).
fn clone_error(error: &CliError) -> CliError {
    match error {
        CliError::Journal(e) => {
            let mut copy = build::error(e.kind(), e.message());
            if let (Some(line), Some(column)) = (e.line(), e.column()) {
                copy = copy.at(line, column);
            }
            if let Some(path) = e.path() {
                copy = copy.with_path(path);
            }
            CliError::Journal(copy)
        }
        CliError::Refused { kind, message } => CliError::refused(kind, message.clone()),
    }
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

/// Checks one root entry: a directory named by a coordinate.
fn artifact_dir(path: &Path, name: &std::ffi::OsStr) -> Result<ArtifactCoordinate, CliError> {
    let metadata = std::fs::symlink_metadata(path)
        .map_err(|e| CliError::io(path, "cannot inspect the entry", e))?;
    if !metadata.is_dir() {
        let what = if metadata.file_type().is_symlink() {
            "a symbolic link"
        } else {
            "a file"
        };
        return Err(entry_error(
            ErrorKind::UnexpectedEntry,
            path,
            format!(
                "found {what} in the Journal root, expected an artifact directory named by its coordinate"
            ),
        ));
    }
    let text = name.to_str().ok_or_else(|| {
        entry_error(
            ErrorKind::InvalidFileName,
            path,
            "found a directory name that is not valid UTF-8, expected an artifact coordinate"
                .to_owned(),
        )
    })?;
    text.parse::<ArtifactCoordinate>().map_err(|e| {
        entry_error(
            ErrorKind::InvalidFileName,
            path,
            format!(
                "found directory name `{text}`, expected an artifact coordinate: {}",
                e.message()
            ),
        )
    })
}

/// Lists, reads and parses one artifact directory, keeping every error.
fn read_artifact(dir: &Path, coordinate: &ArtifactCoordinate, examples: bool) -> Artifact {
    let mut artifact = Artifact {
        dir: dir.to_path_buf(),
        entries: Vec::new(),
        errors: Vec::new(),
    };
    let mut names: Vec<_> = match std::fs::read_dir(dir) {
        Ok(listing) => listing
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect(),
        Err(e) => {
            artifact
                .errors
                .push(CliError::io(dir, "cannot list the artifact directory", e));
            return artifact;
        }
    };
    names.sort();
    for name in names {
        if name.as_encoded_bytes().first() == Some(&b'.') {
            continue;
        }
        let path = dir.join(&name);
        match revision_file(&path, &name, examples) {
            Ok(Some(version)) => {
                let (entry, error) = read_entry(path, version, coordinate);
                artifact.entries.push(entry);
                artifact.errors.extend(error);
            }
            Ok(None) => {}
            Err(error) => artifact.errors.push(error),
        }
    }
    artifact
}

/// Checks one entry of an artifact directory: `Some(version)` for a file to
/// read, `None` for an example that is skipped.
fn revision_file(
    path: &Path,
    name: &std::ffi::OsStr,
    examples: bool,
) -> Result<Option<JournalVersion>, CliError> {
    let metadata = std::fs::symlink_metadata(path)
        .map_err(|e| CliError::io(path, "cannot inspect the entry", e))?;
    if !metadata.is_file() {
        let what = if metadata.file_type().is_symlink() {
            "a symbolic link"
        } else if metadata.is_dir() {
            "a directory"
        } else {
            "a special file"
        };
        return Err(entry_error(
            ErrorKind::UnexpectedEntry,
            path,
            format!(
                "found {what} in an artifact directory, expected a regular file `<YYYYMMDDTHHMMSSZ>.journal`"
            ),
        ));
    }
    let Some(text) = name.to_str() else {
        return Err(entry_error(
            ErrorKind::InvalidFileName,
            path,
            "found a file name that is not valid UTF-8, expected `<YYYYMMDDTHHMMSSZ>.journal`"
                .to_owned(),
        ));
    };
    let (stem, suffix) = if let Some(stem) = text.strip_suffix(EXAMPLE_SUFFIX) {
        if !examples {
            return Ok(None);
        }
        (stem, EXAMPLE_SUFFIX)
    } else if let Some(stem) = text.strip_suffix(RUNTIME_SUFFIX) {
        (stem, RUNTIME_SUFFIX)
    } else {
        return Err(entry_error(
            ErrorKind::InvalidFileName,
            path,
            format!(
                "found file name `{text}`, expected `<YYYYMMDDTHHMMSSZ>.journal` (or a name ending in `.journal.example`)"
            ),
        ));
    };
    stem.parse::<JournalVersion>().map(Some).map_err(|e| {
        entry_error(
            ErrorKind::InvalidFileName,
            path,
            format!(
                "found file name `{text}`, expected `<YYYYMMDDTHHMMSSZ>{suffix}`: {}",
                e.message()
            ),
        )
    })
}

/// Reads and parses one file, checking its header against its place.
fn read_entry(
    path: PathBuf,
    version: JournalVersion,
    coordinate: &ArtifactCoordinate,
) -> (Entry, Option<CliError>) {
    let mut entry = Entry {
        path,
        version,
        digest: None,
        revision: None,
    };
    let text = match read_text(&entry.path) {
        Ok(text) => text,
        Err(error) => return (entry, Some(error)),
    };
    entry.digest = Some(RevisionDigest::of_text(&text));
    let revision = match nenjim_journal_parser::parse(&text) {
        Ok(revision) => revision,
        Err(error) => {
            let error = CliError::Journal(error.with_path(&entry.path));
            return (entry, Some(error));
        }
    };
    if revision.coordinate() != coordinate {
        let message = format!(
            "found ARTIFACT {}, expected {coordinate} (the name of its directory)",
            revision.coordinate()
        );
        let error = entry_error(ErrorKind::CoordinateMismatch, &entry.path, message);
        return (entry, Some(error));
    }
    if revision.journal_version() != version {
        let message = format!(
            "found JOURNAL_VERSION {}, expected {version} (the file name stem)",
            revision.journal_version()
        );
        let error = entry_error(ErrorKind::VersionMismatch, &entry.path, message);
        return (entry, Some(error));
    }
    entry.revision = Some(revision);
    (entry, None)
}

/// The file name of `path`, for messages.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| path_text(path), |n| n.to_string_lossy().into_owned())
}

/// The first chain error of one artifact, explained with what is on disk,
/// or `None` when its valid files chain (or its first error follows from an
/// invalid file already reported).
fn chain_error(artifact: &Artifact, digests: &HashMap<RevisionDigest, &Path>) -> Option<CliError> {
    let mut state = ChainState::new();
    let mut head: Option<&Entry> = None;
    // Whether the file just before is invalid (reported on its own): an
    // unknown predecessor then most likely names that file's old digest.
    let mut after_invalid = false;
    for entry in &artifact.entries {
        let Some(revision) = &entry.revision else {
            after_invalid = true;
            continue;
        };
        match state.ingest_revision(revision.clone()) {
            Ok(ingested) => {
                state = ingested.into_state();
                head = Some(entry);
                after_invalid = false;
            }
            Err(error) if error.kind() == ErrorKind::UnknownPredecessor => {
                let predecessor = revision.predecessor()?;
                if after_invalid && !digests.contains_key(predecessor) {
                    return None;
                }
                return explain_unknown(artifact, entry, predecessor, head, digests, error);
            }
            Err(error) => return Some(CliError::Journal(error.with_path(&entry.path))),
        }
    }
    None
}

/// Why `entry`'s PREDECESSOR is not a stored revision, from the files on disk.
fn explain_unknown(
    artifact: &Artifact,
    entry: &Entry,
    predecessor: &RevisionDigest,
    head: Option<&Entry>,
    digests: &HashMap<RevisionDigest, &Path>,
    error: JournalError,
) -> Option<CliError> {
    let name = file_name(&entry.path);
    if let Some(owner) = digests.get(predecessor) {
        let owner_name = file_name(owner);
        if owner.parent() != Some(artifact.dir.as_path()) {
            return Some(entry_error(
                ErrorKind::CrossArtifactPredecessor,
                &entry.path,
                format!(
                    "found PREDECESSOR {predecessor}, the digest of `{}`, a revision of another artifact; expected the digest of this artifact's previous revision",
                    path_text(owner)
                ),
            ));
        }
        let owner_entry = artifact.entries.iter().find(|e| e.path == *owner)?;
        // A predecessor that is itself invalid was reported on its own.
        owner_entry.revision.as_ref()?;
        if owner_entry.version > entry.version {
            return Some(entry_error(
                ErrorKind::NonIncreasingVersion,
                &entry.path,
                format!(
                    "found PREDECESSOR {predecessor}, the digest of `{owner_name}`, whose Journal version {} is later than this file's {}; expected a successor's JOURNAL_VERSION (and file name) later than its predecessor's: this file's timestamp must be after {}",
                    owner_entry.version, entry.version, owner_entry.version
                ),
            ));
        }
        return Some(CliError::Journal(error.with_path(&entry.path)));
    }
    match head {
        Some(head) => {
            let now = head
                .digest
                .map_or_else(|| "unknown".to_owned(), |d| d.to_string());
            Some(entry_error(
                ErrorKind::UnknownPredecessor,
                &head.path,
                format!(
                    "found digest {now}, but its successor `{}` recorded PREDECESSOR {predecessor}: `{}` no longer has the digest its successor recorded; revisions are immutable: restore it so that its digest is {predecessor} again (or, if `{name}` names the wrong predecessor, expected {now} there)",
                    path_text(&entry.path),
                    file_name(&head.path)
                ),
            ))
        }
        None => Some(entry_error(
            ErrorKind::UnknownPredecessor,
            &entry.path,
            format!(
                "found PREDECESSOR {predecessor}, but no file in the root has that digest; expected PREDECESSOR GENESIS for the first revision of {}, or the digest of an earlier revision",
                file_name(&artifact.dir)
            ),
        )),
    }
}

/// How many `*.journal.example` files the artifact directories of `root` hold.
pub fn count_examples(root: &Path) -> usize {
    let Ok(listing) = std::fs::read_dir(root) else {
        return 0;
    };
    listing
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| std::fs::read_dir(e.path()).ok())
        .flat_map(|dir| dir.filter_map(Result::ok))
        .filter(|e| e.file_name().to_string_lossy().ends_with(EXAMPLE_SUFFIX))
        .count()
}
