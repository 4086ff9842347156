//! Copying a whole root into another, keeping its sequences: see the
//! `append` module's docs. The copy itself is the library's
//! (`nenjim_journal_root::copy`); this adds the command's options, its
//! report of each revision, and its stop on SIGINT or SIGTERM.

use std::path::Path;

use nenjim_journal_api::error::{ErrorContext as _, ErrorKind};
use nenjim_journal_root::copy::{self, ContentStores, Copied, CopyOptions, Outcome};
use nenjim_journal_writer::FsJournalWriter;

use super::{AppendedJson, Report};

use crate::address::locate;
use crate::failure::CliError;
use crate::report::path_text;

pub use nenjim_journal_root::copy::Source;

/// The content stores a copy moves blobs between (`--source-store`
/// into `--store`).
pub struct Stores(ContentStores);

impl Stores {
    /// The stores to copy blobs between: `--source-store` (`source`), if
    /// given, into the destination's content store (`destination`:
    /// `--store` or the recorded one), which it then needs.
    pub fn of(
        source: Option<&Path>,
        destination: Option<&Path>,
    ) -> Result<Option<Stores>, CliError> {
        let Some(source) = source else {
            return Ok(None);
        };
        let Some(destination) = destination else {
            return Err(CliError::usage(
                "StoreMissing",
                format!(
                    "found --source-store {} and no content store to copy its blobs into, expected --store <store> or one recorded by `nenjim-journal init <root> --store <store>`",
                    path_text(source)
                ),
            ));
        };
        let source = locate(source)?;
        let destination = locate(destination)?;
        Ok(Some(Stores(ContentStores::new(&source, &destination)?)))
    }
}

/// Copies the root `source` into the writer's root (`destination`, as
/// typed), keeping its sequences; `report` gets each revision appended
/// or found already copied, and stops the copy between two revisions
/// on SIGINT or SIGTERM.
pub fn copy(
    writer: &mut FsJournalWriter,
    destination: &Path,
    source: Source,
    stores: Option<&Stores>,
    report: &mut Report<'_>,
) -> Result<(), CliError> {
    let root = locate(destination)?;
    let batch = usize::try_from(report.args.batch).unwrap_or(usize::MAX);
    let stop = crate::interrupt::requested;
    let mut options = CopyOptions::new().batch(batch).stop_when(&stop);
    if let Some(Stores(stores)) = stores {
        options = options.blobs(stores);
    }
    let outcome = copy::copy(writer, &root, &source, &options, |copied| {
        report.push(match copied {
            Copied::Appended { file, appended } => super::entry(destination, file, appended),
            Copied::Held { file, revision } => AppendedJson {
                file: path_text(file),
                coordinate: revision.coordinate().to_string(),
                journal_version: revision.journal_version().to_string(),
                sequence: revision.sequence(),
                digest: revision.digest().to_string(),
                path: path_text(&super::revision_path(
                    destination,
                    revision.coordinate(),
                    revision.journal_version(),
                )),
                new: false,
                warnings: Vec::new(),
                proof: None,
            },
            _ => return Ok(()),
        })
    });
    match outcome {
        Ok(Outcome::Stopped) => report.stop_if_interrupted(),
        Ok(_) => Ok(()),
        // A blob the destination lacks: the source's store can give it.
        Err(CliError::Journal(e)) if stores.is_none() && e.kind() == ErrorKind::BlobMissing => {
            Err(CliError::Journal(e.note(
                "to copy the source's blobs too, name its content store with --source-store",
            )))
        }
        Err(e) => Err(e),
    }
}
