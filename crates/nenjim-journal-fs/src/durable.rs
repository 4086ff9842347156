//! Durable writes on a local file system: every write that the append path
//! makes on a local root goes through here (the local [`Store`](crate::Store)).
//!
//! - [`create_file`]: a new file, durable before it has its name: written
//!   to a temporary file, synced, then linked to its final name (a link
//!   never replaces an existing name: create-if-absent), and the directory
//!   synced.
//! - [`create_entry`]: a ledger entry, a symbolic link whose target is the
//!   record (atomic create-if-absent carrying its content), then the
//!   directory synced.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The prefix of every temporary file the writer creates.
pub const TMP_PREFIX: &str = ".tmp-";

/// A name no other temporary file of this or another process has.
pub fn temporary_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{TMP_PREFIX}{}-{nanos}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Syncs the directory `dir`, so the names created in it are durable.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Whether a create-if-absent ([`Store::create`](crate::Store::create))
/// created the file or found one there already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Created {
    /// The file is new, with the given bytes, durably.
    New,
    /// A file already had that name; nothing was written.
    Exists,
}

/// Creates `path` with `bytes`, durably, unless it exists: writes a
/// temporary file in `tmp_dir` (on the same file system), syncs it, links
/// it to `path`, removes the temporary name and syncs `path`'s directory.
pub(crate) fn create_file(tmp_dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<Created> {
    let tmp = tmp_dir.join(temporary_name());
    let result = write_synced(&tmp, bytes).and_then(|()| fs::hard_link(&tmp, path));
    // The temporary name goes whatever happened (a crash leaves it to the
    // next open's clean-up).
    let removed = fs::remove_file(&tmp);
    match result {
        Ok(()) => {
            removed?;
            sync_dir(parent(path))?;
            Ok(Created::New)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(Created::Exists),
        Err(e) => Err(e),
    }
}

/// Writes `bytes` to the new file `path` and syncs it.
fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Replaces `path` with `bytes` durably (temporary file, sync, rename,
/// sync of the directory). Only for the lease, under its lock.
pub(crate) fn replace_file(tmp_dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = tmp_dir.join(temporary_name());
    let result = write_synced(&tmp, bytes).and_then(|()| fs::rename(&tmp, path));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    sync_dir(parent(path))
}

/// Creates the ledger entry `path` recording `record`, durably; fails with
/// `AlreadyExists` if the entry exists (another writer committed first).
pub(crate) fn create_entry(path: &Path, record: &str) -> io::Result<()> {
    std::os::unix::fs::symlink(record, path)?;
    sync_dir(parent(path))
}

/// Creates `dir` if it is missing, syncing its parent when it does.
pub(crate) fn ensure_dir(dir: &Path) -> io::Result<()> {
    match fs::create_dir(dir) {
        Ok(()) => sync_dir(parent(dir)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// Removes every temporary file of `dir` (leftovers of an interrupted
/// writer); a missing `dir` has none.
pub(crate) fn remove_temporaries(dir: &Path) -> io::Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with(TMP_PREFIX) {
            fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// The directory holding `path` (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `path`'s bytes, or `None` if there is no such file.
pub(crate) fn read_if_exists(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}
