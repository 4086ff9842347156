//! The passive manager and the crate-private administration view it uses.

use std::path::Path;
use std::sync::Arc;

use nenjim_journal_api::JournalServiceManager;
use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::RefreshReport;

/// What the manager may do to its Journal. Crate-private: no consumer can
/// name it, and nothing reachable from a service reference leads to it.
pub(crate) trait Administration: Send + Sync + std::fmt::Debug {
    /// The normalized absolute root.
    fn journal_root(&self) -> &Path;
    /// Re-reads the root, publishing each accepted revision atomically.
    fn refresh(&self) -> Result<RefreshReport, JournalError>;
}

/// The passive [`JournalServiceManager`]: a distinct object bound to one
/// Journal through its [`Administration`] view.
#[derive(Debug)]
pub(crate) struct Manager {
    journal: Arc<dyn Administration>,
}

impl Manager {
    pub(crate) fn new(journal: Arc<dyn Administration>) -> Manager {
        Manager { journal }
    }
}

impl JournalServiceManager for Manager {
    fn journal_root(&self) -> &Path {
        self.journal.journal_root()
    }

    fn refresh(&self) -> Result<RefreshReport, JournalError> {
        self.journal.refresh()
    }
}
