//! `append <root> <file>... [--store <dir>] [--json]`: append hand-written
//! revision files through the root's writer, in the given order.
//!
//! Each text is validated exactly as ingestion does, written durably to
//! `<root>/<coordinate>/<version>.journal` (a file already there with the
//! same bytes, placed by hand, is recorded as it is) and recorded in the
//! ledger; a text already recorded is a success that writes nothing. The
//! first refusal stops the command (exit 1, or 2 for I/O): the files before
//! it stay appended and are listed, the ones after it are not tried.
//! SIGINT or SIGTERM stops it the same way between two appends (the one
//! begun is finished): "N of M appended; re-run to resume", exit 130, the
//! lease given back; re-running the same command records the first N
//! again (writing nothing) and appends the rest. Files are read when their
//! turn comes, so a file may be a pipe.
//!
//! A source that is a directory or a URL (`s3://bucket/prefix` …) is a
//! whole root: it is loaded as a start does and each of its revisions is
//! appended in its sequence order (its ledger's, if it has one), so that a
//! local root is copied into a bucket with its ledger order.

use std::path::{Path, PathBuf};

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::model::build::ErrorContext as _;
use nenjim_journal_fs::{LoadOptions, MAX_FILE_LEN, ledger, load_with};
use serde::Serialize;

use super::publish::{revision_path, with_writer};
use super::read_text;
use crate::address::{Address, file_system, locate};
use crate::args::AppendArgs;
use crate::failure::{CliError, Status};
use crate::report::{ErrorJson, path_text};
use crate::ui::{Paint, Ui};

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
}

pub fn run(args: &AppendArgs, ui: &Ui) -> Result<Status, CliError> {
    let mut appended = Vec::with_capacity(args.files.len());
    // The sources, each a file (read when its turn comes) or a root (read
    // now, so that the count of texts is known).
    let sources: Vec<Source> = args.files.iter().map(|f| Source::of(f)).collect();
    let total = sources.iter().map(Source::count).sum();
    let result = super::init::store_for(&args.root, args.store.as_deref()).and_then(|store| {
        if let Some(store) = &store {
            super::init::require_store(store, false)?;
        }
        with_writer(
            &args.root,
            store.as_deref(),
            args.writing.wait,
            total,
            ui,
            |writer| {
                for (file, text) in sources.into_iter().flat_map(Source::texts) {
                    let (file, text) = (file?, text?);
                    // A signal stops the command here, between two appends.
                    if crate::interrupt::requested() {
                        return Err(CliError::Interrupted {
                            appended: appended.len(),
                            total,
                        });
                    }
                    let done = writer
                        .append(&text)
                        .map_err(|e| CliError::from(e.with_path(&file)))?;
                    let revision = done.revision();
                    let entry = AppendedJson {
                        file: path_text(&file),
                        coordinate: revision.coordinate().to_string(),
                        journal_version: revision.journal_version().to_string(),
                        sequence: done.sequence(),
                        digest: revision.digest().to_string(),
                        path: path_text(&revision_path(
                            &args.root,
                            revision.coordinate(),
                            revision.journal_version(),
                        )),
                        new: done.is_new(),
                    };
                    if !args.json {
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
                    }
                    appended.push(entry);
                }
                Ok(())
            },
        )
    });
    let (status, error) = match result {
        Ok(()) => (Status::Ok, None),
        Err(error) => {
            ui.eprintln(&format!("{} {error}", ui.err(Paint::Bad, "error:")));
            (error.status(), Some(ErrorJson::of(&error)))
        }
    };
    if args.json {
        ui.print_json(&AppendDocument {
            command: "append",
            ok: status == Status::Ok,
            root: path_text(&args.root),
            appended,
            error,
        })?;
    }
    Ok(status)
}

/// One source of `append`: a file, read when its turn comes (it may be a
/// pipe), or a root, read at once.
enum Source {
    File(PathBuf),
    Root(Result<Vec<(PathBuf, String)>, CliError>),
}

impl Source {
    fn of(source: &Path) -> Source {
        let is_root = match locate(source) {
            Ok(Address::Local(path)) => path.is_dir(),
            Ok(Address::Object { .. }) | Err(_) => true,
        };
        if is_root {
            Source::Root(texts(source))
        } else {
            Source::File(source.to_path_buf())
        }
    }

    /// How many texts it gives (a root that cannot be read: one, its error).
    fn count(&self) -> usize {
        match self {
            Source::File(_) | Source::Root(Err(_)) => 1,
            Source::Root(Ok(texts)) => texts.len(),
        }
    }

    /// Its texts, each with the path it is reported by (an error in place).
    fn texts(self) -> Vec<(Result<PathBuf, CliError>, Result<String, CliError>)> {
        match self {
            Source::File(path) => {
                let text = read_text(&path);
                vec![(Ok(path), text)]
            }
            Source::Root(texts) => flatten(texts),
        }
    }
}

/// The texts a root (a directory, or a URL) gives: each of its revisions,
/// in sequence order, with the path it is reported by.
fn texts(source: &Path) -> Result<Vec<(PathBuf, String)>, CliError> {
    let address = locate(source)?;
    let (fs, root) = file_system(&address);
    let state = load_with(&*fs, root, LoadOptions::new())?;
    let mut out = Vec::new();
    let mut cursor = state.replay(0);
    while let Some(revision) = cursor.next()? {
        let path = ledger::revision_path(root, revision.coordinate(), revision.journal_version());
        let bytes = fs
            .read(&path, MAX_FILE_LEN)
            .map_err(|e| CliError::io(&path, "cannot read the revision", e))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            CliError::io(
                &path,
                "cannot read the revision",
                std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            )
        })?;
        out.push((shown(source, root, &path), text));
    }
    Ok(out)
}

/// A revision of a source root, reported under the source as typed.
fn shown(source: &Path, root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root)
        .map_or_else(|_| path.to_path_buf(), |relative| source.join(relative))
}

/// One source's texts as a sequence of results (its error, if any, in place).
fn flatten(
    texts: Result<Vec<(PathBuf, String)>, CliError>,
) -> Vec<(Result<PathBuf, CliError>, Result<String, CliError>)> {
    match texts {
        Ok(texts) => texts.into_iter().map(|(p, t)| (Ok(p), Ok(t))).collect(),
        Err(e) => vec![(Err(e), Ok(String::new()))],
    }
}
