//! A start: the whole root into a new state, all or nothing.

use std::path::Path;

use nenjim_journal_api::error::{ErrorContext as _, JournalError};
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_chain::ChainState;
use nenjim_journal_parser::{Interner, ParsedText};

use crate::layout::{self, ArtifactDir, RevisionFile};
use crate::{LoadOptions, pipeline, read};
use nenjim_journal_store::{Directory, FileSystem};

/// What one artifact's task found: the files it listed, the revisions it
/// parsed from them, in order, and the error that stopped it, if any.
#[derive(Debug)]
struct ArtifactParsed {
    files: Vec<RevisionFile>,
    revisions: Vec<JournalRevision>,
    error: Option<JournalError>,
}

/// See [`crate::load_with`].
pub(crate) fn load(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
) -> Result<ChainState, JournalError> {
    // The list of files to load (`layout`): the root's entries here, each
    // artifact's files in the worker that parses them (a serial walk of
    // 100 000 files was an eighth of a start). A task stops at its first
    // error (a misplaced entry counts after the files listed before it);
    // ingestion stops there too, so the files after it are never used.
    let artifacts = layout::artifacts(fs, root)?;
    // One interner per worker (a token met again is one look-up; equal
    // values are one stored value in the process: the api's store).
    let mut state = ChainState::new();
    pipeline::in_order(
        artifacts.dirs,
        Worker::default,
        |worker, artifact| list_and_parse(fs, &artifact, options, worker),
        |artifact| {
            for (file, revision) in artifact.files.iter().zip(artifact.revisions) {
                state
                    .ingest_revision_in_place(revision)
                    .map_err(|e| e.with_path(file.path()))?;
            }
            artifact.error.map_or(Ok(()), Err)
        },
    )?;
    match artifacts.error {
        Some(error) => Err(error),
        None => Ok(state),
    }
}

/// What a worker keeps from one artifact to the next: its interner, and
/// the buffers of the texts it no longer needs, which the files after them
/// are read into (a few buffers a worker, in the cache, instead of an
/// allocation a file: perf put a tenth of a file's read in `malloc`).
#[derive(Debug, Default)]
struct Worker {
    interner: Interner,
    buffers: Vec<Vec<u8>>,
}

/// Lists and parses one artifact directory.
fn list_and_parse(
    fs: &dyn FileSystem,
    artifact: &ArtifactDir,
    options: LoadOptions,
    worker: &mut Worker,
) -> ArtifactParsed {
    // The directory opened once, where the file system can: listed, and
    // each file opened by name in it (`FileSystem::open_dir`).
    let dir = artifact.path();
    let (opened, listed) = layout::listing(fs, &dir);
    let (files, listing_error) = layout::files_listed(fs, artifact, dir, listed, options);
    let (revisions, error) = parse_artifact(fs, opened.as_deref(), &files, worker);
    // A misplaced entry comes after the files listed before it.
    ArtifactParsed {
        files,
        revisions,
        error: error.or(listing_error),
    }
}

/// Parses one artifact's files in order, each after the one before (its
/// byte-identical release blocks share that file's values, and the parse
/// shares the equal ones written differently, here on the worker, so that
/// ingestion finds them shared); stops at the first error.
fn parse_artifact(
    fs: &dyn FileSystem,
    opened: Option<&dyn Directory>,
    files: &[RevisionFile],
    worker: &mut Worker,
) -> (Vec<JournalRevision>, Option<JournalError>) {
    let mut revisions: Vec<JournalRevision> = Vec::with_capacity(files.len());
    // The file before, with its text: a successor restates its releases,
    // and the blocks it restates byte for byte are not read again. Its
    // text's buffer goes back to the worker once the next one is parsed.
    let mut previous: Option<ParsedText> = None;
    for file in files {
        let buffer = worker.buffers.pop().unwrap_or_default();
        match read::read_revision(
            fs,
            opened,
            file,
            &mut worker.interner,
            previous.as_ref(),
            buffer,
        ) {
            Ok(parsed) => {
                revisions.push(parsed.revision().clone());
                if let Some(done) = previous.replace(parsed) {
                    worker.buffers.push(done.into_text().into_bytes());
                }
            }
            Err(error) => return (revisions, Some(error)),
        }
    }
    if let Some(done) = previous {
        worker.buffers.push(done.into_text().into_bytes());
    }
    (revisions, None)
}
