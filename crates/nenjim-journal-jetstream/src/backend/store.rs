//! The backend as the seam's `Store`: the [`FileSystem`] the loader reads
//! and the [`BlobStore`] the writer writes, each path mapped to its place
//! on the server (see the [module docs](super)).

use std::ffi::OsString;
use std::io::{self, Read};
use std::path::Path;

use async_nats::jetstream::kv;
use bytes::Bytes;
use nenjim_journal_api::valuetypes::{ContentDigest, ContentPointer};
use nenjim_journal_store::{BlobStore, Created, EntryKind, EntryMetadata, FileSystem, Version};

use super::{CONTENT_DIR, NatsBackend, Place};
use crate::ledger::CONTENT_KEY_PREFIX;

fn unsupported(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "a NATS root keeps no {what} at {} (its ledger is the stream, its lease a key-value bucket)",
            path.display()
        ),
    )
}

fn not_found() -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, "no such file on this NATS root")
}

impl FileSystem for NatsBackend {
    fn metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        match self.place(path) {
            Place::Root => Ok(EntryMetadata::new(EntryKind::Directory, 0)),
            Place::Blob(key) => match self.ledger.blob_size(&key).map_err(super::io_of)? {
                Some(size) => Ok(EntryMetadata::new(EntryKind::File, size)),
                None => Err(not_found()),
            },
            Place::Kv(bucket, key) => match self.kv_get(bucket, &key)? {
                Some((value, _)) => Ok(EntryMetadata::new(EntryKind::File, value.len() as u64)),
                None => Err(not_found()),
            },
            Place::Other => Err(not_found()),
        }
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<EntryMetadata> {
        self.metadata(path)
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<OsString>> {
        match self.place(path) {
            Place::Root => Ok(Vec::new()),
            _ => Err(not_found()),
        }
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        let bytes = match self.place(path) {
            Place::Kv(bucket, key) => self.kv_get(bucket, &key)?.ok_or_else(not_found)?.0,
            Place::Blob(key) => {
                let mut reader = self
                    .ledger
                    .open_blob(&key)
                    .map_err(super::io_of)?
                    .ok_or_else(not_found)?;
                let mut bytes = Vec::new();
                (&mut reader)
                    .take(limit.saturating_add(1))
                    .read_to_end(&mut bytes)?;
                Bytes::from(bytes)
            }
            Place::Root => {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "the root is a directory",
                ));
            }
            Place::Other => return Err(not_found()),
        };
        if bytes.len() as u64 > limit {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!("the file holds {} bytes", bytes.len()),
            ));
        }
        Ok(bytes.to_vec())
    }
}

impl BlobStore for NatsBackend {
    fn get(&self, path: &Path, limit: u64) -> io::Result<Option<(Vec<u8>, Version)>> {
        match self.place(path) {
            Place::Kv(bucket, key) => match self.kv_get(bucket, &key)? {
                Some((value, _)) if value.len() as u64 > limit => Err(io::Error::new(
                    io::ErrorKind::FileTooLarge,
                    format!("the file holds {} bytes", value.len()),
                )),
                Some((value, revision)) => {
                    Ok(Some((value.to_vec(), Version::new(revision.to_string()))))
                }
                None => Ok(None),
            },
            Place::Blob(key) => match self.ledger.blob_size(&key).map_err(super::io_of)? {
                Some(_) => {
                    let bytes = FileSystem::read(self, path, limit)?;
                    let version = Version::new(ContentDigest::of_bytes(&bytes).to_hex());
                    Ok(Some((bytes, version)))
                }
                None => Ok(None),
            },
            // Nothing else is a file of a NATS root (a revision is in its
            // ledger entry, read through the ledger).
            _ => Ok(None),
        }
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let _ = dir;
        Ok(Vec::new())
    }

    fn put_if_absent(&self, path: &Path, bytes: &[u8]) -> io::Result<Created> {
        match self.place(path) {
            Place::Blob(key) => {
                match self
                    .ledger
                    .put_blob_if_absent(&key, bytes)
                    .map_err(super::io_of)?
                {
                    true => Ok(Created::New),
                    false => Ok(Created::Exists),
                }
            }
            Place::Kv(bucket, key) => {
                let store = self.kv(bucket, true)?.ok_or_else(not_found)?;
                let conn = self.ledger.conn();
                match conn.block_on(store.create(&key, Bytes::copy_from_slice(bytes))) {
                    Ok(_) => Ok(Created::New),
                    Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => Ok(Created::Exists),
                    Err(e) => Err(self.request_io("cannot write a key of the root's bucket", e)),
                }
            }
            Place::Root | Place::Other => Err(unsupported(path, "such file")),
        }
    }

    fn put_by_digest(
        &self,
        dir: &Path,
        reader: &mut dyn Read,
    ) -> io::Result<(Created, ContentPointer)> {
        if self.relative(dir).as_deref() != Some(CONTENT_DIR) {
            return Err(unsupported(dir, "content store but its own"));
        }
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes)?;
        let pointer = ContentPointer::new(ContentDigest::of_bytes(&bytes), bytes.len() as u64);
        let key = format!("{CONTENT_KEY_PREFIX}{}", pointer.digest().to_hex());
        let created = self
            .ledger
            .put_blob_if_absent(&key, &bytes)
            .map_err(super::io_of)?;
        Ok((
            if created {
                Created::New
            } else {
                Created::Exists
            },
            pointer,
        ))
    }

    fn put_record(&self, path: &Path, record: &str) -> io::Result<()> {
        let _ = record;
        Err(unsupported(path, "ledger entry file"))
    }

    fn replace_if_unchanged(
        &self,
        path: &Path,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> io::Result<Option<Version>> {
        let Place::Kv(bucket, key) = self.place(path) else {
            return Err(unsupported(path, "replaceable file"));
        };
        let store = self.kv(bucket, true)?.ok_or_else(not_found)?;
        let conn = self.ledger.conn();
        let value = Bytes::copy_from_slice(bytes);
        match expected {
            None => match conn.block_on(store.create(&key, value)) {
                Ok(revision) => Ok(Some(Version::new(revision.to_string()))),
                Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => Ok(None),
                Err(e) => Err(self.request_io("cannot write a key of the root's bucket", e)),
            },
            Some(version) => {
                let Ok(revision) = version.as_str().parse::<u64>() else {
                    return Ok(None);
                };
                match conn.block_on(store.update(&key, value, revision)) {
                    Ok(revision) => Ok(Some(Version::new(revision.to_string()))),
                    Err(e) if e.kind() == kv::UpdateErrorKind::WrongLastRevision => Ok(None),
                    Err(e) => Err(self.request_io("cannot write a key of the root's bucket", e)),
                }
            }
        }
    }

    fn open(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        match self.place(path) {
            Place::Blob(key) => match self.ledger.open_blob(&key).map_err(super::io_of)? {
                Some(reader) => Ok(Box::new(reader)),
                None => Err(not_found()),
            },
            Place::Kv(bucket, key) => {
                let (value, _) = self.kv_get(bucket, &key)?.ok_or_else(not_found)?;
                Ok(Box::new(io::Cursor::new(value)))
            }
            Place::Root | Place::Other => Err(not_found()),
        }
    }

    fn remove_all(&self, dir: &Path) -> io::Result<()> {
        Err(unsupported(dir, "removable directory"))
    }

    fn location(&self) -> String {
        self.root.to_string_lossy().into_owned()
    }
}
