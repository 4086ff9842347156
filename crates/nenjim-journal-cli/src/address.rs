//! Roots and content stores by address, resolved by the library
//! (`nenjim_journal_root::Root::open`): a local path, a bucket URL
//! (`s3://bucket/prefix`, `gs://…`, `az://…`, `file://…`, `memory://`), a
//! NATS JetStream root (`nats://host:port/<name>`), or any other backend the
//! library was built with. Credentials and TLS come from each backend's
//! standard environment variables. The command names no backend.

use std::path::Path;
use std::sync::Arc;

use nenjim_journal_root::verify::SignedRoot;
use nenjim_journal_root::{Opening, Root};
use nenjim_journal_store::Store;

use crate::failure::CliError;
use crate::report::path_text;

/// Where `path` (as typed) lives. A command never gives up on a server it
/// lost while it runs (`events --follow` rides out restarts); a request that
/// no server answers times out as `Unavailable` (exit 75).
pub fn locate(path: &Path) -> Result<Root, CliError> {
    let text = path_text(path);
    Ok(Root::open_with(
        &text,
        &Opening::new().reconnect_without_limit(true),
    )?)
}

/// The root typed as `path`, opened for its transparency log (format
/// section 10: `checkpoint`, `verify`, `prove`, `witness`).
pub fn signed(path: &Path) -> Result<SignedRoot, CliError> {
    Ok(SignedRoot::open(&locate(path)?)?)
}

/// The store to write `root` through as a content store (or to read and
/// write its files), and the root path in it: a network backend is
/// connected here (its error if the server cannot be reached).
pub fn store(root: &Root) -> Result<(Arc<dyn Store>, std::path::PathBuf), CliError> {
    Ok(root.backend().content_store()?)
}

/// The store's URL prefix of a root whose files are objects in a bucket
/// (`s3://bucket`), naming their paths for the user; `None` for any other.
pub fn location(root: &Root) -> Option<String> {
    nenjim_journal_root::diagnose::location(root)
}
