//! The read side of a root: the [`FileSystem`] trait, the loader's only door
//! to the disk (or a bucket).
//!
//! Everything the loader learns about a root goes through a few read-only
//! calls, so a test (or a later hardening) can put a [`FileSystem`] in front
//! of the real one and inject faults: a permission denied, a file that
//! vanishes or turns into a directory between listing and reading.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::{self, Read};
use std::path::Path;

/// What kind of entry a path names, as far as the loader cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link (only reported by [`FileSystem::symlink_metadata`]).
    Symlink,
    /// Anything else: a FIFO, a socket, a device …
    Other,
}

impl EntryKind {
    /// A few words for diagnostics: "a regular file", "a directory" …
    pub fn describe(self) -> &'static str {
        match self {
            EntryKind::File => "a regular file",
            EntryKind::Directory => "a directory",
            EntryKind::Symlink => "a symbolic link",
            EntryKind::Other => "a special file",
        }
    }
}

/// The part of an entry's metadata the loader uses: its kind and its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EntryMetadata {
    kind: EntryKind,
    len: u64,
}

impl EntryMetadata {
    /// Metadata of an entry of `kind` holding `len` bytes.
    pub fn new(kind: EntryKind, len: u64) -> EntryMetadata {
        EntryMetadata { kind, len }
    }

    /// The entry's kind.
    pub fn kind(&self) -> EntryKind {
        self.kind
    }

    /// The entry's length in bytes (meaningful for regular files).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the entry holds no byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl From<std::fs::FileType> for EntryKind {
    fn from(file_type: std::fs::FileType) -> EntryKind {
        if file_type.is_symlink() {
            EntryKind::Symlink
        } else if file_type.is_dir() {
            EntryKind::Directory
        } else if file_type.is_file() {
            EntryKind::File
        } else {
            EntryKind::Other
        }
    }
}

impl From<&std::fs::Metadata> for EntryMetadata {
    fn from(metadata: &std::fs::Metadata) -> EntryMetadata {
        EntryMetadata::new(metadata.file_type().into(), metadata.len())
    }
}

/// Opens `path` for reading without following a symbolic link in its last
/// component (`O_NOFOLLOW`: a link is `ELOOP`) and without blocking on a
/// FIFO (`O_NONBLOCK`: the caller then refuses it from the handle's
/// metadata). `O_NONBLOCK` has no effect on reading a regular file.
#[cfg(unix)]
fn open_no_follow(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

/// Elsewhere, a plain open (the check of the opened handle still refuses
/// anything but a regular file).
#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// Read-only access to a directory tree: the only way the loader touches the disk.
///
/// Implementations never create, write, rename or delete anything. Errors
/// are plain [`io::Error`]s; the loader adds the path and keeps them as the
/// `source()` of its [`Io`](nenjim_journal_api::error::ErrorKind::Io) errors.
pub trait FileSystem: Send + Sync + fmt::Debug {
    /// The metadata of `path`, following symbolic links (used for the root only).
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata>;

    /// The metadata of `path` itself, never following a symbolic link.
    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata>;

    /// The names of the entries of the directory `path`, in any order,
    /// without `.` and `..`.
    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>>;

    /// [`read_dir`](Self::read_dir), with the kind of each entry where the
    /// listing itself tells it (never following a symbolic link); `None`
    /// leaves it to [`symlink_metadata`](Self::symlink_metadata).
    ///
    /// The default knows no kind. [`RealFileSystem`] takes them from the
    /// directory entries (`d_type` on Linux), which saves the loader one
    /// `lstat` per file: a tenth of a start on a root of 100 000 files.
    fn read_dir_with_kinds(&self, path: &Path) -> io::Result<Vec<(OsString, Option<EntryKind>)>> {
        Ok(self
            .read_dir(path)?
            .into_iter()
            .map(|name| (name, None))
            .collect())
    }

    /// The bytes of the regular file `path`, but never more than `limit + 1`
    /// of them: a result longer than `limit` means the file is over the limit.
    ///
    /// Fails (rather than reading) if `path` is no longer a regular file
    /// (never following a symbolic link, never waiting on a FIFO), or with
    /// [`io::ErrorKind::FileTooLarge`] if its metadata already says it holds
    /// more than `limit` bytes.
    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>>;

    /// [`read`](Self::read) into `buf`, which is cleared first and then
    /// holds the bytes (on an error, anything): a loader reading thousands
    /// of files in turn reuses one buffer's allocation, which is then also
    /// in the cache. The default replaces `buf` with what `read` returns
    /// (so a wrapper that forwards only `read` still sees every read);
    /// [`RealFileSystem`] reads into it, and its `read` is this.
    fn read_into(&self, path: &Path, limit: u64, buf: &mut Vec<u8>) -> io::Result<()> {
        *buf = self.read(path, limit)?;
        Ok(())
    }

    /// The directory `path`, opened once to list it and to read the files
    /// in it by name ([`Directory`]), or `None` (the default) where the
    /// file system only reads by path: the caller then uses
    /// [`read_dir_with_kinds`](Self::read_dir_with_kinds) and
    /// [`read_into`](Self::read_into) on the joined paths. A wrapper that
    /// does not forward it sees every listing and read as before.
    ///
    /// [`RealFileSystem`] opens it on Linux: a start lists an artifact's
    /// directory and opens each of its files relative to it, where every
    /// open by path walked the root's whole path again (perf, a start of
    /// 100 000 files: the opens were a tenth of it), and the listing needs
    /// no allocation an entry.
    fn open_dir(&self, path: &Path) -> io::Result<Option<Box<dyn Directory>>> {
        let _ = path;
        Ok(None)
    }

    /// The record of the ledger entry `path` (format section 9), at most
    /// a few hundred bytes. On a local root
    /// an entry is a symbolic link whose target is the record (read with
    /// `readlink`, never followed); an object store reads the entry object's
    /// bytes. A missing entry is `NotFound`. The default (a tree without
    /// ledger entries) supports none: `io::ErrorKind::Unsupported`; every
    /// wrapper must forward it.
    fn read_record(&self, path: &Path) -> io::Result<Vec<u8>> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("{} cannot read ledger records", path.display()),
        ))
    }

    /// The bytes of the revision file `path` that a ledger records with
    /// `digest` (the SHA-256 of its exact bytes), read as
    /// [`read`](Self::read) reads them. The default reads it; a read-through
    /// cache answers from its copy named by `digest` once it has checked the
    /// copy's SHA-256 (a revision file never changes), and fetches only
    /// what it has not. The caller still checks size and digest.
    fn read_recorded(
        &self,
        path: &Path,
        limit: u64,
        digest: &nenjim_journal_api::valuetypes::RevisionDigest,
    ) -> io::Result<Vec<u8>> {
        let _ = digest;
        self.read(path, limit)
    }

    /// [`read_record`](Self::read_record) of each of `paths`, in their
    /// order: a ledger reader's batch. The default reads them one after
    /// another (through `read_record`, so a wrapper that forwards it sees
    /// each); a store over a network reads them with concurrent requests.
    fn read_records(&self, paths: &[std::path::PathBuf]) -> Vec<io::Result<Vec<u8>>> {
        paths.iter().map(|path| self.read_record(path)).collect()
    }
}

/// A directory opened by [`FileSystem::open_dir`]: its listing, and reads
/// of the files in it by name, relative to the opened directory (so a
/// directory renamed after it was opened is still the one read).
pub trait Directory: Send + fmt::Debug {
    /// [`FileSystem::read_dir_with_kinds`] of this directory.
    fn entries_with_kinds(&mut self) -> io::Result<Vec<(OsString, Option<EntryKind>)>>;

    /// [`FileSystem::read_into`] of the file `name` in this directory.
    fn read_into(&self, name: &OsStr, limit: u64, buf: &mut Vec<u8>) -> io::Result<()>;
}

/// The operating system's file system, through `std::fs`.
///
/// [`read`](FileSystem::read) opens the file with `O_NOFOLLOW` (a symbolic
/// link is refused at open, `ELOOP`, never followed) and `O_NONBLOCK` (a
/// FIFO opens at once instead of waiting for a writer), then checks the
/// opened handle is a regular file: so a file replaced by a link, a FIFO, a
/// directory or anything else after it was listed is refused with an
/// `io::Error`, and nothing but the listed regular file is ever read.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealFileSystem;

impl FileSystem for RealFileSystem {
    fn read_record(&self, path: &Path) -> io::Result<Vec<u8>> {
        Ok(std::fs::read_link(path)?
            .into_os_string()
            .into_encoded_bytes())
    }

    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        std::fs::metadata(path).map(|m| EntryMetadata::from(&m))
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        std::fs::symlink_metadata(path).map(|m| EntryMetadata::from(&m))
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        std::fs::read_dir(path)?
            .map(|entry| entry.map(|e| e.file_name()))
            .collect()
    }

    fn read_dir_with_kinds(&self, path: &Path) -> io::Result<Vec<(OsString, Option<EntryKind>)>> {
        std::fs::read_dir(path)?
            .map(|entry| {
                // `file_type` is the entry's own type (a link is a link), read
                // from the listing when the file system records it.
                entry.map(|e| (e.file_name(), e.file_type().ok().map(EntryKind::from)))
            })
            .collect()
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.read_into(path, limit, &mut bytes)?;
        Ok(bytes)
    }

    fn read_into(&self, path: &Path, limit: u64, buf: &mut Vec<u8>) -> io::Result<()> {
        buf.clear();
        read_opened(open_no_follow(path)?, limit, buf)
    }

    #[cfg(target_os = "linux")]
    fn open_dir(&self, path: &Path) -> io::Result<Option<Box<dyn Directory>>> {
        use rustix::fs::{Mode, OFlags};
        let fd = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Some(Box::new(OpenDirectory { fd })))
    }
}

/// The checks of an opened entry, from its handle's metadata: still a
/// regular file (the entry was one when it was listed; one replaced in
/// between is not read), and not over `limit` bytes.
fn check_opened(is_file: bool, is_dir: bool, len: u64, limit: u64) -> io::Result<()> {
    if !is_file {
        let kind = if is_dir {
            io::ErrorKind::IsADirectory
        } else {
            io::ErrorKind::InvalidInput
        };
        return Err(io::Error::new(
            kind,
            "the entry is no longer a regular file",
        ));
    }
    if len > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("the file holds {len} bytes"),
        ));
    }
    Ok(())
}

/// Gives the empty `buf` a capacity of at least `need` bytes and at most
/// `most`: a new allocation where it has not (growing the old one would
/// copy it). A buffer being reused gets room for the next few files of a
/// chain, which grow; `read`'s, new, is exact.
fn make_room(buf: &mut Vec<u8>, need: usize, most: usize) {
    if buf.capacity() < need || buf.capacity() > most {
        let room = if buf.capacity() == 0 { 0 } else { need / 2 };
        *buf = Vec::with_capacity(need.saturating_add(room).min(most));
    }
}

/// The rest of [`RealFileSystem`]'s `read_into`, once `file` is open
/// (`O_NOFOLLOW | O_NONBLOCK`): `buf` is empty.
fn read_opened(file: std::fs::File, limit: u64, buf: &mut Vec<u8>) -> io::Result<()> {
    let metadata = file.metadata()?;
    check_opened(metadata.is_file(), metadata.is_dir(), metadata.len(), limit)?;
    let capacity = usize::try_from(metadata.len().min(limit.saturating_add(1))).unwrap_or(0);
    make_room(buf, capacity, usize::MAX);
    file.take(limit.saturating_add(1)).read_to_end(buf)?;
    Ok(())
}

/// [`RealFileSystem`]'s open directory (Linux): the listing read with
/// `getdents64` into a buffer on the stack, the files opened with `openat`
/// relative to it, with the flags and checks of its `read`.
#[cfg(target_os = "linux")]
#[derive(Debug)]
struct OpenDirectory {
    fd: std::os::fd::OwnedFd,
}

#[cfg(target_os = "linux")]
impl Directory for OpenDirectory {
    fn entries_with_kinds(&mut self) -> io::Result<Vec<(OsString, Option<EntryKind>)>> {
        use rustix::fs::FileType;
        use std::os::unix::ffi::OsStrExt as _;
        let mut buf = [const { std::mem::MaybeUninit::<u8>::uninit() }; 8192];
        let mut dir = rustix::fs::RawDir::new(&self.fd, &mut buf);
        let mut entries = Vec::new();
        while let Some(entry) = dir.next() {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            // The entry's own type (a link is a link), as `read_dir_with_kinds`
            // reads it; `Unknown` (a file system without `d_type`) is left to
            // `symlink_metadata`.
            let kind = match entry.file_type() {
                FileType::RegularFile => Some(EntryKind::File),
                FileType::Directory => Some(EntryKind::Directory),
                FileType::Symlink => Some(EntryKind::Symlink),
                FileType::Unknown => None,
                _ => Some(EntryKind::Other),
            };
            entries.push((OsStr::from_bytes(name).to_owned(), kind));
        }
        Ok(entries)
    }

    fn read_into(&self, name: &OsStr, limit: u64, buf: &mut Vec<u8>) -> io::Result<()> {
        use rustix::fs::{Mode, OFlags};
        buf.clear();
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        // The size from the handle, then the whole file in one `read` where
        // it is what the size says: a read that returns less than asked
        // for is at the end of a regular file, so asking for one byte more
        // than the size saves the read that finds the end (a start reads
        // 100 000 files). A file that grew, shrank or was read short is
        // read on to its end as `read` reads it.
        let stat = rustix::fs::fstat(&fd)?;
        let kind = rustix::fs::FileType::from_raw_mode(stat.st_mode);
        let len = u64::try_from(stat.st_size).unwrap_or(0);
        check_opened(
            kind == rustix::fs::FileType::RegularFile,
            kind == rustix::fs::FileType::Directory,
            len,
            limit,
        )?;
        let want = usize::try_from(len.saturating_add(1)).unwrap_or(usize::MAX);
        let most = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
        // The first read fills the spare capacity: never beyond the limit.
        make_room(buf, want, most);
        let read = loop {
            match rustix::io::read(&fd, rustix::buffer::spare_capacity(buf)) {
                Err(rustix::io::Errno::INTR) => continue,
                read => break read?,
            }
        };
        if read as u64 == len {
            return Ok(());
        }
        let rest = limit.saturating_add(1).saturating_sub(read as u64);
        std::fs::File::from(fd).take(rest).read_to_end(buf)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly

    use super::{EntryKind, FileSystem, RealFileSystem};
    use std::io;

    #[test]
    fn read_into_replaces_the_buffer_and_keeps_an_allocation_large_enough() {
        let dir = tempfile::tempdir().unwrap();
        let (short, long) = (dir.path().join("short"), dir.path().join("long"));
        std::fs::write(&short, b"abc").unwrap();
        std::fs::write(&long, vec![b'x'; 5000]).unwrap();
        let fs = RealFileSystem;
        let mut buf = b"old bytes".to_vec();
        fs.read_into(&long, 10_000, &mut buf).unwrap();
        assert_eq!(buf, vec![b'x'; 5000]);
        assert_eq!(fs.read(&long, 10_000).unwrap().capacity(), 5000, "exact");
        // Room for a file half as large again: the next, shorter, file is
        // read into the same allocation, without the bytes before.
        assert!(buf.capacity() >= 7500, "{}", buf.capacity());
        let kept = buf.as_ptr();
        fs.read_into(&short, 10_000, &mut buf).unwrap();
        assert_eq!((buf.as_slice(), buf.as_ptr()), (&b"abc"[..], kept));
        assert_eq!(fs.read(&short, 10_000).unwrap(), b"abc");
        // The limit and the kind of the entry are checked as `read` checks them.
        let error = fs.read_into(&long, 4999, &mut buf).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
        let error = fs.read_into(dir.path(), 10_000, &mut buf).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::IsADirectory);
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&short, &link).unwrap();
            let error = fs.read_into(&link, 10_000, &mut buf).unwrap_err();
            assert_eq!(error.raw_os_error(), Some(libc::ELOOP));
        }
    }

    /// The opened directory of the real file system (Linux): its listing
    /// gives each entry's own kind, its reads are `read`'s, relative to the
    /// directory opened even after the directory is renamed.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_opened_directory_lists_kinds_and_reads_by_name_as_read_does() {
        use std::ffi::OsStr;
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("dir");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("file"), b"abc").unwrap();
        std::fs::write(dir.join("large"), vec![b'x'; 100]).unwrap();
        std::fs::create_dir(dir.join("sub")).unwrap();
        std::os::unix::fs::symlink(dir.join("file"), dir.join("link")).unwrap();
        let fifo = dir.join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let fs = RealFileSystem;
        let mut opened = fs.open_dir(&dir).unwrap().unwrap();
        let mut listed = opened.entries_with_kinds().unwrap();
        listed.sort_by(|a, b| a.0.cmp(&b.0));
        let mut by_path = fs.read_dir_with_kinds(&dir).unwrap();
        by_path.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(listed, by_path);
        let kinds: Vec<_> = listed
            .iter()
            .map(|(name, kind)| (name.to_str().unwrap(), *kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("fifo", Some(EntryKind::Other)),
                ("file", Some(EntryKind::File)),
                ("large", Some(EntryKind::File)),
                ("link", Some(EntryKind::Symlink)),
                ("sub", Some(EntryKind::Directory)),
            ]
        );
        // Renamed after it was opened: still the directory read.
        std::fs::rename(&dir, root.path().join("moved")).unwrap();
        let mut buf = b"old".to_vec();
        opened.read_into(OsStr::new("file"), 10, &mut buf).unwrap();
        assert_eq!(buf, b"abc");
        let error = |name: &str, limit| {
            let mut buf = Vec::new();
            opened
                .read_into(OsStr::new(name), limit, &mut buf)
                .unwrap_err()
        };
        assert_eq!(error("large", 99).kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(error("sub", 10).kind(), io::ErrorKind::IsADirectory);
        assert_eq!(error("link", 10).raw_os_error(), Some(libc::ELOOP));
        // A FIFO opens without waiting for a writer and is refused.
        assert_eq!(error("fifo", 10).kind(), io::ErrorKind::InvalidInput);
        assert_eq!(error("gone", 10).kind(), io::ErrorKind::NotFound);
        assert!(fs.open_dir(&root.path().join("dir")).is_err());
    }

    /// A listing longer than the opened directory's buffer (8 KiB) is read
    /// in several `getdents64` calls, every entry once.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_opened_directory_lists_more_entries_than_its_buffer_holds() {
        let dir = tempfile::tempdir().unwrap();
        for n in 0..1000 {
            std::fs::write(
                dir.path()
                    .join(format!("{n:04}-a-rather-long-name.journal")),
                b"",
            )
            .unwrap();
        }
        let fs = RealFileSystem;
        let mut opened = fs.open_dir(dir.path()).unwrap().unwrap();
        let mut listed = opened.entries_with_kinds().unwrap();
        listed.sort_by(|a, b| a.0.cmp(&b.0));
        let mut by_path = fs.read_dir_with_kinds(dir.path()).unwrap();
        by_path.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(listed.len(), 1000);
        assert_eq!(listed, by_path);
    }

    /// A read by name is one `read` when the file holds what its size
    /// says; a file that holds more (a `/proc` file says 0 bytes) is read
    /// on to its end, never beyond the limit and one byte.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_opened_directory_reads_on_past_the_size_and_stops_at_the_limit() {
        use std::ffi::OsStr;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        std::fs::write(dir.path().join("some"), b"some bytes").unwrap();
        let fs = RealFileSystem;
        let opened = fs.open_dir(dir.path()).unwrap().unwrap();
        let mut buf = Vec::with_capacity(1 << 16);
        opened
            .read_into(OsStr::new("empty"), 100, &mut buf)
            .unwrap();
        assert!(buf.is_empty());
        opened.read_into(OsStr::new("some"), 100, &mut buf).unwrap();
        assert_eq!(buf, b"some bytes");
        // A buffer larger than the limit allows is not read into whole.
        assert!(buf.capacity() <= 101, "{}", buf.capacity());
        let status = OsStr::new("status");
        let proc = fs
            .open_dir(std::path::Path::new("/proc/self"))
            .unwrap()
            .unwrap();
        assert_eq!(
            fs.metadata(std::path::Path::new("/proc/self/status"))
                .unwrap()
                .len(),
            0
        );
        proc.read_into(status, 1 << 20, &mut buf).unwrap();
        assert!(buf.starts_with(b"Name:") && buf.len() > 100, "{buf:?}");
        proc.read_into(status, 10, &mut buf).unwrap();
        assert!(buf.starts_with(b"Name:"), "{buf:?}");
        assert_eq!(buf.len(), 11);
    }
}
