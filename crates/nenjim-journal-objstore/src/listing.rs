//! Directories as key prefixes: listings (one LIST with a delimiter), the
//! read-ahead of a root's artifact listings, and `.keep` objects.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io;
use std::path::Path;
use std::sync::atomic::Ordering;

use futures::TryStreamExt as _;
use nenjim_journal_store::EntryKind;
use object_store::path::{Path as Key, PathPart};
use object_store::{ObjectStore as _, PutMode};

use crate::errors::{io_error, refused};
use crate::keys::key;
use crate::{KEEP, Listing, ObjectFs, bump};

impl ObjectFs {
    /// The entries of `path` with their kinds (one LIST with a delimiter,
    /// or a listing read ahead), reading ahead its sub-directories'.
    pub(crate) fn listing(&self, path: &Path) -> io::Result<Listing> {
        // Listed already by the prefetch of its parent's listing: used once.
        if let Some(listing) = self.listings.lock().ok().and_then(|mut l| l.remove(path)) {
            return Ok(listing);
        }
        let prefix = key(path)?;
        let listed = self.entries(&prefix)?;
        let dirs: Vec<String> = listed
            .common_prefixes
            .iter()
            .filter_map(|p| p.filename().map(str::to_owned))
            .collect();
        let files = listed.objects.iter().filter_map(|o| {
            o.location
                .filename()
                .map(|n| (OsString::from(n), Some(EntryKind::File)))
        });
        let listing: Listing = dirs
            .iter()
            .map(|n| (OsString::from(n), Some(EntryKind::Directory)))
            .chain(files)
            .collect();
        // The read-ahead listings below `path` are older than this one:
        // dropped, also when none is read ahead again (one directory left).
        if let Ok(mut listings) = self.listings.lock() {
            listings.retain(|dir, _| !dir.starts_with(path));
        }
        if dirs.len() > 1 {
            self.prefetch(path, &prefix, &dirs)?;
        }
        Ok(listing)
    }

    /// Reads ahead the listings of the sub-directories `dirs` of `path`
    /// (key `prefix`) with one recursive, paged listing instead of one
    /// listing each: a walk of a root (the loader's second level) then costs
    /// a LIST per thousand objects, not one per artifact. The listing
    /// starts after the ledger's `.ledger/` (whose entries a walk never
    /// lists; `AFTER_LEDGER_DIR`), and reads ahead no hidden directory:
    /// those are listed when asked for. Each read-ahead listing is handed out once, and a later
    /// listing of `path` reads them again.
    pub(crate) fn prefetch(&self, path: &Path, prefix: &Key, dirs: &[String]) -> io::Result<()> {
        let depth = prefix.parts().count();
        let offset = prefix
            .clone()
            .join(nenjim_journal_store::ledger::AFTER_LEDGER_DIR);
        let mut children: BTreeMap<String, BTreeSet<(String, bool)>> = dirs
            .iter()
            .filter(|d| !d.starts_with('.'))
            .map(|d| (d.clone(), BTreeSet::new()))
            .collect();
        let objects: Vec<object_store::ObjectMeta> = self
            .runtime
            .block_on(async {
                let mut stream = self.store.list_with_offset(Some(prefix), &offset);
                let mut objects = Vec::new();
                while let Some(object) = stream.try_next().await? {
                    objects.push(object);
                }
                Ok::<_, object_store::Error>(objects)
            })
            .map_err(io_error)?;
        // A listing page holds at most 1 000 keys (S3's, GCS's and Azure's limit).
        self.counters.list.fetch_add(
            (objects.len() as u64).div_ceil(1000).max(1),
            Ordering::Relaxed,
        );
        for object in objects {
            let parts: Vec<PathPart<'_>> = object.location.parts().skip(depth).collect();
            if let (Some(dir), Some(name)) = (parts.first(), parts.get(1))
                && let Some(entries) = children.get_mut(dir.as_ref())
            {
                entries.insert((name.as_ref().to_owned(), parts.len() > 2));
            }
        }
        let mut listings = self
            .listings
            .lock()
            .map_err(|_| io::Error::other("a listing thread panicked"))?;
        for (dir, entries) in children {
            let listing = entries
                .into_iter()
                .map(|(name, is_dir)| {
                    let kind = if is_dir {
                        EntryKind::Directory
                    } else {
                        EntryKind::File
                    };
                    (OsString::from(name), Some(kind))
                })
                .collect();
            listings.insert(path.join(dir), listing);
        }
        Ok(())
    }

    /// Makes the directory `dir` exist: puts an empty [`KEEP`] object in
    /// it unless this store knows it has one (an empty root then exists).
    pub fn ensure_dir(&self, dir: &Path) -> io::Result<()> {
        if self.dirs.lock().is_ok_and(|d| d.contains(dir)) {
            return Ok(());
        }
        let keep = key(&dir.join(KEEP))?;
        match self.put(&keep, b"", PutMode::Create) {
            Ok(()) => {}
            Err(e) if refused(&e) => {}
            Err(e) => return Err(io_error(e)),
        }
        if let Ok(mut dirs) = self.dirs.lock() {
            dirs.insert(dir.to_path_buf());
        }
        Ok(())
    }

    /// One LIST of `prefix` with a delimiter, as the store answers it
    /// (with a folder marker of `prefix` itself, which makes it exist:
    /// see [`entries`](Self::entries)).
    pub(crate) fn list_dir(&self, prefix: &Key) -> io::Result<object_store::ListResult> {
        bump(&self.counters.list);
        let prefix = (!prefix.as_ref().is_empty()).then_some(prefix);
        self.runtime
            .block_on(self.store.list_with_delimiter(prefix))
            .map_err(io_error)
    }

    /// The entries of the directory `prefix` (one LIST with a delimiter):
    /// without the "folder" marker of `prefix` itself (an empty object
    /// whose key is `prefix` and a `/`, as S3 consoles and other tools make),
    /// which `object_store` lists as the object `prefix`, named like the
    /// directory: no entry of it. A marker of a sub-directory is listed
    /// with that directory's prefix, not as an object.
    pub(crate) fn entries(&self, prefix: &Key) -> io::Result<object_store::ListResult> {
        let mut listed = self.list_dir(prefix)?;
        listed.objects.retain(|o| o.location != *prefix);
        Ok(listed)
    }
}
