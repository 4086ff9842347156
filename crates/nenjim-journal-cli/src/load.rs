//! Loading a root the way a service does: a `JournalAssembly` and `start()`
//! (a root given by URL is read from its object store).
//!
//! When stderr is a terminal and the load takes more than a second, a
//! helper thread prints `loading <root>…` there, and the time taken once it
//! is done. Nothing else depends on timing.

use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use nenjim_journal_api::error::{ErrorContext as _, JournalError};
use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use nenjim_journal_api::{JournalService, JournalServiceManager};
use nenjim_journal_ref::{JournalAssembly, LoadOptions};

use crate::args::RootArgs;
use crate::failure::{CliError, Status};
use crate::report::path_text;
use crate::ui::Ui;

/// How long a load runs before progress is shown.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);

/// A started Journal over a root.
pub struct Loaded {
    /// The read-only queries.
    pub service: Arc<dyn JournalService>,
    /// The administration view: `refresh()` (`events --follow`).
    pub manager: Arc<dyn JournalServiceManager>,
    /// How long `start()` took.
    pub elapsed: Duration,
    /// Keeps the assembly (and so the Journal) alive as long as the queries.
    _assembly: JournalAssembly,
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("elapsed", &self.elapsed)
            .finish_non_exhaustive()
    }
}

/// Loads `args.root` completely (with examples when asked), as `start()` does.
pub fn load(args: &RootArgs, ui: &Ui) -> Result<Loaded, CliError> {
    let options = LoadOptions::new().with_examples(args.examples);
    let root = crate::address::locate(&args.root)?;
    // A root whose files are objects in a bucket is read through the cache.
    let dir = if args.no_cache || !root.has_remote_files() {
        None
    } else {
        args.cache.clone().or_else(crate::cache::default_dir)
    };
    let assembly =
        root.assembly_through(options, |fs| match (dir, crate::address::location(&root)) {
            (Some(dir), Some(location)) => Arc::new(crate::cache::Cached::new(
                fs,
                dir,
                crate::cache::origin(&location),
            )),
            _ => fs,
        });
    let process = assembly.process();
    let started = Instant::now();
    let result = with_progress(&args.root, ui, || process.start());
    let elapsed = started.elapsed();
    result.map_err(|error| name_the_artifact(error, &args.root))?;
    Ok(Loaded {
        service: assembly.service(),
        manager: assembly.manager(),
        elapsed,
        _assembly: assembly,
    })
}

/// A load stops at the first damaged revision and no query of the root
/// answers until it is repaired: an error in an artifact's revision file
/// says which artifact, and where to see every damaged file and what to
/// restore (`check`).
fn name_the_artifact(error: JournalError, root: &Path) -> JournalError {
    if matches!(Status::of_journal_error(&error), Status::Trouble) {
        return error;
    }
    let artifact = error
        .path()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains(".journal"))
        })
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .and_then(|name| name.to_str())
        .and_then(|name| name.parse::<ArtifactCoordinate>().ok());
    let Some(artifact) = artifact else {
        return error;
    };
    let note = format!(
        "the root cannot be read until artifact `{artifact}` is repaired: `nenjim-journal check {}` lists every damaged file and what to restore",
        path_text(root)
    );
    error.note(note)
}

/// Runs `work`, printing progress on stderr if it is slow and stderr is a terminal.
fn with_progress<T>(root: &Path, ui: &Ui, work: impl FnOnce() -> T) -> T {
    if !ui.progress_enabled() {
        return work();
    }
    let (done, wait) = mpsc::channel::<()>();
    let label = path_text(root);
    let started = Instant::now();
    let reporter = thread::spawn(move || match wait.recv_timeout(PROGRESS_AFTER) {
        Err(RecvTimeoutError::Timeout) => {
            eprintln_quiet(&format!("loading {label}…"));
            let _ = wait.recv();
            eprintln_quiet(&format!(
                "loaded {label} in {:.1} s",
                started.elapsed().as_secs_f64()
            ));
        }
        Ok(()) | Err(RecvTimeoutError::Disconnected) => {}
    });
    let value = work();
    drop(done);
    let _ = reporter.join();
    value
}

fn eprintln_quiet(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
