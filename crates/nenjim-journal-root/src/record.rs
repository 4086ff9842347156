//! The store record: the content store a root records (`init --store`), in
//! `<root>/.ledger/store`:
//!
//! ```text
//! nenjim-store/1
//! store <the content store: an absolute directory, or a URL; `.` the root itself>
//! ```
//!
//! It is not part of the Journal (the loader never reads it); it is
//! replaced only if unchanged since read, as the lease is. A NATS root
//! keeps it in its metadata bucket (its backend maps the path there).

use std::io;
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{self, JournalError};
use nenjim_journal_store::ledger;
use nenjim_journal_store::{FileSystem, Store};

/// The store record's first line.
pub const STORE_RECORD_HEADER: &str = "nenjim-store/1";
/// The largest store record read.
const RECORD_MAX: u64 = 64 * 1024;
/// The store a record names by `store .`: the root itself.
const ITSELF: &str = ".";

/// The content store a root records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordedStore {
    /// The root itself (`store .`: a NATS root's own bucket).
    Itself,
    /// Another store: an absolute directory or a URL, as recorded.
    Other(String),
}

impl RecordedStore {
    /// The record's text for this store.
    pub fn as_record(&self) -> &str {
        match self {
            RecordedStore::Itself => ITSELF,
            RecordedStore::Other(text) => text,
        }
    }

    /// The store a record's text names (`.`: the root itself).
    fn from_record(text: &str) -> RecordedStore {
        if text == ITSELF {
            RecordedStore::Itself
        } else {
            RecordedStore::Other(text.to_owned())
        }
    }
}

/// The path of the store record of `root` (a path in its store).
fn record_path(root: &Path) -> PathBuf {
    ledger::ledger_dir(root).join(ledger::STORE_RECORD)
}

/// The store named by the store record of `root` (in `fs`); `None` without
/// a record.
pub(crate) fn read(
    fs: &dyn FileSystem,
    root: &Path,
) -> Result<Option<RecordedStore>, JournalError> {
    let path = record_path(root);
    let bytes = match fs.read(&path, RECORD_MAX) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(error::io_error(&path, "cannot read the store record", e)),
    };
    let text = String::from_utf8(bytes).ok();
    let mut lines = text.as_deref().map(str::lines).into_iter().flatten();
    match (
        lines.next(),
        lines.next().and_then(|l| l.strip_prefix("store ")),
    ) {
        (Some(STORE_RECORD_HEADER), Some(store)) if !store.trim().is_empty() => {
            Ok(Some(RecordedStore::from_record(store.trim())))
        }
        _ => Err(error::io_error(
            &path,
            "cannot read the store record",
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "found a malformed store record, expected `{STORE_RECORD_HEADER}` then `store <store>` (write it again with `nenjim-journal init <root> --store <store>`)"
                ),
            ),
        )),
    }
}

/// Writes the store record of `root` (replacing an older one).
pub(crate) fn write(
    fs: &dyn Store,
    root: &Path,
    store: &RecordedStore,
) -> Result<(), JournalError> {
    let path = record_path(root);
    let text = format!("{STORE_RECORD_HEADER}\nstore {}\n", store.as_record());
    loop {
        let version = fs
            .get(&path, RECORD_MAX)
            .map_err(|e| error::io_error(&path, "cannot read the store record", e))?
            .map(|(_, version)| version);
        if fs
            .replace_if_unchanged(&path, text.as_bytes(), version.as_ref())
            .map_err(|e| error::io_error(&path, "cannot write the store record", e))?
            .is_some()
        {
            return Ok(());
        }
    }
}
