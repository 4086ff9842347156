//! The revision files of a root with a ledger that the ledger does not
//! record, and its stray entries (files and directories the layout rules
//! refuse): a load never reads them (format section 9), so `check` warns
//! about each, with the command that records a revision file.

use std::path::{Path, PathBuf};

use nenjim_journal_api::JournalService;
use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use nenjim_journal_fs::LoadOptions;

use crate::failure::CliError;

/// The files under `root` (a path or an object store's URL, read through
/// that store) that its ledger does not record (empty for a root without a
/// ledger); `service` is the root as started.
pub fn unrecorded(
    root: &Path,
    examples: bool,
    service: &dyn JournalService,
) -> Result<Vec<PathBuf>, CliError> {
    let address = crate::address::locate(root)?;
    let (fs, root) = crate::address::file_system(&address);
    let options = LoadOptions::new().with_examples(examples);
    let held = |c: &ArtifactCoordinate, v| service.revision(c, v).ok().flatten().is_some();
    Ok(nenjim_journal_fs::unrecorded_with(
        &*fs, root, options, &held,
    )?)
}

/// The entries of `root` (a path or a URL) with a ledger that the layout
/// rules refuse, as `path: message` diagnostics (URLs for a root in a
/// store); empty for a root without a ledger.
pub fn stray(root: &Path, examples: bool) -> Result<Vec<String>, CliError> {
    let address = crate::address::locate(root)?;
    let (fs, inner) = crate::address::file_system(&address);
    let options = LoadOptions::new().with_examples(examples);
    let location = crate::address::location(&address);
    Ok(nenjim_journal_fs::stray_with(&*fs, inner, options)?
        .into_iter()
        .map(|error| {
            let error = CliError::Journal(error);
            match &location {
                Some(location) => crate::diagnose::in_store(error, location).to_string(),
                None => error.to_string(),
            }
        })
        .collect())
}
