//! Journal roots on NATS JetStream, for a consumer: the reference Journal
//! over a root ([`NatsRoot::assembly`]) and its one writer
//! ([`NatsRoot::writer`], a [`NatsJournalWriter`]).
//!
//! This crate is the consumer's API over the NATS backend, not a backend:
//! the backend (the root's address, its ledger as a stream, its lease, its
//! blob bucket, following, the seam's `Backend` and `BackendKind`) is the
//! crate `nenjim-journal-jetstream`, which depends on the api, the seam
//! and its client only. This crate puts the loader and the writer on top
//! of what that backend hands the seam: the assembly reads the backend's
//! `Reading` ([`OpenedRoot`]'s), the writer is the seam's
//! `FsJournalWriter::open_with` over its `Writing` ([`NatsBackend::writing`])
//! and the backend's step once the writer has opened
//! ([`NatsBackend::writer_opened`]). Everything else of the backend is
//! re-exported here under its name, so that a program needs this crate
//! alone; how a root lives on a server is told in the backend's docs.
//!
//! - [`NatsRoot::assembly`] is the reference Journal over the root: the
//!   same lifecycle, queries, sequences and errors as over a directory,
//!   and `ReplayRequest::follow(true)` cursors that wait for what any
//!   process commits next.
//! - [`NatsRoot::writer`] is the seam's writer over the root's backend and
//!   lease, with the content store its options name (none, a directory, a
//!   bucket, or a NATS root's own blob bucket named by its address), and a
//!   signed root's checkpoint and tiles in the bucket `NENJIM_<name>_tlog`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod writer;

use std::fmt;
use std::ops::Deref;
use std::time::Duration;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_store::backend::Backend as _;

pub use nenjim_journal_jetstream::{
    Acquired, CommitError, Credentials, DEFAULT_ELECTION_WAIT, DEFAULT_INLINE_LIMIT, Follower,
    JetStreamRoot, Lease, LedgerMessage, Names, NatsBackend, NatsKind, NatsLease, NatsLedger,
    NatsSource, OpenedRoot, Replication, StopSignal, address, backend, follow, kind, lease, ledger,
    reading,
};
pub use writer::NatsJournalWriter;

/// A Journal root on a NATS JetStream server: `nats://host:port/<name>`.
///
/// The backend's [`JetStreamRoot`] (its address, credentials and client
/// settings) with the consumer's [`assembly`](Self::assembly) and
/// [`writer`](Self::writer). It dereferences to that root, so what the
/// backend takes a root for ([`NatsLedger::connect`],
/// [`NatsBackend::connect`], [`NatsSource::new`]) takes this one, and its
/// accessors (`name`, `host`, `port`, `servers`, `credentials`, `ledger`)
/// are this one's.
#[derive(Clone, PartialEq, Eq)]
pub struct NatsRoot(JetStreamRoot);

impl fmt::Debug for NatsRoot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("NatsRoot").field(&self.0).finish()
    }
}

/// `nats://host:port/<name>`, or `nats://host1:port1,host2:port2,…/<name>`.
impl fmt::Display for NatsRoot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl Deref for NatsRoot {
    type Target = JetStreamRoot;

    fn deref(&self) -> &JetStreamRoot {
        &self.0
    }
}

impl AsRef<JetStreamRoot> for NatsRoot {
    fn as_ref(&self) -> &JetStreamRoot {
        &self.0
    }
}

impl From<JetStreamRoot> for NatsRoot {
    fn from(root: JetStreamRoot) -> NatsRoot {
        NatsRoot(root)
    }
}

impl From<NatsRoot> for JetStreamRoot {
    fn from(root: NatsRoot) -> JetStreamRoot {
        root.0
    }
}

impl NatsRoot {
    /// `nats://host:port/<name>`: the root named `<name>` on that server
    /// (port 4222 when none is given), with the credentials of the
    /// process's environment (see [`address`]). A malformed address or
    /// setting is refused (`Usage`), saying what was found and what was
    /// expected.
    pub fn parse(address: &str) -> Result<NatsRoot, JournalError> {
        JetStreamRoot::parse(address).map(NatsRoot)
    }

    /// [`NatsRoot::parse`] with the environment `env` (variable, value).
    pub fn parse_with_env<I, K, V>(address: &str, env: I) -> Result<NatsRoot, JournalError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        JetStreamRoot::parse_with_env(address, env).map(NatsRoot)
    }

    /// The backend's root this is.
    pub fn jetstream(&self) -> &JetStreamRoot {
        &self.0
    }

    /// See [`JetStreamRoot::inline_limit`] (default [`DEFAULT_INLINE_LIMIT`]).
    #[must_use]
    pub fn inline_limit(self, bytes: usize) -> NatsRoot {
        NatsRoot(self.0.inline_limit(bytes))
    }

    /// See [`JetStreamRoot::max_reconnects`] (default 10).
    #[must_use]
    pub fn max_reconnects(self, attempts: usize) -> NatsRoot {
        NatsRoot(self.0.max_reconnects(attempts))
    }

    /// See [`JetStreamRoot::reconnect_without_limit`].
    #[must_use]
    pub fn reconnect_without_limit(self) -> NatsRoot {
        NatsRoot(self.0.reconnect_without_limit())
    }

    /// See [`JetStreamRoot::reconnect_delay`] (default 250 ms, at most 2 s).
    #[must_use]
    pub fn reconnect_delay(self, step: Duration) -> NatsRoot {
        NatsRoot(self.0.reconnect_delay(step))
    }

    /// See [`JetStreamRoot::request_timeout`] (default 10 s).
    #[must_use]
    pub fn request_timeout(self, timeout: Duration) -> NatsRoot {
        NatsRoot(self.0.request_timeout(timeout))
    }

    /// See [`JetStreamRoot::election_wait`] (default [`DEFAULT_ELECTION_WAIT`]).
    #[must_use]
    pub fn election_wait(self, wait: Duration) -> NatsRoot {
        NatsRoot(self.0.election_wait(wait))
    }

    /// The reference Journal over this root: the same lifecycle, queries,
    /// sequences and errors as over a directory, and follow supported
    /// (`ReplayRequest::follow(true)`: the backlog, then each entry any
    /// process commits, validated as ingestion validates it). `start()`
    /// connects (its error when the server cannot be reached; `RootMissing`
    /// for a root no writer created) and reads the stream from the
    /// beginning; `refresh()` reads what follows the last sequence held.
    /// `journal_root()` is `nats://host:port/<name>`, the prefix of every
    /// revision path an error names.
    pub fn assembly(&self) -> nenjim_journal_ref::JournalAssembly {
        self.assembly_with(nenjim_journal_ref::LoadOptions::default())
    }

    /// [`assembly`](Self::assembly), loading with `options`: over the
    /// backend's `Reading` (a [`NatsSource`], connected on first use, as
    /// the root's files, ledger and follow).
    pub fn assembly_with(
        &self,
        options: nenjim_journal_ref::LoadOptions,
    ) -> nenjim_journal_ref::JournalAssembly {
        let opened = OpenedRoot::new(self.0.clone());
        let root = opened.root_path().to_path_buf();
        let reading = opened.reading();
        match reading.ledger {
            Some(ledger) => nenjim_journal_ref::JournalAssembly::with_ledger(
                root,
                options,
                reading.file_system,
                ledger,
                reading.follow,
            ),
            None => nenjim_journal_ref::JournalAssembly::with_file_system(
                root,
                options,
                reading.file_system,
            ),
        }
    }
}
