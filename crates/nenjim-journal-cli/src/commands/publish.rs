//! What the publishing commands share: the writer's session, the stamp of
//! a new revision, the successor of a head with one change, and the report.
//!
//! A publishing command (`create`, `release`, `yank`, `deprecate`,
//! `recommend`) opens the root's writer (its lease; the ledger is created on
//! the first write), plans against the writer's own view of the head, and
//! then either writes nothing (the head already says it) or:
//!
//! 1. renders the successor in canonical form (`nenjim_journal_parser::render`
//!    of a revision built from the head with one change), stamped now, or one
//!    second after the head when the clock is at or behind it;
//! 2. validates it against the writer's state exactly as ingestion does,
//!    writing nothing on a refusal (`ReleaseRewritten`, `Semantic` …);
//! 3. runs the checks of publish time over its new releases
//!    (`publish_checks.rs`): warnings, or with `--strict` a refusal;
//! 4. puts the release's blob, if any, then appends the text.
//!
//! The lease is given back whatever happened.

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, ContentPointer, JournalVersion, ReleaseVersion,
};
use nenjim_journal_fs::ledger;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
use serde::Serialize;

use crate::commands::publish_args::WriteArgs;
use crate::failure::{CliError, Status};
use crate::report::{ContentJson, path_text};
use crate::ui::{Paint, Ui};
use nenjim_journal_root::Root;
use nenjim_journal_root::publish::{self, Prepared};

/// Opens the writer of `root` (with the content store `store`), runs
/// `work` with it and closes it (giving the lease back) whatever happened.
///
/// A root that does not exist is refused with the `init` to run. While
/// another writer holds the lease, the open is tried again until `wait`
/// has run out (`None`: refused at once, `LeaseHeld`, exit code 75).
/// SIGINT and SIGTERM are caught from here on ([`crate::interrupt`]): a
/// wait stops at once, and `work` checks between its appends. An I/O
/// failure of a root in a bucket says that re-running the same command
/// settles a write whose answer was lost.
pub fn with_writer<T>(
    root: &Path,
    store: Option<&Path>,
    writing: &WriteArgs,
    total: usize,
    ui: &Ui,
    work: impl FnOnce(&mut FsJournalWriter) -> Result<T, CliError>,
) -> Result<T, CliError> {
    let address = crate::address::locate(root)?;
    with_writer_at(root, address, store, writing, total, ui, work)
}

/// [`with_writer`] for the root `root` (as typed) at `address`, already
/// located (a `memory://` store is new at each location).
pub fn with_writer_at<T>(
    root: &Path,
    address: Root,
    store: Option<&Path>,
    writing: &WriteArgs,
    total: usize,
    ui: &Ui,
    work: impl FnOnce(&mut FsJournalWriter) -> Result<T, CliError>,
) -> Result<T, CliError> {
    let wait = writing.wait;
    let signing_key = writing.signing_key()?;
    crate::interrupt::catch();
    let options = match store {
        Some(store) => crate::address::locate(store)?.as_content_store_of(WriterOptions::new())?,
        None => WriterOptions::new(),
    };
    let options = match &signing_key {
        Some(key) => options
            .signing_key(key)
            .checkpoint_interval(writing.checkpoint_interval),
        None => options,
    };
    let options = match wait {
        Some(wait) => options.lease_wait(wait),
        None => options,
    };
    let in_bucket = address.has_remote_files();
    let mut told = false;
    let opened = address.writer_observed(options, |error| {
        if !told {
            ui.eprintln(&format!(
                "waiting for the lease of {} (up to {}): {}",
                path_text(root),
                humantime::format_duration(wait.unwrap_or_default()),
                error.message()
            ));
            told = true;
        }
        // A signal ends the wait (nothing was written).
        if crate::interrupt::requested() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    let mut writer = match opened {
        Ok(writer) => writer,
        Err(error) if error.kind() == ErrorKind::LeaseHeld => {
            if crate::interrupt::requested() {
                return Err(CliError::Interrupted { appended: 0, total });
            }
            let hint = if wait.is_some() {
                "waited as long as --wait allowed"
            } else {
                "retry later, or pass --wait <duration> to wait for it"
            };
            return Err(error.note(hint).with_path(root).into());
        }
        Err(error) => return Err(settled_by_rerun(error.into(), in_bucket)),
    };
    let result = work(&mut writer).map_err(|e| settled_by_rerun(e, in_bucket));
    if let Err(error) = writer.close() {
        // What was appended is committed; the lease will expire by itself,
        // and the next writer with the key publishes a checkpoint covering it.
        ui.eprintln(&format!(
            "{} cannot publish the last checkpoint or give the lease back (what was appended is committed; the lease expires by itself, the next write publishes the checkpoint): {error}",
            ui.err(Paint::Warn, "warning:")
        ));
    }
    result
}

/// Refuses a root that does not exist, with the `init` that creates it
/// (`Root::require`); a bucket that could not be read says that running
/// the command again settles it.
pub fn require_root(address: &Root) -> Result<(), CliError> {
    address
        .require()
        .map_err(|e| settled_by_rerun(e.into(), address.has_remote_files()))
}

/// An I/O failure of a write to a bucket: its answer may have been lost (a
/// timeout) after the write succeeded, which only a read can tell; the
/// same command run again finds what was committed and writes nothing twice.
fn settled_by_rerun(error: CliError, in_bucket: bool) -> CliError {
    match error {
        CliError::Journal(e) if in_bucket && e.kind() == ErrorKind::Io => CliError::Journal(e.note(
            "if a write timed out or its answer was lost it may have succeeded: re-running the same command settles it; what was committed is found, nothing is written twice",
        )),
        other => other,
    }
}

/// The path of the revision file of `coordinate` at `version`, under the root as typed.
pub fn revision_path(
    root: &Path,
    coordinate: &ArtifactCoordinate,
    version: JournalVersion,
) -> PathBuf {
    ledger::revision_path(root, coordinate, version)
}

pub use nenjim_journal_root::publish::{Plan, stamp};

/// A refusal about an artifact the root does not hold: the `known` names
/// close to it first (as the read commands offer them), else how to create it.
pub fn unknown_artifact(
    root: &Path,
    coordinate: &ArtifactCoordinate,
    known: &BTreeSet<ArtifactCoordinate>,
) -> CliError {
    let close = super::similar(
        coordinate.as_str(),
        known.iter().map(ArtifactCoordinate::as_str),
    );
    let create = format!(
        "nenjim-journal create {} {coordinate} --description …",
        path_text(root)
    );
    let expected = if close.is_empty() {
        format!("expected one created first ({create})")
    } else {
        format!(
            "did you mean {}? (a new artifact is created first: {create})",
            close.join(", ")
        )
    };
    CliError::refused(
        "UnknownArtifact",
        format!(
            "found no artifact `{coordinate}` in {}; {expected}",
            path_text(root)
        ),
    )
}

/// The `--json` document of a publishing command.
#[derive(Debug, Serialize)]
struct PublishDocument {
    command: &'static str,
    ok: bool,
    root: String,
    coordinate: String,
    /// The new revision's, or (when nothing was written) the head's.
    journal_version: String,
    sequence: u64,
    digest: String,
    predecessor: Option<String>,
    path: String,
    /// False when the head already said it and nothing was written.
    new: bool,
    /// The first release's blob (`release` only; `null` otherwise).
    content: Option<ContentJson>,
    /// Each release published, with its blob (`release` only; empty otherwise).
    releases: Vec<ReleasedJson>,
    /// What the checks of publish time found (written anyway; `--strict`
    /// refuses instead).
    warnings: Vec<String>,
}

/// One release of a `release` command, in its `--json` document.
#[derive(Debug, Serialize)]
struct ReleasedJson {
    version: String,
    content: ContentJson,
}

/// One publishing command: what it is about.
#[derive(Debug)]
pub struct Publish<'a> {
    /// The subcommand's name.
    pub command: &'static str,
    /// The root, as typed.
    pub root: &'a Path,
    /// The content store (`release`): `--store`, or the one the root records.
    pub store: Option<PathBuf>,
    /// `--wait` and `--signing-key`.
    pub writing: &'a WriteArgs,
    /// The artifact whose head is followed.
    pub coordinate: &'a ArtifactCoordinate,
    /// The releases published (`release`): locates a `ReleaseRewritten`.
    pub releases: &'a [ReleaseVersion],
    /// Refuse, writing nothing, when the checks of publish time warn.
    pub strict: bool,
    /// Each release's blob pointer (`release`), for the report.
    pub content: Vec<(ReleaseVersion, ContentPointer)>,
    /// Whether to print JSON.
    pub json: bool,
}

impl<'a> Publish<'a> {
    /// A command that changes the head without a release or a blob
    /// (`create`, `yank`, `deprecate`, `recommend`).
    pub fn header_or_policy(
        command: &'static str,
        root: &'a Path,
        coordinate: &'a ArtifactCoordinate,
        writing: &'a WriteArgs,
        json: bool,
    ) -> Publish<'a> {
        Publish {
            command,
            root,
            store: None,
            writing,
            coordinate,
            releases: &[],
            strict: false,
            content: Vec::new(),
            json,
        }
    }
}

/// Runs a publishing command on the head of its coordinate: `plan` decides
/// (given the head, if any, and the new revision's stamp), then the
/// successor is validated, its blob put and the text appended.
pub fn publish(
    publish: &Publish<'_>,
    ui: &Ui,
    plan: impl FnOnce(Option<&JournalRevision>, JournalVersion) -> Result<Plan, JournalError>,
) -> Result<Status, CliError> {
    let root = publish.root;
    let coordinate = publish.coordinate;
    let (revision, new, warnings) = with_writer(
        root,
        publish.store.as_deref(),
        publish.writing,
        1,
        ui,
        |writer| {
            let head = writer.state().latest(coordinate);
            let head_path = head
                .as_ref()
                .map(|h| revision_path(root, h.coordinate(), h.journal_version()));
            let locate = |error: JournalError| -> CliError {
                match &head_path {
                    Some(path) => locate_in_head(error, path, publish.releases),
                    None => error.into(),
                }
            };
            // The library's planning and validation (nothing written).
            match publish::prepare(writer, coordinate, plan).map_err(locate)? {
                Prepared::Unchanged(head) => match head {
                    Some(head) => Ok((head, false, Vec::new())),
                    None => Err(unknown_artifact(
                        root,
                        coordinate,
                        &writer.state().coordinates(),
                    )),
                },
                Prepared::Append {
                    text,
                    revision,
                    blobs,
                    ..
                } => {
                    let warnings =
                        super::publish_checks::new_releases(writer.state(), root, &revision);
                    if publish.strict && !warnings.is_empty() {
                        return Err(super::publish_checks::strict_refusal(&warnings));
                    }
                    if crate::interrupt::requested() {
                        return Err(CliError::Interrupted {
                            appended: 0,
                            total: 1,
                        });
                    }
                    for bytes in blobs {
                        writer.put_blob(&bytes)?;
                    }
                    let appended = writer.append(&text).map_err(locate)?;
                    Ok((appended.revision().clone(), appended.is_new(), warnings))
                }
            }
        },
    )?;
    let path = revision_path(root, revision.coordinate(), revision.journal_version());
    let document = PublishDocument {
        command: publish.command,
        ok: true,
        root: path_text(root),
        coordinate: revision.coordinate().to_string(),
        journal_version: revision.journal_version().to_string(),
        sequence: revision.sequence(),
        digest: revision.digest().to_string(),
        predecessor: revision.predecessor().map(ToString::to_string),
        path: path_text(&path),
        new,
        content: publish.content.first().map(|(_, c)| ContentJson {
            digest: c.digest().to_string(),
            size: c.size(),
        }),
        releases: publish
            .content
            .iter()
            .map(|(version, c)| ReleasedJson {
                version: version.to_string(),
                content: ContentJson {
                    digest: c.digest().to_string(),
                    size: c.size(),
                },
            })
            .collect(),
        warnings,
    };
    if !publish.json {
        for warning in &document.warnings {
            ui.warn(warning);
        }
    }
    if publish.json {
        ui.print_json(&document)?;
    } else if new {
        ui.print(&format!(
            "{} {} {}: sequence {}, {}, {}\n",
            ui.out(Paint::Good, "appended"),
            document.coordinate,
            document.journal_version,
            document.sequence,
            document.digest,
            document.path
        ))?;
    } else {
        ui.print(&format!(
            "{} {}: the head {} (sequence {}, {}) already says this; nothing written\n",
            ui.out(Paint::Good, "unchanged"),
            document.coordinate,
            document.journal_version,
            document.sequence,
            document.digest
        ))?;
    }
    Ok(Status::Ok)
}

/// Locates a refusal of a successor at the head it follows: its file, and
/// for a rewritten release the line of that release in the head's text.
fn locate_in_head(error: JournalError, head_path: &Path, releases: &[ReleaseVersion]) -> CliError {
    if error.path().is_some() {
        return error.into();
    }
    // The chain's message starts "found release <version> of …".
    let release = error
        .message()
        .strip_prefix("found release ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|named| releases.iter().find(|v| v.to_string() == named));
    let line = match release {
        Some(version) if error.kind() == ErrorKind::ReleaseRewritten => {
            release_line(head_path, version)
        }
        _ => None,
    };
    let error = match release {
        Some(version) if error.kind() == ErrorKind::ReleaseRewritten => {
            rewritten(&error, head_path, version)
        }
        _ => error,
    };
    let error = match line {
        Some(line) => error.at(line, 1),
        None => error,
    };
    error.with_path(head_path).into()
}

/// The refusal of a release published again with other values, said for
/// the publisher: the chain's message names the successor that was about
/// to be written (and never was), so it is said again about the head that
/// holds the release, with what differs and what to do instead.
fn rewritten(error: &JournalError, head_path: &Path, version: &ReleaseVersion) -> JournalError {
    // The chain says "…: it <what differs>; expected …" (chain/src/rewrite.rs).
    let message = error.message();
    let differs = message
        .split_once(": it ")
        .and_then(|(_, rest)| rest.split_once("; expected"))
        .map_or_else(String::new, |(what, _)| format!(" (it {what})"));
    let coordinate = head_path
        .parent()
        .and_then(Path::file_name)
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let root = head_path
        .parent()
        .and_then(Path::parent)
        .map_or_else(String::new, path_text);
    error::error(
        ErrorKind::ReleaseRewritten,
        format!(
            "found release {version} already published here with other values{differs}; expected the same values, since a published release never changes: publish the change as a new version, or withdraw {version} with `nenjim-journal yank {root} {coordinate} {version} <reason>` (and publish a new version); nothing was written"
        ),
    )
}

/// The line of `RELEASE <version>` in the head's file, if it can be read.
fn release_line(head_path: &Path, version: &ReleaseVersion) -> Option<usize> {
    let text = std::fs::read_to_string(head_path).ok()?;
    let wanted = format!("RELEASE {version}");
    text.lines()
        .position(|l| l.trim_end() == wanted)
        .map(|i| i + 1)
}
