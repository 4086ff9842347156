//! The arguments of the subcommands that read: a root and how it is read,
//! the queries, the file tools (kept apart from the command line's shape,
//! in `args.rs`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, ReleaseVersion};

/// How a root is read, shared by the subcommands that load one.
#[derive(Debug, Args)]
pub struct RootArgs {
    /// The Journal root: a directory (`<root>/<coordinate>/<timestamp>.journal`),
    /// a bucket URL (`s3://bucket/prefix`, `gs://…`, `az://…`, `file://…`,
    /// `memory://`) or a NATS root (`nats://host:port/<name>`, or
    /// `nats://h1:p1,h2:p2,…/<name>` for a cluster).
    pub root: PathBuf,
    /// Also load `*.journal.example` files as if they were runtime revisions
    /// (read-only, in memory).
    #[arg(long)]
    pub examples: bool,
    /// For a root in an object store: keep the revision files and ledger
    /// segments read in this directory and read them from it next time
    /// (a revision file checked by its SHA-256, a segment by its range;
    /// default `$XDG_CACHE_HOME/nenjim-journal`, else
    /// `$HOME/.cache/nenjim-journal`).
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache: Option<PathBuf>,
    /// For a root in an object store: read every revision file and ledger
    /// segment from the store (a cached copy is the recorded bytes, so a
    /// read through the cache does not notice a revision file changed or
    /// deleted in the store since).
    #[arg(long)]
    pub no_cache: bool,
}

/// `check <root> [--examples] [--max-errors N] [--all-warnings] [--json]`
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub root: RootArgs,
    /// Stop after this many errors (every error is reported by default).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_errors: Option<u64>,
    /// Print every warning. By default each kind of warning (stray entry,
    /// unrecorded revision file, deprecated license, empty blob) shows its
    /// first 5, then one line saying how many more of that kind there are.
    /// The JSON document always lists every warning; its
    /// `warning_summary` holds what the text shows.
    #[arg(long)]
    pub all_warnings: bool,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `lint <path>... [--json]`
#[derive(Debug, Args)]
pub struct LintArgs {
    /// The revision files to check (each on its own; all are checked). A
    /// directory is searched recursively for `*.journal` and
    /// `*.journal.example` files; `-` reads more paths from stdin, one a line
    /// (no argument-length limit: `find … | nenjim-journal lint -`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `list <root> [pattern] [--examples] [--json]`
#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub root: RootArgs,
    /// Only coordinates containing this text, or matching it as a glob (`com.r35157.*`).
    pub pattern: Option<String>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `[--at T | --as-of T]`: which revision of an artifact a command reads
/// (`show`, `versions`); the latest without either.
#[derive(Debug, Args)]
pub struct RevisionArgs {
    /// The revision with exactly this JOURNAL_VERSION (default: the latest;
    /// `now`, a date or a timestamp are accepted).
    #[arg(long, value_name = "TIMESTAMP", conflicts_with = "as_of", value_parser = parse_instant)]
    pub at: Option<JournalVersion>,
    /// The newest revision at or before this instant: `now`, a date
    /// (`2026-12-01`) or a timestamp (default: the latest).
    #[arg(long, value_name = "TIMESTAMP", value_parser = parse_instant)]
    pub as_of: Option<JournalVersion>,
}

/// `versions <root> <coordinate> [--at T | --as-of T] [--examples] [--json]`
#[derive(Debug, Args)]
pub struct VersionsArgs {
    #[command(flatten)]
    pub root: RootArgs,
    /// The artifact whose releases are listed.
    #[arg(value_parser = parse_coordinate)]
    pub coordinate: ArtifactCoordinate,
    #[command(flatten)]
    pub revision: RevisionArgs,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `diff <root> <coordinate> <from> <to> [--examples] [--json]`
#[derive(Debug, Args)]
pub struct DiffArgs {
    #[command(flatten)]
    pub root: RootArgs,
    /// The artifact.
    #[arg(value_parser = parse_coordinate)]
    pub coordinate: ArtifactCoordinate,
    /// The older revision: a JOURNAL_VERSION, `now`, a date (the newest
    /// revision at or before it), `genesis` or `latest`.
    pub from: String,
    /// The newer revision, named the same way.
    pub to: String,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `completions <shell> [--json]`
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
    /// Print one JSON document (the script as a string) instead of the script.
    #[arg(long)]
    pub json: bool,
}

/// `man [--json]`
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Print one JSON document (the page as a string) instead of the page.
    #[arg(long)]
    pub json: bool,
}

/// A coordinate as typed; a trailing `/` (from shell completion of the
/// artifact directory) is dropped.
pub fn parse_coordinate(text: &str) -> Result<ArtifactCoordinate, String> {
    text.trim_end_matches('/')
        .parse::<ArtifactCoordinate>()
        .map_err(|e| e.to_string())
}

/// An instant as typed: `now`, a date `YYYY-MM-DD` (its start, in UTC), an
/// ISO timestamp `YYYY-MM-DDTHH:MM:SSZ`, or a JOURNAL_VERSION `YYYYMMDDTHHMMSSZ`.
pub fn parse_instant(text: &str) -> Result<JournalVersion, String> {
    if text.eq_ignore_ascii_case("now") {
        return Ok(JournalVersion::now_utc());
    }
    let compact: String = if text.len() == 10 && text.as_bytes().get(4) == Some(&b'-') {
        format!("{}T000000Z", text.replace('-', ""))
    } else if text.contains('-') || text.contains(':') {
        text.replace(['-', ':'], "")
    } else {
        text.to_owned()
    };
    compact.parse::<JournalVersion>().map_err(|e| {
        format!(
            "{e}; expected `now`, a date (`2026-12-01`), `2026-12-01T10:00:00Z` or `20261201T100000Z`"
        )
    })
}

/// `digest <file> [--json]`
#[derive(Debug, Args)]
pub struct DigestArgs {
    /// The file whose exact bytes are hashed.
    pub file: PathBuf,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `successor <file> [--at <timestamp>] [-o <file>]`
#[derive(Debug, Args)]
pub struct SuccessorArgs {
    /// The revision to follow (usually the artifact's newest file).
    pub file: PathBuf,
    /// The new JOURNAL_VERSION (YYYYMMDDTHHMMSSZ); when omitted, now in UTC,
    /// or one second after the source's if the clock is at or behind it.
    /// Must be after the source's.
    #[arg(long, value_name = "TIMESTAMP")]
    pub at: Option<JournalVersion>,
    /// Write the revision to this new file instead of stdout; never over an
    /// existing file, and no file at all on failure.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `history <root> <coordinate> [--examples] [--json]`
#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub root: RootArgs,
    /// The artifact whose chain is shown.
    #[arg(value_parser = parse_coordinate)]
    pub coordinate: ArtifactCoordinate,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `events <root> [--after N] [--coordinate C]... [--kind K]... [--limit N]
/// [--json | --format F] [--follow [--interval S]] [--examples]`
#[derive(Debug, Args)]
pub struct EventsArgs {
    #[command(flatten)]
    pub root: RootArgs,
    /// Only the events of revisions with a sequence above N (0: from the start).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub after: u64,
    /// Only the events of this artifact (repeat for several).
    #[arg(long = "coordinate", value_name = "COORDINATE")]
    pub coordinates: Vec<ArtifactCoordinate>,
    /// Only events of this kind (repeat for several): `created` (a genesis),
    /// `header` (description or information changed), `release` (published),
    /// `policy` (a statement stated or withdrawn).
    #[arg(long = "kind", value_name = "KIND")]
    pub kinds: Vec<EventKind>,
    /// Only the N newest of the selected events (`--format atom`: 50 by default).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// One JSON object per line (the same as `--format json`).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// The output: `text` lines, `json` lines, or an `atom` feed.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<EventFormat>,
    /// After the events there are, print each new one as it is appended,
    /// until SIGINT or SIGTERM (exit code 0). Live on a NATS root (across
    /// server restarts: it resumes after the last event read); on a
    /// directory or a bucket this polls: an explicit refresh of the root
    /// every `--interval`.
    #[arg(long)]
    pub follow: bool,
    /// With `--follow`: seconds between two refreshes of the root (polling; default 2).
    #[arg(long, value_name = "SECONDS", requires = "follow", value_parser = interval)]
    pub interval: Option<std::time::Duration>,
}

/// `--interval`: a positive number of seconds (fractions allowed).
fn interval(text: &str) -> Result<std::time::Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0)
        .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| {
            format!("found `{text}`, expected a positive number of seconds (`2`, `0.5`)")
        })
}

impl EventsArgs {
    /// The output format chosen (`--json` is `json`; `text` by default).
    pub fn format(&self) -> EventFormat {
        match (self.json, self.format) {
            (true, _) => EventFormat::Json,
            (false, Some(format)) => format,
            (false, None) => EventFormat::Text,
        }
    }
}

/// The kinds of event `events --kind` selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EventKind {
    /// `ArtifactCreated`.
    Created,
    /// `DescriptionChanged`, `InformationChanged`.
    Header,
    /// `ReleasePublished`.
    Release,
    /// `PolicyStated`, `PolicyWithdrawn`.
    Policy,
}

/// The output formats of `events`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EventFormat {
    /// One human-readable line per event.
    Text,
    /// One JSON object per line.
    Json,
    /// An Atom (RFC 4287) feed of the newest events.
    Atom,
}

/// `show <root> <coordinate> [--at T | --as-of T] [--release V] [--examples] [--json]`
#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub root: RootArgs,
    /// The artifact to show.
    #[arg(value_parser = parse_coordinate)]
    pub coordinate: ArtifactCoordinate,
    #[command(flatten)]
    pub revision: RevisionArgs,
    /// Show only this release, with its policy context in the revision.
    #[arg(long, value_name = "VERSION")]
    pub release: Option<ReleaseVersion>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `verify-content <root> [--store <dir>] [--examples] [--all-revisions] [--json]`
#[derive(Debug, Args)]
pub struct VerifyContentArgs {
    #[command(flatten)]
    pub root: RootArgs,
    /// The content store, a directory, a bucket URL or a NATS root (its own
    /// blob bucket): blobs live at `<store>/blobs/sha256/<hex>` (by default
    /// the one the root records, `init --store`).
    #[arg(long, value_name = "STORE")]
    pub store: Option<PathBuf>,
    /// Check the releases of every revision, not only of each latest one.
    #[arg(long)]
    pub all_revisions: bool,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}
