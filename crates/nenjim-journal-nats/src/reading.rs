//! The read side of a NATS root through the storage seam: what the
//! reference Journal (`NatsRoot::assembly`) loads, refreshes and follows.
//!
//! [`NatsSource`] is at once the root's [`LedgerReader`] (the stream's
//! entries after a sequence, each revision's bytes checked against its
//! record), its [`FileSystem`] (the root is a directory that holds no file
//! of its own: a revision's bytes are those its entry carried, kept from
//! the ledger read until the loader reads them, once) and its
//! [`LedgerFollow`]. It connects on first use, so that building an
//! assembly needs no server; `start()` then fails with the connection's
//! error, as a load of an unreadable directory does.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

use bytes::Bytes;
use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_store::ledger::{self, Entry, FollowEntries, LedgerFollow, LedgerReader};
use nenjim_journal_store::{EntryKind, EntryMetadata, FileSystem};

use crate::{NatsLedger, NatsRoot};

/// A NATS root as the loader reads it (see the [module docs](self)).
#[derive(Debug)]
pub struct NatsSource {
    root: NatsRoot,
    path: PathBuf,
    ledger: OnceLock<Result<NatsLedger, JournalError>>,
    /// The revisions the last ledger reads carried, by revision path,
    /// until the loader reads them.
    carried: Mutex<HashMap<PathBuf, Bytes>>,
    /// The last revision read, for the loader's second read of a text
    /// that did not parse (to tell a changed file from a bad one).
    last_read: Mutex<Option<(PathBuf, Bytes)>>,
}

impl NatsSource {
    /// The read side of `root`; nothing is connected yet.
    pub fn new(root: &NatsRoot) -> NatsSource {
        NatsSource {
            root: root.clone(),
            path: PathBuf::from(root.to_string()),
            ledger: OnceLock::new(),
            carried: Mutex::new(HashMap::new()),
            last_read: Mutex::new(None),
        }
    }

    /// The root's path as errors name it: `nats://host:port/<name>`.
    pub fn root_path(&self) -> &Path {
        &self.path
    }

    /// The root's ledger, connected on first use.
    pub fn ledger(&self) -> Result<&NatsLedger, JournalError> {
        self.ledger
            .get_or_init(|| NatsLedger::connect(&self.root))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn carried(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Bytes>> {
        self.carried.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The bytes of the revision at `path` if a ledger read carried them.
    fn take(&self, path: &Path) -> Option<Bytes> {
        if let Some(bytes) = self.carried().remove(path) {
            *self
                .last_read
                .lock()
                .unwrap_or_else(PoisonError::into_inner) =
                Some((path.to_path_buf(), bytes.clone()));
            return Some(bytes);
        }
        match &*self
            .last_read
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
        {
            Some((last, bytes)) if last == path => Some(bytes.clone()),
            _ => None,
        }
    }

    fn io(error: &JournalError) -> io::Error {
        io::Error::other(error.to_string())
    }

    fn is_root(&self, path: &Path) -> bool {
        path == self.path
    }
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!(
            "{} is not in the root: a NATS root holds nothing but its ledger's entries",
            path.display()
        ),
    )
}

fn limited(bytes: &Bytes, limit: u64) -> Vec<u8> {
    let keep = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
    bytes[..bytes.len().min(keep)].to_vec()
}

impl LedgerReader for NatsSource {
    fn exists(&self) -> Result<bool, JournalError> {
        self.ledger()?.exists()
    }

    fn read_after(&self, after: u64, max: usize) -> Result<Vec<Entry>, JournalError> {
        let messages = self.ledger()?.read_after(after, max)?;
        let mut carried = self.carried();
        Ok(messages
            .into_iter()
            .map(|message| {
                let (entry, bytes) = message.into_parts();
                if let (Some(pointer), Some(bytes)) = (entry.revision(), bytes) {
                    let path =
                        ledger::revision_path(&self.path, pointer.coordinate(), pointer.version());
                    carried.insert(path, bytes);
                }
                entry
            })
            .collect())
    }

    fn entry_path(&self, sequence: u64) -> PathBuf {
        self.path.join("ledger").join(sequence.to_string())
    }
}

impl FileSystem for NatsSource {
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.symlink_metadata(path)
    }

    /// The root is a directory once its stream exists (`NotFound` before:
    /// a load says `RootMissing`); a revision a ledger read carried is a
    /// file of its size; nothing else exists.
    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        if self.is_root(path) {
            let ledger = self.ledger().map_err(|e| Self::io(&e))?;
            return match ledger.exists() {
                Ok(true) => Ok(EntryMetadata::new(EntryKind::Directory, 0)),
                Ok(false) => Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!(
                        "found no stream {} on the server, expected the ledger of a root a writer created",
                        ledger.names().stream
                    ),
                )),
                Err(e) => Err(Self::io(&e)),
            };
        }
        match self.carried().get(path) {
            Some(bytes) => Ok(EntryMetadata::new(EntryKind::File, bytes.len() as u64)),
            None => Err(not_found(path)),
        }
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        if self.is_root(path) {
            return Ok(Vec::new());
        }
        Err(not_found(path))
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        match self.take(path) {
            Some(bytes) => Ok(limited(&bytes, limit)),
            None => Err(not_found(path)),
        }
    }

    fn read_recorded(
        &self,
        path: &Path,
        limit: u64,
        _digest: &RevisionDigest,
    ) -> io::Result<Vec<u8>> {
        self.read(path, limit)
    }
}

impl LedgerFollow for NatsSource {
    fn follow(&self, after: u64) -> Result<Box<dyn FollowEntries>, JournalError> {
        LedgerFollow::follow(self.ledger()?, after)
    }

    fn stop(&self) {
        if let Some(Ok(ledger)) = self.ledger.get() {
            LedgerFollow::stop(ledger);
        }
    }
}
