//! The command line: one [`Cli`] with one [`Command`] per subcommand.
//!
//! Token arguments (coordinates, timestamps, release versions) are parsed
//! by clap with the API's own `FromStr`, so a malformed one is a usage
//! error (exit code 2) with the value type's message.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, ReleaseVersion};

pub use crate::commands::publish_args::{
    AppendArgs, CreateArgs, PolicyArgs, PutBlobArgs, RecommendArgs, ReleaseArgs,
};

/// Check, inspect, author and verify Nenjim Journal roots.
///
/// Exit codes: 0 everything is valid; 1 the journal, a file or the content
/// is invalid (or a coordinate, revision or release is unknown); 2 a usage
/// or I/O problem (bad arguments, missing or unreadable root, file or store).
#[derive(Debug, Parser)]
#[command(name = "nenjim-journal", version, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load a root exactly as `start()` does and report a summary or the first error.
    ///
    /// On success prints the number of artifacts, revisions and releases (of
    /// the latest revisions) and the load time. On failure prints the
    /// diagnostic `path:line:column: message` on stderr and exits 1 (2 when
    /// the root is missing, not a directory or unreadable, or on I/O errors).
    Check(CheckArgs),
    /// Parse and validate single revision files, without chain context.
    ///
    /// Every file is checked; each error is printed as `path:line:column:
    /// message`. Exit code 1 if any file is invalid (including non-UTF-8),
    /// 2 if any file cannot be read.
    Lint(LintArgs),
    /// Print the revision digest (`sha256:<hex>`) of a file's exact bytes.
    ///
    /// This is the value a successor names on its PREDECESSOR line.
    Digest(DigestArgs),
    /// Print a new revision that follows the given one (to author the next revision).
    ///
    /// The output is the source text with exactly two header lines changed:
    /// JOURNAL_VERSION (--at, or now) and PREDECESSOR (the source's digest).
    /// Save it as `<root>/<coordinate>/<new timestamp>.journal`, add releases
    /// or change policy, then run `check`. Exit code 1 if the source does not
    /// parse or the timestamp is not after the source's.
    Successor(SuccessorArgs),
    /// Show the chain of an artifact: every revision and what it changed.
    ///
    /// For each revision, oldest first: Journal version, digest, sequence,
    /// release count, and the releases and policy statements added (+) or
    /// removed (-) against its predecessor. Exit code 1 for an unknown artifact.
    History(HistoryArgs),
    /// Show an artifact's worldview at one revision, or one release in it.
    ///
    /// The latest revision by default, `--at` an exact revision, `--as-of` the
    /// newest at or before an instant. `--release` shows one release with its
    /// policy context in that revision. Exit code 1 for an unknown artifact,
    /// revision or release.
    Show(ShowArgs),
    /// Check that every release's content blob is in a store, with the right size and digest.
    ///
    /// Blobs are looked up at `<store>/blobs/sha256/<hex>`; each distinct blob
    /// is streamed and hashed once. Every missing, wrong-size and wrong-digest
    /// blob is reported. Exit code 1 if any failed, 2 if the store or a blob
    /// cannot be read.
    VerifyContent(VerifyContentArgs),
    /// Append hand-written revision files to a root through its writer, in the given order.
    ///
    /// Each file is validated exactly as ingestion does, written durably
    /// and recorded in the root's ledger (created on the first write);
    /// prints each one's sequence, digest and path. A file already recorded
    /// is a success that writes nothing. Stops at the first refusal (exit 1;
    /// the files before it stay appended).
    Append(AppendArgs),
    /// Put a file into a content store and print its pointer (`sha256:<hex> <size>`).
    ///
    /// The blob goes to `<store>/blobs/sha256/<hex>`, durably; putting it
    /// again is a success. Exit 1 if a different blob already has that name.
    PutBlob(PutBlobArgs),
    /// Create an artifact: append its genesis revision (no releases).
    ///
    /// Exit 1 (`DuplicateGenesis`) if the root already holds the artifact.
    Create(CreateArgs),
    /// Publish a release: put its blob, then append the head's successor with it.
    ///
    /// Publishing a release the head already holds with the same values
    /// is a success that writes nothing; with other values it is
    /// `ReleaseRewritten` (exit 1).
    Release(ReleaseArgs),
    /// Yank releases: append the head's successor with one more YANK.
    Yank(PolicyArgs),
    /// Deprecate releases: append the head's successor with one more DEPRECATE.
    Deprecate(PolicyArgs),
    /// Recommend a release: append the head's successor whose RECOMMEND names it.
    Recommend(RecommendArgs),
}

impl Command {
    /// The subcommand's name, as typed.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Check(_) => "check",
            Command::Lint(_) => "lint",
            Command::Digest(_) => "digest",
            Command::Successor(_) => "successor",
            Command::History(_) => "history",
            Command::Show(_) => "show",
            Command::VerifyContent(_) => "verify-content",
            Command::Append(_) => "append",
            Command::PutBlob(_) => "put-blob",
            Command::Create(_) => "create",
            Command::Release(_) => "release",
            Command::Yank(_) => "yank",
            Command::Deprecate(_) => "deprecate",
            Command::Recommend(_) => "recommend",
        }
    }

    /// Whether the output is one JSON document.
    pub fn json(&self) -> bool {
        match self {
            Command::Check(a) => a.json,
            Command::Lint(a) => a.json,
            Command::Digest(a) => a.json,
            Command::Successor(_) => false,
            Command::History(a) => a.json,
            Command::Show(a) => a.json,
            Command::VerifyContent(a) => a.json,
            Command::Append(a) => a.json,
            Command::PutBlob(a) => a.json,
            Command::Create(a) => a.json,
            Command::Release(a) => a.json,
            Command::Yank(a) | Command::Deprecate(a) => a.json,
            Command::Recommend(a) => a.json,
        }
    }
}

/// How a root is read, shared by the subcommands that load one.
#[derive(Debug, Args)]
pub struct RootArgs {
    /// The Journal root directory (`<root>/<coordinate>/<timestamp>.journal`).
    pub root: PathBuf,
    /// Also load `*.journal.example` files as if they were runtime revisions
    /// (read-only, in memory).
    #[arg(long)]
    pub examples: bool,
}

/// `check <root> [--examples] [--json]`
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub root: RootArgs,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `lint <file>... [--json]`
#[derive(Debug, Args)]
pub struct LintArgs {
    /// The revision files to check (each on its own; all are checked).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
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
    pub coordinate: ArtifactCoordinate,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `show <root> <coordinate> [--at T | --as-of T] [--release V] [--examples] [--json]`
#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub root: RootArgs,
    /// The artifact to show.
    pub coordinate: ArtifactCoordinate,
    /// The revision with exactly this JOURNAL_VERSION (default: the latest).
    #[arg(long, value_name = "TIMESTAMP", conflicts_with = "as_of")]
    pub at: Option<JournalVersion>,
    /// The newest revision at or before this instant (default: the latest).
    #[arg(long, value_name = "TIMESTAMP")]
    pub as_of: Option<JournalVersion>,
    /// Show only this release, with its policy context in the revision.
    #[arg(long, value_name = "VERSION")]
    pub release: Option<ReleaseVersion>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `verify-content <root> --store <dir> [--examples] [--all-revisions] [--json]`
#[derive(Debug, Args)]
pub struct VerifyContentArgs {
    #[command(flatten)]
    pub root: RootArgs,
    /// The content store: blobs live at `<store>/blobs/sha256/<hex>`.
    #[arg(long, value_name = "DIR")]
    pub store: PathBuf,
    /// Check the releases of every revision, not only of each latest one.
    #[arg(long)]
    pub all_revisions: bool,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}
