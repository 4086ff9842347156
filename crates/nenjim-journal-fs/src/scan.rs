//! Every independent problem of a root, for a report (a load stops at the
//! first one): the rules of section 7 are the loader's own (`layout.rs`,
//! `read.rs`), applied to every entry and every file instead of stopping.

use std::path::{Path, PathBuf};

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, RevisionDigest};
use nenjim_journal_parser::Interner;

use crate::layout::{self, ArtifactDir, RevisionFile};
use crate::{LoadOptions, RealFileSystem, read};
use nenjim_journal_store::FileSystem;

/// One entry of the root, as a scan found it.
#[derive(Debug)]
#[non_exhaustive]
pub enum ScannedItem {
    /// A misplaced root entry (`UnexpectedEntry`, `InvalidFileName`, `Io`).
    Misplaced(JournalError),
    /// An artifact directory and what it holds.
    Artifact(ScannedArtifact),
}

/// An artifact directory as a scan found it.
#[derive(Debug)]
pub struct ScannedArtifact {
    dir: PathBuf,
    coordinate: ArtifactCoordinate,
    entries: Vec<ScannedEntry>,
}

impl ScannedArtifact {
    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    /// Its coordinate (the directory's name).
    pub fn coordinate(&self) -> &ArtifactCoordinate {
        &self.coordinate
    }
    /// Its entries in ingestion order (ignored examples left out).
    pub fn entries(&self) -> &[ScannedEntry] {
        &self.entries
    }
}

/// One entry of an artifact directory, as a scan found it.
#[derive(Debug)]
#[non_exhaustive]
pub enum ScannedEntry {
    /// A misplaced entry, or a directory that cannot be listed.
    Misplaced(JournalError),
    /// A revision file, read and checked.
    File(ScannedFile),
}

/// A revision file, read, parsed and checked against its place on its own
/// (no chain: chain rules need the artifact's files together).
#[derive(Debug)]
pub struct ScannedFile {
    path: PathBuf,
    version: JournalVersion,
    digest: Option<RevisionDigest>,
    revision: Result<JournalRevision, JournalError>,
}

impl ScannedFile {
    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The Journal version its name gives.
    pub fn version(&self) -> JournalVersion {
        self.version
    }
    /// The SHA-256 of its bytes, when they could be read.
    pub fn digest(&self) -> Option<&RevisionDigest> {
        self.digest.as_ref()
    }
    /// The revision, or the first error of the file on its own (size,
    /// UTF-8, syntax, semantics, header against place).
    pub fn revision(&self) -> Result<&JournalRevision, &JournalError> {
        self.revision.as_ref()
    }
}

/// Scans `root` for every independent problem of its entries and files (the
/// loader's rules of section 7, going on after each error), stopping once
/// `max_errors` errors were found (the second value is then `true`). The
/// error is the root's own (missing, not a directory, unreadable).
pub fn scan(
    root: &Path,
    options: LoadOptions,
    max_errors: usize,
) -> Result<(Vec<ScannedItem>, bool), JournalError> {
    scan_with(&RealFileSystem, root, options, max_errors)
}

/// [`scan`] through `fs`: the root at `root` in any store the loader reads
/// ([`load_with`](crate::load_with)'s), e.g. a bucket of the
/// `nenjim-journal-objstore` crate, with the same rules, errors and paths
/// (the paths inside the store).
pub fn scan_with(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
    max_errors: usize,
) -> Result<(Vec<ScannedItem>, bool), JournalError> {
    let mut interner = Interner::default();
    let mut items = Vec::new();
    let mut found = 0usize;
    for item in layout::root_items(fs, root)? {
        if found >= max_errors {
            return Ok((items, true));
        }
        match item {
            Err(error) => {
                found += 1;
                items.push(ScannedItem::Misplaced(error));
            }
            Ok(dir) => {
                let artifact = scan_artifact(fs, &dir, options, &mut interner);
                found += artifact
                    .entries
                    .iter()
                    .filter(|e| {
                        matches!(
                            e,
                            ScannedEntry::Misplaced(_)
                                | ScannedEntry::File(ScannedFile {
                                    revision: Err(_),
                                    ..
                                })
                        )
                    })
                    .count();
                items.push(ScannedItem::Artifact(artifact));
            }
        }
    }
    Ok((items, false))
}

/// Lists, reads and checks one artifact directory, keeping every error.
fn scan_artifact(
    fs: &dyn FileSystem,
    dir: &ArtifactDir,
    options: LoadOptions,
    interner: &mut Interner,
) -> ScannedArtifact {
    let entries = match layout::artifact_items(fs, dir, options) {
        Err(error) => vec![ScannedEntry::Misplaced(error)],
        Ok(items) => items
            .into_iter()
            .map(|item| match item {
                Err(error) => ScannedEntry::Misplaced(error),
                Ok(file) => ScannedEntry::File(scan_file(fs, &file, interner)),
            })
            .collect(),
    };
    ScannedArtifact {
        dir: dir.path().to_path_buf(),
        coordinate: dir.coordinate.clone(),
        entries,
    }
}

/// Reads and checks one file on its own.
fn scan_file(fs: &dyn FileSystem, file: &RevisionFile, interner: &mut Interner) -> ScannedFile {
    let path = file.path();
    let (digest, revision) = match read::read_bytes(fs, file) {
        Err(error) => (None, Err(error)),
        Ok(bytes) => {
            let digest = RevisionDigest::of_bytes(&bytes);
            let revision = read::decode(bytes)
                .map_err(|e| {
                    use nenjim_journal_api::error::ErrorContext as _;
                    e.with_path(&path)
                })
                .and_then(|text| read::parse_checked(file, &text, interner));
            (Some(digest), revision)
        }
    };
    ScannedFile {
        path,
        version: file.version,
        digest,
        revision,
    }
}
