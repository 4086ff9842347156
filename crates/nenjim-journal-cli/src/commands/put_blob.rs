//! `put-blob --store <store> <file> [--json]`: copy a file into a content
//! store (`<store>/blobs/sha256/<hex>`; a directory or a URL such as
//! `s3://bucket/prefix`), streamed and durably, and print its content
//! pointer (`sha256:<hex> <size>`, what a `CONTENT` line says). The put is
//! the writer's own ([`nenjim_journal_writer::put_blob_from`] over the
//! store's `BlobStore::put_by_digest`). Putting a blob the store already
//! holds is a success; a different blob under that name is `BlobMismatch`
//! (exit 1), and it is left as it is. A store that does not exist is
//! refused unless `--create`.

use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

use nenjim_journal_store::Store;
use serde::Serialize;

use crate::args::PutBlobArgs;
use crate::failure::{CliError, Status};
use crate::report::path_text;
use crate::ui::Ui;

/// The `--json` document.
#[derive(Debug, Serialize)]
struct PutBlobDocument {
    command: &'static str,
    ok: bool,
    store: String,
    file: String,
    /// `sha256:<hex> <size>`, as on a CONTENT line.
    pointer: String,
    digest: String,
    size: u64,
    /// Where the blob is: `<store>/blobs/sha256/<hex>` (a URL for a store
    /// given by URL).
    path: String,
    /// False when the store already held it.
    new: bool,
    /// Valid but most likely wrong: an empty (0-byte) file.
    warnings: Vec<String>,
}

pub fn run(args: &PutBlobArgs, ui: &Ui) -> Result<Status, CliError> {
    super::init::require_store(&args.store, args.create)?;
    let address = crate::address::locate(&args.store)?;
    let (fs, store): (Arc<dyn Store>, PathBuf) = crate::address::store(&address)?;
    let mut input =
        File::open(&args.file).map_err(|e| CliError::io(&args.file, "cannot open", e))?;
    let put = nenjim_journal_writer::put_blob_from(&*fs, &store, &mut input)?;
    let pointer = put.pointer();
    // The rule of a release's empty CONTENT.
    let warnings: Vec<String> = crate::warnings::empty_blob(&path_text(&args.file), &pointer)
        .into_iter()
        .collect();
    if args.json {
        ui.print_json(&PutBlobDocument {
            command: "put-blob",
            ok: true,
            store: path_text(&args.store),
            file: path_text(&args.file),
            pointer: pointer.to_string(),
            digest: pointer.digest().to_string(),
            size: pointer.size(),
            path: format!("{}{}", fs.location(), path_text(put.path())),
            new: put.is_new(),
            warnings,
        })?;
    } else {
        for warning in &warnings {
            ui.warn(warning);
        }
        ui.print(&format!("{pointer}\n"))?;
    }
    Ok(Status::Ok)
}
