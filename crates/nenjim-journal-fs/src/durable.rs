//! Durable writes on a local file system: every write that the append path
//! makes on a local root goes through here (the local [`Store`](crate::Store)).
//!
//! - [`create_file`] and [`create_by_digest`]: a new file, durable before
//!   it has its name: streamed to a temporary file (hashed on the way, for a
//!   file named by its SHA-256), synced, then linked to its final name (a
//!   link never replaces an existing name: create-if-absent), and the
//!   directory synced.
//! - [`create_entry`]: a ledger entry, a symbolic link whose target is the
//!   record (atomic create-if-absent carrying its content), then the
//!   directory synced.
//! - [`measure`]: the size and SHA-256 of a stream, copied on the way: the
//!   one streaming hash of the workspace (blobs, `digest`, `verify-content`).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use nenjim_journal_api::valuetypes::{ContentDigest, ContentPointer};
use sha2::{Digest as _, Sha256};

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

/// The size of the buffer a stream is copied through.
pub const BUFFER_BYTES: usize = 64 * 1024;

/// The size and SHA-256 of everything `reader` yields, read through a fixed
/// buffer (never whole in memory) and copied to `copy` on the way (pass
/// [`io::sink()`] to only measure).
pub fn measure(reader: &mut dyn Read, copy: &mut dyn Write) -> io::Result<ContentPointer> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; BUFFER_BYTES];
    let mut size = 0u64;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = buffer.get(..n).unwrap_or_default();
        hasher.update(chunk);
        copy.write_all(chunk)?;
        size += n as u64;
    }
    Ok(ContentPointer::new(
        ContentDigest::from_bytes(hasher.finalize().into()),
        size,
    ))
}

/// Creates `path` with `bytes`, durably, unless it exists: writes a
/// temporary file in `tmp_dir` (on the same file system), syncs it, links
/// it to `path`, removes the temporary name and syncs `path`'s directory.
pub(crate) fn create_file(tmp_dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<Created> {
    let (created, _) = create_streamed(tmp_dir, &mut &bytes[..], |_| path.to_path_buf())?;
    Ok(created)
}

/// Creates `<dir>/<hex>`, the hex SHA-256 of everything `reader` yields,
/// durably, unless it exists: streams it to a temporary file in `tmp_dir`
/// (hashing on the way), syncs it, links it to its name.
pub(crate) fn create_by_digest(
    tmp_dir: &Path,
    dir: &Path,
    reader: &mut dyn Read,
) -> io::Result<(Created, ContentPointer)> {
    create_streamed(tmp_dir, reader, |pointer| {
        dir.join(pointer.digest().to_hex())
    })
}

/// Streams `reader` to a new temporary file in `tmp_dir`, syncs it, and
/// links it to the name `name` gives its pointer (create-if-absent).
fn create_streamed(
    tmp_dir: &Path,
    reader: &mut dyn Read,
    name: impl FnOnce(&ContentPointer) -> PathBuf,
) -> io::Result<(Created, ContentPointer)> {
    let tmp = tmp_dir.join(temporary_name());
    let result = write_synced(&tmp, reader).and_then(|pointer| {
        let path = name(&pointer);
        match fs::hard_link(&tmp, &path) {
            Ok(()) => Ok((Created::New, pointer, path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                Ok((Created::Exists, pointer, path))
            }
            Err(e) => Err(e),
        }
    });
    // The temporary name goes whatever happened (a crash leaves it to the
    // next open's clean-up).
    let removed = fs::remove_file(&tmp);
    let (created, pointer, path) = result?;
    if created == Created::New {
        removed?;
        sync_dir(parent(&path))?;
    }
    Ok((created, pointer))
}

/// Writes everything `reader` yields to the new file `path` and syncs it;
/// returns the bytes' size and SHA-256.
fn write_synced(path: &Path, reader: &mut dyn Read) -> io::Result<ContentPointer> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
    let pointer = measure(reader, &mut file)?;
    file.sync_all()?;
    Ok(pointer)
}

/// Replaces `path` with `bytes` durably (temporary file, sync, rename,
/// sync of the directory). Only for the lease, under its lock.
pub(crate) fn replace_file(tmp_dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = tmp_dir.join(temporary_name());
    let result = write_synced(&tmp, &mut &bytes[..]).and_then(|_| fs::rename(&tmp, path));
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)] // a test fails by panicking
mod tests {
    use std::io;

    use nenjim_journal_api::valuetypes::ContentDigest;

    use super::{BUFFER_BYTES, Created, create_by_digest, create_file, measure};

    #[test]
    fn streaming_measure_equals_one_shot_hash_across_buffer_boundaries() {
        for len in [
            0,
            1,
            BUFFER_BYTES - 1,
            BUFFER_BYTES,
            BUFFER_BYTES + 1,
            3 * BUFFER_BYTES + 7,
        ] {
            let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut copy = Vec::new();
            let pointer = measure(&mut data.as_slice(), &mut copy).unwrap();
            assert_eq!(pointer.digest(), &ContentDigest::of_bytes(&data), "{len}");
            assert_eq!(pointer.size(), len as u64);
            assert_eq!(copy, data, "length {len}");
        }
    }

    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_create_never_replaces_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.journal");
        assert_eq!(
            create_file(dir.path(), &path, b"first").unwrap(),
            Created::New
        );
        assert_eq!(
            create_file(dir.path(), &path, b"second").unwrap(),
            Created::Exists
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        assert_eq!(names(dir.path()), ["a.journal"]);
    }

    #[test]
    fn a_create_by_digest_names_the_file_by_its_bytes_and_never_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = vec![7u8; 2 * BUFFER_BYTES + 3];
        let hex = ContentDigest::of_bytes(&bytes).to_hex();
        let (created, pointer) =
            create_by_digest(dir.path(), dir.path(), &mut bytes.as_slice()).unwrap();
        assert_eq!(
            (created, pointer.size()),
            (Created::New, bytes.len() as u64)
        );
        assert_eq!(pointer.digest().to_hex(), hex);
        assert_eq!(std::fs::read(dir.path().join(&hex)).unwrap(), bytes);
        // The same bytes again: found, nothing written.
        let (again, _) = create_by_digest(dir.path(), dir.path(), &mut bytes.as_slice()).unwrap();
        assert_eq!(again, Created::Exists);
        // Other bytes under that name are left as they are (the caller compares).
        std::fs::remove_file(dir.path().join(&hex)).unwrap();
        std::fs::write(dir.path().join(&hex), b"damaged").unwrap();
        let (damaged, _) = create_by_digest(dir.path(), dir.path(), &mut bytes.as_slice()).unwrap();
        assert_eq!(damaged, Created::Exists);
        assert_eq!(std::fs::read(dir.path().join(&hex)).unwrap(), b"damaged");
        assert_eq!(names(dir.path()), [hex]);
        // A reader that fails leaves nothing behind.
        struct Failing;
        impl io::Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("injected"))
            }
        }
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        assert!(create_by_digest(&sub, &sub, &mut Failing).is_err());
        assert!(names(&sub).is_empty());
    }
}
