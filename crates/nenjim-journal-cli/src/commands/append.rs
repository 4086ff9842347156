//! `append <root> <file>... [--store <store>] [--source-store <store>]
//! [--strict] [--batch N] [--prove] [--wait D] [--json]`: append hand-written revision files
//! through the root's writer, in the given order.
//!
//! The copy of a whole root is the submodule `copy` (`append/copy.rs`).
//!
//! Each text is validated exactly as ingestion does, written durably to
//! `<root>/<coordinate>/<version>.journal` (a file already there with the
//! same bytes, placed by hand, is recorded as it is) and recorded in the
//! ledger; a text already recorded is a success that writes nothing. The
//! first refusal stops the command (exit 1, or 2 for I/O): the files before
//! it stay appended and are listed, the ones after it are not tried.
//! Files (and a copied root's revisions) are appended in batches of up to
//! `--batch` (default the writer's `batch_max`, 1 000; `--batch 1`
//! appends one by one) (`FsJournalWriter::append_batch`: one
//! durability barrier per batch, not per file; a batch of a copy holds
//! revisions of consecutive sequences; a file that is not a regular file,
//! a pipe, is read only once the files before it are appended). SIGINT or SIGTERM stops it the same
//! way between two files (the ones read before it are appended first), a
//! root's copy included: "N of M appended; re-run to
//! resume", exit 130, the lease given back; re-running the same command
//! records the first N again (writing nothing) and appends the rest (a
//! copy is completed, its sequences kept). Files are read when their turn
//! comes, so a file may be a pipe; a root is loaded before the first
//! append, so that M is known.
//!
//! The content store is `--store`, else the one the root records (`init
//! --store`); a named store that does not exist is refused.
//!
//! A file's new releases go through the checks of publish time
//! (`publish_checks.rs`): warnings, or with `--strict` a refusal.
//!
//! With `--prove` (which needs `--signing-key`, so the root is signed
//! before anything is written), once every source is appended the command
//! waits, still holding the lease, for a checkpoint that covers the run
//! (at most one `--checkpoint-interval`), and gives each revision of the
//! run (new, or recorded already) its RFC 6962 inclusion proof against
//! that one checkpoint, as `prove` computes it (`prove::inclusion`). A run
//! stopped by a refusal or a signal proves nothing (`prove` proves any
//! revision later).
//!
//! A source that is a directory or a URL (`s3://bucket/prefix` …) is a
//! whole root, copied ([`copy`]): loaded as a start does, each of its
//! revisions appended in its sequence order *at its sequence* (the gaps the
//! source's `FENCE` entries left are fenced in the destination too), so a
//! consumer that switches to the copy resumes with its old `--after`. The
//! destination must be empty, or an earlier copy of the same source (which
//! is then completed); anything else is refused, with why, before anything
//! is written. With `--source-store`, the blob of every release the copied
//! revisions publish is copied from the source's content store into the
//! destination's (`--store` or the recorded one) first.

use std::path::{Path, PathBuf};

use nenjim_journal_api::error::ErrorContext as _;
use serde::Serialize;

use nenjim_journal_root::Root;
use nenjim_journal_root::verify::SignedRoot;
use nenjim_journal_store::ledger::Entry;
use nenjim_journal_writer::FsJournalWriter;

use super::prove::Proof;
use super::publish::{revision_path, with_writer_at};
use super::read_text;
use crate::address::locate;
use crate::args::AppendArgs;
use crate::failure::{CliError, Status};
use crate::report::{ErrorJson, path_text};
use crate::ui::{Paint, Ui};

/// Past this many revisions, `--prove` reads the whole ledger once rather
/// than each revision's entry alone.
const PROVE_READ_ALL: usize = 64;

/// The `--json` document (printed whatever the outcome).
#[derive(Debug, Serialize)]
struct AppendDocument {
    command: &'static str,
    ok: bool,
    root: String,
    /// The files appended (or found recorded), in order, up to the first refusal.
    appended: Vec<AppendedJson>,
    /// The refusal that stopped the command, `null` when every file was appended.
    error: Option<ErrorJson>,
}

/// One appended file.
#[derive(Debug, Serialize)]
struct AppendedJson {
    /// The file as given.
    file: String,
    coordinate: String,
    journal_version: String,
    /// Its ledger sequence: the same in every later load of the root.
    sequence: u64,
    digest: String,
    /// Where the revision is in the root.
    path: String,
    /// False when the ledger already recorded this exact text.
    new: bool,
    /// What the checks of publish time found in the file's new releases
    /// (empty for a copied root's revisions, which are not checked).
    warnings: Vec<String>,
    /// With `--prove`, its inclusion proof against the checkpoint that
    /// covers the run (`prove`'s document); `null` without.
    proof: Option<Proof>,
}

pub fn run(args: &AppendArgs, ui: &Ui) -> Result<Status, CliError> {
    // The sources, each a file (read when its turn comes) or a root (loaded
    // now, so that the count of texts is known).
    let sources: Vec<Source> = args.files.iter().map(|f| Source::of(f)).collect();
    let mut report = Report {
        args,
        ui,
        appended: Vec::with_capacity(args.files.len()),
        total: sources.iter().map(Source::count).sum(),
    };
    let store = super::init::store_for(&args.root, args.store.as_deref());
    let named_store = store.as_ref().ok().cloned().flatten();
    let result = store.and_then(|store| {
        if let Some(store) = &store {
            super::init::require_store(store, false)?;
        }
        let stores = copy::Stores::of(args.source_store.as_deref(), store.as_deref())?;
        let total = report.total;
        let address = locate(&args.root)?;
        with_writer_at(
            &args.root,
            address.clone(),
            store.as_deref(),
            &args.writing,
            total,
            ui,
            |writer| {
                let mut files = Files::default();
                for source in sources {
                    match source {
                        Source::Root(copied) => {
                            files.flush(writer, &mut report)?;
                            copy::copy(writer, &args.root, *copied?, stores.as_ref(), &mut report)?;
                        }
                        Source::File(file) => files.queue(writer, &file, &mut report)?,
                    }
                }
                files.flush(writer, &mut report)?;
                if args.prove {
                    report.prove(writer, &address)?;
                }
                Ok(())
            },
        )
    });
    let (status, error) = match result {
        Ok(()) => (Status::Ok, None),
        Err(error) => {
            let mut addresses: Vec<&Path> = vec![&args.root];
            addresses.extend(args.store.as_deref());
            addresses.extend(named_store.as_deref());
            addresses.extend(args.source_store.as_deref());
            addresses.extend(args.files.iter().map(PathBuf::as_path));
            let error = crate::store_errors::explained(error, &addresses);
            ui.eprintln(&format!("{} {error}", ui.err(Paint::Bad, "error:")));
            (error.status(), Some(ErrorJson::of(&error)))
        }
    };
    if args.json {
        ui.print_json(&AppendDocument {
            command: "append",
            ok: status == Status::Ok,
            root: path_text(&args.root),
            appended: report.appended,
            error,
        })?;
    }
    Ok(status)
}

/// One source of `append`: a file, read when its turn comes (it may be a
/// pipe), or a root, loaded at once (its error, if any, reported at its turn).
enum Source {
    File(PathBuf),
    Root(Result<Box<copy::Source>, CliError>),
}

impl Source {
    fn of(source: &Path) -> Source {
        match locate(source) {
            Ok(root) if root.local_path().is_some_and(|p| !p.is_dir()) => {
                Source::File(source.to_path_buf())
            }
            Ok(address) => Source::Root(
                copy::Source::load(&address)
                    .map(Box::new)
                    .map_err(CliError::from),
            ),
            Err(error) => Source::Root(Err(error)),
        }
    }

    /// How many texts it gives (a root that cannot be read: one, its error).
    fn count(&self) -> usize {
        match self {
            Source::File(_) | Source::Root(Err(_)) => 1,
            Source::Root(Ok(root)) => root.len(),
        }
    }
}

/// The files read and checked, waiting for their batch
/// ([`FsJournalWriter::append_batch`]: one durability barrier for up to
/// the writer's `batch_max` of them).
///
/// [`FsJournalWriter::append_batch`]: nenjim_journal_writer::FsJournalWriter::append_batch
#[derive(Default)]
struct Files {
    texts: Vec<String>,
    /// Each text's file, as given.
    files: Vec<PathBuf>,
    /// What the checks of publish time found in each text's new releases.
    warnings: Vec<Vec<String>>,
    /// The writer's state with the queued texts that ingest: the checks of
    /// a text see the ones queued before it.
    checks: Option<nenjim_journal_chain::ChainState>,
}

impl Files {
    /// Reads one revision file (now), checks it as publish time does, and
    /// queues it; appends the queue once it holds a batch. A file that
    /// cannot be read, a strict refusal and a signal append the queue
    /// first (the files before stay appended), then stop the command.
    fn queue(
        &mut self,
        writer: &mut nenjim_journal_writer::FsJournalWriter,
        source: &Path,
        report: &mut Report<'_>,
    ) -> Result<(), CliError> {
        let args = report.args;
        // A file that may block (a pipe) is read once the files before it
        // are appended, as without batches.
        if !std::fs::metadata(source).is_ok_and(|m| m.is_file()) {
            self.flush(writer, report)?;
        }
        let text = match read_text(source) {
            Ok(text) => text,
            Err(error) => {
                self.flush(writer, report)?;
                return Err(error);
            }
        };
        // A signal stops the command here, between two files (the queued
        // ones appended first).
        if crate::interrupt::requested() {
            self.flush(writer, report)?;
            report.stop_if_interrupted()?;
        }
        let checks = self.checks.get_or_insert_with(|| writer.state().clone());
        // The checks of publish time, on what parses (the append reports
        // what does not).
        let (warnings, valid) = match nenjim_journal_parser::parse(&text) {
            Ok(revision) => {
                let warnings = super::publish_checks::new_releases(checks, &args.root, &revision);
                // An invalid file is refused for what is wrong with it.
                match checks.ingest_revision(revision) {
                    Ok(ingested) => {
                        *checks = ingested.into_state();
                        (warnings, true)
                    }
                    Err(_) => (warnings, false),
                }
            }
            Err(_) => (Vec::new(), false),
        };
        if args.strict && valid && !warnings.is_empty() {
            self.flush(writer, report)?;
            let refusal = super::publish_checks::strict_refusal(&warnings);
            return Err(match refusal {
                CliError::Refused { kind, message } => CliError::Refused {
                    kind,
                    message: format!("{}: {message}", path_text(source)),
                },
                other => other,
            });
        }
        self.texts.push(text);
        self.files.push(source.to_path_buf());
        self.warnings.push(warnings);
        if !valid
            || self.texts.len()
                >= usize::try_from(args.batch)
                    .unwrap_or(usize::MAX)
                    .min(writer.batch_max())
        {
            // An invalid text ends its batch (the writer refuses it there).
            self.flush(writer, report)?;
        }
        Ok(())
    }

    /// Appends the queued texts as one batch and reports them; the first
    /// refusal is located in its file.
    fn flush(
        &mut self,
        writer: &mut nenjim_journal_writer::FsJournalWriter,
        report: &mut Report<'_>,
    ) -> Result<(), CliError> {
        let texts = std::mem::take(&mut self.texts);
        let files = std::mem::take(&mut self.files);
        let warnings = std::mem::take(&mut self.warnings);
        self.checks = None;
        if texts.is_empty() {
            return Ok(());
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (appended, stopped) = match writer.append_batch(&refs) {
            Ok(appended) => (appended, None),
            Err(stopped) => {
                let index = stopped.index();
                let (appended, error) = stopped.into_parts();
                (appended, Some((index, error)))
            }
        };
        for ((done, file), warnings) in appended.iter().zip(&files).zip(warnings) {
            let mut entry = entry(&report.args.root, file, done);
            entry.warnings = warnings;
            report.push(entry)?;
        }
        let Some((index, e)) = stopped else {
            return Ok(());
        };
        let source = files
            .get(index)
            .map_or(report.args.root.as_path(), PathBuf::as_path);
        Err(CliError::from(
            if e.kind() == nenjim_journal_api::error::ErrorKind::ReleaseRewritten {
                // What to do instead, as `release` says it; located in the
                // appended file.
                e.note("publish the change as a new version, or withdraw the release with `nenjim-journal yank`")
                    .moved_to(source)
            } else {
                e.with_path(source)
            },
        ))
    }
}

/// The report of one appended revision: `file` as given, `done` what the
/// writer returned.
fn entry(root: &Path, file: &Path, done: &nenjim_journal_api::append::Appended) -> AppendedJson {
    let revision = done.revision();
    AppendedJson {
        file: path_text(file),
        coordinate: revision.coordinate().to_string(),
        journal_version: revision.journal_version().to_string(),
        sequence: done.sequence(),
        digest: revision.digest().to_string(),
        path: path_text(&revision_path(
            root,
            revision.coordinate(),
            revision.journal_version(),
        )),
        new: done.is_new(),
        warnings: Vec::new(),
        proof: None,
    }
}

/// What was appended so far: printed as it comes (text), kept for the
/// JSON document, and counted for an interruption's "N of M".
struct Report<'a> {
    args: &'a AppendArgs,
    ui: &'a Ui,
    appended: Vec<AppendedJson>,
    /// How many texts the command was given (M).
    total: usize,
}

impl Report<'_> {
    /// Prints one appended revision (text) and keeps it for the JSON document.
    fn push(&mut self, entry: AppendedJson) -> Result<(), CliError> {
        let ui = self.ui;
        if !self.args.json {
            let verb = if entry.new {
                ui.out(Paint::Good, "appended")
            } else {
                ui.out(Paint::Good, "recorded already")
            };
            ui.print(&format!(
                "{verb} {}: {} {}, sequence {}, {}, {}\n",
                entry.file,
                entry.coordinate,
                entry.journal_version,
                entry.sequence,
                entry.digest,
                entry.path
            ))?;
            for warning in &entry.warnings {
                ui.warn(warning);
            }
        }
        self.appended.push(entry);
        Ok(())
    }

    /// `--prove`: waits for a checkpoint that covers every revision of
    /// this run (`FsJournalWriter::wait_for_checkpoint`: at most one
    /// checkpoint interval; a checkpoint covers a prefix of the ledger, so
    /// the one that covers the last covers them all), then reads it with
    /// the tiles and puts each revision's inclusion proof against it in
    /// its entry (and prints it, in text).
    fn prove(&mut self, writer: &FsJournalWriter, address: &Root) -> Result<(), CliError> {
        let Some(last) = self.appended.iter().map(|e| e.sequence).max() else {
            return Ok(());
        };
        writer.wait_for_checkpoint(last)?;
        let root = SignedRoot::open(address)?;
        let checkpoint = root.checkpoint_unverified()?;
        // Many revisions: the ledger read once; a few: each one's entry
        // alone (a root's whole ledger is not read to answer for them).
        let all = if self.appended.len() > PROVE_READ_ALL {
            Some(root.entries()?)
        } else {
            None
        };
        for appended in &mut self.appended {
            let entry = match &all {
                Some(all) => all
                    .binary_search_by_key(&appended.sequence, Entry::sequence)
                    .ok()
                    .and_then(|i| all.get(i))
                    .cloned(),
                None => root.entry(appended.sequence)?,
            };
            let entry = entry.ok_or_else(|| {
                nenjim_journal_api::error::error(
                    nenjim_journal_api::error::ErrorKind::LedgerMismatch,
                    format!(
                        "found no ledger entry {} in the root's ledger, expected the record of {} {} just appended",
                        appended.sequence, appended.coordinate, appended.journal_version
                    ),
                )
                .with_path(&self.args.root)
            })?;
            let proof = super::prove::inclusion(&root, &checkpoint, &entry)?;
            if !self.args.json {
                self.ui.print(&format!("\n{}", proof.text()))?;
            }
            appended.proof = Some(proof);
        }
        Ok(())
    }

    /// `Interrupted` (N of M appended) once SIGINT or SIGTERM came.
    fn stop_if_interrupted(&self) -> Result<(), CliError> {
        if crate::interrupt::requested() {
            return Err(CliError::Interrupted {
                appended: self.appended.len(),
                total: self.total,
            });
        }
        Ok(())
    }
}

/// Copying a whole root: see the module docs.
mod copy;
