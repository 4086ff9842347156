//! The writer contract: how a revision enters a Journal's durable record.
//!
//! A [`JournalWriter`] owns a Journal's append path. Each call to
//! [`append`](JournalWriter::append) takes one complete revision text,
//! validates it exactly as ingestion does (the same error kinds, in the same
//! order), and commits it by adding one entry to the Journal's ledger. It
//! returns the revision's ledger sequence: strictly increasing in append
//! order, and the same number every process that loads the Journal gives it.
//!
//! A writer holds the Journal through an expiring lease: while it is live, a
//! second writer is refused with
//! [`LeaseHeld`](crate::error::ErrorKind::LeaseHeld); once it is lost
//! (expired, or taken over), every later append fails with
//! [`LeaseLost`](crate::error::ErrorKind::LeaseLost). A refusal writes
//! nothing a Journal would load.
//!
//! The reference implementation is `FsJournalWriter` in the
//! `nenjim-journal-writer` crate.

use std::fmt;

use crate::error::JournalError;
use crate::model::JournalRevision;

/// The append path of a Journal: one method that serializes records.
pub trait JournalWriter: Send {
    /// Appends one complete revision text; returns its ledger sequence.
    ///
    /// Appending a text that is already recorded is an idempotent success
    /// ([`Appended::is_new`] is `false`, the sequence is the recorded one,
    /// nothing is written).
    fn append(&mut self, text: &str) -> Result<Appended, JournalError>;
}

/// What a successful [`JournalWriter::append`] recorded.
#[derive(Clone)]
pub struct Appended {
    revision: JournalRevision,
    is_new: bool,
}

impl Appended {
    /// The result of an append of `revision` (see
    /// [`build::appended`](crate::model::build::appended)).
    pub(crate) fn new(revision: JournalRevision, is_new: bool) -> Appended {
        Appended { revision, is_new }
    }

    /// The revision's ledger sequence (equal to `revision().sequence()`).
    pub fn sequence(&self) -> u64 {
        self.revision.sequence()
    }

    /// The recorded revision.
    pub fn revision(&self) -> &JournalRevision {
        &self.revision
    }

    /// Whether this append recorded the revision (`false` for an idempotent repeat).
    pub fn is_new(&self) -> bool {
        self.is_new
    }
}

impl fmt::Debug for Appended {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Appended")
            .field("sequence", &self.sequence())
            .field("coordinate", self.revision.coordinate())
            .field("journal_version", &self.revision.journal_version())
            .field("digest", self.revision.digest())
            .field("is_new", &self.is_new)
            .finish()
    }
}
