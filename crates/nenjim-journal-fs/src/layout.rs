//! The on-disk layout of a root (section 7): which entries are revision
//! files, which are ignored, and which make the load fail.
//!
//! The walk goes exactly two levels deep: artifact directories, then their
//! revision files. It looks at names and metadata only; no file is opened
//! here.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion};

use crate::LoadOptions;
use nenjim_journal_store::{Directory, EntryKind, FileSystem};

/// The suffix of a runtime revision file (section 7), for every tool that
/// looks for revision files: the seam's
/// [`REVISION_SUFFIX`](nenjim_journal_store::ledger::REVISION_SUFFIX), its one home.
pub const RUNTIME_SUFFIX: &str = nenjim_journal_store::ledger::REVISION_SUFFIX;
/// The suffix of a version-controlled example file (section 7).
pub const EXAMPLE_SUFFIX: &str = ".journal.example";

/// One file the loader will read: `<root>/<coordinate>/<version>.journal`
/// (or `.journal.example` when examples are included).
#[derive(Clone, Debug)]
pub(crate) struct RevisionFile {
    /// The artifact directory, shared by its files (a root of 100 000 files
    /// kept a 100-byte path per file alive for the whole load).
    dir: Arc<Path>,
    /// `.journal` or `.journal.example`: the name is the version's text
    /// (which is exactly the stem: the syntax is strict) and this.
    suffix: &'static str,
    pub(crate) coordinate: ArtifactCoordinate,
    pub(crate) version: JournalVersion,
    /// The length, when the listing asked for the entry's metadata (it may
    /// not: see [`FileSystem::read_dir_with_kinds`]): checked against the
    /// size limit before the file is opened. The read checks it again.
    pub(crate) len: Option<u64>,
}

impl RevisionFile {
    /// The runtime file `<dir>/<version>.journal` (`dir` is
    /// `<root>/<coordinate>`) of a revision a ledger records with `len` bytes.
    pub(crate) fn recorded(
        dir: &Arc<Path>,
        coordinate: ArtifactCoordinate,
        version: JournalVersion,
        len: u64,
    ) -> RevisionFile {
        RevisionFile {
            dir: Arc::clone(dir),
            suffix: RUNTIME_SUFFIX,
            coordinate,
            version,
            len: Some(len),
        }
    }
    /// `<version><suffix>`, the file's name in its directory, written on
    /// the stack (a start opens each file by name in its opened directory).
    pub(crate) fn name(&self) -> FileName {
        FileName(self.written_name().unwrap_or_default())
    }

    /// The name written on the stack; `None` only if it does not fit (not
    /// reached: a token is 16 ASCII bytes, a suffix at most 16).
    fn written_name(&self) -> Option<VersionToken> {
        use std::fmt::Write as _;
        let mut name = VersionToken::default();
        write!(name, "{}{}", self.version, self.suffix).ok()?;
        Some(name)
    }

    /// `<root>/<coordinate>/<version><suffix>`, built in one allocation of
    /// its exact size (a start builds one per file).
    pub(crate) fn path(&self) -> PathBuf {
        let Some(name) = self.written_name() else {
            return self.dir.join(format!("{}{}", self.version, self.suffix));
        };
        let name = name.as_str();
        let dir = self.dir.as_os_str();
        let mut path = OsString::with_capacity(dir.len() + 1 + name.len());
        path.push(dir);
        path.push(std::path::MAIN_SEPARATOR_STR);
        path.push(name);
        PathBuf::from(path)
    }
}

/// A revision file's name written on the stack: a `YYYYMMDDTHHMMSSZ`
/// token is 16 bytes (a longer text is an error), then its suffix.
#[derive(Default)]
struct VersionToken {
    bytes: [u8; 32],
    len: usize,
}

/// A revision file's name ([`RevisionFile::name`]).
pub(crate) struct FileName(VersionToken);

impl FileName {
    pub(crate) fn as_os_str(&self) -> &std::ffi::OsStr {
        std::ffi::OsStr::new(self.0.as_str())
    }
}

impl VersionToken {
    fn as_str(&self) -> &str {
        self.bytes
            .get(..self.len)
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("")
    }
}

impl std::fmt::Write for VersionToken {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// The error of a root that cannot be inspected or listed.
fn root_error(root: &Path, error: io::Error, listing: bool) -> JournalError {
    let (kind, message) = match error.kind() {
        io::ErrorKind::NotFound => (
            ErrorKind::RootMissing,
            "found no Journal root here, expected an existing directory".to_owned(),
        ),
        _ if listing => (
            ErrorKind::RootUnreadable,
            format!("cannot list the Journal root: {error}"),
        ),
        _ => (
            ErrorKind::RootUnreadable,
            format!("cannot inspect the Journal root: {error}"),
        ),
    };
    error::error(kind, message)
        .with_path(root)
        .with_source(error)
}

/// Checks the root itself: it exists and is a directory (`RootMissing`,
/// `RootNotDirectory`, `RootUnreadable`); the writer's check too.
pub(crate) fn check_root(fs: &dyn FileSystem, root: &Path) -> Result<(), JournalError> {
    // The root itself may be reached through a symbolic link (a configured
    // path is the owner's choice); entries below it never are.
    let metadata = fs.metadata(root).map_err(|e| root_error(root, e, false))?;
    if metadata.kind() != EntryKind::Directory {
        return Err(error::error(
            ErrorKind::RootNotDirectory,
            format!(
                "found {} as the Journal root, expected a directory",
                metadata.kind().describe()
            ),
        )
        .with_path(root));
    }
    Ok(())
}

/// Checks the root itself: it exists, is a directory and can be listed.
/// Returns its entry names, sorted.
fn root_entries(
    fs: &dyn FileSystem,
    root: &Path,
) -> Result<Vec<(OsString, Option<EntryKind>)>, JournalError> {
    check_root(fs, root)?;
    // Through the opened directory where the file system has one (no
    // allocation an entry but its name: the root holds every artifact).
    let (_, listed) = listing(fs, root);
    let mut names = listed.map_err(|e| root_error(root, e, true))?;
    names.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(names)
}

/// The directory `path` opened, where the file system can
/// ([`FileSystem::open_dir`]), and its listing with kinds: through the
/// opened directory, else by path.
pub(crate) fn listing(fs: &dyn FileSystem, path: &Path) -> (Option<Box<dyn Directory>>, Listed) {
    match fs.open_dir(path) {
        Ok(Some(mut opened)) => {
            let listed = opened.entries_with_kinds();
            (Some(opened), listed)
        }
        Ok(None) => (None, fs.read_dir_with_kinds(path)),
        Err(error) => (None, Err(error)),
    }
}

/// A directory's entries and their kinds, as listed.
pub(crate) type Listed = io::Result<Vec<(OsString, Option<EntryKind>)>>;

/// Whether a name is ignored at both levels (it begins with `.`).
fn is_hidden(name: &OsString) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

/// The kind (and length, if asked for) of an entry below the root, never
/// following a symbolic link: from the listing if it told, else from its
/// metadata.
fn entry_kind(
    fs: &dyn FileSystem,
    path: &Path,
    listed: Option<EntryKind>,
) -> Result<(EntryKind, Option<u64>), JournalError> {
    match listed {
        Some(kind) => Ok((kind, None)),
        None => fs
            .symlink_metadata(path)
            .map(|m| (m.kind(), Some(m.len())))
            .map_err(|e| error::io_error(path, "cannot inspect the entry", e)),
    }
}

fn unexpected(path: &Path, message: String) -> JournalError {
    error::error(ErrorKind::UnexpectedEntry, message).with_path(path)
}

fn invalid_name(path: &Path, message: String) -> JournalError {
    error::error(ErrorKind::InvalidFileName, message).with_path(path)
}

/// An artifact directory of the root, checked (a directory, named by a
/// coordinate) but not yet listed.
#[derive(Clone, Debug)]
pub(crate) struct ArtifactDir {
    /// The root it is in, one allocation shared by every directory.
    root: Arc<Path>,
    /// The coordinate, which is the directory's name.
    pub(crate) coordinate: ArtifactCoordinate,
}

impl ArtifactDir {
    /// The directory's path, made when its files are listed: a list of
    /// 20 000 artifact directories kept every path for the whole load
    /// (2 MB, counted in the peak of a start).
    pub(crate) fn path(&self) -> Arc<Path> {
        Arc::from(self.root.join(self.coordinate.as_str()))
    }
}

/// The first level of a walk: the artifact directories, in ingestion order,
/// up to the first misplaced root entry, and that entry's error.
#[derive(Debug, Default)]
pub(crate) struct Artifacts {
    pub(crate) dirs: Vec<ArtifactDir>,
    pub(crate) error: Option<JournalError>,
}

/// Checks the root and its entries (not their contents): the first step of
/// the list of files to load, in ingestion order; the second is
/// [`artifact_files`], for each artifact, in the worker that then reads its
/// files. These two calls are the whole listing: a loader that knew its
/// files from elsewhere (a ledger) would replace them and nothing else.
/// The root's own problems are returned as the error.
pub(crate) fn artifacts(fs: &dyn FileSystem, root: &Path) -> Result<Artifacts, JournalError> {
    let mut artifacts = Artifacts::default();
    for item in root_items(fs, root)? {
        match item {
            Ok(dir) => artifacts.dirs.push(dir),
            Err(error) => {
                artifacts.error = Some(error);
                break;
            }
        }
    }
    Ok(artifacts)
}

/// Every entry of the root, checked, in ingestion order: an artifact
/// directory or the error of a misplaced entry. A load stops at the first
/// error ([`artifacts`]); a scan for every error ([`crate::scan`]) goes on.
pub(crate) fn root_items(
    fs: &dyn FileSystem,
    root: &Path,
) -> Result<Vec<Result<ArtifactDir, JournalError>>, JournalError> {
    let shared_root: Arc<Path> = Arc::from(root);
    Ok(root_entries(fs, root)?
        .into_iter()
        .filter(|(name, _)| !is_hidden(name))
        .map(|(name, kind)| {
            artifact(fs, root, &name, kind).map(|coordinate| ArtifactDir {
                root: Arc::clone(&shared_root),
                coordinate,
            })
        })
        .collect())
}

/// Checks one root entry `name` of `root`: an artifact directory named by
/// its coordinate. Its path is built only to inspect it (a listing without
/// kinds) or to name it in an error.
fn artifact(
    fs: &dyn FileSystem,
    root: &Path,
    name: &OsString,
    listed: Option<EntryKind>,
) -> Result<ArtifactCoordinate, JournalError> {
    let path = || root.join(name);
    let kind = match listed {
        Some(kind) => kind,
        None => entry_kind(fs, &path(), None)?.0,
    };
    match kind {
        EntryKind::Directory => {}
        EntryKind::Symlink => {
            return Err(unexpected(
                &path(),
                "found a symbolic link in the Journal root, expected an artifact directory \
                 (symbolic links are never followed)"
                    .to_owned(),
            ));
        }
        kind => {
            return Err(unexpected(
                &path(),
                format!(
                    "found {} in the Journal root, expected an artifact directory named by its coordinate",
                    kind.describe()
                ),
            ));
        }
    }
    let Some(text) = name.to_str() else {
        return Err(invalid_name(
            &path(),
            "found a directory name that is not valid UTF-8, expected an artifact coordinate"
                .to_owned(),
        ));
    };
    let coordinate = text.parse::<ArtifactCoordinate>().map_err(|e| {
        invalid_name(
            &path(),
            format!(
                "found directory name `{text}`, expected an artifact coordinate: {}",
                e.message()
            ),
        )
    })?;
    Ok(coordinate)
}

/// Lists the revision files of an artifact directory, in ingestion order,
/// up to the first misplaced entry, and that entry's error.
pub(crate) fn artifact_files(
    fs: &dyn FileSystem,
    artifact: &ArtifactDir,
    options: LoadOptions,
) -> (Vec<RevisionFile>, Option<JournalError>) {
    let dir = artifact.path();
    let listed = fs.read_dir_with_kinds(&dir);
    files_listed(fs, artifact, dir, listed, options)
}

/// [`artifact_files`] of the directory `dir` of `artifact`, whose listing
/// is `listed` (read by path, or from the opened directory).
pub(crate) fn files_listed(
    fs: &dyn FileSystem,
    artifact: &ArtifactDir,
    dir: Arc<Path>,
    listed: Listed,
    options: LoadOptions,
) -> (Vec<RevisionFile>, Option<JournalError>) {
    let mut files = Vec::new();
    let items = match items_listed(fs, artifact, dir, listed, options) {
        Ok(items) => items,
        Err(error) => return (files, Some(error)),
    };
    for item in items {
        match item {
            Ok(file) => files.push(file),
            Err(error) => return (files, Some(error)),
        }
    }
    (files, None)
}

/// Every entry of an artifact directory, checked, in ingestion order: a
/// revision file to read or the error of a misplaced entry (ignored
/// examples left out). The error is the directory's own (it cannot be listed).
pub(crate) fn artifact_items(
    fs: &dyn FileSystem,
    artifact: &ArtifactDir,
    options: LoadOptions,
) -> Result<Vec<Result<RevisionFile, JournalError>>, JournalError> {
    let dir = artifact.path();
    let listed = fs.read_dir_with_kinds(&dir);
    items_listed(fs, artifact, dir, listed, options)
}

/// [`artifact_items`] of the directory `dir` of `artifact`, listed as `listed`.
fn items_listed(
    fs: &dyn FileSystem,
    artifact: &ArtifactDir,
    dir: Arc<Path>,
    listed: Listed,
    options: LoadOptions,
) -> Result<Vec<Result<RevisionFile, JournalError>>, JournalError> {
    let coordinate = &artifact.coordinate;
    let mut names =
        listed.map_err(|e| error::io_error(&*dir, "cannot list the artifact directory", e))?;
    // Byte order of the names is the ingestion order: timestamps sort
    // chronologically as text, and `X.journal` sorts before `X.journal.example`.
    names.sort_by(|a, b| a.0.cmp(&b.0));
    let dir = &dir;
    Ok(names
        .into_iter()
        .filter(|(name, _)| !is_hidden(name))
        .filter_map(|(name, kind)| {
            revision_file(fs, dir, &name, kind, coordinate, options).transpose()
        })
        .collect())
}

/// Checks one entry `name` of the artifact directory `dir`: a revision
/// file to read (`Some`), an ignored example (`None`) or an error. The
/// entry's path is built only to inspect it (a listing without kinds) or
/// to name it in an error: a revision file keeps its directory and
/// version, and builds its path when it is read.
fn revision_file(
    fs: &dyn FileSystem,
    dir: &Arc<Path>,
    name: &OsString,
    listed: Option<EntryKind>,
    coordinate: &ArtifactCoordinate,
    options: LoadOptions,
) -> Result<Option<RevisionFile>, JournalError> {
    let path = || dir.join(name);
    let (kind, len) = match listed {
        Some(kind) => (kind, None),
        None => entry_kind(fs, &path(), None)?,
    };
    match kind {
        EntryKind::File => {}
        EntryKind::Symlink => {
            return Err(unexpected(
                &path(),
                "found a symbolic link in an artifact directory, expected a regular file \
                 `<YYYYMMDDTHHMMSSZ>.journal` (symbolic links are never followed)"
                    .to_owned(),
            ));
        }
        kind => {
            return Err(unexpected(
                &path(),
                format!(
                    "found {} in an artifact directory, expected a regular file `<YYYYMMDDTHHMMSSZ>.journal`",
                    kind.describe()
                ),
            ));
        }
    }
    let Some(text) = name.to_str() else {
        return Err(invalid_name(
            &path(),
            "found a file name that is not valid UTF-8, expected `<YYYYMMDDTHHMMSSZ>.journal`"
                .to_owned(),
        ));
    };
    let (stem, suffix) = if let Some(stem) = text.strip_suffix(EXAMPLE_SUFFIX) {
        if !options.include_examples {
            return Ok(None);
        }
        (stem, EXAMPLE_SUFFIX)
    } else if let Some(stem) = text.strip_suffix(RUNTIME_SUFFIX) {
        (stem, RUNTIME_SUFFIX)
    } else {
        return Err(invalid_name(
            &path(),
            format!(
                "found file name `{text}`, expected `<YYYYMMDDTHHMMSSZ>.journal` \
                 (or a name ending in `.journal.example`)"
            ),
        ));
    };
    let version = stem.parse::<JournalVersion>().map_err(|e| {
        invalid_name(
            &path(),
            format!(
                "found file name `{text}`, expected `<YYYYMMDDTHHMMSSZ>{suffix}`: {}",
                e.message()
            ),
        )
    })?;
    Ok(Some(RevisionFile {
        dir: Arc::clone(dir),
        suffix,
        coordinate: coordinate.clone(),
        version,
        len,
    }))
}
