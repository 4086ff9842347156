//! The writer's lease of a NATS root: the key `lease` of the key-value
//! bucket `NENJIM_<name>_lease`, whose value has the text of a directory
//! root's lease file:
//!
//! ```text
//! nenjim-lease/1
//! holder <id>
//! epoch <n>
//! expires <milliseconds since the Unix epoch; 0 = released>
//! ```
//!
//! The first lease is a KV *create* (refused if the key exists); every
//! later change is a KV *update* at the revision read (refused if another
//! writer changed it since), so the lease is a compare-and-set exactly as
//! the directory's file replaced only if unchanged. The expiry is the
//! value's `expires`, not a KV time-to-live: an expired lease keeps its
//! epoch, which the next holder's grows by one. The semantics are the
//! directory writer's, and so is the value (the store's
//! [`LeaseRecord`](nenjim_journal_store::lease::LeaseRecord), re-exported
//! as [`Lease`]): a live lease of another holder is `LeaseHeld`; a
//! released one is taken as it is; an expired, unreleased one, or a live
//! one whose holder is a process of this host that is provably gone
//! (killed, crashed), is taken over, and the new holder fences the ledger
//! at its tip ([`NatsLease::fence_ledger`]), so that the previous holder's
//! next commit fails (`LeaseLost`). A holder id names its host and process
//! ([`holder_id`]), as a directory
//! root's does.

use std::path::{Path, PathBuf};
use std::time::Duration;

use async_nats::jetstream::kv::{CreateErrorKind, Operation, Store, UpdateErrorKind};
use bytes::Bytes;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_store::ledger::{Entry, Record};

use nenjim_journal_store::lease::{expiry, holder_id, now_millis};

use crate::ledger::{CommitError, NatsLedger};

/// The lease's key in its bucket.
pub const LEASE_KEY: &str = "lease";

/// One state of the lease: the store's lease record, whose text a
/// directory root's lease file has too.
pub use nenjim_journal_store::lease::LeaseRecord as Lease;

/// What [`NatsLease::acquire`] took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acquired {
    /// The lease's epoch, now this holder's.
    pub epoch: u64,
    /// Whether an expired, unreleased lease was taken over: the caller then
    /// fences the ledger ([`NatsLease::fence_ledger`]).
    pub taken_over: bool,
}

/// The lease of one NATS root, as one holder sees it.
#[derive(Debug)]
pub struct NatsLease {
    ledger: NatsLedger,
    store: Store,
    path: PathBuf,
    holder: String,
    /// This holder's lease and its KV revision, once acquired.
    held: Option<(Lease, u64)>,
}

impl NatsLease {
    pub(crate) fn new(ledger: NatsLedger) -> Result<NatsLease, JournalError> {
        let store = ledger.lease_bucket(false)?;
        let path = PathBuf::from(format!("{}/lease", ledger.conn().address));
        Ok(NatsLease {
            ledger,
            store,
            path,
            holder: holder_id(),
            held: None,
        })
    }

    /// Where the lease lives, for messages: `nats://host:port/<name>/lease`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// This holder's epoch (0 before [`acquire`](Self::acquire)).
    pub fn epoch(&self) -> u64 {
        self.held.as_ref().map_or(0, |(l, _)| l.epoch())
    }

    /// The current lease and its KV revision (`None`: never taken).
    pub fn read(&self) -> Result<Option<(Lease, u64)>, JournalError> {
        let conn = self.ledger.conn();
        let entry = conn.block_on(self.store.entry(LEASE_KEY)).map_err(|e| {
            conn.request_error("cannot read the lease", e)
                .with_path(&self.path)
        })?;
        let Some(entry) = entry else {
            return Ok(None);
        };
        if entry.operation != Operation::Put {
            return Ok(None);
        }
        let lease = std::str::from_utf8(&entry.value)
            .ok()
            .and_then(Lease::parse);
        match lease {
            Some(lease) => Ok(Some((lease, entry.revision))),
            None => Err(error::error(
                ErrorKind::Io,
                "found a malformed lease, expected `nenjim-lease/1` with holder, epoch and expires",
            )
            .with_path(&self.path)),
        }
    }

    /// Writes `lease` if the key is still at `revision` (`None`: absent);
    /// its new revision, or `None` if another holder changed it.
    fn replace(&self, lease: &Lease, revision: Option<u64>) -> Result<Option<u64>, JournalError> {
        let conn = self.ledger.conn();
        let value = Bytes::from(lease.render());
        let error = |e: crate::outage::Said| {
            conn.request_error("cannot write the lease", e)
                .with_path(&self.path)
        };
        let said = |e: &dyn std::fmt::Display, why| crate::outage::Said(e.to_string(), why);
        match revision {
            None => match conn.block_on(self.store.create(LEASE_KEY, value)) {
                Ok(revision) => Ok(Some(revision)),
                Err(e) if e.kind() == CreateErrorKind::AlreadyExists => Ok(None),
                Err(e) => Err(error(said(&e, crate::outage::Outage::outage(&e)))),
            },
            Some(revision) => match conn.block_on(self.store.update(LEASE_KEY, value, revision)) {
                Ok(revision) => Ok(Some(revision)),
                Err(e) if e.kind() == UpdateErrorKind::WrongLastRevision => Ok(None),
                Err(e) => Err(error(said(&e, crate::outage::Outage::outage(&e)))),
            },
        }
    }

    /// Takes the lease for `ttl`: `LeaseHeld` while another holder's is
    /// live, unless that holder is a process of this host that is provably
    /// gone (killed, crashed: see
    /// [`holder_is_gone`](nenjim_journal_store::lease::holder_is_gone)),
    /// whose lease is taken over at once, as a directory root's is.
    pub fn acquire(&mut self, ttl: Duration) -> Result<Acquired, JournalError> {
        loop {
            let current = self.read()?;
            let (lease, taken_over) = Lease::take(
                current.as_ref().map(|(lease, _)| lease),
                &self.holder,
                now_millis(),
                ttl,
                &self.path,
            )?;
            // Changed since it was read: read it again.
            if let Some(revision) = self.replace(&lease, current.map(|(_, r)| r))? {
                let epoch = lease.epoch();
                self.held = Some((lease, revision));
                return Ok(Acquired { epoch, taken_over });
            }
        }
    }

    /// Checks the lease is still this holder's and live before a commit,
    /// renewing it for `ttl` once half of it has run out: `LeaseLost`
    /// otherwise.
    pub fn renew(&mut self, ttl: Duration) -> Result<(), JournalError> {
        let Some((lease, revision)) = self.held.clone() else {
            return Err(self.lost("found no lease taken, expected this writer's".to_owned()));
        };
        let now = now_millis();
        if !lease.is_live(now) {
            return Err(self.lost(format!(
                "found this writer's lease (epoch {}) expired, expected a live lease; another writer may have taken the root over",
                lease.epoch()
            )));
        }
        let half = u64::try_from(ttl.as_millis() / 2).unwrap_or(u64::MAX);
        if lease.expires().saturating_sub(now) < half {
            let renewed = lease.until(expiry(now, ttl));
            match self.replace(&renewed, Some(revision))? {
                Some(revision) => self.held = Some((renewed, revision)),
                None => {
                    return Err(self.lost(format!(
                        "found the lease changed by another writer, expected this writer's (epoch {})",
                        lease.epoch()
                    )));
                }
            }
        }
        Ok(())
    }

    fn lost(&self, message: String) -> JournalError {
        error::error(ErrorKind::LeaseLost, message).with_path(&self.path)
    }

    /// Gives the lease back if it is still this holder's (another holder's
    /// lease is left as it is).
    pub fn release(&mut self) -> Result<(), JournalError> {
        if let Some((lease, revision)) = self.held.take() {
            let released = lease.until(0);
            // `None`: changed by another writer, whose lease stays.
            let _ = self.replace(&released, Some(revision))?;
        }
        Ok(())
    }

    /// The record that fences the ledger at its tip after a takeover.
    pub fn fence(&self) -> Record {
        Record::Fence {
            epoch: self.epoch(),
        }
    }

    /// Commits this holder's fence at the ledger's tip, reading the tip
    /// again while other commits land first; the fence entry.
    pub fn fence_ledger(&self) -> Result<Entry, JournalError> {
        loop {
            let tip = self.ledger.tip()?;
            match self.ledger.commit_at(tip, self.fence(), None) {
                Ok(entry) => return Ok(entry),
                Err(CommitError::TipMoved { .. }) => {}
                Err(e) => return Err(e.into_error(&self.ledger, tip + 1, self.epoch())),
            }
        }
    }
}
