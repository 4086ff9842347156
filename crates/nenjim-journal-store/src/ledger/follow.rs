//! Following a ledger: the one thing the journal contract lets a backend
//! add (`ReplayRequest::follow(true)`). A backend that can notify (a NATS
//! JetStream stream) implements [`LedgerFollow`]; the storage backends (a
//! directory, a bucket) do not, and their Journals refuse to follow.

use std::fmt;
use std::time::Duration;

use nenjim_journal_api::error::JournalError;

use super::Entry;

/// A ledger entry read by a follower, with the revision's exact bytes when
/// the backend carries them in its entries (a NATS message does): the
/// reader then checks and parses those bytes instead of reading the
/// revision file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Followed {
    entry: Entry,
    revision: Option<Vec<u8>>,
}

impl Followed {
    /// `entry`, with the bytes of the revision it records if the backend
    /// has them (already checked against the record's size and SHA-256).
    pub fn new(entry: Entry, revision: Option<Vec<u8>>) -> Followed {
        Followed { entry, revision }
    }
    /// The entry.
    pub fn entry(&self) -> &Entry {
        &self.entry
    }
    /// The revision's bytes, if the backend carried them.
    pub fn revision(&self) -> Option<&[u8]> {
        self.revision.as_deref()
    }
    /// The entry and the revision's bytes.
    pub fn into_parts(self) -> (Entry, Option<Vec<u8>>) {
        (self.entry, self.revision)
    }
}

/// A ledger that can notify: live readers of what is committed after a
/// sequence, by any process.
pub trait LedgerFollow: Send + Sync + fmt::Debug {
    /// A follower of every entry after `after`: those committed already,
    /// then each one committed later, in ascending order, each exactly once.
    fn follow(&self, after: u64) -> Result<Box<dyn FollowEntries>, JournalError>;

    /// Ends every follower of this ledger, for good: a blocked wait
    /// returns `Stopped`, and so does every later one.
    fn stop(&self);
}

/// One follower of a [`LedgerFollow`].
pub trait FollowEntries: Send + fmt::Debug {
    /// The next entry: `Ok(None)` when none came within `timeout` (the
    /// follower stays usable); `None` waits without limit. `Stopped` once
    /// the ledger's followers were stopped; a lost connection or a
    /// malformed entry is a typed error. Errors are final.
    fn next_timeout(&mut self, timeout: Option<Duration>)
    -> Result<Option<Followed>, JournalError>;
}
