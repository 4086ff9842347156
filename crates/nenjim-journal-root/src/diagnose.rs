//! The diagnosis of a root, what the command's `check` reports: every
//! independent error of a root that does not load (the loader stops at the
//! first one), and the warnings of one that does.
//!
//! [`diagnose`] walks a root again, going on after each error. Its files
//! scan ([`scan`], [`scan_with`]): [`nenjim_journal_fs::scan`] applies the
//! loader's own rules of section 7 (entries, names, sizes, UTF-8, header
//! against place) to every entry and file; this module then ingests the
//! valid files into one chain state, artifact by artifact, so the chain's
//! rules decide every kind and one artifact's error never hides another's
//! (a refused revision leaves the state as it was). An artifact's chain
//! stops at its first error (the errors after it would follow from it),
//! and a successor of a file that is itself invalid is not reported again.
//! When the files scan finds nothing the loader did, a root with a ledger
//! is read again by its ledger ([`scan_ledger`]: a recorded file changed
//! into another valid text, a NATS root, whose revisions are only in its
//! ledger).
//!
//! Because it sees every file on disk, it can say where an unknown digest
//! comes from. A file whose PREDECESSOR names a file not ingested yet (a
//! successor whose name sorts before its predecessor's, a revision of an
//! artifact walked later) waits for it and is ingested again right after
//! it, and the chain's error then names that file; a digest that no file
//! has means its predecessor was edited after the fact, or never existed.
//!
//! Of a root that loads, [`warnings`] gives what a load never reads: the
//! example files it skipped, revision files its ledger does not record,
//! stray entries, whether it is signed, and how a NATS root is replicated.
//!
//! The errors of a root in a bucket name their files by the bucket's URL
//! (`s3://bucket/prefix/<artifact>/<file>`), as the root was given.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_fs::{
    EXAMPLE_SUFFIX, EntryKind, FileSystem, LoadOptions, RUNTIME_SUFFIX, ScannedArtifact,
    ScannedEntry, ScannedFile, ScannedItem,
};

use crate::Root;

/// What a diagnosis looks at: examples or not, and how many errors at most.
#[derive(Clone, Debug)]
pub struct DiagnoseOptions {
    examples: bool,
    max_errors: usize,
}

impl Default for DiagnoseOptions {
    fn default() -> Self {
        DiagnoseOptions::new()
    }
}

impl DiagnoseOptions {
    /// Without examples, every error.
    pub fn new() -> DiagnoseOptions {
        DiagnoseOptions {
            examples: false,
            max_errors: usize::MAX,
        }
    }

    /// Whether `*.journal.example` files are part of the root (a load's
    /// `LoadOptions::with_examples`).
    pub fn with_examples(self, examples: bool) -> DiagnoseOptions {
        DiagnoseOptions { examples, ..self }
    }

    /// Stops after `max_errors` errors ([`Diagnosis::truncated`]).
    pub fn max_errors(self, max_errors: usize) -> DiagnoseOptions {
        DiagnoseOptions { max_errors, ..self }
    }

    /// Whether examples are part of the root.
    pub fn examples(&self) -> bool {
        self.examples
    }

    fn load_options(&self) -> LoadOptions {
        LoadOptions::new().with_examples(self.examples)
    }
}

/// What the scan found.
#[derive(Debug, Default)]
pub struct Diagnosis {
    /// Every independent error, in walk order (at most the limit asked for).
    pub errors: Vec<JournalError>,
    /// Whether the scan stopped at the limit before the end.
    pub truncated: bool,
}

/// Every independent error of `root` (one that does not load): the files
/// scan ([`scan`]), or when it finds nothing, the ledger's ([`scan_ledger`]).
/// An empty diagnosis found nothing the loader did (its error is then the
/// report); an error is returned only when neither scan could run.
pub fn diagnose(root: &Root, options: &DiagnoseOptions) -> Result<Diagnosis, JournalError> {
    let files = match scan(root, options) {
        Ok(diagnosis) if !diagnosis.errors.is_empty() => return Ok(diagnosis),
        other => other,
    };
    match scan_ledger(root, options.max_errors) {
        Ok(Some(diagnosis)) if !diagnosis.errors.is_empty() => Ok(diagnosis),
        Ok(_) => files.map(|_| Diagnosis::default()),
        Err(error) => files.map_err(|_| error),
    }
}

/// The files scan of `root` (read through its backend, as `start()` reads
/// it) for every independent error, stopping after the options'
/// `max_errors`. The errors of a root in a bucket name their files by URL
/// (`s3://bucket/prefix/<artifact>/<file>`).
pub fn scan(root: &Root, options: &DiagnoseOptions) -> Result<Diagnosis, JournalError> {
    let fs = root.backend().reading().file_system;
    let diagnosis = scan_with(&*fs, root.path(), options)?;
    Ok(Diagnosis {
        errors: named_for(root, diagnosis.errors),
        truncated: diagnosis.truncated,
    })
}

/// [`scan`] of the root at `root` in `fs` (paths inside the store).
pub fn scan_with(
    fs: &dyn FileSystem,
    root: &Path,
    options: &DiagnoseOptions,
) -> Result<Diagnosis, JournalError> {
    let looks_like_artifact = fs
        .read_dir(root)
        .map_err(|e| error::io_error(root, "cannot list the Journal root", e))?
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
    let max_errors = options.max_errors;
    let (items, mut truncated) =
        nenjim_journal_fs::scan_with(fs, root, options.load_options(), max_errors)?;
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
pub fn scan_ledger(root: &Root, max_errors: usize) -> Result<Option<Diagnosis>, JournalError> {
    let reading = root.backend().reading();
    let inner = root.path();
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
        errors: named_for(root, errors),
        truncated,
    }))
}

/// The URL prefix of a root whose files are objects in a bucket
/// (`s3://bucket`), naming their paths for the user; `None` for any other.
pub fn location(root: &Root) -> Option<String> {
    if !root.has_remote_files() {
        return None;
    }
    root.backend()
        .content_store()
        .ok()
        .map(|(store, _)| store.location())
}

/// `errors` of `root` with their files named as the root was given: a
/// root in a bucket names them by the bucket's URL ([`in_store`]), any
/// other root as they are.
pub fn named_for(root: &Root, errors: Vec<JournalError>) -> Vec<JournalError> {
    match location(root) {
        Some(location) => errors.into_iter().map(|e| in_store(e, &location)).collect(),
        None => errors,
    }
}

/// `error` with its path (inside a store) named by the store's URL: the
/// path `/prefix/a/x.journal` of `s3://bucket` is `s3://bucket/prefix/a/x.journal`.
pub fn in_store(error: JournalError, location: &str) -> JournalError {
    match error.path() {
        Some(path) => {
            let url = PathBuf::from(format!("{location}{}", path_text(path)));
            error.moved_to(url)
        }
        None => error,
    }
}

/// A path as messages show it.
fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
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
fn copy(e: &JournalError) -> JournalError {
    e.clone()
}

fn entry_error(kind: ErrorKind, path: &Path, message: String) -> JournalError {
    error::error(kind, message).with_path(path)
}

/// The error for a root that holds revision files: an artifact directory.
fn artifact_as_root(root: &Path) -> JournalError {
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
fn parent_as_root(fs: &dyn FileSystem, root: &Path) -> Option<JournalError> {
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

mod chain;
#[cfg(test)]
mod tests;
mod warnings;

use chain::chain_errors;
pub use warnings::{Warnings, count_examples, stray, unrecorded, warnings};
