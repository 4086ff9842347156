//! NATS roots as a backend of the storage seam: [`NatsKind`] takes the
//! scheme `nats` and opens an address as an [`OpenedRoot`], whose
//! [`Backend`] parts are what the loader reads and the writer writes.
//!
//! Opening contacts nothing (an address and the environment are parsed);
//! the loader's [`Reading`] connects on first use, and each
//! [`Backend::writing`] connects a [`NatsBackend`] of its own, as the
//! writer of `nenjim_journal_nats::NatsRoot::writer` does.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use nenjim_journal_api::error::JournalError;
use nenjim_journal_store::Store;
use nenjim_journal_store::backend::{
    Backend, BackendKind, Creating, Opening, Reading, Replication, Writing,
};

use crate::{JetStreamRoot, NatsBackend, NatsSource};

/// The backend of `nats://host:port/<name>` roots (and a cluster's
/// `nats://h1:p1,h2:p2,…/<name>`), their credentials and TLS from the
/// process's `NATS_*` environment (see [`crate::address`]).
#[derive(Debug)]
pub struct NatsKind;

impl BackendKind for NatsKind {
    fn schemes(&self) -> &'static [&'static str] {
        &["nats"]
    }

    /// Parses `address` with the process's environment, as
    /// [`JetStreamRoot::parse`] does (`Usage` for a malformed one), and
    /// honours `opening`: without a limit on reconnects, the client rides
    /// out a restarted server however long it takes (a follower's need).
    /// Nothing is contacted.
    fn open(&self, address: &str, opening: &Opening) -> Result<Arc<dyn Backend>, JournalError> {
        Ok(Arc::new(OpenedRoot::open(address, opening)?))
    }
}

/// One NATS root opened as the seam's [`Backend`] (see the
/// [module docs](self)).
#[derive(Debug)]
pub struct OpenedRoot {
    root: JetStreamRoot,
    /// `nats://host:port/<name>`: the root's address as a path.
    path: PathBuf,
    /// The backend the last [`Backend::writing`] connected, for as long as
    /// its writer holds it: [`Backend::writer_opened`] and the root's own
    /// content store use that connection rather than make another, and a
    /// closed writer's connection is not kept alive by the opened root.
    writer: Mutex<Weak<NatsBackend>>,
}

impl OpenedRoot {
    /// `root` opened as a backend; nothing is contacted.
    pub fn new(root: JetStreamRoot) -> OpenedRoot {
        OpenedRoot {
            path: PathBuf::from(root.to_string()),
            root,
            writer: Mutex::new(Weak::new()),
        }
    }

    /// What [`NatsKind`] opens `address` as (see its `open`).
    pub fn open(address: &str, opening: &Opening) -> Result<OpenedRoot, JournalError> {
        let mut root = JetStreamRoot::parse(address)?;
        if opening.reconnect_without_limit {
            root = root.reconnect_without_limit();
        }
        Ok(OpenedRoot::new(root))
    }

    /// The root's address, credentials and client settings.
    pub fn root(&self) -> &JetStreamRoot {
        &self.root
    }

    /// The backend the last [`Backend::writing`] connected, while its
    /// writer holds it.
    pub fn writer_backend(&self) -> Option<Arc<NatsBackend>> {
        self.writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .upgrade()
    }

    /// The writer's backend, or a newly connected one when there is none.
    fn connected(&self) -> Result<Arc<NatsBackend>, JournalError> {
        match self.writer_backend() {
            Some(backend) => Ok(backend),
            None => NatsBackend::connect(&self.root),
        }
    }
}

impl Backend for OpenedRoot {
    /// `nats://host:port/<name>`: the prefix of every path an error names
    /// (`nats://…/<coordinate>/<version>.journal`, `nats://…/ledger/<seq>`).
    fn root_path(&self) -> &Path {
        &self.path
    }

    /// Whether the root's stream exists: a root is created by its first
    /// writer (or `init`), and a name nothing created has no stream. Asks
    /// the server over a connection of its own, dropped at once.
    fn exists(&self) -> Result<bool, JournalError> {
        self.root.ledger()?.exists()
    }

    /// A [`NatsSource`], connected on first use, as the root's files, its
    /// ledger and its follow (a NATS root can notify): a load needs no
    /// connection until it starts, and a missing stream is `RootMissing`
    /// to it, never an empty root.
    fn reading(&self) -> Reading {
        let source = Arc::new(NatsSource::new(&self.root));
        Reading::with_ledger(source.clone(), source.clone(), Some(source))
    }

    /// Connects a [`NatsBackend`] (one connection per call: each writer
    /// has its own) and hands out its parts ([`NatsBackend::writing`]):
    /// the backend as the store, its ledger, and its lease.
    fn writing(&self) -> Result<Writing, JournalError> {
        let backend = NatsBackend::connect(&self.root)?;
        let writing = backend.writing()?;
        *self.writer.lock().unwrap_or_else(PoisonError::into_inner) = Arc::downgrade(&backend);
        Ok(writing)
    }

    /// Under the writer's lease, on the writer's connection: a stream an
    /// older version made is given atomic batch publishes
    /// ([`NatsBackend::writer_opened`]).
    fn writer_opened(&self) -> Result<(), JournalError> {
        self.connected()?.writer_opened()
    }

    /// The root's own blob bucket (`blobs/sha256/<hex>` objects): the
    /// backend as a blob store and the root's path in it; the writer's
    /// connection while a writer holds it, else a new one.
    fn content_store(&self) -> Result<(Arc<dyn Store>, PathBuf), JournalError> {
        Ok((self.connected()?, self.path.clone()))
    }

    /// Its stream and every bucket it uses, created where absent, with
    /// `creating.replicas` replicas (more than the cluster has is refused,
    /// naming both numbers); `Ok(true)` when the stream was new.
    fn create(&self, creating: &Creating) -> Result<bool, JournalError> {
        self.root.ledger()?.create_replicated(creating.replicas)
    }

    /// A NATS root that records no content store keeps its blobs in its
    /// own bucket, as every NATS root did before stores were recorded.
    fn keeps_own_blobs(&self) -> bool {
        true
    }

    /// The stream's replicas, leader and current followers, and the
    /// cluster's size, as the server reports them.
    fn replication(&self) -> Result<Option<Replication>, JournalError> {
        let ledger = self.root.ledger()?;
        let r = ledger.replication()?;
        Ok(Some(Replication::new(
            r.replicas,
            r.leader,
            r.current,
            r.clustered,
            ledger.cluster_size(),
        )))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use nenjim_journal_api::error::ErrorKind;

    use super::*;

    /// Opening parses and contacts nothing: nothing listens on port 1.
    #[test]
    fn opening_contacts_nothing_and_names_the_root_by_its_address() {
        let opening = Opening::new().reconnect_without_limit(true);
        let root = NatsKind.open("nats://127.0.0.1:1/quiet", &opening).unwrap();
        assert_eq!(root.root_path(), Path::new("nats://127.0.0.1:1/quiet"));
        assert_eq!(root.address(), "nats://127.0.0.1:1/quiet");
        let root = NatsKind
            .open("nats://127.0.0.1/hub", &Opening::new())
            .unwrap();
        assert_eq!(root.address(), "nats://127.0.0.1:4222/hub");
    }

    /// A follower's opening reconnects without limit; by default, the
    /// client's own limit.
    #[test]
    fn the_opening_is_honoured() {
        let follower = Opening::new().reconnect_without_limit(true);
        let opened = OpenedRoot::open("nats://h/x", &follower).unwrap();
        assert_eq!(opened.root().options.max_reconnects, None);
        let opened = OpenedRoot::open("nats://h/x", &Opening::new()).unwrap();
        assert_eq!(opened.root().options.max_reconnects, Some(10));
    }

    #[test]
    fn a_malformed_address_is_a_usage_error() {
        let e = NatsKind
            .open("nats://127.0.0.1/not a name", &Opening::new())
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage, "{e}");
    }
}
