//! `init <root> [--store <store>] [--create] [--wait D] [--json]`: create a
//! root, and record its content store in the root's ledger metadata.
//!
//! `init` creates the root (a directory, or the prefix of a bucket), opens
//! its writer (which creates the ledger, `<root>/.ledger/`) and, with
//! `--store`, writes the *store record* `<root>/.ledger/store`:
//!
//! ```text
//! nenjim-store/1
//! store <the content store: an absolute directory, or a URL>
//! ```
//!
//! Every later command that needs a content store (`release`, `append`,
//! `verify-content`) uses the recorded one unless `--store` is given. A
//! store that does not exist is refused unless `--create` (a mistyped
//! `--store` would otherwise start an empty store). The record is not part
//! of the Journal: the loader never reads it; it is replaced (only if
//! unchanged since read, as the lease is) by a later `init --store`.
//!
//! A NATS root keeps the record in its key-value bucket
//! `NENJIM_<name>_meta` (the backend maps `<root>/.ledger/store` there).
//! Its content store is a choice as a directory's is: `init` without
//! `--store` records its own blob bucket (`store .`: the root itself),
//! with `--store` another store (a directory or a bucket URL). A NATS root
//! that records none (made by an older `init`, or by a writer without
//! `init`) keeps its blobs in its own bucket for the commands, as every
//! NATS root did before stores were recorded.

use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{ErrorKind, JournalError};
use serde::Serialize;

use super::publish::with_writer_at;
use nenjim_journal_root::{Creating, RecordedStore, Root};

use crate::address::locate;
use crate::args::InitArgs;
use crate::failure::{CliError, Status};
use crate::report::path_text;
use crate::ui::{Paint, Ui};

/// The `--json` document.
#[derive(Debug, Serialize)]
struct InitDocument {
    command: &'static str,
    ok: bool,
    root: String,
    /// The content store now recorded (`null`: none).
    store: Option<String>,
    /// Whether `init` created the root (false: it was there).
    created_root: bool,
    /// Whether `init` created the store (`--create` of a missing one).
    created_store: bool,
}

pub fn run(args: &InitArgs, ui: &Ui) -> Result<Status, CliError> {
    // A store that does not exist is refused before anything is created.
    let store_check = match &args.store {
        Some(store) => Some((
            RecordedStore::Other(record_text(store)?),
            require_store(store, args.create)?,
        )),
        None => None,
    };
    let root_address = locate(&args.root)?;
    // A root that keeps its blobs in itself when it records no store (a
    // NATS root's own bucket).
    let nats = root_address.backend().keeps_own_blobs();
    // A NATS root named as its own store is recorded as itself (the
    // address it is reached by may change).
    let store_check = match store_check {
        Some(_)
            if nats
                && args
                    .store
                    .as_deref()
                    .is_some_and(|s| same_nats_root(s, &root_address)) =>
        {
            Some((RecordedStore::Itself, false))
        }
        other => other,
    };
    let created_root = root_address
        .create(&Creating::new().replicas(args.replicas.map(usize::from)))
        .map_err(created_error)?;
    // What to record: `--store`; else a NATS root that records nothing
    // records its own bucket; else the record is kept.
    let recorded = root_address.recorded_store()?;
    let (record, created_store) = match store_check {
        Some((store, created)) => (Some(store), created),
        None if nats && recorded.is_none() => (Some(RecordedStore::Itself), false),
        None => (None, false),
    };
    let store = match record.as_ref().or(recorded.as_ref()) {
        Some(RecordedStore::Itself) => Some(path_text(&args.root)),
        Some(RecordedStore::Other(text)) => Some(text.clone()),
        None => None,
    };
    // The writer creates the ledger; the record is written under its lease.
    with_writer_at(
        &args.root,
        root_address.clone(),
        None,
        &args.writing,
        0,
        ui,
        |writer| {
            if let Some(store) = &record {
                root_address.record_store(writer, store)?;
            }
            Ok(())
        },
    )?;
    let document = InitDocument {
        command: "init",
        ok: true,
        root: path_text(&args.root),
        store,
        created_root,
        created_store,
    };
    if args.json {
        ui.print_json(&document)?;
    } else {
        let itself = nats && document.store.as_deref() == Some(document.root.as_str());
        let store = match &document.store {
            Some(store) => format!(
                "content store {store}{}",
                if created_store {
                    " (created)"
                } else if itself {
                    " (its own bucket)"
                } else {
                    ""
                }
            ),
            None => "no content store recorded (pass --store to record one)".to_owned(),
        };
        ui.print(&format!(
            "{} {}{}: {store}\n",
            ui.out(Paint::Good, "initialized"),
            document.root,
            if created_root { " (created)" } else { "" },
        ))?;
    }
    Ok(Status::Ok)
}

/// An error of creating the root, said as the command says it: a file in
/// its place and a refused `--replicas` are usage errors (exit 2).
fn created_error(error: JournalError) -> CliError {
    match error.kind() {
        ErrorKind::RootNotDirectory => CliError::usage("RootNotDirectory", error.message()),
        ErrorKind::Usage => CliError::usage("Usage", error.message()),
        _ => error.into(),
    }
}

/// How a store is recorded: a local directory absolute (later commands may
/// run elsewhere), a URL as typed.
fn record_text(store: &Path) -> Result<String, CliError> {
    match locate(store)?.local_path() {
        Some(path) => std::path::absolute(path)
            .map(|p| path_text(&p))
            .map_err(|e| CliError::io(path, "cannot make the store path absolute", e)),
        None => Ok(path_text(store)),
    }
}

/// Whether `store` (as typed) names the root `root`, one that keeps its
/// blobs in itself (a NATS root).
fn same_nats_root(store: &Path, root: &Root) -> bool {
    match locate(store) {
        Ok(store) => store.backend().keeps_own_blobs() && store.path() == root.path(),
        Err(_) => false,
    }
}

/// The content store recorded by `root` (as typed: a path or a URL; the
/// root itself, as typed, for `store .`), if any. A root that does not
/// exist records none; a NATS root that records none keeps its blobs in
/// its own bucket (see the module docs).
pub fn recorded_store(typed: &Path) -> Result<Option<PathBuf>, CliError> {
    let address = locate(typed)?;
    Ok(match address.recorded_store()? {
        Some(RecordedStore::Itself) => Some(typed.to_path_buf()),
        Some(RecordedStore::Other(store)) => Some(PathBuf::from(store)),
        None if address.backend().keeps_own_blobs() => Some(typed.to_path_buf()),
        None => None,
    })
}

/// The content store a command uses: `--store` if given, else the one
/// `root` records; `None` when neither names one.
pub fn store_for(root: &Path, explicit: Option<&Path>) -> Result<Option<PathBuf>, CliError> {
    match explicit {
        Some(store) => Ok(Some(store.to_path_buf())),
        None => recorded_store(root),
    }
}

/// [`store_for`], refusing a command that needs a store when none is named.
pub fn needed_store(root: &Path, explicit: Option<&Path>) -> Result<PathBuf, CliError> {
    store_for(root, explicit)?.ok_or_else(|| {
        CliError::usage(
            "StoreMissing",
            format!(
                "found no content store for {}, expected --store <store> or one recorded by `nenjim-journal init {} --store <store>`",
                path_text(root),
                path_text(root)
            ),
        )
    })
}

/// Requires the content store `store` to exist; with `create`, creates a
/// missing one (returns whether it did).
pub fn require_store(store: &Path, create: bool) -> Result<bool, CliError> {
    let address = locate(store)?;
    let (fs, dir) = crate::address::store(&address)?;
    match fs.metadata(&dir) {
        Ok(meta) if meta.kind() == nenjim_journal_fs::EntryKind::Directory => Ok(false),
        Ok(_) => Err(CliError::usage(
            "StoreNotDirectory",
            format!(
                "found a file at {}, expected a content store directory",
                path_text(store)
            ),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if !create {
                return Err(CliError::usage(
                    "StoreMissing",
                    format!(
                        "found no content store at {}, expected an existing one (a mistyped --store would start an empty store); pass --create to create it",
                        path_text(store)
                    ),
                ));
            }
            address.create(&Creating::new()).map_err(|e| {
                nenjim_journal_api::error::ErrorContext::context(
                    e,
                    "cannot create the content store",
                )
            })?;
            Ok(true)
        }
        Err(e) => Err(CliError::io(store, "cannot read the content store", e)),
    }
}
