//! `check <root> [--examples] [--max-errors N] [--json]`: load the root as
//! `start()` does and report a summary; when it fails, report every
//! independent error of the root (`nenjim_journal_root::diagnose`) with a count (exit
//! code 1, or 2 for a missing or unreadable root). A root given by URL
//! (`s3://bucket/prefix` …) is loaded and scanned through its store, and
//! its errors name their files by URL.
//! On a root with a ledger, revision files the ledger does not record are
//! warnings (the exit code stays 0). A signed root (format section 10) is
//! said to be, with the key name its checkpoint names (read, not
//! verified: `verify --key` verifies).
//! Warnings that repeat are summarised: of each [`WarningKind`] the text
//! shows the first [`SHOWN_PER_KIND`], then one line with how many more
//! (`--all-warnings` shows every one); the JSON document lists every one
//! and summarises them as the text does (`warning_summary`).

use serde::Serialize;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_root::diagnose::{self, DiagnoseOptions};
use nenjim_journal_tlog::checkpoint::Checkpoint;

use crate::args::CheckArgs;
use crate::failure::{CliError, Status};
use crate::load::load;
use crate::report::{ErrorJson, counted, path_text};
use crate::ui::{Paint, Ui};
use crate::warnings::{deprecated_licenses, empty_content};

/// How many warnings of each kind the text shows, and `warning_summary`
/// lists in `shown`, without `--all-warnings`.
const SHOWN_PER_KIND: usize = 5;

/// The `--json` document of a successful check.
#[derive(Debug, Serialize)]
struct CheckDocument {
    command: &'static str,
    ok: bool,
    root: String,
    examples: bool,
    /// Artifacts with at least one revision.
    artifacts: usize,
    /// Revisions of all artifacts.
    revisions: usize,
    /// Releases of the latest revision of each artifact (all releases known).
    releases: usize,
    /// How long loading took, in milliseconds.
    elapsed_ms: u64,
    /// `*.journal.example` files not loaded (without `--examples`).
    skipped_examples: usize,
    /// Valid but discouraged things in the latest revisions: every
    /// deprecated license identifier and empty blob, one line each
    /// (always all of them, with or without `--all-warnings`).
    warnings: Vec<String>,
    /// Revision files the root's ledger does not record (never loaded; a
    /// warning): record each with `nenjim-journal append <root> <file>`.
    unrecorded: Vec<String>,
    /// Entries of a root with a ledger that the layout rules refuse (a
    /// `README.txt`, a `latest.journal` …; never loaded; a warning), each
    /// `path: message`.
    stray: Vec<String>,
    /// A signed root (format section 10): the key name its checkpoint
    /// names (its origin) and the checkpoint's size; `null` when the root
    /// is not signed. Read, not verified: `verify --key` verifies.
    signed: Option<SignedJson>,
    /// The warnings of `stray`, `unrecorded` and `warnings`, counted by
    /// kind, with the ones the text shows.
    warning_summary: WarningSummary,
    /// Of a NATS root: how its ledger is replicated (`null` for a
    /// directory or a bucket).
    replication: Option<ReplicationJson>,
}

/// How a NATS root's ledger stream is replicated, as its leader says now.
#[derive(Debug, Serialize)]
struct ReplicationJson {
    /// The stream's replicas (every bucket of the root has as many).
    replicas: usize,
    /// The server name of the stream's leader (`null`: none known now).
    leader: Option<String>,
    /// How many of the leader's followers are current.
    current_followers: usize,
    /// Whether the server is one of a cluster.
    clustered: bool,
    /// How many servers the cluster has.
    cluster_size: usize,
}

/// The kinds of warning a successful check gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WarningKind {
    /// An entry the layout rules refuse, in a root with a ledger.
    Stray,
    /// A revision file the root's ledger does not record.
    Unrecorded,
    /// A deprecated SPDX identifier in a latest revision's release.
    DeprecatedLicense,
    /// An empty (0-byte) blob as a latest revision's release's content.
    EmptyBlob,
}

impl WarningKind {
    const ALL: [WarningKind; 4] = [
        WarningKind::Stray,
        WarningKind::Unrecorded,
        WarningKind::DeprecatedLicense,
        WarningKind::EmptyBlob,
    ];

    /// Its name in the line that counts the ones not shown.
    fn name(self) -> &'static str {
        match self {
            WarningKind::Stray => "stray entry",
            WarningKind::Unrecorded => "unrecorded revision file",
            WarningKind::DeprecatedLicense => "deprecated license",
            WarningKind::EmptyBlob => "empty blob",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The warnings counted by kind, with the ones the text shows.
#[derive(Debug, Serialize)]
struct WarningSummary {
    /// Warnings of every kind.
    count: usize,
    /// How many of each kind are shown: 5, or `null` with `--all-warnings`.
    limit: Option<usize>,
    /// Whether some kind has more warnings than it shows.
    cut: bool,
    /// Every kind, always present (a count of 0 when there is none).
    kinds: WarningKinds,
}

/// Each kind of warning, in a fixed order.
#[derive(Debug, Serialize)]
struct WarningKinds {
    stray: KindSummary,
    unrecorded: KindSummary,
    deprecated_license: KindSummary,
    empty_blob: KindSummary,
}

/// The warnings of one kind.
#[derive(Debug, Serialize)]
struct KindSummary {
    count: usize,
    /// The first ones (at most `limit`), as their full list has them.
    shown: Vec<String>,
    /// How many are not shown: `count` minus the length of `shown`.
    more: usize,
}

impl KindSummary {
    /// The summary of `entries` (all of one kind), of which `limit` are shown.
    fn of<'a>(entries: impl Iterator<Item = &'a str>, limit: Option<usize>) -> KindSummary {
        let mut summary = KindSummary {
            count: 0,
            shown: Vec::new(),
            more: 0,
        };
        for entry in entries {
            summary.count += 1;
            if limit.is_none_or(|limit| summary.shown.len() < limit) {
                summary.shown.push(entry.to_owned());
            } else {
                summary.more += 1;
            }
        }
        summary
    }
}

impl WarningSummary {
    fn of(
        stray: &[String],
        unrecorded: &[String],
        release: &[(WarningKind, String)],
        limit: Option<usize>,
    ) -> WarningSummary {
        let of_kind = |kind: WarningKind| {
            KindSummary::of(
                release
                    .iter()
                    .filter(move |(k, _)| *k == kind)
                    .map(|(_, w)| w.as_str()),
                limit,
            )
        };
        let kinds = WarningKinds {
            stray: KindSummary::of(stray.iter().map(String::as_str), limit),
            unrecorded: KindSummary::of(unrecorded.iter().map(String::as_str), limit),
            deprecated_license: of_kind(WarningKind::DeprecatedLicense),
            empty_blob: of_kind(WarningKind::EmptyBlob),
        };
        let all = [
            &kinds.stray,
            &kinds.unrecorded,
            &kinds.deprecated_license,
            &kinds.empty_blob,
        ];
        WarningSummary {
            count: all.iter().map(|k| k.count).sum(),
            limit,
            cut: all.iter().any(|k| k.more > 0),
            kinds,
        }
    }
}

/// Prints `warnings` in their order through `emit` (each a message
/// without the `warning:` prefix), at most `limit` of each kind, then, for
/// each kind with more, one line saying how many more there are.
fn print_warnings(warnings: &[(WarningKind, String)], limit: Option<usize>, emit: &dyn Fn(&str)) {
    let mut counts = [0_usize; WarningKind::ALL.len()];
    for (kind, message) in warnings {
        let count = &mut counts[kind.index()];
        if limit.is_none_or(|limit| *count < limit) {
            emit(message);
        }
        *count += 1;
    }
    let Some(limit) = limit else {
        return;
    };
    for kind in WarningKind::ALL {
        let count = counts[kind.index()];
        if count > limit {
            emit(&format!(
                "… and {} ({count} in all; --all-warnings lists every one)",
                counted(count - limit, &format!("more `{}` warning", kind.name()))
            ));
        }
    }
}

/// Who signs a root's checkpoint.
#[derive(Debug, Serialize)]
struct SignedJson {
    /// The signing key's name (the checkpoint's origin).
    key_name: String,
    /// The number of ledger entries the checkpoint covers.
    tree_size: u64,
}

/// The `--json` document of a failed check.
#[derive(Debug, Serialize)]
struct FailedDocument {
    command: &'static str,
    ok: bool,
    root: String,
    examples: bool,
    /// The first error (as every failure document has).
    error: ErrorJson,
    /// Every independent error found (at most `--max-errors`).
    errors: Vec<ErrorJson>,
    error_count: usize,
    /// Whether the check stopped at `--max-errors` before the end.
    truncated: bool,
}

pub fn run(args: &CheckArgs, ui: &Ui) -> Result<Status, CliError> {
    let loaded = match load(&args.root, ui) {
        Ok(loaded) => loaded,
        Err(error) if error.status() == Status::Trouble => return Err(error),
        Err(error) => return report_all(args, ui, error),
    };
    let service = &*loaded.service;
    let coordinates = service.coordinates()?;
    let mut revisions = 0;
    let mut releases = 0;
    let mut release_warnings = Vec::new();
    for coordinate in &coordinates {
        revisions += service.revisions(coordinate)?.len();
        if let Some(latest) = service.latest(coordinate)? {
            releases += latest.releases().len();
            for release in latest.releases() {
                let deprecated = deprecated_licenses(release)
                    .into_iter()
                    .map(|w| (WarningKind::DeprecatedLicense, w));
                let empty = empty_content(release).map(|w| (WarningKind::EmptyBlob, w));
                release_warnings.extend(deprecated.chain(empty));
            }
        }
    }
    let limit = (!args.all_warnings).then_some(SHOWN_PER_KIND);
    let root = crate::address::locate(&args.root.root)?;
    let options = DiagnoseOptions::new().with_examples(args.root.examples);
    let found = diagnose::warnings(&root, &options, service)?;
    let unrecorded: Vec<String> = found.unrecorded.iter().map(|p| path_text(p)).collect();
    let stray: Vec<String> = found.stray.iter().map(ToString::to_string).collect();
    let warning_summary = WarningSummary::of(&stray, &unrecorded, &release_warnings, limit);
    let document = CheckDocument {
        command: "check",
        ok: true,
        root: path_text(&args.root.root),
        examples: args.root.examples,
        artifacts: coordinates.len(),
        revisions,
        releases,
        elapsed_ms: u64::try_from(loaded.elapsed.as_millis()).unwrap_or(u64::MAX),
        skipped_examples: found.skipped_examples,
        warnings: release_warnings.iter().map(|(_, w)| w.clone()).collect(),
        unrecorded,
        stray,
        signed: signed(found.signed, ui),
        warning_summary,
        replication: found.replication.map(|r| ReplicationJson {
            replicas: r.replicas,
            leader: r.leader,
            current_followers: r.current_followers,
            clustered: r.clustered,
            cluster_size: r.cluster_size,
        }),
    };
    if let Some(r) = &document.replication
        && r.clustered
        && r.replicas < 2
    {
        ui.warn(&format!(
            "{}: its stream and buckets have 1 replica on a cluster of {} servers: losing that server's disk loses the hub, and while it is down nothing can be written; raise it with: nenjim-journal init {} --replicas {}",
            document.root,
            r.cluster_size,
            document.root,
            r.cluster_size.min(3)
        ));
    }
    let stray: Vec<_> = document
        .stray
        .iter()
        .map(|entry| {
            let message =
                format!("{entry}; the root's ledger never loads it: move it out of the root");
            (WarningKind::Stray, message)
        })
        .collect();
    print_warnings(&stray, limit, &|message| ui.warn(message));
    let unrecorded: Vec<_> = document
        .unrecorded
        .iter()
        .map(|file| {
            let message = format!(
                "{file}: not recorded by the root's ledger, so never loaded; record it with: nenjim-journal append {} {file}",
                document.root
            );
            (WarningKind::Unrecorded, message)
        })
        .collect();
    print_warnings(&unrecorded, limit, &|message| {
        ui.eprintln(&format!("{} {message}", ui.err(Paint::Warn, "warning:")));
    });
    if args.json {
        ui.print_json(&document)?;
        return Ok(Status::Ok);
    }
    print_warnings(&release_warnings, limit, &|message| ui.warn(message));
    let skipped = match document.skipped_examples {
        0 => String::new(),
        n => format!(
            "; skipped {} (pass --examples to load them)",
            counted(n, "example file")
        ),
    };
    let signed = match &document.signed {
        Some(s) => format!(
            "; signed by the key {} (checkpoint of {} entries; `nenjim-journal verify --key <vkey>` verifies it)",
            s.key_name, s.tree_size
        ),
        None => String::new(),
    };
    let replicated = match &document.replication {
        Some(r) => format!(
            "; {} (leader {}, {} current)",
            counted(r.replicas, "replica"),
            r.leader.as_deref().unwrap_or("unknown"),
            counted(r.current_followers, "follower"),
        ),
        None => String::new(),
    };
    ui.summary(&format!(
        "{} {}{}: {}, {}, {} (loaded in {:.3} s){skipped}{signed}{replicated}\n",
        ui.out(Paint::Good, "ok"),
        document.root,
        if document.examples {
            " (with examples)"
        } else {
            ""
        },
        counted(document.artifacts, "artifact"),
        counted(document.revisions, "revision"),
        counted(document.releases, "release"),
        loaded.elapsed.as_secs_f64(),
    ))?;
    Ok(Status::Ok)
}

/// Whether the root is signed, and by which key name (its checkpoint's
/// origin); a checkpoint that cannot be read is a warning.
fn signed(checkpoint: Result<Option<Checkpoint>, JournalError>, ui: &Ui) -> Option<SignedJson> {
    match checkpoint {
        Ok(checkpoint) => checkpoint.map(|checkpoint| SignedJson {
            key_name: checkpoint.origin().to_owned(),
            tree_size: checkpoint.size(),
        }),
        Err(e) => {
            ui.warn(&format!("the root's checkpoint cannot be read: {e}"));
            None
        }
    }
}

/// Every independent error found, as the command reports them.
struct Found {
    errors: Vec<CliError>,
    truncated: bool,
}

/// The load failed with `first`: scan the root for every independent error
/// and report them all, with a count.
fn report_all(args: &CheckArgs, ui: &Ui, first: CliError) -> Result<Status, CliError> {
    let limit = args
        .max_errors
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(usize::MAX);
    let options = DiagnoseOptions::new()
        .with_examples(args.root.examples)
        .max_errors(limit);
    let root = crate::address::locate(&args.root.root).ok();
    let found = root.as_ref().map(|root| diagnose::diagnose(root, &options));
    let (errors, truncated) = match found {
        Some(Ok(diagnosis)) if !diagnosis.errors.is_empty() => (
            diagnosis
                .errors
                .into_iter()
                .map(CliError::Journal)
                .collect(),
            diagnosis.truncated,
        ),
        // Neither scan found anything (or could run): the loader's error
        // is the report (its file named by URL for a root given by URL, as
        // the scans name them).
        _ => match (first, &root) {
            (CliError::Journal(first), Some(root)) => (
                diagnose::named_for(root, vec![first])
                    .into_iter()
                    .map(CliError::Journal)
                    .collect(),
                false,
            ),
            (first, _) => (vec![first], false),
        },
    };
    let diagnosis = Found {
        errors: errors
            .into_iter()
            .map(|e| crate::store_errors::explained(e, &[&args.root.root]))
            .collect::<Vec<_>>(),
        truncated,
    };
    let status = diagnosis
        .errors
        .iter()
        .map(CliError::status)
        .max()
        .unwrap_or(Status::Invalid);
    let count = diagnosis.errors.len();
    let root = path_text(&args.root.root);
    for error in &diagnosis.errors {
        ui.eprintln(&format!("{} {error}", ui.err(Paint::Bad, "error:")));
    }
    let stopped = if diagnosis.truncated {
        " (stopped early: --max-errors)"
    } else {
        ""
    };
    ui.eprintln(&format!(
        "{} {root}: {}{stopped}",
        ui.err(Paint::Bad, "failed"),
        counted(count, "error")
    ));
    if args.json {
        let errors: Vec<ErrorJson> = diagnosis.errors.iter().map(ErrorJson::of).collect();
        let first = diagnosis
            .errors
            .first()
            .map(ErrorJson::of)
            .unwrap_or_else(|| ErrorJson::of(&CliError::refused("Invalid", "invalid root")));
        ui.print_json(&FailedDocument {
            command: "check",
            ok: false,
            root,
            examples: args.root.examples,
            error: first,
            errors,
            error_count: count,
            truncated: diagnosis.truncated,
        })?;
    }
    Ok(status)
}
