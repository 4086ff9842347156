//! The cold change feed: a cursor over the sequence-ordered log of one snapshot.

use imbl::Vector;
use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::{JournalRevision, RevisionCursor};

/// Every revision of a snapshot after a sequence number, in sequence order.
///
/// Owns an O(log n) slice of the snapshot's log (`Vector::skip` shares the
/// nodes), so later ingestions, which build new states, cannot change it;
/// each step is an amortized O(1) `pop_front`.
#[derive(Debug)]
pub(crate) struct Replay {
    pending: Vector<JournalRevision>,
}

impl Replay {
    /// A cursor over `log` from index `skip` on.
    pub(crate) fn new(log: &Vector<JournalRevision>, skip: usize) -> Replay {
        Replay {
            pending: log.skip(skip),
        }
    }
}

impl RevisionCursor for Replay {
    fn next(&mut self) -> Result<Option<JournalRevision>, JournalError> {
        Ok(self.pending.pop_front())
    }
}
