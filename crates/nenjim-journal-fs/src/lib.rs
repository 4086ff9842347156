//! The read-only filesystem loader of a Journal root (section 7).
//!
//! INTERFACE STUB: the loader issue replaces these bodies; the signatures are fixed.
#![forbid(unsafe_code)]

use std::path::Path;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::RefreshReport;
use nenjim_journal_chain::ChainState;

/// How a root is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Read `<timestamp>.journal.example` files as if they were runtime
    /// revisions (in memory; nothing on disk changes). Off for `start()`.
    pub include_examples: bool,
}

impl LoadOptions {
    /// The options of `start()`: runtime revisions only.
    pub fn new() -> LoadOptions {
        LoadOptions::default()
    }
    /// Also read `*.journal.example` files as runtime revisions.
    #[must_use]
    pub fn with_examples(self, include_examples: bool) -> LoadOptions {
        LoadOptions { include_examples }
    }
}

/// Loads the whole root into a new state; fails on the first error, publishing nothing.
pub fn load(root: &Path, options: LoadOptions) -> Result<ChainState, JournalError> {
    let _ = (root, options);
    todo!()
}

/// Re-reads the root against `state`: unchanged files (same digest) are counted
/// without parsing; new files are parsed and ingested one at a time, each
/// handed to `publish` as soon as it is accepted. The first failure stops the
/// refresh and returns its error; everything published before it stays.
pub fn refresh(
    root: &Path,
    options: LoadOptions,
    state: &ChainState,
    publish: &mut dyn FnMut(ChainState),
) -> Result<RefreshReport, JournalError> {
    let _ = (root, options, state, publish);
    todo!()
}
