//! The ledger as `log/` entries and `segments/` checkpoints (the layout of
//! the [module docs](super)), over any store: [`SegmentedReader`] reads it
//! through a [`FileSystem`](crate::file_system::FileSystem) (the
//! loader's), [`SegmentedLedger`] also writes it through a
//! [`Store`](crate::blob::Store) (the writer's).
//!
//! One file for each: `reader.rs` (listing and reading segments and
//! entries, writing nothing) and `writer.rs` (commits, batches, and the one
//! place segments are written); this one holds what both need, the marker
//! check and the one `LedgerMismatch` constructor. A unit test lives with
//! the side it checks: reads and refused segments in `reader.rs`, commits
//! in `writer.rs`.

mod reader;
mod writer;

pub use reader::SegmentedReader;
pub use writer::SegmentedLedger;

use std::io;
use std::path::Path;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};

use super::{MARKER, ledger_dir};
use crate::file_system::FileSystem;

/// The one `LedgerMismatch` constructor: a ledger (or what it records)
/// found not to be what it says, at `path`.
pub fn mismatch(path: &Path, message: String) -> JournalError {
    error::error(ErrorKind::LedgerMismatch, message).with_path(path)
}
/// Whether `root` has a ledger (its marker exists).
fn exists(fs: &dyn FileSystem, root: &Path) -> Result<bool, JournalError> {
    let marker = ledger_dir(root).join(MARKER);
    match fs.symlink_metadata(&marker) {
        Ok(_) => Ok(true),
        // No root, or a root that is not a directory: no ledger (the
        // layout check reports the root's problem).
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(false)
        }
        Err(e) => Err(error::io_error(marker, "cannot read the ledger marker", e)),
    }
}
