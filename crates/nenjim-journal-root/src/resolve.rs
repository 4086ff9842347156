//! Where addresses are resolved: every backend this build knows, one line
//! each.

use std::sync::Arc;

use nenjim_journal_api::error::{self, ErrorKind, JournalError};
use nenjim_journal_store::backend::{Backend, BackendKind, LocalKind, Opening};

/// Every backend kind this build knows: a directory always, the others as
/// its features say. A new backend is one crate and one line here.
pub fn kinds() -> Vec<&'static dyn BackendKind> {
    #[allow(unused_mut, reason = "without features there is nothing to push")]
    let mut kinds: Vec<&'static dyn BackendKind> = vec![&LocalKind];
    #[cfg(feature = "objstore")]
    kinds.push(&nenjim_journal_objstore::ObjectKind);
    #[cfg(feature = "nats")]
    kinds.push(&nenjim_journal_jetstream::NatsKind);
    #[cfg(feature = "testkit")]
    kinds.push(&nenjim_journal_testkit::memory::MemoryKind);
    kinds
}

/// Every URL scheme this build resolves.
pub fn schemes() -> Vec<&'static str> {
    kinds().iter().flat_map(|k| k.schemes()).copied().collect()
}

/// The scheme of `address` when it is a URL (`<scheme>://…`, the scheme a
/// letter then letters, digits, `+`, `-` or `.`); a path otherwise.
fn scheme_of(address: &str) -> Option<&str> {
    let (scheme, _) = address.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// The backend of the root at `address`.
pub(crate) fn open(address: &str, opening: &Opening) -> Result<Arc<dyn Backend>, JournalError> {
    let Some(scheme) = scheme_of(address) else {
        return LocalKind.open(address, opening);
    };
    let kinds = kinds();
    match kinds.iter().find(|k| k.schemes().contains(&scheme)) {
        Some(kind) => kind.open(address, opening),
        None => Err(error::error(
            ErrorKind::Usage,
            format!(
                "found the scheme `{scheme}://` in `{address}`, expected a path or one of {} (the schemes this build resolves)",
                schemes()
                    .iter()
                    .map(|s| format!("`{s}://`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::scheme_of;

    #[test]
    fn a_scheme_is_a_url_and_anything_else_a_path() {
        assert_eq!(scheme_of("s3://bucket/prefix"), Some("s3"));
        assert_eq!(scheme_of("nats://h:4222/main"), Some("nats"));
        assert_eq!(scheme_of("/srv/journal"), None);
        assert_eq!(scheme_of("./odd://name"), None);
        assert_eq!(scheme_of("://x"), None);
    }
}
