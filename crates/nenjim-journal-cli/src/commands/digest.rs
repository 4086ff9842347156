//! `digest <file> [--json]`: the revision digest of a file, `sha256:<hex>`
//! over its exact bytes (any bytes: the file need not be a valid revision).

use nenjim_journal_api::valuetypes::RevisionDigest;
use serde::Serialize;

use super::hash_stream;
use crate::args::DigestArgs;
use crate::failure::{CliError, Status};
use crate::report::path_text;
use crate::ui::Ui;

/// The `--json` document.
#[derive(Debug, Serialize)]
struct DigestDocument {
    command: &'static str,
    ok: bool,
    path: String,
    digest: String,
    size: u64,
}

pub fn run(args: &DigestArgs, ui: &Ui) -> Result<Status, CliError> {
    let path = &args.file;
    let file = std::fs::File::open(path).map_err(|e| CliError::io(path, "cannot open", e))?;
    let (size, bytes) = hash_stream(file).map_err(|e| CliError::io(path, "cannot read", e))?;
    let digest = RevisionDigest::from_bytes(bytes);
    if args.json {
        ui.print_json(&DigestDocument {
            command: "digest",
            ok: true,
            path: path_text(path),
            digest: digest.to_string(),
            size,
        })?;
    } else {
        ui.print(&format!("{digest}\n"))?;
    }
    Ok(Status::Ok)
}
