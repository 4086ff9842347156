//! The layout of a content store (format section 4, the OCI image-layout
//! convention): each blob at `<store>/blobs/sha256/<hex>`. The one place
//! a blob's path is built (the writer's check and put, the CLI's
//! `verify-content`).

use std::path::{Path, PathBuf};

use nenjim_journal_api::valuetypes::ContentDigest;

/// The directory of the blobs under a store: `blobs`.
pub const BLOBS_DIR: &str = "blobs";
/// The directory of the SHA-256 blobs under [`BLOBS_DIR`]: `sha256`.
pub const SHA256_DIR: &str = "sha256";

/// `<store>/blobs/sha256`.
pub fn blob_dir(store: &Path) -> PathBuf {
    store.join(BLOBS_DIR).join(SHA256_DIR)
}

/// Where the blob with `digest` lives: `<store>/blobs/sha256/<hex>`.
pub fn blob_path(store: &Path, digest: &ContentDigest) -> PathBuf {
    blob_dir(store).join(digest.to_hex())
}
