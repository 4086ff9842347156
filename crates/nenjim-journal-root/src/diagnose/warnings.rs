//! What a root that loads holds besides its Journal: skipped examples,
//! unrecorded revision files, stray entries, its checkpoint, its replication.

use std::path::{Path, PathBuf};

use nenjim_journal_api::JournalService;
use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use nenjim_journal_fs::{EXAMPLE_SUFFIX, EntryKind, FileSystem};
use nenjim_journal_store::backend::Replication;
use nenjim_journal_tlog::checkpoint::Checkpoint;

use super::{DiagnoseOptions, named_for};
use crate::Root;
use crate::verify::SignedRoot;

/// How many `*.journal.example` files the artifact directories of the root
/// at `root` in `fs` hold.
pub fn count_examples(fs: &dyn FileSystem, root: &Path) -> usize {
    let Ok(listing) = fs.read_dir_with_kinds(root) else {
        return 0;
    };
    listing
        .into_iter()
        .filter(|(name, kind)| {
            *kind == Some(EntryKind::Directory)
                || kind.is_none()
                    && fs
                        .metadata(&root.join(name))
                        .is_ok_and(|m| m.kind() == EntryKind::Directory)
        })
        .filter_map(|(name, _)| fs.read_dir(&root.join(name)).ok())
        .flatten()
        .filter(|n| n.to_string_lossy().ends_with(EXAMPLE_SUFFIX))
        .count()
}

/// What a root that loads holds besides its Journal: warnings, and
/// facts `check` reports ([`warnings`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct Warnings {
    /// `*.journal.example` files not loaded (0 with examples).
    pub skipped_examples: usize,
    /// Revision files the root's ledger does not record (never loaded),
    /// by their paths in the root's store.
    pub unrecorded: Vec<PathBuf>,
    /// Entries of a root with a ledger that the layout rules refuse (never
    /// loaded), named as the root was given.
    pub stray: Vec<JournalError>,
    /// The root's checkpoint, read but not verified (`Ok(None)`: not
    /// signed; an error: it cannot be read).
    pub signed: Result<Option<Checkpoint>, JournalError>,
    /// Of a NATS root: how its ledger is replicated (`None` for another).
    pub replication: Option<Replication>,
}

/// The [`Warnings`] of `root`, which loaded as `service`.
pub fn warnings(
    root: &Root,
    options: &DiagnoseOptions,
    service: &dyn JournalService,
) -> Result<Warnings, JournalError> {
    let skipped_examples = if options.examples {
        0
    } else {
        count_examples(&*root.backend().reading().file_system, root.path())
    };
    let unrecorded = unrecorded(root, options, service)?;
    let stray = stray(root, options)?;
    let signed = SignedRoot::open(root).map_or(Ok(None), |signed| signed.signed_by());
    Ok(Warnings {
        skipped_examples,
        unrecorded,
        stray,
        signed,
        replication: root.backend().replication()?,
    })
}

/// The revision files of `root` that its ledger does not record (empty for
/// a root without a ledger): a load never reads them (format section 9);
/// `service` is the root as started.
pub fn unrecorded(
    root: &Root,
    options: &DiagnoseOptions,
    service: &dyn JournalService,
) -> Result<Vec<PathBuf>, JournalError> {
    let fs = root.backend().reading().file_system;
    let held = |c: &ArtifactCoordinate, v| service.revision(c, v).ok().flatten().is_some();
    nenjim_journal_fs::unrecorded_with(&*fs, root.path(), options.load_options(), &held)
}

/// The entries of `root` with a ledger that the layout rules refuse (a
/// `README.txt`, a `latest.journal` …), named as the root was given;
/// empty for a root without a ledger.
pub fn stray(root: &Root, options: &DiagnoseOptions) -> Result<Vec<JournalError>, JournalError> {
    let fs = root.backend().reading().file_system;
    let stray = nenjim_journal_fs::stray_with(&*fs, root.path(), options.load_options())?;
    Ok(named_for(root, stray))
}
