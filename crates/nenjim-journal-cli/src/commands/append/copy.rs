//! Copying a whole root into another, keeping its sequences: see the
//! `append` module's docs.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use std::collections::HashMap;

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::error::{self, ErrorContext as _};
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use nenjim_journal_fs::ledger::{LedgerReader, RevisionPointer};
use nenjim_journal_fs::{FileSystem, LoadOptions, MAX_FILE_LEN, ledger, load_with};
use nenjim_journal_store::Store;
use nenjim_journal_writer::FsJournalWriter;

use nenjim_journal_chain::ChainState;

use super::{AppendedJson, Report};
use nenjim_journal_root::Root;

use crate::address::{file_system, locate};
use crate::failure::CliError;
use crate::report::path_text;

/// The content stores a copy moves blobs between (`--source-store`
/// into `--store`).
pub struct Stores {
    source: (Arc<dyn Store>, PathBuf),
    destination: (Arc<dyn Store>, PathBuf),
}

impl Stores {
    /// The stores to copy blobs between: `--source-store` (`source`), if
    /// given, into the destination's content store (`destination`:
    /// `--store` or the recorded one), which it then needs.
    pub fn of(
        source: Option<&Path>,
        destination: Option<&Path>,
    ) -> Result<Option<Stores>, CliError> {
        let Some(source) = source else {
            return Ok(None);
        };
        let Some(destination) = destination else {
            return Err(CliError::usage(
                "StoreMissing",
                format!(
                    "found --source-store {} and no content store to copy its blobs into, expected --store <store> or one recorded by `nenjim-journal init <root> --store <store>`",
                    path_text(source)
                ),
            ));
        };
        let of = |store: &Path| -> Result<(Arc<dyn Store>, PathBuf), CliError> {
            let address = locate(store)?;
            crate::address::store(&address)
        };
        Ok(Some(Stores {
            source: of(source)?,
            destination: of(destination)?,
        }))
    }

    /// Copies the blob of every release of `revision` that `head` (the
    /// destination's head before it) does not hold.
    fn copy_blobs(
        &self,
        revision: &JournalRevision,
        head: Option<&JournalRevision>,
    ) -> Result<(), CliError> {
        let (source_fs, source) = &self.source;
        let (destination_fs, destination) = &self.destination;
        for release in revision.releases() {
            if head.is_some_and(|h| h.release(release.version()).is_some()) {
                continue;
            }
            let wanted = release.content();
            let path = source
                .join("blobs")
                .join("sha256")
                .join(wanted.digest().to_hex());
            let reader = source_fs.open(&path).map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    CliError::Journal(
                        error::error(
                            ErrorKind::BlobMissing,
                            format!(
                                "{} {}: found no blob {} in the source's content store, expected the blob of CONTENT {wanted}",
                                release.coordinate(),
                                release.version(),
                                wanted.digest()
                            ),
                        )
                        .with_path(&path),
                    )
                } else {
                    CliError::io(&path, "cannot read the source's blob", e)
                }
            })?;
            // At most the pointer's size and one byte more: a longer
            // blob is a mismatch, never read whole.
            let mut limited = reader.take(wanted.size().saturating_add(1));
            let put =
                nenjim_journal_writer::put_blob_from(&**destination_fs, destination, &mut limited)?;
            if put.pointer() != *wanted {
                return Err(CliError::Journal(
                    error::error(
                        ErrorKind::BlobMismatch,
                        format!(
                            "{} {}: found the source's blob as {}, expected CONTENT {wanted}",
                            release.coordinate(),
                            release.version(),
                            put.pointer()
                        ),
                    )
                    .with_path(&path),
                ));
            }
        }
        Ok(())
    }
}

/// A source root, loaded before the writer is opened (so that the
/// count of its revisions is known).
pub struct Source {
    /// As typed.
    typed: PathBuf,
    /// What its revision files are read through, and its path there.
    fs: Arc<dyn FileSystem>,
    root: PathBuf,
    /// The backend's own ledger (NATS), through which its revisions are
    /// read, and the record of each revision by sequence; `None`: the
    /// revisions are files in `fs`.
    ledger: Option<(Arc<dyn LedgerReader>, HashMap<u64, RevisionPointer>)>,
    state: ChainState,
    /// Its tip: past its last revision when fences end it.
    tip: u64,
}

impl Source {
    /// Loads the root `typed` (at `address`) as a start does.
    pub fn load(typed: &Path, address: Root) -> Result<Source, CliError> {
        let reading = address.backend().reading();
        if let Some(ledger) = reading.ledger {
            // Its ledger is the backend's own (one read of it, the loader's).
            let path = address.path().to_path_buf();
            let fs = reading.file_system;
            nenjim_journal_fs::check_root(&*fs, &path)?;
            let (state, read) =
                nenjim_journal_fs::load_recorded_ledger(&*fs, &*ledger, &path)?.unwrap_or_default();
            let pointers = read
                .revisions()
                .map(|(sequence, pointer)| (sequence, pointer.clone()))
                .collect();
            return Ok(Source {
                typed: typed.to_path_buf(),
                fs,
                root: path,
                ledger: Some((ledger, pointers)),
                state,
                tip: read.tip(),
            });
        }
        let (fs, root) = file_system(&address);
        let state = load_with(&*fs, root, LoadOptions::new())?;
        let tip = ledger::read(&*fs, root)?
            .map_or(state.last_sequence(), |l| l.tip())
            .max(state.last_sequence());
        Ok(Source {
            typed: typed.to_path_buf(),
            root: root.to_path_buf(),
            fs,
            ledger: None,
            state,
            tip,
        })
    }

    /// How many revisions it holds.
    pub fn len(&self) -> usize {
        usize::try_from(self.state.len()).unwrap_or(usize::MAX)
    }
}

/// Copies the root `source` into the writer's root (`destination`, as
/// typed), keeping its sequences; `report` gets each revision appended
/// or found already copied, and stops the copy between two revisions
/// on SIGINT or SIGTERM.
pub fn copy(
    writer: &mut FsJournalWriter,
    destination: &Path,
    source: Source,
    stores: Option<&Stores>,
    report: &mut Report<'_>,
) -> Result<(), CliError> {
    let Source {
        typed,
        fs,
        root,
        ledger,
        state,
        tip,
    } = source;
    let source = typed.as_path();
    let root = root.as_path();
    compatible(writer, destination, source, &state)?;
    let mut batch = Batch::default();
    let mut cursor = state.replay(0);
    while let Some(revision) = cursor.next()? {
        let sequence = revision.sequence();
        let path = ledger::revision_path(root, revision.coordinate(), revision.journal_version());
        let shown = shown(source, root, &path);
        // A signal stops the copy here, between two revisions (the
        // batch read so far appended first).
        if crate::interrupt::requested() {
            batch.flush(writer, destination, source, stores.is_some(), report)?;
            report.stop_if_interrupted()?;
        }
        if writer
            .state()
            .revision_by_digest(revision.digest())
            .is_some()
        {
            // Copied before, at this very sequence (`compatible`).
            batch.flush(writer, destination, source, stores.is_some(), report)?;
            report.push(AppendedJson {
                file: path_text(&shown),
                coordinate: revision.coordinate().to_string(),
                journal_version: revision.journal_version().to_string(),
                sequence,
                digest: revision.digest().to_string(),
                path: path_text(&super::revision_path(
                    destination,
                    revision.coordinate(),
                    revision.journal_version(),
                )),
                new: false,
                warnings: Vec::new(),
            })?;
            continue;
        }
        // A batch holds revisions of consecutive sequences: a gap (the
        // source's fences) appends it first, then fences.
        if sequence != batch.next(writer) {
            batch.flush(writer, destination, source, stores.is_some(), report)?;
        }
        if writer.tip() >= sequence {
            return Err(refused(
                destination,
                source,
                format!(
                    "found the destination's ledger at sequence {}, at or past the source's next revision ({} {} at sequence {sequence}), expected it before: the destination holds revisions or fences the source does not, so the copy cannot keep the source's sequences; expected an empty destination root or an earlier copy of this source (to renumber, append the source's revision files one by one instead)",
                    writer.tip(),
                    revision.coordinate(),
                    revision.journal_version()
                ),
            ));
        }
        let text = match &ledger {
            Some((reader, pointers)) => read_recorded(
                &*fs,
                &**reader,
                root,
                sequence,
                pointers.get(&sequence),
                &path,
            )?,
            None => read(&*fs, &path)?,
        };
        if let Some(stores) = stores {
            let head = batch
                .heads
                .get(revision.coordinate())
                .cloned()
                .or_else(|| writer.state().latest(revision.coordinate()));
            stores.copy_blobs(&revision, head.as_ref())?;
        }
        if batch.texts.is_empty() {
            writer.fence_to(sequence - 1)?;
        }
        batch
            .heads
            .insert(revision.coordinate().clone(), revision.clone());
        batch.texts.push(text);
        batch.shown.push(shown);
        batch.sequences.push(sequence);
        if batch.texts.len()
            >= usize::try_from(report.args.batch)
                .unwrap_or(usize::MAX)
                .min(writer.batch_max())
        {
            batch.flush(writer, destination, source, stores.is_some(), report)?;
        }
    }
    batch.flush(writer, destination, source, stores.is_some(), report)?;
    // Fences after the source's last revision are kept too, so that a
    // later copy of the grown source resumes at the same sequences.
    if writer.tip() < tip {
        writer.fence_to(tip)?;
    }
    Ok(())
}

/// The revisions of a copy read and waiting for their batch
/// (`FsJournalWriter::append_batch`), of consecutive sequences.
#[derive(Default)]
struct Batch {
    texts: Vec<String>,
    /// Each revision as reported (under the source as typed).
    shown: Vec<PathBuf>,
    /// Each revision's source sequence, the one it must get.
    sequences: Vec<u64>,
    /// The last revision of each artifact in the batch (the head its
    /// next revision's blobs are compared with).
    heads: HashMap<ArtifactCoordinate, JournalRevision>,
}

impl Batch {
    /// The sequence the next revision added to the batch would get.
    fn next(&self, writer: &FsJournalWriter) -> u64 {
        self.sequences
            .last()
            .map_or(writer.tip(), |last| *last)
            .saturating_add(1)
    }

    /// Appends the batch and reports it, each revision at its source
    /// sequence; the first refusal is located in its source file.
    fn flush(
        &mut self,
        writer: &mut FsJournalWriter,
        destination: &Path,
        source: &Path,
        copying_blobs: bool,
        report: &mut Report<'_>,
    ) -> Result<(), CliError> {
        let texts = std::mem::take(&mut self.texts);
        let shown = std::mem::take(&mut self.shown);
        let sequences = std::mem::take(&mut self.sequences);
        self.heads.clear();
        if texts.is_empty() {
            return Ok(());
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (appended, stopped) = match writer.append_batch(&refs) {
            Ok(appended) => (appended, None),
            Err(stopped) => {
                let index = stopped.index();
                let (appended, error) = stopped.into_parts();
                (appended, Some((index, error)))
            }
        };
        for ((done, shown), sequence) in appended.iter().zip(&shown).zip(&sequences) {
            if done.sequence() != *sequence {
                return Err(refused(
                    destination,
                    source,
                    format!(
                        "found {} {} appended at sequence {}, expected the source's sequence {sequence}",
                        done.revision().coordinate(),
                        done.revision().journal_version(),
                        done.sequence()
                    ),
                ));
            }
            report.push(super::entry(destination, shown, done))?;
        }
        let Some((index, e)) = stopped else {
            return Ok(());
        };
        let e = if !copying_blobs && e.kind() == ErrorKind::BlobMissing {
            e.note("to copy the source's blobs too, name its content store with --source-store")
        } else {
            e
        };
        Err(CliError::from(match shown.get(index) {
            Some(shown) => e.moved_to(shown),
            None => e,
        }))
    }
}

/// Refuses a destination that holds a revision of the source at
/// another sequence (a renumbered copy): the copy could not keep the
/// source's sequences. The destination's own revisions (appended to it
/// after an earlier copy) are its own business, as long as the source
/// needs none of their sequences (checked as each revision is copied,
/// before anything is written).
fn compatible(
    writer: &FsJournalWriter,
    destination: &Path,
    source: &Path,
    state: &ChainState,
) -> Result<(), CliError> {
    let mut cursor = writer.state().replay(0);
    while let Some(held) = cursor.next()? {
        let Some(theirs) = state.revision_by_digest(held.digest()) else {
            continue;
        };
        if theirs.sequence() != held.sequence() {
            return Err(refused(
                destination,
                source,
                format!(
                    "found {} {} at sequence {} in the destination and at sequence {} in the source, expected the same sequence: the destination was filled otherwise than by a copy of this source, which keeps the source's sequences; expected an empty destination root or an earlier copy of this source (to renumber, append the source's revision files one by one instead)",
                    held.coordinate(),
                    held.journal_version(),
                    held.sequence(),
                    theirs.sequence()
                ),
            ));
        }
    }
    Ok(())
}

fn refused(destination: &Path, source: &Path, why: String) -> CliError {
    CliError::refused(
        "CopyRefused",
        format!(
            "cannot copy the root {} into {}: {why}; nothing more was written",
            path_text(source),
            path_text(destination)
        ),
    )
}

/// The text of a source revision file.
fn read(fs: &dyn FileSystem, path: &Path) -> Result<String, CliError> {
    let bytes = fs
        .read(path, MAX_FILE_LEN)
        .map_err(|e| CliError::io(path, "cannot read the revision", e))?;
    String::from_utf8(bytes).map_err(|e| {
        CliError::io(
            path,
            "cannot read the revision",
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })
}

/// The revision of entry `sequence` (recorded by `pointer`) of a source
/// whose backend keeps its own ledger, read through it.
fn read_recorded(
    fs: &dyn FileSystem,
    reader: &dyn LedgerReader,
    root: &Path,
    sequence: u64,
    pointer: Option<&RevisionPointer>,
    path: &Path,
) -> Result<String, CliError> {
    let missing = || std::io::Error::from(std::io::ErrorKind::NotFound);
    let bytes = pointer
        .ok_or_else(missing)
        .and_then(|pointer| reader.read_revision(fs, root, sequence, pointer, false))
        .and_then(|bytes| bytes.ok_or_else(missing))
        .map_err(|e| CliError::io(path, "cannot read the revision", e))?;
    String::from_utf8(bytes).map_err(|e| {
        CliError::io(
            path,
            "cannot read the revision",
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })
}

/// A revision of a source root, reported under the source as typed.
fn shown(source: &Path, root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root)
        .map_or_else(|_| path.to_path_buf(), |relative| source.join(relative))
}
