//! `put-blob --store <dir> <file> [--json]`: copy a file into a content
//! store (`<store>/blobs/sha256/<hex>`), streamed and durably, and print its
//! content pointer (`sha256:<hex> <size>`, what a `CONTENT` line says).
//! Putting a blob the store already holds is a success; a different blob
//! under that name is `BlobMismatch` (exit 1).

use serde::Serialize;

use super::durable;
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
    /// Where the blob is: `<store>/blobs/sha256/<hex>`.
    path: String,
    /// False when the store already held it.
    new: bool,
}

pub fn run(args: &PutBlobArgs, ui: &Ui) -> Result<Status, CliError> {
    let put = durable::put_blob(&args.store, &args.file)?;
    if args.json {
        ui.print_json(&PutBlobDocument {
            command: "put-blob",
            ok: true,
            store: path_text(&args.store),
            file: path_text(&args.file),
            pointer: put.pointer.to_string(),
            digest: put.pointer.digest().to_string(),
            size: put.pointer.size(),
            path: path_text(&put.path),
            new: put.new,
        })?;
    } else {
        ui.print(&format!("{}\n", put.pointer))?;
    }
    Ok(Status::Ok)
}
