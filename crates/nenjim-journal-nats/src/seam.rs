//! The storage seam's traits over NATS: [`LedgerReader`] for
//! [`NatsLedger`] and [`Lease`] for [`NatsLease`], each the inherent
//! method of the same name.
//!
//! The seam's [`Ledger`](nenjim_journal_store::ledger::Ledger) (commit a
//! record whose revision file the writer put through its `Store` first)
//! is [`NatsBackend`](crate::NatsBackend)'s: on NATS a revision travels
//! inside its commit ([`NatsLedger::commit_at`]), so the store and the
//! ledger are one object there (see [`crate::backend`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_store::lease::{Acquired, Lease};
use nenjim_journal_store::ledger::{Entry, LedgerReader};

use crate::{NatsLease, NatsLedger};

/// A root has a ledger when its stream exists; entries are read in
/// batches through one ordered consumer, each revision checked against
/// its record (its bytes are dropped here: [`NatsLedger::read_after`] keeps
/// them).
impl LedgerReader for NatsLedger {
    fn exists(&self) -> Result<bool, JournalError> {
        NatsLedger::exists(self)
    }

    fn read_after(&self, after: u64, max: usize) -> Result<Vec<Entry>, JournalError> {
        Ok(NatsLedger::read_after(self, after, max)?
            .into_iter()
            .map(|message| message.into_parts().0)
            .collect())
    }

    fn entry_path(&self, sequence: u64) -> PathBuf {
        NatsLedger::entry_path(self, sequence)
    }
}

/// The lease in its key-value bucket (see [`crate::lease`]).
impl Lease for NatsLease {
    fn acquire(&mut self, ttl: Duration) -> Result<Acquired, JournalError> {
        let got = NatsLease::acquire(self, ttl)?;
        Ok(Acquired {
            epoch: got.epoch,
            taken_over: got.taken_over,
        })
    }

    fn renew(&mut self, ttl: Duration) -> Result<(), JournalError> {
        NatsLease::renew(self, ttl)
    }

    fn release(&mut self) -> Result<(), JournalError> {
        NatsLease::release(self)
    }

    fn epoch(&self) -> u64 {
        NatsLease::epoch(self)
    }

    fn path(&self) -> &Path {
        NatsLease::path(self)
    }
}
