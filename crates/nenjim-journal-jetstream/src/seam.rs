//! The storage seam's traits over NATS: [`LedgerReader`] for
//! [`NatsLedger`] and [`Lease`] for [`NatsLease`], each the inherent
//! method of the same name.
//!
//! The seam's [`Ledger`](nenjim_journal_store::ledger::Ledger) (commit a
//! record with its revision's bytes) is [`NatsBackend`](crate::NatsBackend)'s,
//! over [`NatsLedger::commit_at`]: on NATS a revision travels inside its
//! entry, both ways (see [`crate::backend`]).

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_store::FileSystem;
use nenjim_journal_store::lease::{Acquired, Lease};
use nenjim_journal_store::ledger::{
    Entry, EntryBytes, FollowEntries, Followed, LedgerFollow, LedgerReader, RevisionPointer,
};

use crate::{Follower, NatsLease, NatsLedger};

/// A root has a ledger when its stream exists; entries are read in
/// batches through one ordered consumer, each revision handed on with its
/// entry (`read_after_with_bytes`: its size checked against the record,
/// its SHA-256 by the caller, the loader comparing its parse's digest), or
/// read again by its entry's sequence (`read_revision`, which never looks
/// at the file system it is given: a NATS root has no revision files).
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

    /// Each revision's size checked against its record, its SHA-256 left
    /// to the caller (the loader compares its parse's digest with the
    /// record's): a start hashes each revision once.
    fn read_after_with_bytes(
        &self,
        after: u64,
        max: usize,
    ) -> Result<Vec<EntryBytes>, JournalError> {
        Ok(self
            .read_after_checked(after, max, crate::ledger::Check::Size)?
            .into_iter()
            .map(|message| {
                let (entry, bytes) = message.into_parts();
                (entry, bytes.map(Vec::from))
            })
            .collect())
    }

    fn read_revision(
        &self,
        fs: &dyn FileSystem,
        root: &Path,
        sequence: u64,
        pointer: &RevisionPointer,
        again: bool,
    ) -> io::Result<Option<Vec<u8>>> {
        let _ = (fs, root, pointer);
        // `again` is a caller that hashes what it reads (the loader telling
        // a changed revision from one that never parsed, `verify`'s check
        // of every revision, as they read a directory's files): the size
        // is checked here, the SHA-256 there, so that a changed revision is
        // the caller's `LedgerMismatch` naming the digest found.
        let what = if again {
            crate::ledger::Check::Size
        } else {
            crate::ledger::Check::Digest
        };
        let (_, bytes) = self
            .read_entry_checked(sequence, what)
            .map_err(crate::backend::io_of)?
            .into_parts();
        Ok(bytes.map(Vec::from))
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

/// A NATS root can notify: its followers read the stream through ordered
/// consumers ([`Follower`]), each entry with its revision's bytes (checked
/// against the record), so a follow cursor parses the message it got and
/// reads nothing else. A root whose stream does not exist yet (no writer
/// opened it) is waited for: its first entry is followed once a writer
/// creates it. `stop` gives the ledger's [`StopSignal`](crate::StopSignal).
impl LedgerFollow for NatsLedger {
    fn follow(&self, after: u64) -> Result<Box<dyn FollowEntries>, JournalError> {
        let follower = match NatsLedger::follow(self, after) {
            Ok(follower) => Some(follower),
            Err(e) if e.kind() == ErrorKind::RootMissing => None,
            Err(e) => return Err(e),
        };
        Ok(Box::new(Following {
            ledger: self.clone(),
            after,
            follower,
        }))
    }

    fn stop(&self) {
        self.stop_signal().stop();
    }
}

/// How often a follower of a root without a stream looks for it.
const STREAM_POLL: Duration = Duration::from_millis(100);

/// One follower of a NATS ledger, made once the stream exists.
#[derive(Debug)]
struct Following {
    ledger: NatsLedger,
    after: u64,
    follower: Option<Follower>,
}

impl Following {
    /// The follower, once the stream exists; `None` if it did not within
    /// `deadline`.
    fn follower(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<Option<&mut Follower>, JournalError> {
        while self.follower.is_none() {
            if self.ledger.stop_signal().is_stopped() {
                return Err(error::error(
                    ErrorKind::Stopped,
                    "found the Journal stopped, expected it running to follow the ledger",
                )
                .with_path(self.ledger.root().to_string()));
            }
            match NatsLedger::follow(&self.ledger, self.after) {
                Ok(follower) => self.follower = Some(follower),
                Err(e) if e.kind() == ErrorKind::RootMissing => {
                    let pause = match deadline {
                        Some(deadline) => {
                            let left = deadline.saturating_duration_since(Instant::now());
                            if left.is_zero() {
                                return Ok(None);
                            }
                            left.min(STREAM_POLL)
                        }
                        None => STREAM_POLL,
                    };
                    std::thread::sleep(pause);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(self.follower.as_mut())
    }
}

impl FollowEntries for Following {
    fn next_timeout(
        &mut self,
        timeout: Option<Duration>,
    ) -> Result<Option<Followed>, JournalError> {
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let Some(follower) = self.follower(deadline)? else {
            return Ok(None);
        };
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        Ok(follower.next_timeout(left)?.map(|message| {
            let (entry, bytes) = message.into_parts();
            Followed::new(entry, bytes.map(|bytes| bytes.to_vec()))
        }))
    }
}
