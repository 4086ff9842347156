//! Signed roots (format section 10) for tests: deterministic note keys,
//! and an independent check of a root's checkpoint against its ledger
//! (every record hashed, the tree's root compared).

use std::path::Path;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_fs::FileSystem;
use nenjim_journal_fs::ledger::{self, Entry};
use nenjim_journal_tlog::checkpoint::Checkpoint;
use nenjim_journal_tlog::hash::TreeHasher;
use nenjim_journal_tlog::note::{Algorithm, SignerKey, VerifierKey};

/// A signer key named `name` from a seed of `seed` bytes: (signer key
/// text, verifier key text).
pub fn key(name: &str, seed: u8) -> (String, String) {
    let key = SignerKey::from_seed(name, Algorithm::Ed25519, [seed; 32])
        .unwrap_or_else(|e| panic!("a test key: {e}"));
    (key.to_key_string(), key.verifier().to_string())
}

/// The stored checkpoint of `root` (in `fs`) opened with `verifier`, and
/// checked to be the tree of the ledger's first `size` records, where
/// `size` is the checkpoint's: returns it and the ledger's entries.
pub fn checked(
    fs: &dyn FileSystem,
    root: &Path,
    verifier: &str,
) -> Result<(Checkpoint, Vec<Entry>), JournalError> {
    let key = VerifierKey::parse(verifier)?;
    let path = ledger::ledger_dir(root).join("tlog/checkpoint");
    let bytes = fs
        .read(&path, 1 << 20)
        .map_err(|e| nenjim_journal_api::error::io_error(&path, "cannot read the checkpoint", e))?;
    let (checkpoint, _) = Checkpoint::open(&bytes, &key)?;
    let entries = ledger::read(fs, root)?
        .map(|l| l.entries().to_vec())
        .unwrap_or_default();
    let mut tree = TreeHasher::new();
    for entry in entries
        .iter()
        .take(usize::try_from(checkpoint.size()).unwrap_or(usize::MAX))
    {
        tree.push_record(entry.to_string().as_bytes());
    }
    checkpoint.check_tree(tree.size(), &tree.root())?;
    Ok((checkpoint, entries))
}

/// Copies the tree `from` to `to` (a new directory), keeping symbolic
/// links as links (a ledger's entries): an older copy of a root, say.
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
        } else if kind.is_dir() {
            copy_tree(&source, &target)?;
        } else {
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(())
}
