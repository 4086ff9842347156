//! The one writer of a NATS root ([`NatsRoot::writer`]): the seam's
//! writer (`nenjim_journal_writer::FsJournalWriter::open_with`) over the
//! backend's `Writing` ([`NatsBackend::writing`]: the root's store, ledger
//! and [`NatsLease`](crate::NatsLease)), so that validation, idempotency,
//! blobs, fencing and errors are exactly a directory's; only the commit is
//! JetStream's (a publish at the expected tip, see
//! `nenjim_journal_jetstream`).

use std::path::Path;
use std::sync::Arc;

use nenjim_journal_api::append::{Appended, JournalWriter};
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::ContentPointer;
use nenjim_journal_chain::ChainState;
use nenjim_journal_store::backend::Writing;
use nenjim_journal_writer::{BatchError, FsJournalWriter, WriterOptions};

use crate::{JetStreamRoot, NatsBackend, NatsLedger, NatsRoot};

/// The one writer of a NATS root: see [`NatsRoot::writer`].
#[derive(Debug)]
pub struct NatsJournalWriter {
    writer: FsJournalWriter,
    backend: Arc<NatsBackend>,
}

impl NatsRoot {
    /// The root's one writer: connects, takes the lease (`LeaseHeld` while
    /// another writer's is live; an expired one is taken over and the
    /// ledger fenced), loads the root by its ledger, and creates the
    /// root's stream and buckets on a fresh name. A signed root's
    /// checkpoint and tiles live in its key-value bucket
    /// `NENJIM_<name>_tlog` (see [`crate::backend`]).
    ///
    /// The content store is the one `options` name, as on a directory
    /// (format section 9's blob check applies when one is configured, and
    /// only then): none by default (no blob is checked, and
    /// [`NatsJournalWriter::put_blob`] is refused); a directory
    /// (`WriterOptions::content_store(dir)`); a store of another kind, such
    /// as a bucket (`WriterOptions::content_store_in(store, dir)`); or a
    /// NATS root's own blob bucket (`blobs/sha256/<hex>`), named by its
    /// address: `WriterOptions::content_store(root.to_string())` for this
    /// root's own. The content store the command's `init` records
    /// (`<root>/.ledger/store`) is the command's to read, as on a
    /// directory: the writer reads only `options`.
    pub fn writer(&self, options: WriterOptions) -> Result<NatsJournalWriter, JournalError> {
        let backend = NatsBackend::connect(self)?;
        NatsJournalWriter::open(backend, options)
    }
}

impl NatsJournalWriter {
    /// The writer over `backend` (see [`NatsRoot::writer`]).
    pub fn open(
        backend: Arc<NatsBackend>,
        options: WriterOptions,
    ) -> Result<NatsJournalWriter, JournalError> {
        // The backend's parts (its lease bucket made, its buckets read from
        // their leaders): what the seam's `Backend::writing` hands out.
        let writing = backend.writing()?;
        let root = backend.root_path().to_path_buf();
        let options = nats_content_store(&backend, options)?;
        let writer = match writing {
            Writing::Native {
                store,
                ledger,
                lease,
            } => FsJournalWriter::open_with(store, root, ledger, lease, options)?,
            // A NATS backend keeps its own ledger and lease: never files.
            other => {
                return Err(error::error(
                    ErrorKind::Io,
                    format!(
                        "found the backend's writing as {other:?}, expected its own ledger and lease"
                    ),
                ));
            }
        };
        // Under the lease: what the backend does once its writer opened
        // (an older stream is given atomic batch publishes).
        backend.writer_opened()?;
        Ok(NatsJournalWriter { writer, backend })
    }

    /// Puts `bytes` into the writer's content store, idempotently, and
    /// returns its content pointer (`Usage` when the options name none).
    pub fn put_blob(&mut self, bytes: &[u8]) -> Result<ContentPointer, JournalError> {
        self.writer.put_blob(bytes)
    }

    /// Releases the lease, so that another writer may open the root at once.
    pub fn close(self) -> Result<(), JournalError> {
        self.writer.close()
    }

    /// Appends `texts` in order with one call (see
    /// [`FsJournalWriter::append_batch`]; on NATS each entry is one
    /// publish at its expected tip, in order).
    pub fn append_batch(&mut self, texts: &[&str]) -> Result<Vec<Appended>, BatchError> {
        self.writer.append_batch(texts)
    }

    /// Fences the sequences after the tip up to `tip` (see
    /// [`FsJournalWriter::fence_to`]): a copy keeps its source's sequences.
    pub fn fence_to(&mut self, tip: u64) -> Result<(), JournalError> {
        self.writer.fence_to(tip)
    }

    /// The ledger's last sequence as this writer knows it.
    pub fn tip(&self) -> u64 {
        self.writer.tip()
    }

    /// On a signed root, how many ledger entries the checkpoint this
    /// writer last published (or found) covers; `None` on an unsigned
    /// root (see [`FsJournalWriter::checkpoint_covers`]). At a checkpoint
    /// interval (`WriterOptions::checkpoint_interval`) it may be behind
    /// [`tip`](Self::tip); the checkpoint is in the root's key-value
    /// bucket `NENJIM_<name>_tlog`.
    pub fn checkpoint_covers(&self) -> Option<u64> {
        self.writer.checkpoint_covers()
    }

    /// Waits until a checkpoint covering ledger entry `sequence` (an
    /// [`Appended`]'s) is published, at most one checkpoint interval, and
    /// returns the number of entries it covers: the entry's inclusion
    /// proof can then be read from the root's tiles (see
    /// [`FsJournalWriter::wait_for_checkpoint`]). `Usage` on an unsigned
    /// root or for an entry this writer does not know.
    pub fn wait_for_checkpoint(&self, sequence: u64) -> Result<u64, JournalError> {
        self.writer.wait_for_checkpoint(sequence)
    }

    /// The revisions this writer knows, as a load of the root gives them.
    pub fn state(&self) -> &ChainState {
        self.writer.state()
    }

    /// The root's path for the seam: `nats://host:port/<name>`.
    pub fn root(&self) -> &Path {
        self.writer.root()
    }

    /// The backend this writer writes through.
    pub fn backend(&self) -> &Arc<NatsBackend> {
        &self.backend
    }

    /// The root's ledger (to follow it).
    pub fn ledger(&self) -> &NatsLedger {
        self.backend.ledger()
    }

    /// The seam's writer this is (over the root's backend and lease): for a
    /// program that drives the writers of every kind of root as one type
    /// (the command does). Closing it releases the NATS lease.
    pub fn into_fs_writer(self) -> FsJournalWriter {
        self.writer
    }
}

/// `options` with a content store named by a NATS address (a path
/// `nats://…` on the local file system, which no directory is) placed in
/// that root's blob bucket: `backend`'s own when it is this root.
fn nats_content_store(
    backend: &Arc<NatsBackend>,
    options: WriterOptions,
) -> Result<WriterOptions, JournalError> {
    let named = match (options.content_store_dir(), options.content_store_on()) {
        (Some(dir), None) => dir.to_str().filter(|d| d.starts_with("nats://")),
        _ => None,
    };
    let Some(address) = named else {
        return Ok(options);
    };
    let store = JetStreamRoot::parse(address)
        .map_err(|e| e.context("the content store of WriterOptions::content_store"))?;
    // This root's own bucket on the writer's connection; another root's on
    // a connection of its own. (Not the seam's `Backend::content_store`:
    // the options take a whole `Store`, that gives a `BlobStore`.)
    let backend = if Path::new(&store.to_string()) == backend.root_path() {
        backend.clone()
    } else {
        NatsBackend::connect(&store)?
    };
    let dir = backend.root_path().to_path_buf();
    Ok(options.content_store_in(backend, dir))
}

impl JournalWriter for NatsJournalWriter {
    fn append(&mut self, text: &str) -> Result<Appended, JournalError> {
        self.writer.append(text)
    }
}
