//! Copying a whole root into another, on any backends, keeping its
//! sequences (the command's `append <root> <source root>`).
//!
//! A [`Source`] is a root loaded as a start does, as a source of revisions
//! (and, with [`ContentStores`], of blobs). [`copy`] appends its revisions
//! through the destination's writer in batches of consecutive sequences,
//! each at its source sequence (fencing over the source's gaps, and after
//! its last revision up to its tip), so that a consumer that switches to
//! the copy resumes with its old position. The destination must be empty,
//! or an earlier copy of the same source, which the copy then completes; a
//! destination filled otherwise is refused ([`Refused`]) before anything
//! more is written.
//!
//! ```no_run
//! # use nenjim_journal_root::{Root, WriterOptions, copy};
//! # fn main() -> Result<(), nenjim_journal_api::error::JournalError> {
//! let source = copy::Source::load(&Root::open("/srv/journal")?)?;
//! let destination = Root::open("s3://hub/journals/main")?;
//! let mut writer = destination.writer(WriterOptions::new())?;
//! copy::copy::<nenjim_journal_api::error::JournalError>(
//!     &mut writer,
//!     &destination,
//!     &source,
//!     &copy::CopyOptions::new(),
//!     |_| Ok(()),
//! )?;
//! writer.close()?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::append::Appended;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::ledger::{LedgerReader, RevisionPointer};
use nenjim_journal_fs::{FileSystem, LoadOptions, MAX_FILE_LEN, ledger, load_with};
use nenjim_journal_store::Store;
use nenjim_journal_writer::FsJournalWriter;

use crate::Root;

/// A root loaded as a source of revisions, before the destination's
/// writer is opened (so that the count of its revisions is known).
pub struct Source {
    address: Root,
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

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source")
            .field("root", &self.address)
            .field("revisions", &self.state.len())
            .field("tip", &self.tip)
            .finish_non_exhaustive()
    }
}

impl Source {
    /// Loads `root` as a start does (by its ledger where it has one).
    pub fn load(root: &Root) -> Result<Source, JournalError> {
        let reading = root.backend().reading();
        let fs = reading.file_system;
        let path = root.path().to_path_buf();
        if let Some(ledger) = reading.ledger {
            // Its ledger is the backend's own (one read of it, the loader's).
            nenjim_journal_fs::check_root(&*fs, &path)?;
            let (state, read) =
                nenjim_journal_fs::load_recorded_ledger(&*fs, &*ledger, &path)?.unwrap_or_default();
            let pointers = read
                .revisions()
                .map(|(sequence, pointer)| (sequence, pointer.clone()))
                .collect();
            return Ok(Source {
                address: root.clone(),
                fs,
                root: path,
                ledger: Some((ledger, pointers)),
                state,
                tip: read.tip(),
            });
        }
        let state = load_with(&*fs, &path, LoadOptions::new())?;
        let tip = ledger::read(&*fs, &path)?
            .map_or(state.last_sequence(), |l| l.tip())
            .max(state.last_sequence());
        Ok(Source {
            address: root.clone(),
            fs,
            root: path,
            ledger: None,
            state,
            tip,
        })
    }

    /// The root it was loaded from.
    pub fn root(&self) -> &Root {
        &self.address
    }

    /// How many revisions it holds.
    pub fn len(&self) -> usize {
        usize::try_from(self.state.len()).unwrap_or(usize::MAX)
    }

    /// Whether it holds no revision.
    pub fn is_empty(&self) -> bool {
        self.state.len() == 0
    }

    /// A revision file of the source, named under the source's address
    /// as given (`s3://bucket/prefix/<artifact>/<file>`, a path …).
    fn shown(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.root).map_or_else(
            |_| path.to_path_buf(),
            |relative| Path::new(self.address.address()).join(relative),
        )
    }
}

/// The content stores a copy moves blobs between: the source's into the
/// destination's.
#[derive(Clone)]
pub struct ContentStores {
    source: (Arc<dyn Store>, PathBuf),
    destination: (Arc<dyn Store>, PathBuf),
}

impl fmt::Debug for ContentStores {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContentStores")
            .field("source", &self.source.1)
            .field("destination", &self.destination.1)
            .finish_non_exhaustive()
    }
}

impl ContentStores {
    /// Blobs are copied from the content store `source` into
    /// `destination` (each connected here).
    pub fn new(source: &Root, destination: &Root) -> Result<ContentStores, JournalError> {
        Ok(ContentStores {
            source: source.backend().content_store()?,
            destination: destination.backend().content_store()?,
        })
    }

    /// Copies the blob of every release of `revision` that `head` (the
    /// destination's head before it) does not hold.
    fn copy_blobs(
        &self,
        revision: &JournalRevision,
        head: Option<&JournalRevision>,
    ) -> Result<(), JournalError> {
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
                    error::error(
                        ErrorKind::BlobMissing,
                        format!(
                            "{} {}: found no blob {} in the source's content store, expected the blob of CONTENT {wanted}",
                            release.coordinate(),
                            release.version(),
                            wanted.digest()
                        ),
                    )
                    .with_path(&path)
                } else {
                    error::io_error(&path, "cannot read the source's blob", e)
                }
            })?;
            // At most the pointer's size and one byte more: a longer
            // blob is a mismatch, never read whole.
            let mut limited = reader.take(wanted.size().saturating_add(1));
            let put =
                nenjim_journal_writer::put_blob_from(&**destination_fs, destination, &mut limited)?;
            if put.pointer() != *wanted {
                return Err(error::error(
                    ErrorKind::BlobMismatch,
                    format!(
                        "{} {}: found the source's blob as {}, expected CONTENT {wanted}",
                        release.coordinate(),
                        release.version(),
                        put.pointer()
                    ),
                )
                .with_path(&path));
            }
        }
        Ok(())
    }
}

/// How a copy runs.
#[derive(Clone, Copy, Default)]
pub struct CopyOptions<'a> {
    batch: Option<usize>,
    stores: Option<&'a ContentStores>,
    stop: Option<&'a dyn Fn() -> bool>,
}

impl fmt::Debug for CopyOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CopyOptions")
            .field("batch", &self.batch)
            .field("stores", &self.stores)
            .field("stop", &self.stop.is_some())
            .finish()
    }
}

impl<'a> CopyOptions<'a> {
    /// Batches of the writer's `batch_max`, no blobs, never stopped.
    pub fn new() -> CopyOptions<'a> {
        CopyOptions::default()
    }

    /// At most `batch` revisions per batch (and the writer's `batch_max`).
    pub fn batch(self, batch: usize) -> CopyOptions<'a> {
        CopyOptions {
            batch: Some(batch),
            ..self
        }
    }

    /// Copies the new releases' blobs between `stores` too.
    pub fn blobs(self, stores: &'a ContentStores) -> CopyOptions<'a> {
        CopyOptions {
            stores: Some(stores),
            ..self
        }
    }

    /// Asked between two revisions: `true` appends what was read so far
    /// and ends the copy there ([`Outcome::Stopped`]).
    pub fn stop_when(self, stop: &'a dyn Fn() -> bool) -> CopyOptions<'a> {
        CopyOptions {
            stop: Some(stop),
            ..self
        }
    }
}

/// One revision of the source, as the copy went past it.
#[derive(Debug)]
#[non_exhaustive]
pub enum Copied<'a> {
    /// Appended to the destination, at its source sequence.
    Appended {
        /// Its source file, named under the source's address.
        file: &'a Path,
        /// What the writer appended.
        appended: &'a Appended,
    },
    /// Held by the destination already, at its source sequence (an earlier
    /// copy): nothing written.
    Held {
        /// Its source file, named under the source's address.
        file: &'a Path,
        /// The revision (with its sequence).
        revision: &'a JournalRevision,
    },
}

/// How a copy ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Every revision (and the fences after the last) is in the destination.
    Complete,
    /// [`CopyOptions::stop_when`] said to stop: what was read so far was
    /// appended; copying again resumes.
    Stopped,
}

/// A destination that cannot keep the source's sequences: the copy
/// stopped, writing nothing more. As a [`JournalError`], `Conflict`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    message: String,
}

impl Refused {
    /// What was found and what was expected.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Refused {}

impl From<Refused> for JournalError {
    fn from(refused: Refused) -> JournalError {
        error::error(ErrorKind::Conflict, refused.message)
    }
}

/// Copies `source` into the root of `writer` (`destination`, named in
/// messages), keeping its sequences; `copied` is told of each revision
/// appended or found already copied (an error of its own stops the copy).
/// A refusal of the first append of a batch is located in its source file.
pub fn copy<E>(
    writer: &mut FsJournalWriter,
    destination: &Root,
    source: &Source,
    options: &CopyOptions<'_>,
    mut copied: impl FnMut(Copied<'_>) -> Result<(), E>,
) -> Result<Outcome, E>
where
    E: From<JournalError> + From<Refused>,
{
    let names = Names {
        destination: destination.address(),
        source: source.address.address(),
    };
    compatible::<E>(writer, &names, &source.state)?;
    let batch_size = options.batch.unwrap_or(usize::MAX).min(writer.batch_max());
    let mut batch = Batch::default();
    let mut cursor = source.state.replay(0);
    while let Some(revision) = cursor.next()? {
        let sequence = revision.sequence();
        let path = ledger::revision_path(
            &source.root,
            revision.coordinate(),
            revision.journal_version(),
        );
        let shown = source.shown(&path);
        // A stop is here, between two revisions (the batch read so far
        // appended first).
        if options.stop.is_some_and(|stop| stop()) {
            batch.flush(writer, &names, &mut copied)?;
            return Ok(Outcome::Stopped);
        }
        if writer
            .state()
            .revision_by_digest(revision.digest())
            .is_some()
        {
            // Copied before, at this very sequence (`compatible`).
            batch.flush(writer, &names, &mut copied)?;
            copied(Copied::Held {
                file: &shown,
                revision: &revision,
            })?;
            continue;
        }
        // A batch holds revisions of consecutive sequences: a gap (the
        // source's fences) appends it first, then fences.
        if sequence != batch.next(writer) {
            batch.flush(writer, &names, &mut copied)?;
        }
        if writer.tip() >= sequence {
            return Err(names
                .refused(format!(
                    "found the destination's ledger at sequence {}, at or past the source's next revision ({} {} at sequence {sequence}), expected it before: the destination holds revisions or fences the source does not, so the copy cannot keep the source's sequences; expected an empty destination root or an earlier copy of this source (to renumber, append the source's revision files one by one instead)",
                    writer.tip(),
                    revision.coordinate(),
                    revision.journal_version()
                ))
                .into());
        }
        let text = match &source.ledger {
            Some((reader, pointers)) => read_recorded(
                &*source.fs,
                &**reader,
                &source.root,
                sequence,
                pointers.get(&sequence),
                &path,
            )?,
            None => read(&*source.fs, &path)?,
        };
        if let Some(stores) = options.stores {
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
        if batch.texts.len() >= batch_size {
            batch.flush(writer, &names, &mut copied)?;
        }
    }
    batch.flush(writer, &names, &mut copied)?;
    // Fences after the source's last revision are kept too, so that a
    // later copy of the grown source resumes at the same sequences.
    if writer.tip() < source.tip {
        writer.fence_to(source.tip)?;
    }
    Ok(Outcome::Complete)
}

/// The roots of a copy, as their addresses were given.
struct Names<'a> {
    destination: &'a str,
    source: &'a str,
}

impl Names<'_> {
    fn refused(&self, why: String) -> Refused {
        Refused {
            message: format!(
                "cannot copy the root {} into {}: {why}; nothing more was written",
                self.source, self.destination
            ),
        }
    }
}

/// The revisions of a copy read and waiting for their batch
/// (`FsJournalWriter::append_batch`), of consecutive sequences.
#[derive(Default)]
struct Batch {
    texts: Vec<String>,
    /// Each revision as reported (under the source's address).
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
    fn flush<E>(
        &mut self,
        writer: &mut FsJournalWriter,
        names: &Names<'_>,
        copied: &mut impl FnMut(Copied<'_>) -> Result<(), E>,
    ) -> Result<(), E>
    where
        E: From<JournalError> + From<Refused>,
    {
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
                return Err(names
                    .refused(format!(
                        "found {} {} appended at sequence {}, expected the source's sequence {sequence}",
                        done.revision().coordinate(),
                        done.revision().journal_version(),
                        done.sequence()
                    ))
                    .into());
            }
            copied(Copied::Appended {
                file: shown,
                appended: done,
            })?;
        }
        let Some((index, e)) = stopped else {
            return Ok(());
        };
        Err(E::from(match shown.get(index) {
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
fn compatible<E>(writer: &FsJournalWriter, names: &Names<'_>, state: &ChainState) -> Result<(), E>
where
    E: From<JournalError> + From<Refused>,
{
    let mut cursor = writer.state().replay(0);
    while let Some(held) = cursor.next()? {
        let Some(theirs) = state.revision_by_digest(held.digest()) else {
            continue;
        };
        if theirs.sequence() != held.sequence() {
            return Err(names
                .refused(format!(
                    "found {} {} at sequence {} in the destination and at sequence {} in the source, expected the same sequence: the destination was filled otherwise than by a copy of this source, which keeps the source's sequences; expected an empty destination root or an earlier copy of this source (to renumber, append the source's revision files one by one instead)",
                    held.coordinate(),
                    held.journal_version(),
                    held.sequence(),
                    theirs.sequence()
                ))
                .into());
        }
    }
    Ok(())
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
) -> Result<String, JournalError> {
    let missing = || std::io::Error::from(std::io::ErrorKind::NotFound);
    let bytes = pointer
        .ok_or_else(missing)
        .and_then(|pointer| reader.read_revision(fs, root, sequence, pointer, false))
        .and_then(|bytes| bytes.ok_or_else(missing))
        .map_err(|e| error::io_error(path, "cannot read the revision", e))?;
    String::from_utf8(bytes).map_err(|e| {
        error::io_error(
            path,
            "cannot read the revision",
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })
}

/// The text of a source revision file.
fn read(fs: &dyn FileSystem, path: &Path) -> Result<String, JournalError> {
    let bytes = fs
        .read(path, MAX_FILE_LEN)
        .map_err(|e| error::io_error(path, "cannot read the revision", e))?;
    String::from_utf8(bytes).map_err(|e| {
        error::io_error(
            path,
            "cannot read the revision",
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })
}
