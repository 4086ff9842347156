//! The read side of a NATS root through the storage seam: what the
//! loader loads, refreshes and follows: the seam's
//! [`Reading`](nenjim_journal_store::backend::Reading) of an opened root
//! ([`crate::OpenedRoot`]), under the reference Journal of
//! `nenjim_journal_nats::NatsRoot::assembly`.
//!
//! [`NatsSource`] is at once the root's [`LedgerReader`] (whose entries
//! carry their revisions' bytes), its [`FileSystem`] (that of its
//! [`NatsBackend`], read-only: the root, a signed root's checkpoint and
//! tiles, the store record; no revision) and its [`LedgerFollow`]. It
//! connects on first use, so that building an assembly needs no server;
//! `start()` then fails with the connection's error, as a load of an
//! unreadable directory does. Unlike the writer's view of the backend, a
//! root whose stream does not exist is missing (`RootMissing`), not empty.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_store::ledger::{
    Entry, EntryBytes, FollowEntries, LedgerFollow, LedgerReader, RevisionPointer,
};
use nenjim_journal_store::{EntryMetadata, FileSystem};

use crate::{JetStreamRoot, NatsBackend};

/// A NATS root as the loader reads it (see the [module docs](self)): a
/// [`NatsBackend`], connected on first use, seen read-only.
#[derive(Debug)]
pub struct NatsSource {
    root: JetStreamRoot,
    path: PathBuf,
    backend: OnceLock<Result<Arc<NatsBackend>, JournalError>>,
}

impl NatsSource {
    /// The read side of `root`; nothing is connected yet.
    pub fn new(root: &JetStreamRoot) -> NatsSource {
        NatsSource {
            root: root.clone(),
            path: PathBuf::from(root.to_string()),
            backend: OnceLock::new(),
        }
    }

    /// The root's path as errors name it: `nats://host:port/<name>`.
    pub fn root_path(&self) -> &Path {
        &self.path
    }

    /// The root's backend, connected on first use (the connection's error
    /// every time after a failed one).
    pub fn backend(&self) -> Result<&Arc<NatsBackend>, JournalError> {
        self.backend
            .get_or_init(|| NatsBackend::connect(&self.root))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn io(error: &JournalError) -> io::Error {
        io::Error::other(error.to_string())
    }

    fn connected(&self) -> io::Result<&Arc<NatsBackend>> {
        self.backend().map_err(|e| Self::io(&e))
    }
}

impl LedgerReader for NatsSource {
    fn exists(&self) -> Result<bool, JournalError> {
        self.backend()?.exists()
    }

    fn read_after(&self, after: u64, max: usize) -> Result<Vec<Entry>, JournalError> {
        self.backend()?.read_after(after, max)
    }

    fn entry_path(&self, sequence: u64) -> PathBuf {
        self.path.join("ledger").join(sequence.to_string())
    }

    fn read_after_with_bytes(
        &self,
        after: u64,
        max: usize,
    ) -> Result<Vec<EntryBytes>, JournalError> {
        self.backend()?.read_after_with_bytes(after, max)
    }

    fn read_revision(
        &self,
        fs: &dyn FileSystem,
        root: &Path,
        sequence: u64,
        pointer: &RevisionPointer,
        again: bool,
    ) -> io::Result<Option<Vec<u8>>> {
        self.connected()?
            .read_revision(fs, root, sequence, pointer, again)
    }
}

impl FileSystem for NatsSource {
    /// The root is a directory once its stream exists, and `NotFound`
    /// before (a load then says `RootMissing`: no writer created the root,
    /// or its name is mistyped); everything else is the backend's.
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        let backend = self.connected()?;
        if path == self.path && !backend.exists().map_err(|e| Self::io(&e))? {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "found no stream {} on the server, expected the ledger of a root a writer created",
                    backend.ledger().names().stream
                ),
            ));
        }
        backend.metadata(path)
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.metadata(path)
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        self.connected()?.read_dir(path)
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        self.connected()?.read(path, limit)
    }

    fn read_recorded(
        &self,
        path: &Path,
        limit: u64,
        digest: &RevisionDigest,
    ) -> io::Result<Vec<u8>> {
        self.connected()?.read_recorded(path, limit, digest)
    }
}

impl LedgerFollow for NatsSource {
    fn follow(&self, after: u64) -> Result<Box<dyn FollowEntries>, JournalError> {
        LedgerFollow::follow(self.backend()?.ledger(), after)
    }

    fn stop(&self) {
        if let Some(Ok(backend)) = self.backend.get() {
            LedgerFollow::stop(backend.ledger());
        }
    }
}
