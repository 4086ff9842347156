//! Recording a root without a ledger: what a start of the root holds, in
//! its order and with its sequences, committed by the ledger at once.

use nenjim_journal_api::error::JournalError;
use nenjim_journal_fs::LoadOptions;
use nenjim_journal_store::ledger::{self, Entry, Record};

use crate::{FsJournalWriter, append, io_error};

impl FsJournalWriter {
    /// Loads the root as a start does (once) and records it: the state is
    /// the one a load by the new ledger gives, so it is not loaded again.
    /// Returns the entries recorded.
    pub(crate) fn create_ledger(&mut self) -> Result<Vec<Entry>, JournalError> {
        let state = nenjim_journal_fs::load_with(self.fs(), &self.root, LoadOptions::new())?;
        let mut entries = Vec::with_capacity(usize::try_from(state.len()).unwrap_or(0));
        let mut cursor = state.replay(0);
        while let Some(revision) = cursor.next()? {
            let path = ledger::revision_path(
                &self.root,
                revision.coordinate(),
                revision.journal_version(),
            );
            let size = self
                .store
                .metadata(&path)
                .map_err(io_error(&path, "cannot read the revision file's size"))?
                .len();
            entries.push(Entry::new(
                revision.sequence(),
                Record::Revision(append::pointer(&revision, size)),
            ));
        }
        self.ledger.create(&entries)?;
        self.tip = state.last_sequence();
        self.state = state;
        Ok(entries)
    }
}
