//! The content store's layout, for `verify-content`: a `--store` that is one
//! or two levels too deep (`<store>/blobs` or `<store>/blobs/sha256`) is
//! refused with the directory to pass instead.

use std::path::Path;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind};

use crate::failure::CliError;
use crate::report::path_text;

/// The error for a store without `blobs/sha256` that looks like a part of
/// one, or `None` when the layout is right (or not recognisably wrong).
pub fn misplaced(store: &Path) -> Option<CliError> {
    use nenjim_journal_store::content::{BLOBS_DIR, SHA256_DIR, blob_dir};
    if blob_dir(store).is_dir() {
        return None;
    }
    let name = store.file_name().map(|n| n.to_string_lossy().into_owned());
    let parent = if store.join(SHA256_DIR).is_dir() || name.as_deref() == Some(BLOBS_DIR) {
        store.parent()
    } else if name.as_deref() == Some(SHA256_DIR) {
        store.parent().and_then(Path::parent)
    } else {
        return None;
    };
    let instead = parent.map_or_else(
        || "its parent".to_owned(),
        |p| {
            if p.as_os_str().is_empty() {
                "`.`".to_owned()
            } else {
                format!("`{}`", path_text(p))
            }
        },
    );
    Some(CliError::Journal(
        error::error(
            ErrorKind::Io,
            format!(
                "found no `blobs/sha256` directory in the store, expected the store's top directory (blobs are read from `<store>/blobs/sha256/<hex>`): this looks like a part of a store, pass {instead} as --store"
            ),
        )
        .with_path(store),
    ))
}
