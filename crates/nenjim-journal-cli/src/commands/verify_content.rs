//! `verify-content <root> [--store <dir>] [--examples] [--all-revisions] [--json]`:
//! for every release of every latest revision (or of every revision), check
//! that `<store>/blobs/sha256/<hex>` exists, has exactly the pointer's size
//! and hashes to its digest.
//!
//! Each distinct blob (digest) is read at most once, streamed through a
//! fixed buffer; a blob whose size on disk already differs from the pointer
//! is not read at all. Exit code 1 when a blob is missing, of the wrong size
//! or of the wrong digest; 2 when the store or a blob cannot be read (that
//! takes precedence, since the content could not be fully verified).
//! A `--store` given by URL (`s3://bucket/prefix` …) is read from its bucket.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::JournalService;
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::valuetypes::{ContentDigest, ContentPointer, ReleaseVersion};
use nenjim_journal_store::Store;
use nenjim_journal_store::{EntryKind, EntryMetadata};
use serde::Serialize;

use super::hash_stream;
use crate::args::VerifyContentArgs;
use crate::failure::{CliError, Status};
use crate::load::load;
use crate::report::{counted, path_text};
use crate::ui::{Paint, Ui};

/// The `--json` document.
#[derive(Debug, Serialize)]
struct VerifyDocument {
    command: &'static str,
    ok: bool,
    root: String,
    store: String,
    all_revisions: bool,
    /// Distinct content pointers checked.
    checked: usize,
    /// Pointers whose status is not `ok`.
    failed: usize,
    /// Every pointer checked, by digest then size.
    blobs: Vec<BlobJson>,
}

/// One content pointer and its verdict.
#[derive(Debug, Serialize)]
struct BlobJson {
    digest: String,
    /// The size the releases say.
    size: u64,
    /// `ok`, `missing`, `wrong-size`, `wrong-digest` or `unreadable`.
    status: &'static str,
    /// Where the blob is expected.
    path: String,
    /// The size found, when the blob exists.
    actual_size: Option<u64>,
    /// The digest found, when the blob was hashed.
    actual_digest: Option<String>,
    /// The I/O error, for `unreadable`.
    message: Option<String>,
    /// The releases that point at this blob.
    releases: Vec<ReleaseRef>,
}

#[derive(Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
struct ReleaseRef {
    coordinate: String,
    version: String,
}

/// What was found at a blob's path.
#[derive(Clone, Debug)]
enum Verdict {
    Ok,
    Missing,
    WrongSize { actual: u64 },
    WrongDigest { actual: ContentDigest },
    Unreadable { message: String },
}

impl Verdict {
    fn name(&self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Missing => "missing",
            Verdict::WrongSize { .. } => "wrong-size",
            Verdict::WrongDigest { .. } => "wrong-digest",
            Verdict::Unreadable { .. } => "unreadable",
        }
    }

    fn status(&self) -> Status {
        match self {
            Verdict::Ok => Status::Ok,
            Verdict::Missing | Verdict::WrongSize { .. } | Verdict::WrongDigest { .. } => {
                Status::Invalid
            }
            Verdict::Unreadable { .. } => Status::Trouble,
        }
    }
}

pub fn run(args: &VerifyContentArgs, ui: &Ui) -> Result<Status, CliError> {
    // `--store`, else the store the root records (`init --store`).
    let store = &super::init::needed_store(&args.root.root, args.store.as_deref())?;
    // A store given by URL (`s3://bucket/prefix` …) is read from its bucket.
    let located = crate::address::locate(store)?;
    let bucket = match located.local_path() {
        Some(_) => None,
        None => Some(crate::address::store(&located)?),
    };
    if bucket.is_none() {
        match std::fs::metadata(store) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(CliError::io(
                    store,
                    "cannot use the store",
                    io::Error::other("not a directory"),
                ));
            }
            Err(e) => return Err(CliError::io(store, "cannot use the store", e)),
        }
        if let Some(error) = super::store_layout::misplaced(store) {
            return Err(error);
        }
    }
    let loaded = load(&args.root, ui)?;
    let pointers = collect_pointers(&*loaded.service, args.all_revisions)?;

    let mut store_reader = match bucket {
        Some((fs, root)) => StoreReader::new(&root, Some(fs)),
        None => StoreReader::new(store, None),
    };
    let mut blobs = Vec::with_capacity(pointers.len());
    let mut status = Status::Ok;
    let mut text = String::new();
    for (pointer, releases) in &pointers {
        let verdict = store_reader.verify(pointer);
        status = status.max(verdict.status());
        let path = store_reader.blob_path(pointer.digest());
        let (actual_size, actual_digest, message) = match &verdict {
            Verdict::WrongSize { actual } => (Some(*actual), None, None),
            Verdict::WrongDigest { actual } => {
                (Some(pointer.size()), Some(actual.to_string()), None)
            }
            Verdict::Ok => (
                Some(pointer.size()),
                Some(pointer.digest().to_string()),
                None,
            ),
            Verdict::Missing => (None, None, None),
            Verdict::Unreadable { message } => (None, None, Some(message.clone())),
        };
        if !matches!(verdict, Verdict::Ok) {
            let used_by: Vec<String> = releases
                .iter()
                .map(|r| format!("{} {}", r.coordinate, r.version))
                .collect();
            let detail = match &verdict {
                Verdict::WrongSize { actual } => {
                    format!(", found {actual} bytes, expected {}", pointer.size())
                }
                Verdict::WrongDigest { actual } => format!(", found {actual}"),
                Verdict::Unreadable { message } => format!(", {message}"),
                Verdict::Ok | Verdict::Missing => String::new(),
            };
            let _ = writeln!(
                text,
                "{} {} ({} bytes){detail}; used by {}",
                ui.out(Paint::Bad, &format!("{:<12}", verdict.name())),
                pointer.digest(),
                pointer.size(),
                used_by.join(", ")
            );
        }
        blobs.push(BlobJson {
            digest: pointer.digest().to_string(),
            size: pointer.size(),
            status: verdict.name(),
            path: path_text(&path),
            actual_size,
            actual_digest,
            message,
            releases: releases.iter().map(|r| r.to_json()).collect(),
        });
    }
    let failed = blobs.iter().filter(|b| b.status != "ok").count();
    if args.json {
        ui.print_json(&VerifyDocument {
            command: "verify-content",
            ok: status == Status::Ok,
            root: path_text(&args.root.root),
            store: path_text(store),
            all_revisions: args.all_revisions,
            checked: blobs.len(),
            failed,
            blobs,
        })?;
    } else {
        if failed == 0 {
            let _ = writeln!(
                text,
                "{} {} verified in {}",
                ui.out(Paint::Good, "ok"),
                counted(pointers.len(), "blob"),
                path_text(store)
            );
        } else {
            let _ = writeln!(
                text,
                "{failed} of {} failed in {}",
                counted(pointers.len(), "blob"),
                path_text(store)
            );
        }
        ui.print(&text)?;
    }
    Ok(status)
}

/// A release that points at a blob.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Owner {
    coordinate: String,
    version: ReleaseVersion,
}

impl Owner {
    fn to_json(&self) -> ReleaseRef {
        ReleaseRef {
            coordinate: self.coordinate.clone(),
            version: self.version.to_string(),
        }
    }
}

/// Every distinct content pointer of the latest (or every) revision, with
/// the releases that use it.
fn collect_pointers(
    service: &dyn JournalService,
    all_revisions: bool,
) -> Result<BTreeMap<ContentPointer, BTreeSet<Owner>>, CliError> {
    let mut pointers: BTreeMap<ContentPointer, BTreeSet<Owner>> = BTreeMap::new();
    let mut add = |revision: &JournalRevision| {
        for release in revision.releases() {
            pointers
                .entry(*release.content())
                .or_default()
                .insert(Owner {
                    coordinate: release.coordinate().to_string(),
                    version: release.version().clone(),
                });
        }
    };
    for coordinate in service.coordinates()? {
        if all_revisions {
            for revision in service.revisions(&coordinate)? {
                add(&revision);
            }
        } else if let Some(latest) = service.latest(&coordinate)? {
            add(&latest);
        }
    }
    Ok(pointers)
}

/// Reads blobs from a store, each digest at most once.
struct StoreReader {
    blobs: PathBuf,
    /// The bucket the store is in (`None`: the local file system).
    bucket: Option<Arc<dyn Store>>,
    /// Per digest: the size on disk, or why there is none.
    probed: HashMap<ContentDigest, Result<u64, Verdict>>,
    /// Per digest: the streamed size and digest, or why it failed.
    hashed: HashMap<ContentDigest, Result<(u64, ContentDigest), String>>,
}

impl StoreReader {
    fn new(store: &Path, bucket: Option<Arc<dyn Store>>) -> StoreReader {
        StoreReader {
            blobs: nenjim_journal_store::content::blob_dir(store),
            bucket,
            probed: HashMap::new(),
            hashed: HashMap::new(),
        }
    }

    fn blob_path(&self, digest: &ContentDigest) -> PathBuf {
        self.blobs.join(digest.to_hex())
    }

    fn verify(&mut self, pointer: &ContentPointer) -> Verdict {
        let digest = *pointer.digest();
        let path = self.blob_path(&digest);
        let on_disk = self
            .probed
            .entry(digest)
            .or_insert_with(|| probe(self.bucket.as_deref(), &path))
            .clone();
        let size = match on_disk {
            Ok(size) => size,
            Err(verdict) => return verdict,
        };
        if size != pointer.size() {
            return Verdict::WrongSize { actual: size };
        }
        let hashed = self
            .hashed
            .entry(digest)
            .or_insert_with(|| hash_blob(self.bucket.as_deref(), &path))
            .clone();
        match hashed {
            Err(message) => Verdict::Unreadable { message },
            // The blob changed size between the look and the read.
            Ok((actual, _)) if actual != pointer.size() => Verdict::WrongSize { actual },
            Ok((_, actual)) if actual != digest => Verdict::WrongDigest { actual },
            Ok(_) => Verdict::Ok,
        }
    }
}

/// The size of the regular file at `path`, or why there is none.
fn probe(bucket: Option<&dyn Store>, path: &Path) -> Result<u64, Verdict> {
    let metadata = match bucket {
        Some(bucket) => bucket.metadata(path),
        None => std::fs::metadata(path).map(|m| EntryMetadata::from(&m)),
    };
    match metadata {
        Ok(m) if m.kind() == EntryKind::File => Ok(m.len()),
        Ok(_) => Err(Verdict::Unreadable {
            message: format!("{}: not a regular file", path_text(path)),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(Verdict::Missing),
        Err(e) => Err(Verdict::Unreadable {
            message: format!("{}: {e}", path_text(path)),
        }),
    }
}

fn hash_blob(bucket: Option<&dyn Store>, path: &Path) -> Result<(u64, ContentDigest), String> {
    let file: Box<dyn io::Read + Send> = match bucket {
        Some(bucket) => bucket.open(path),
        None => std::fs::File::open(path).map(|f| Box::new(f) as Box<dyn io::Read + Send>),
    }
    .map_err(|e| format!("{}: {e}", path_text(path)))?;
    let (size, bytes) = hash_stream(file).map_err(|e| format!("{}: {e}", path_text(path)))?;
    Ok((size, ContentDigest::from_bytes(bytes)))
}
