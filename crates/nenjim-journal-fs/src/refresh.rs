//! A refresh: the root re-read against a state; new revisions ingested and
//! published one at a time.

use std::path::Path;

use nenjim_journal_api::error::{ErrorContext as _, JournalError};
use nenjim_journal_api::model::build;
use nenjim_journal_api::model::{JournalRevision, RefreshReport};
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_chain::{ChainState, Outcome};
use nenjim_journal_parser::Interner;

use crate::layout::{self, ArtifactDir, RevisionFile};
use crate::{LoadOptions, pipeline, read};
use nenjim_journal_store::FileSystem;

/// What the parallel step of a refresh learned about one file.
#[derive(Debug)]
enum Reread {
    /// The state already has this artifact and version: only the digests matter.
    Known {
        stored: RevisionDigest,
        found: RevisionDigest,
    },
    /// A revision the state does not have yet, parsed and checked.
    New(JournalRevision),
}

/// What one artifact's task found: its files, what each was found to be
/// (up to the first error), and that error.
#[derive(Debug)]
struct ArtifactReread {
    files: Vec<RevisionFile>,
    rereads: Vec<Reread>,
    error: Option<JournalError>,
}

/// See [`crate::refresh_with`].
pub(crate) fn refresh(
    fs: &dyn FileSystem,
    root: &Path,
    options: LoadOptions,
    state: &ChainState,
    publish: &mut dyn FnMut(ChainState),
) -> Result<RefreshReport, JournalError> {
    // The same list of files as a load, listed by the workers too.
    let artifacts = layout::artifacts(fs, root)?;
    let mut current = state.clone();
    let (mut ingested, mut unchanged) = (0, 0);
    pipeline::in_order(
        artifacts.dirs,
        Interner::default,
        |interner, artifact| reread_artifact(fs, &artifact, options, state, interner),
        |artifact| {
            for (file, reread) in artifact.files.iter().zip(artifact.rereads) {
                match reread {
                    Reread::Known { stored, found } if stored == found => unchanged += 1,
                    Reread::Known { stored, found } => {
                        return Err(nenjim_journal_chain::conflict(
                            &file.coordinate,
                            file.version,
                            &found,
                            &stored,
                        )
                        .with_path(file.path()));
                    }
                    Reread::New(revision) => {
                        let next = current
                            .ingest_revision(revision)
                            .map_err(|e| e.with_path(file.path()))?;
                        match next.outcome() {
                            Outcome::Accepted => {
                                current = next.into_state();
                                publish(current.clone());
                                ingested += 1;
                            }
                            Outcome::Unchanged => unchanged += 1,
                        }
                    }
                }
            }
            artifact.error.map_or(Ok(()), Err)
        },
    )?;
    match artifacts.error {
        Some(error) => Err(error),
        None => Ok(build::refresh_report(ingested, unchanged, 0)),
    }
}

/// Lists one artifact directory and re-reads its files against `state`,
/// stopping at the first error (a misplaced entry counts after the files
/// listed before it).
fn reread_artifact(
    fs: &dyn FileSystem,
    artifact: &ArtifactDir,
    options: LoadOptions,
    state: &ChainState,
    interner: &mut Interner,
) -> ArtifactReread {
    let (files, listing_error) = layout::artifact_files(fs, artifact, options);
    let mut rereads = Vec::with_capacity(files.len());
    for file in &files {
        match reread(fs, file, state, interner) {
            Ok(found) => rereads.push(found),
            Err(error) => {
                return ArtifactReread {
                    files,
                    rereads,
                    error: Some(error),
                };
            }
        }
    }
    ArtifactReread {
        files,
        rereads,
        error: listing_error,
    }
}

/// Re-reads one file: a stored one is compared by digest only (never
/// decoded unless it differs, never parsed); a new one is parsed and checked.
fn reread(
    fs: &dyn FileSystem,
    file: &RevisionFile,
    state: &ChainState,
    interner: &mut Interner,
) -> Result<Reread, JournalError> {
    let bytes = read::read_bytes(fs, file)?;
    if let Some(stored) = state.revision(&file.coordinate, file.version) {
        // The digest is the SHA-256 of the exact bytes, so bytes with the
        // stored digest are the stored (valid UTF-8) text: only different
        // bytes need decoding, for an `InvalidUtf8` first.
        let found = RevisionDigest::of_bytes(&bytes);
        if found != *stored.digest() {
            read::decode(bytes).map_err(|e| e.with_path(file.path()))?;
        }
        Ok(Reread::Known {
            stored: *stored.digest(),
            found,
        })
    } else {
        let text = read::decode(bytes).map_err(|e| e.with_path(file.path()))?;
        read::parse_checked(file, &text, interner).map(Reread::New)
    }
}
