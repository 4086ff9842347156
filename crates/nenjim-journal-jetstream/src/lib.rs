//! Journal roots on NATS JetStream as a backend of the storage seam: the
//! ledger as a stream, the writer's lease in a key-value bucket, large
//! revisions in an object-store bucket, and live following of what is
//! committed.
//!
//! This crate is a backend and only that: it depends on the api, the seam
//! (`nenjim-journal-store`) and its client (async-nats, tokio, rustls),
//! never on the loader, the writer or the reference Journal. The consumer's
//! API over it (`NatsRoot::assembly`, `NatsRoot::writer`,
//! `NatsJournalWriter`) is the crate `nenjim-journal-nats`, which builds
//! them from what this crate hands the seam.
//!
//! # What it holds
//!
//! - [`NatsKind`] ([`kind`]) is the seam's `BackendKind` of the scheme
//!   `nats`, and [`OpenedRoot`] its `Backend`: one root opened from its
//!   address, as the loader's `Reading` (a [`NatsSource`]) and the writer's
//!   `Writing` (a [`NatsBackend`] and its [`NatsLease`]);
//! - [`JetStreamRoot`] is a root's address, credentials and client
//!   settings ([`JetStreamRoot::parse`]);
//! - [`NatsLedger`] reads the entries after a sequence in batches, commits
//!   the next entry at an expected tip, keeps large revisions and content
//!   blobs in the blob bucket, and follows the stream ([`Follower`]); it
//!   implements the seam's `LedgerReader`, and [`NatsLease`] its `Lease`;
//! - [`NatsBackend`] ([`backend`]) is the seam's `Ledger` over one
//!   `NatsLedger`, a revision committed with its record in one publish and
//!   read with its entry (or again by its sequence), and a `Store` of the
//!   root's buckets (blobs, the transparency log, the store record): no
//!   revision file is faked. So the seam's loader (`load_recorded`, `refresh_recorded`) loads and
//!   refreshes a NATS root over a backend, and the seam's writer
//!   (`FsJournalWriter::open_with`) writes it over the backend's
//!   [`Writing`](nenjim_journal_store::backend::Writing), a signed root's
//!   checkpoint and tiles in the bucket `NENJIM_<name>_tlog`;
//! - [`NatsSource`] ([`reading`]) is a lazily connected read-only view of a
//!   backend: the ledger, the files and the `LedgerFollow` the loader (and
//!   the reference Journal's `ReplayRequest::follow(true)` cursors) read.
//!
//! The tracing events keep the target `nenjim_journal_nats` (the crate
//! that held them first): what a hub operator filters on does not move
//! with the code.
//!
//! # A root on a server
//!
//! A root is `nats://host:port/<name>` ([`JetStreamRoot::parse`]): `<name>` is
//! 1 to 64 ASCII letters, digits, `-` and `_`, and names everything the root
//! keeps on the server ([`Names`]):
//!
//! | what | JetStream |
//! | --- | --- |
//! | the ledger | the stream `NENJIM_<name>`, subject `nenjim.<name>.ledger`, file storage, deletes and purges denied, atomic batch publishes allowed |
//! | the writer's lease | the key `lease` of the key-value bucket `NENJIM_<name>_lease` (see [`lease`]) |
//! | revisions over the inline limit | the objects `revisions/sha256/<hex>` of the object-store bucket `NENJIM_<name>_blobs` |
//! | the root's own content store, when it is the one chosen ([`NatsLedger::put_blob`], [`NatsLedger::check_blob`]) | the objects `blobs/sha256/<hex>` of the same bucket |
//! | the content store the command's `init` records (`<root>/.ledger/store`) | the key `store` of the key-value bucket `NENJIM_<name>_meta` (see [`backend`]) |
//! | a signed root's checkpoint and tiles (format section 10) | the keys `checkpoint`, `tile/…` of the key-value bucket `NENJIM_<name>_tlog` (see [`backend`]) |
//!
//! # The ledger: one message per entry, sequences 1:1
//!
//! Every ledger entry, a fence included, is exactly one message of the
//! stream, and its ledger sequence **is** the message's stream sequence:
//! the stream's first message is entry 1, and since nothing is ever
//! deleted or purged, the sequences are contiguous, the same in every
//! process, and kept across server restarts (the server's `-sd` store). A
//! message carries:
//!
//! - the header `Nenjim-Record`: the entry's record line, exactly as in a
//!   directory's ledger (`<seq> REVISION <coordinate> <journal-version>
//!   <size> sha256:<hex>` or `<seq> FENCE <epoch>`, parsed by
//!   [`nenjim_journal_store::ledger::Entry`]), whose `<seq>` must be the
//!   message's stream sequence;
//! - for a revision up to the inline limit ([`JetStreamRoot::inline_limit`],
//!   default 1 MiB, at most the server's `max_payload` less
//!   [`ledger::HEADER_ROOM`]): the revision's exact bytes as the body;
//! - for a larger one: an empty body and the header `Nenjim-Blob: <key>`,
//!   the object holding the bytes, put *before* the message is published
//!   ("blob before pointer"); the pointer's size and SHA-256 are the
//!   record's;
//! - for a fence: nothing more.
//!
//! A reader checks every revision's bytes, inline or from the blob bucket,
//! against the record's size and SHA-256 before handing them out
//! (`LedgerMismatch` on a difference, a missing object, a message whose
//! record is not of its own sequence); through the seam, to the loader,
//! it checks their size and leaves their SHA-256 to the loader, which
//! compares the digest its parse computes with the record's (the same
//! `LedgerMismatch`): a start hashes each revision once.
//!
//! A batch ([`NatsLedger::commit_batch_at`], the writer's `append_batch`)
//! is one atomic batch publish per at most [`ledger::ATOMIC_BATCH_MAX`]
//! entries and [`ledger::ATOMIC_BATCH_BYTES`] bytes: every message of it
//! carries `Nats-Batch-Id` and `Nats-Batch-Sequence`, the first the
//! expected tip, the last `Nats-Batch-Commit`, and the server stores the
//! batch whole or not at all (the stream is created with `allow_atomic`;
//! a stream without it takes one publish per entry).
//!
//! A commit ([`NatsLedger::commit_at`]) is a publish with
//! `Nats-Expected-Last-Sequence: <tip>`: the server stores it only if the
//! stream's last sequence is still the writer's tip, so a writer that lost
//! the race gets [`CommitError::TipMoved`] (with the tip it found) and
//! nothing of its commit is stored. Its `Nats-Msg-Id` is the committing
//! handle's id, the sequence and a digest of the record, and a publish
//! whose answer was lost is sent again (up to three times): the server
//! stores it at most once (the expected sequence refuses a second copy,
//! and the stream's two-minute duplicate window drops one too), and a
//! resend refused because the tip moved that finds its own first send at
//! that sequence (the same message id and record) is that commit's
//! success, not `TipMoved`. (nats-server 2.15 checks the expected sequence
//! before the message id, so the resend does see the moved tip.)
//!
//! # Following
//!
//! [`NatsLedger::follow`] reads every entry after a sequence through an
//! ordered consumer and then waits for the next one ([`Follower`]): with a
//! timeout (`Ok(None)`, the follower stays usable), until the ledger's
//! [`StopSignal`] is given (`Stopped`), or until the connection is lost for
//! good: after the client's reconnect attempts ([`JetStreamRoot::max_reconnects`],
//! default 10, waiting [`JetStreamRoot::reconnect_delay`] more before each, at
//! most 2 s; [`JetStreamRoot::reconnect_without_limit`] for never) a waiting
//! follower gets an `Unavailable` error, never a silent end. An outage
//! short of that (a server restarted, a leader elected) is ridden out: the
//! follower makes its consumer again after the last entry it yielded.
//!
//! # Credentials and TLS
//!
//! From the environment, under the NATS tools' names (`NATS_CREDS`,
//! `NATS_NKEY`, `NATS_USER` / `NATS_PASSWORD`, `NATS_TOKEN`, `NATS_CA`,
//! `NATS_CERT` / `NATS_KEY`): see [`address`]. An error names the
//! variable, never its value.
//!
//! # Threads
//!
//! Each [`NatsLedger`] owns a small tokio runtime (one worker thread) and
//! blocks on it: no async in the API, and its calls are made from plain
//! threads, never from inside an async runtime.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod address;
pub mod backend;
mod connection;
pub mod follow;
pub mod kind;
pub mod lease;
pub mod ledger;
mod outage;
pub mod reading;
mod seam;
mod tls;

use std::fmt;
use std::time::Duration;

use nenjim_journal_api::error::JournalError;

pub use address::Credentials;
pub use backend::NatsBackend;
pub use follow::{Follower, StopSignal};
pub use kind::{NatsKind, OpenedRoot};
pub use lease::{Acquired, Lease, NatsLease};
pub use ledger::{CommitError, LedgerMessage, Names, NatsLedger, Replication};
pub use reading::NatsSource;

/// The default [`JetStreamRoot::inline_limit`]: 1 MiB.
pub const DEFAULT_INLINE_LIMIT: usize = 1024 * 1024;

/// The default [`JetStreamRoot::election_wait`]: 15 s.
pub const DEFAULT_ELECTION_WAIT: Duration = Duration::from_secs(15);

/// The client's settings of a root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ClientOptions {
    pub(crate) inline_limit: usize,
    /// `None`: without limit.
    pub(crate) max_reconnects: Option<usize>,
    pub(crate) reconnect_delay: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) election_wait: Duration,
}

impl Default for ClientOptions {
    fn default() -> ClientOptions {
        ClientOptions {
            inline_limit: DEFAULT_INLINE_LIMIT,
            max_reconnects: Some(10),
            reconnect_delay: Duration::from_millis(250),
            request_timeout: Duration::from_secs(10),
            election_wait: DEFAULT_ELECTION_WAIT,
        }
    }
}

/// A Journal root on a NATS JetStream server, `nats://host:port/<name>`:
/// its servers, name, credentials and client settings (a value: nothing is
/// contacted until [`ledger`](Self::ledger) or a backend connects).
#[derive(Clone, PartialEq, Eq)]
pub struct JetStreamRoot {
    /// At least one.
    pub(crate) servers: Vec<address::Server>,
    pub(crate) name: String,
    pub(crate) credentials: Credentials,
    pub(crate) options: ClientOptions,
}

impl fmt::Debug for JetStreamRoot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JetStreamRoot")
            .field("address", &self.to_string())
            .field("credentials", &self.credentials)
            .field("options", &self.options)
            .finish()
    }
}

/// `nats://host:port/<name>`, or `nats://host1:port1,host2:port2,…/<name>`.
impl fmt::Display for JetStreamRoot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("nats://")?;
        for (i, server) in self.servers.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{server}")?;
        }
        write!(f, "/{}", self.name)
    }
}

impl JetStreamRoot {
    /// `nats://host:port/<name>`: the root named `<name>` on that server
    /// (port 4222 when none is given), with the credentials of the
    /// process's environment (see [`address`]). A malformed address or
    /// setting is refused (`Usage`), saying what was found and what was
    /// expected.
    pub fn parse(address: &str) -> Result<JetStreamRoot, JournalError> {
        JetStreamRoot::parse_with_env(address, std::env::vars())
    }

    /// [`JetStreamRoot::parse`] with the environment `env` (variable, value).
    pub fn parse_with_env<I, K, V>(address: &str, env: I) -> Result<JetStreamRoot, JournalError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let parsed = address::parse(address)?;
        Ok(JetStreamRoot {
            servers: parsed.servers,
            name: parsed.name,
            credentials: Credentials::from_env(env)?,
            options: ClientOptions::default(),
        })
    }

    /// The root's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The first server's host (of a cluster, the first one named).
    pub fn host(&self) -> &str {
        self.servers.first().map_or("", |s| s.host.as_str())
    }

    /// The first server's port (of a cluster, the first one named).
    pub fn port(&self) -> u16 {
        self.servers
            .first()
            .map_or(address::DEFAULT_PORT, |s| s.port)
    }

    /// Every server the address names, in its order (one, or several of a
    /// cluster): the client connects to one that answers and moves to
    /// another when it is lost.
    pub fn servers(&self) -> &[address::Server] {
        &self.servers
    }

    /// The credentials the client connects with.
    pub fn credentials(&self) -> &Credentials {
        &self.credentials
    }

    /// Revisions up to `bytes` travel inside their ledger message; larger
    /// ones go to the blob bucket first (default [`DEFAULT_INLINE_LIMIT`];
    /// never more than the server's `max_payload` less
    /// [`ledger::HEADER_ROOM`]).
    #[must_use]
    pub fn inline_limit(mut self, bytes: usize) -> JetStreamRoot {
        self.options.inline_limit = bytes;
        self
    }

    /// How many times the client tries to reconnect to a server it lost
    /// before the connection is lost for good (default 10).
    #[must_use]
    pub fn max_reconnects(mut self, attempts: usize) -> JetStreamRoot {
        self.options.max_reconnects = Some(attempts);
        self
    }

    /// The client tries to reconnect to a server it lost for as long as
    /// the handle lives (what a long-running follower or service wants):
    /// the connection is never lost for good, and a request made while no
    /// server answers fails after the request timeout as `Unavailable`.
    #[must_use]
    pub fn reconnect_without_limit(mut self) -> JetStreamRoot {
        self.options.max_reconnects = None;
        self
    }

    /// The wait before the n-th attempt to reach a server (after a lost
    /// connection, or at the first connect) is n - 1 times `step`, at most
    /// 2 s (default 250 ms): the first attempt is made at once.
    #[must_use]
    pub fn reconnect_delay(mut self, step: Duration) -> JetStreamRoot {
        self.options.reconnect_delay = step;
        self
    }

    /// How long a request to the server may take (default 10 s).
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> JetStreamRoot {
        self.options.request_timeout = timeout;
        self
    }

    /// How long creating a root on a cluster
    /// ([`NatsLedger::create_replicated`], a writer's first commit on a
    /// fresh name, the command's `init`) rides out the cluster electing a
    /// leader, for its meta layer or for a stream just made: a request of
    /// the create unanswered, or answered that the cluster is not ready, is
    /// made again, and the create returns once every stream of the root
    /// has a leader. After this long in all it is `Unavailable` (default
    /// [`DEFAULT_ELECTION_WAIT`]). A server of no cluster elects nothing:
    /// there an outage is `Unavailable` at once.
    #[must_use]
    pub fn election_wait(mut self, wait: Duration) -> JetStreamRoot {
        self.options.election_wait = wait;
        self
    }

    /// Connects to the server: the root's ledger (see [`NatsLedger`]).
    pub fn ledger(&self) -> Result<NatsLedger, JournalError> {
        NatsLedger::connect(self)
    }
}
