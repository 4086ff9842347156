//! Create-only, durable writes of the command itself (`successor -o` and
//! `put-blob`; revisions and ledger entries are the writer's).
//!
//! A file is never written in place: the bytes go to a temporary file in
//! the same directory (named `.tmp-…`, a dot-entry that a load ignores and
//! that the writer's `open` removes from a content store), which is synced
//! and then *linked* to its name. A link never replaces an existing name,
//! so an existing file is never touched, and the name never shows an empty
//! or partial file, even after a crash.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::model::build::{self, ErrorContext as _};
use nenjim_journal_api::valuetypes::{ContentDigest, ContentPointer};
use sha2::{Digest as _, Sha256};

use crate::failure::CliError;

/// The prefix of temporary files (the writer's own, so its clean-up applies).
const TMP_PREFIX: &str = ".tmp-";

/// A temporary path in `dir` that no other process or call uses.
fn temporary_in(dir: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    dir.join(format!(
        "{TMP_PREFIX}cli-{}-{nanos}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

/// The directory holding `path` (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Creates the new file `path` holding `bytes`, durably; fails with
/// `AlreadyExists` (touching nothing) if `path` exists.
pub fn create_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent(path);
    let tmp = temporary_in(dir);
    let result = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        })
        .and_then(|()| fs::hard_link(&tmp, path));
    // The temporary name goes whatever happened; a leftover is a dot-entry.
    let _ = fs::remove_file(&tmp);
    result?;
    sync_dir(dir)
}

/// Creates `dir` if missing (syncing its parent when it does).
fn ensure_dir(dir: &Path) -> io::Result<()> {
    match fs::create_dir(dir) {
        Ok(()) => sync_dir(parent(dir)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// A blob put into a store.
#[derive(Debug)]
pub struct PutBlob {
    /// Its content pointer.
    pub pointer: ContentPointer,
    /// `<store>/blobs/sha256/<hex>`.
    pub path: PathBuf,
    /// False when the store already held it.
    pub new: bool,
}

/// The size of the buffer blobs are copied through.
const BUFFER_BYTES: usize = 64 * 1024;

/// Copies `source` into `store` as `<store>/blobs/sha256/<hex>`, streamed
/// (never whole in memory) and durably; idempotent. A different blob under
/// that name is `BlobMismatch`.
pub fn put_blob(store: &Path, source: &Path) -> Result<PutBlob, CliError> {
    let mut input = File::open(source).map_err(|e| CliError::io(source, "cannot open", e))?;
    let blobs = store.join("blobs");
    let dir = blobs.join("sha256");
    for d in [store, &blobs, &dir] {
        ensure_dir(d).map_err(|e| CliError::io(d, "cannot create the content store", e))?;
    }
    let tmp = temporary_in(&dir);
    let copied = copy_hashed(&mut input, &tmp);
    let result = match copied {
        Ok(pointer) => {
            let path = dir.join(pointer.digest().to_hex());
            match fs::hard_link(&tmp, &path) {
                Ok(()) => Ok(PutBlob {
                    pointer,
                    path,
                    new: true,
                }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let found = File::open(&path)
                        .and_then(|mut f| hash(&mut f, None))
                        .map_err(|e| CliError::io(&path, "cannot read the stored blob", e))?;
                    if found == pointer {
                        Ok(PutBlob {
                            pointer,
                            path,
                            new: false,
                        })
                    } else {
                        Err(build::error(
                            ErrorKind::BlobMismatch,
                            format!(
                                "found a blob of {} bytes with digest {}, expected {pointer} (the store is damaged: that name must hold those bytes)",
                                found.size(),
                                found.digest()
                            ),
                        )
                        .with_path(&path)
                        .into())
                    }
                }
                Err(e) => Err(CliError::io(&path, "cannot write the blob", e)),
            }
        }
        Err(e) => Err(e),
    };
    let _ = fs::remove_file(&tmp);
    let put = result?;
    sync_dir(&dir).map_err(|e| CliError::io(&dir, "cannot sync the content store", e))?;
    Ok(put)
}

/// Copies `input` into the new file `tmp` (synced), returning its pointer.
fn copy_hashed(input: &mut File, tmp: &Path) -> Result<ContentPointer, CliError> {
    let mut output = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)
        .map_err(|e| CliError::io(tmp, "cannot create a temporary blob", e))?;
    let pointer =
        hash(input, Some(&mut output)).map_err(|e| CliError::io(tmp, "cannot copy the blob", e))?;
    output
        .sync_all()
        .map_err(|e| CliError::io(tmp, "cannot sync the blob", e))?;
    Ok(pointer)
}

/// The pointer of everything `input` yields, copied to `copy` if given.
fn hash(input: &mut File, mut copy: Option<&mut File>) -> io::Result<ContentPointer> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; BUFFER_BYTES];
    let mut size = 0u64;
    loop {
        let n = match input.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = buffer.get(..n).unwrap_or_default();
        hasher.update(chunk);
        if let Some(out) = copy.as_deref_mut() {
            out.write_all(chunk)?;
        }
        size += n as u64;
    }
    Ok(ContentPointer::new(
        ContentDigest::from_bytes(hasher.finalize().into()),
        size,
    ))
}

#[cfg(test)]
mod tests {
    use super::create_new;

    #[test]
    #[allow(clippy::panic)] // a test fails by panicking
    fn create_new_never_replaces_and_leaves_no_temporary() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("no temporary directory");
        };
        let path = dir.path().join("a.journal");
        assert!(create_new(&path, b"first").is_ok());
        let again = create_new(&path, b"second");
        assert_eq!(
            again.err().map(|e| e.kind()),
            Some(std::io::ErrorKind::AlreadyExists)
        );
        assert_eq!(std::fs::read(&path).ok(), Some(b"first".to_vec()));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert_eq!(names, vec![std::ffi::OsString::from("a.journal")]);
    }
}
