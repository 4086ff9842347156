//! The local implementation of [`BlobStore`]: durable writes on a local
//! file system ([`RealFileSystem`]). Every write the append path makes on a
//! local root goes through here, and everything local to them (temporary
//! files, directory syncs, the lease's lock) lives here alone.
//!
//! - a new object ([`BlobStore::put_if_absent`], [`BlobStore::put_by_digest`])
//!   is streamed to a temporary file beside its target (a hidden
//!   `.tmp-<pid>-<nanos>-<n>` name, which the loader ignores), hashed on the
//!   way, synced, then hard-linked to its final name (a link never replaces
//!   an existing name: create-if-absent), the temporary name removed and
//!   the directory synced; missing directories are created and synced first;
//! - a ledger entry ([`BlobStore::put_record`]) is a symbolic link whose
//!   target is the record (atomic create-if-absent carrying its content),
//!   then the directory synced;
//! - a batch ([`BlobStore::put_many_if_absent`], [`BlobStore::put_records`]:
//!   group commit) makes the same steps for every object of the batch
//!   before the next step: every temporary file written, then one
//!   `syncfs(2)` of the file system (on Linux; elsewhere each file and
//!   directory synced), then every link, then one `syncfs(2)` again;
//!   entries are created in order, then their directory synced once. A
//!   batch costs two barriers and one directory sync, not three syncs per
//!   object;
//! - the lease ([`BlobStore::replace_if_unchanged`]) is compared and renamed
//!   into place under an exclusive `flock` on `<path>.lock`, since a local
//!   file system has no conditional rename.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use nenjim_journal_api::valuetypes::{ContentPointer, RevisionDigest};

use crate::blob::{BlobStore, Created, Version, measure};
use crate::file_system::RealFileSystem;

/// The prefix of every temporary file the local store creates.
pub const TMP_PREFIX: &str = ".tmp-";

/// The suffix of the lock file beside a file replaced only if unchanged.
pub const LOCK_SUFFIX: &str = ".lock";

/// A name no other temporary file of this or another process has.
pub(crate) fn temporary_name() -> String {
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
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Creates `path` with `bytes`, durably, unless it exists: writes a
/// temporary file beside it, syncs it, links it to `path`, removes the
/// temporary name and syncs `path`'s directory.
fn create_file(path: &Path, bytes: &[u8]) -> io::Result<Created> {
    let dir = parent(path);
    ensure_dirs(dir)?;
    let (created, _) = create_streamed(dir, &mut &bytes[..], |_| path.to_path_buf())?;
    Ok(created)
}

/// Creates `<dir>/<hex>`, the hex SHA-256 of everything `reader` yields,
/// durably, unless it exists: streams it to a temporary file in `dir`
/// (hashing on the way), syncs it, links it to its name.
fn create_by_digest(dir: &Path, reader: &mut dyn Read) -> io::Result<(Created, ContentPointer)> {
    ensure_dirs(dir)?;
    create_streamed(dir, reader, |pointer| dir.join(pointer.digest().to_hex()))
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
    // The temporary name goes whatever happened (a crash leaves a hidden
    // name, which the loader ignores).
    let removed = fs::remove_file(&tmp);
    let (created, pointer, path) = result?;
    if created == Created::New {
        removed?;
        sync_dir(parent(&path))?;
    } else {
        // A file already there (placed by hand, say) is made durable too.
        File::open(&path)?.sync_all()?;
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

/// Replaces `path` with `bytes` durably (temporary file beside it, sync,
/// rename, sync of the directory). Only for the lease, under its lock.
fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = parent(path).join(temporary_name());
    let result = write_synced(&tmp, &mut &bytes[..]).and_then(|_| fs::rename(&tmp, path));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    sync_dir(parent(path))
}

/// Creates the ledger entry `path` recording `record`, durably; fails with
/// `AlreadyExists` if the entry exists (another writer committed first).
fn create_entry(path: &Path, record: &str) -> io::Result<()> {
    ensure_dirs(parent(path))?;
    std::os::unix::fs::symlink(record, path)?;
    sync_dir(parent(path))
}

/// Creates every `(path, bytes)` unless it exists, with one durability
/// barrier for the data and one for the names, whatever the batch's size:
/// the missing directories are created, every temporary file written, then
/// all made durable at once ([`barrier`]), then every one linked to its
/// name, then all the names made durable at once. A named file is never
/// torn (its bytes were durable before it had its name), so a file left
/// without its ledger entry by a crash is recorded by the next append of
/// the same text, as after a single append.
fn create_files(objects: &[(&Path, &[u8])]) -> io::Result<Vec<Created>> {
    let mut touched: BTreeSet<PathBuf> = BTreeSet::new();
    let mut dirs: Vec<&Path> = objects.iter().map(|(path, _)| parent(path)).collect();
    dirs.sort_unstable();
    dirs.dedup();
    for dir in &dirs {
        make_dirs_unsynced(dir, &mut touched)?;
    }
    let mut temps: Vec<PathBuf> = Vec::with_capacity(objects.len());
    let result = link_all(objects, &dirs, &mut temps);
    // The temporary names go whatever happened (a crash leaves hidden
    // names, which the loader ignores).
    let mut removed = Ok(());
    for tmp in &temps {
        if let Err(e) = fs::remove_file(tmp)
            && e.kind() != io::ErrorKind::NotFound
        {
            removed = Err(e);
        }
    }
    let created = result?;
    removed?;
    touched.extend(dirs.iter().map(|d| d.to_path_buf()));
    barrier(&touched)?;
    Ok(created)
}

/// The written, made durable and linked steps of [`create_files`], each
/// for the whole batch before the next (each file is closed once written,
/// so a batch never holds more than one descriptor open).
fn link_all(
    objects: &[(&Path, &[u8])],
    dirs: &[&Path],
    temps: &mut Vec<PathBuf>,
) -> io::Result<Vec<Created>> {
    for (path, bytes) in objects {
        let tmp = parent(path).join(temporary_name());
        let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        temps.push(tmp);
        file.write_all(bytes)?;
    }
    let dirs: BTreeSet<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    barrier(&dirs)?;
    let mut created = Vec::with_capacity(objects.len());
    for ((path, _), tmp) in objects.iter().zip(temps.iter()) {
        match fs::hard_link(tmp, path) {
            Ok(()) => created.push(Created::New),
            // A file already there (placed by hand, say): made durable by
            // the barrier after the links.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => created.push(Created::Exists),
            Err(e) => return Err(e),
        }
    }
    Ok(created)
}

/// Makes everything written in the file systems holding `dirs` durable:
/// on Linux one `syncfs(2)` per file system (the data, the names and the
/// directories of the whole batch at once, and its errors reported since
/// Linux 5.8); elsewhere each directory's files and the directory synced.
#[cfg(target_os = "linux")]
fn barrier(dirs: &BTreeSet<PathBuf>) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt as _;
    let mut devices = BTreeSet::new();
    for dir in dirs {
        let dir = File::open(dir)?;
        if devices.insert(dir.metadata()?.dev()) {
            rustix::fs::syncfs(&dir).map_err(io::Error::from)?;
        }
    }
    Ok(())
}

/// See the Linux version: without `syncfs`, every file of each directory
/// and the directory itself are synced.
#[cfg(not(target_os = "linux"))]
fn barrier(dirs: &BTreeSet<PathBuf>) -> io::Result<()> {
    for dir in dirs {
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                File::open(entry.path())?.sync_all()?;
            }
        }
        sync_dir(dir)?;
    }
    Ok(())
}

/// Creates `dir` and its missing ancestors without syncing, adding the
/// parent of each one created to `touched` (synced by the caller).
fn make_dirs_unsynced(dir: &Path, touched: &mut BTreeSet<PathBuf>) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(up) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        make_dirs_unsynced(up, touched)?;
    }
    match fs::create_dir(dir) {
        Ok(()) => {
            touched.insert(parent(dir).to_path_buf());
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates the ledger entries `records` in order, stopping at the first
/// that fails, then syncs their directories once: how many were created
/// durably, and the error that stopped them.
fn create_entries(records: &[(&Path, &str)]) -> (usize, io::Result<()>) {
    let mut dirs: BTreeSet<&Path> = BTreeSet::new();
    let mut done = 0;
    let mut stopped = Ok(());
    for (path, record) in records {
        let dir = parent(path);
        if !dirs.contains(dir) {
            if let Err(e) = ensure_dirs(dir) {
                stopped = Err(e);
                break;
            }
            dirs.insert(dir);
        }
        if let Err(e) = std::os::unix::fs::symlink(record, path) {
            stopped = Err(e);
            break;
        }
        done += 1;
    }
    for dir in dirs {
        if let Err(e) = sync_dir(dir) {
            // Created but not known durable: none is reported committed
            // (a later commit finds them, as after a single entry's failure).
            return (0, Err(e));
        }
    }
    (done, stopped)
}

/// Creates `dir` and its missing ancestors, syncing the parent of each one
/// created (so the new names are durable).
fn ensure_dirs(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(up) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        ensure_dirs(up)?;
    }
    match fs::create_dir(dir) {
        Ok(()) => sync_dir(parent(dir)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// The directory holding `path` (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Up to `limit + 1` bytes of `path`, or `None` if there is no such file;
/// `FileTooLarge` when its metadata says it is over `limit`.
fn read_if_exists(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    match crate::file_system::FileSystem::read(&RealFileSystem, path, limit) {
        Ok(bytes) if bytes.len() as u64 > limit => Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("the file holds more than {limit} bytes"),
        )),
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The version of local bytes: their SHA-256.
fn version_of(bytes: &[u8]) -> Version {
    Version::new(RevisionDigest::of_bytes(bytes).to_string())
}

impl BlobStore for RealFileSystem {
    fn get(&self, path: &Path, limit: u64) -> io::Result<Option<(Vec<u8>, Version)>> {
        Ok(read_if_exists(path, limit)?.map(|bytes| {
            let version = version_of(&bytes);
            (bytes, version)
        }))
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut names = Vec::new();
        for entry in entries {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if !name.starts_with('.') {
                names.push(name);
            }
        }
        Ok(names)
    }

    fn put_if_absent(&self, path: &Path, bytes: &[u8]) -> io::Result<Created> {
        create_file(path, bytes)
    }

    fn put_by_digest(
        &self,
        dir: &Path,
        reader: &mut dyn Read,
    ) -> io::Result<(Created, ContentPointer)> {
        create_by_digest(dir, reader)
    }

    fn put_record(&self, path: &Path, record: &str) -> io::Result<()> {
        create_entry(path, record)
    }

    fn put_many_if_absent(&self, objects: &[(&Path, &[u8])]) -> io::Result<Vec<Created>> {
        create_files(objects)
    }

    fn put_records(&self, records: &[(&Path, &str)]) -> (usize, io::Result<()>) {
        create_entries(records)
    }

    fn replace_if_unchanged(
        &self,
        path: &Path,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> io::Result<Option<Version>> {
        // The local file system has no conditional rename: the comparison
        // and the replacement happen under an exclusive lock on `<path>.lock`.
        ensure_dirs(parent(path))?;
        let mut lock_path = path.as_os_str().to_owned();
        lock_path.push(LOCK_SUFFIX);
        let lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)?;
        lock.lock()?;
        let current = read_if_exists(path, u64::MAX - 1)?.map(|b| version_of(&b));
        if current.as_ref() != expected {
            return Ok(None);
        }
        replace_file(path, bytes)?;
        Ok(Some(version_of(bytes)))
    }

    fn open(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        Ok(Box::new(File::open(path)?))
    }

    fn make_dir(&self, dir: &Path) -> io::Result<()> {
        ensure_dirs(dir)
    }

    fn remove_all(&self, dir: &Path) -> io::Result<()> {
        match fs::remove_dir_all(dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)] // a test fails by panicking
mod tests {
    use std::io;

    use nenjim_journal_api::valuetypes::ContentDigest;

    use super::{create_by_digest, create_file};
    use crate::blob::{BUFFER_BYTES, Created, measure};

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
        assert_eq!(create_file(&path, b"first").unwrap(), Created::New);
        assert_eq!(create_file(&path, b"second").unwrap(), Created::Exists);
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        assert_eq!(names(dir.path()), ["a.journal"]);
    }

    #[test]
    fn a_create_by_digest_names_the_file_by_its_bytes_and_never_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = vec![7u8; 2 * BUFFER_BYTES + 3];
        let hex = ContentDigest::of_bytes(&bytes).to_hex();
        let (created, pointer) = create_by_digest(dir.path(), &mut bytes.as_slice()).unwrap();
        assert_eq!(
            (created, pointer.size()),
            (Created::New, bytes.len() as u64)
        );
        assert_eq!(pointer.digest().to_hex(), hex);
        assert_eq!(std::fs::read(dir.path().join(&hex)).unwrap(), bytes);
        // The same bytes again: found, nothing written.
        let (again, _) = create_by_digest(dir.path(), &mut bytes.as_slice()).unwrap();
        assert_eq!(again, Created::Exists);
        // Other bytes under that name are left as they are (the caller compares).
        std::fs::remove_file(dir.path().join(&hex)).unwrap();
        std::fs::write(dir.path().join(&hex), b"damaged").unwrap();
        let (damaged, _) = create_by_digest(dir.path(), &mut bytes.as_slice()).unwrap();
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
        assert!(create_by_digest(&sub, &mut Failing).is_err());
        assert!(names(&sub).is_empty());
    }
}
