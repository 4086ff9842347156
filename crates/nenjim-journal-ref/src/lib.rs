//! The reference Journal: assembly, process lifecycle and the passive manager.
//!
//! INTERFACE STUB: the loader issue replaces these bodies; the signatures are fixed.
#![forbid(unsafe_code)]

use std::path::Path;
use std::sync::Arc;

use nenjim_journal_api::component::NenjimProcess;
use nenjim_journal_api::{JournalService, JournalServiceManager};
pub use nenjim_journal_fs::LoadOptions;

/// Holds one reference Journal and its manager. No lifecycle of its own.
#[derive(Debug)]
pub struct JournalAssembly {}

impl JournalAssembly {
    /// A Journal over `root` (normalized to absolute, lexically; touches no disk).
    pub fn new(root: impl AsRef<Path>) -> JournalAssembly {
        JournalAssembly::with_options(root, LoadOptions::default())
    }
    /// Same, reading the root with `options` (e.g. examples for the CLI).
    pub fn with_options(root: impl AsRef<Path>, options: LoadOptions) -> JournalAssembly {
        let _ = (root.as_ref(), options);
        todo!()
    }
    /// The read-only service view.
    pub fn service(&self) -> Arc<dyn JournalService> {
        todo!()
    }
    /// The lifecycle view of the same object.
    pub fn process(&self) -> Arc<dyn NenjimProcess> {
        todo!()
    }
    /// The passive manager.
    pub fn manager(&self) -> Arc<dyn JournalServiceManager> {
        todo!()
    }
}
