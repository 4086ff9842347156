//! Choosing one revision of an artifact: by `--at` / `--as-of`, or by a
//! name typed as an argument (`latest`, `genesis`, a JOURNAL_VERSION, `now`
//! or a date).

use nenjim_journal_api::JournalService;
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::valuetypes::ArtifactCoordinate;

use crate::args::{RevisionArgs, parse_instant};
use crate::failure::CliError;

/// The revision `--at` (exactly) or `--as-of` (newest at or before) names,
/// or the latest one.
pub fn by_options(
    service: &dyn JournalService,
    coordinate: &ArtifactCoordinate,
    revisions: &[JournalRevision],
    options: &RevisionArgs,
) -> Result<JournalRevision, CliError> {
    let RevisionArgs { at, as_of } = *options;
    if let Some(at) = at {
        if let Some(exact) = service.revision(coordinate, at)? {
            return Ok(exact);
        }
        // `--at` names one revision exactly; an instant between revisions
        // (a date, `now`) is what `--as-of` is for.
        let as_of = match service.revision_as_of(coordinate, at)? {
            Some(newest) => format!(
                "; for the newest revision at or before {at} ({}), use --as-of {at}",
                newest.journal_version()
            ),
            None => format!(
                "; --as-of takes the newest revision at or before an instant, but {at} is before the genesis"
            ),
        };
        return Err(CliError::refused(
            "UnknownRevision",
            format!(
                "found no revision {at} of {coordinate} (--at names a revision exactly); expected one of: {}{as_of}",
                versions(revisions).join(", ")
            ),
        ));
    }
    if let Some(as_of) = as_of {
        return service.revision_as_of(coordinate, as_of)?.ok_or_else(|| {
            CliError::refused(
                "UnknownRevision",
                format!(
                    "found no revision of {coordinate} at or before {as_of}; expected an instant at or after its genesis {}",
                    versions(revisions).first().map_or("", String::as_str)
                ),
            )
        });
    }
    revisions
        .last()
        .cloned()
        .ok_or_else(|| unknown(coordinate, "latest", revisions))
}

/// The Journal versions of `revisions`, as text.
fn versions(revisions: &[JournalRevision]) -> Vec<String> {
    revisions
        .iter()
        .map(|r| r.journal_version().to_string())
        .collect()
}

/// The revision `name` names: `latest`, `genesis`, an exact JOURNAL_VERSION,
/// or else the newest at or before the instant (`now`, `2026-12-01`).
pub fn by_name(
    service: &dyn JournalService,
    coordinate: &ArtifactCoordinate,
    revisions: &[JournalRevision],
    name: &str,
) -> Result<JournalRevision, CliError> {
    let chosen = match name {
        "latest" | "head" => revisions.last().cloned(),
        "genesis" => revisions.first().cloned(),
        _ => {
            let instant = parse_instant(name).map_err(|message| {
                CliError::refused(
                    "UnknownRevision",
                    format!("found revision name `{name}`: {message}; or `latest`, `genesis`"),
                )
            })?;
            match service.revision(coordinate, instant)? {
                Some(exact) => Some(exact),
                None => service.revision_as_of(coordinate, instant)?,
            }
        }
    };
    chosen.ok_or_else(|| unknown(coordinate, name, revisions))
}

fn unknown(coordinate: &ArtifactCoordinate, name: &str, revisions: &[JournalRevision]) -> CliError {
    let known = versions(revisions);
    CliError::refused(
        "UnknownRevision",
        format!(
            "found no revision of {coordinate} for `{name}`; expected one of: {} (or an instant after the genesis)",
            known.join(", ")
        ),
    )
}
