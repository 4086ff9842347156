//! The arguments of the commands that write a root (`append`, `put-blob`,
//! `create`, `release`, `yank`, `deprecate`, `recommend`).
//!
//! Tokens are parsed by clap with the API's own `FromStr` (a malformed one
//! is a usage error, exit code 2); free text (descriptions, reasons) is
//! taken as typed, without quotes, and checked by `Description::new`.
//! `--depends`, `--excludes` and `--prefers` take the rest of the format's
//! line (`<coordinate> <requirement> ["why"]`), tokens separated by spaces,
//! the optional description quoted as in the format.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use nenjim_journal_api::model::build;
use nenjim_journal_api::model::{Dependency, Exclusion, Preference};
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, Description, InformationUri, LicenseExpression, ReleaseVersion,
    VersionRequirement,
};

/// What every writing command takes: how long to wait for the root's
/// lease, the key that signs its checkpoints and their interval.
#[derive(Debug, Args)]
pub struct WriteArgs {
    /// Wait up to this long for another writer's lease, then write (default:
    /// refuse at once with exit code 75). A number with a unit, `500ms`,
    /// `30s`, `2m`, `1h 30m` (humantime's syntax), or a bare number of
    /// seconds. SIGINT or SIGTERM stops the wait.
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub wait: Option<Duration>,
    /// Sign the root's checkpoint with this note signer key file (from
    /// `keygen`) after the write: a root becomes signed the first time,
    /// and from then on every writer must hold its key (format section 10).
    #[arg(long, value_name = "FILE")]
    pub signing_key: Option<PathBuf>,
    /// With --signing-key: the least time between two signed checkpoints
    /// (default `0`: one after every commit, i.e. every file, or every
    /// batch of `append --batch`). At an interval a commit only grows the
    /// tree, and a checkpoint covering what waits is published once the
    /// interval has passed; the command always publishes one covering
    /// everything when it ends, so the interval matters within one long
    /// `append` of many files or batches, or a root's copy. Same syntax as
    /// --wait (`500ms`, `1s`, `2m`, `0`).
    #[arg(long, value_name = "DURATION", value_parser = duration,
          default_value = "0", requires = "signing_key")]
    pub checkpoint_interval: Duration,
}

impl WriteArgs {
    /// The signer key text of `--signing-key` (its first line, checked to
    /// be a note signer key), if given.
    pub fn signing_key(&self) -> Result<Option<String>, crate::failure::CliError> {
        let Some(path) = &self.signing_key else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| crate::failure::CliError::io(path, "cannot read the signing key", e))?;
        let key = nenjim_journal_tlog::note::SignerKey::from_file_text(&text)
            .map_err(|e| nenjim_journal_api::error::ErrorContext::with_path(e, path))?;
        Ok(Some(key.to_key_string()))
    }
}

/// The duration of `--wait` and `--checkpoint-interval`: humantime's
/// syntax, or a bare number of seconds.
pub fn duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if let Ok(seconds) = text.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds)
            .map_err(|_| format!("found `{text}`, expected a duration of zero or more seconds"));
    }
    humantime::parse_duration(text).map_err(|e| {
        format!("found `{text}` ({e}), expected a duration such as `30s`, `2m`, `1h 30m`, `500ms` or a number of seconds")
    })
}

/// `append <root> <file>... [--store <store>] [--source-store <store>] [--strict] [--prove] [--wait D] [--json]`
#[derive(Debug, Args)]
pub struct AppendArgs {
    /// The Journal root to append to (made by `init`): a directory, a bucket URL (`s3://bucket/prefix`, `gs://…`,
    /// `az://…`, `file://…`, `memory://`) or a NATS root
    /// (`nats://host:port/<name>`, or `nats://h1:p1,h2:p2,…/<name>` for a
    /// cluster).
    pub root: PathBuf,
    /// The revision files to append, in this order; a directory, a bucket
    /// URL or a NATS root is a whole root, copied at its own sequences.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// A content store (a directory, a bucket URL or a NATS root's own
    /// blob bucket): every new release's blob must be there first (`<store>/blobs/sha256/<hex>`, exact size and
    /// digest). By default the one the root records (`init --store`).
    #[arg(long, value_name = "STORE")]
    pub store: Option<PathBuf>,
    /// When copying a root: the source root's content store, from which
    /// the blob of every release of the copied revisions is copied into the
    /// destination's store (`--store`, or the one the root records; one is
    /// needed) before the revision is appended.
    #[arg(long, value_name = "STORE")]
    pub source_store: Option<PathBuf>,
    /// Refuse (writing nothing more) instead of warning when a check of
    /// publish time finds something in a file's new releases (as `release
    /// --strict`); a copied root is not checked.
    #[arg(long)]
    pub strict: bool,
    /// How many revisions are committed with one durability barrier
    /// (group commit): `1` appends them one by one.
    #[arg(long, value_name = "N", default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: u64,
    /// With --signing-key: once everything is appended, wait for a
    /// checkpoint covering the revisions of this run (at most one
    /// --checkpoint-interval) and print each one's RFC 6962 inclusion
    /// proof against it, as `prove` does (with --json, in each appended
    /// item's `proof`).
    #[arg(long, requires = "signing_key")]
    pub prove: bool,
    #[command(flatten)]
    pub writing: WriteArgs,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `init <root> [--store <store>] [--create] [--wait D] [--json]`
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The Journal root to create (or to record a store in): a directory, a bucket URL (`s3://bucket/prefix`, `gs://…`,
    /// `az://…`, `file://…`, `memory://`) or a NATS root
    /// (`nats://host:port/<name>`, or `nats://h1:p1,h2:p2,…/<name>` for a
    /// cluster).
    pub root: PathBuf,
    /// The content store to record in the root's ledger metadata
    /// (`<root>/.ledger/store`; a NATS root's bucket `NENJIM_<name>_meta`):
    /// a directory, a bucket URL or a NATS root (its own blob bucket).
    /// Later commands use it unless `--store` is given. Without it a NATS
    /// root that records no store records its own blob bucket.
    #[arg(long, value_name = "STORE")]
    pub store: Option<PathBuf>,
    /// Create the content store if it does not exist (without it a missing
    /// store is refused).
    #[arg(long, requires = "store")]
    pub create: bool,
    /// Of a NATS root (`nats://h1:p1,h2:p2,…/<name>`): keep N copies of
    /// its stream and of every bucket, each on another server of the
    /// cluster (default: 1 for a new root, an existing root's as they
    /// are; more than the cluster's servers is refused). R3 across
    /// failure domains is what a hub needs (README, "A hub on NATS").
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub replicas: Option<u16>,
    #[command(flatten)]
    pub writing: WriteArgs,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `put-blob --store <store> [--create] <file> [--json]`
#[derive(Debug, Args)]
pub struct PutBlobArgs {
    /// The content store, a directory, a bucket URL (`s3://bucket/prefix`
    /// …) or a NATS root (`nats://host:port/<name>`: its own blob bucket):
    /// the blob goes to `<store>/blobs/sha256/<hex>`.
    #[arg(long, value_name = "STORE")]
    pub store: PathBuf,
    /// Create the content store if it does not exist (without it a missing
    /// store is refused: a mistyped `--store` would start an empty one).
    #[arg(long)]
    pub create: bool,
    /// The file whose exact bytes are the blob.
    pub file: PathBuf,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `create <root> <coordinate> --description <text> [--information <uri>] [--json]`
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The Journal root: a directory, a bucket URL (`s3://bucket/prefix`, `gs://…`,
    /// `az://…`, `file://…`, `memory://`) or a NATS root
    /// (`nats://host:port/<name>`, or `nats://h1:p1,h2:p2,…/<name>` for a
    /// cluster).
    pub root: PathBuf,
    /// The new artifact.
    pub coordinate: ArtifactCoordinate,
    /// What the artifact is (plain text, no quotes).
    #[arg(long, value_name = "TEXT", value_parser = description)]
    pub description: Description,
    /// A URI with more about the artifact.
    #[arg(long, value_name = "URI")]
    pub information: Option<InformationUri>,
    #[command(flatten)]
    pub writing: WriteArgs,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `release <root> <coordinate> <version>... --license <spdx>... --content <file>... [--store <store> [--create]] … [--strict] [--wait D]`
#[derive(Debug, Args)]
pub struct ReleaseArgs {
    /// The Journal root: a directory, a bucket URL (`s3://bucket/prefix`, `gs://…`,
    /// `az://…`, `file://…`, `memory://`) or a NATS root
    /// (`nats://host:port/<name>`, or `nats://h1:p1,h2:p2,…/<name>` for a
    /// cluster).
    pub root: PathBuf,
    /// The artifact (created before with `create`).
    pub coordinate: ArtifactCoordinate,
    /// The new release's version; several (`1.0.0 1.0.1`) are published in
    /// one revision, each with its own `--content`, in the same order.
    #[arg(value_name = "VERSION", required = true, num_args = 1..)]
    pub releases: Vec<ReleaseVersion>,
    /// The release's license (an SPDX expression): once for every release,
    /// or once per release in the order of the versions.
    #[arg(long, value_name = "SPDX", required = true)]
    pub license: Vec<LicenseExpression>,
    /// The release's blob: put into the store first, then named by CONTENT;
    /// one per release, in the order of the versions.
    #[arg(long, value_name = "FILE", required = true)]
    pub content: Vec<PathBuf>,
    /// The content store (`<store>/blobs/sha256/<hex>`; a directory, a
    /// bucket URL or a NATS root's own blob bucket): by default the one the
    /// root records (`init --store`).
    #[arg(long, value_name = "STORE")]
    pub store: Option<PathBuf>,
    /// Create the content store if it does not exist (without it a missing
    /// store is refused: a mistyped `--store` would start an empty one).
    #[arg(long)]
    pub create: bool,
    /// What the release is (plain text, no quotes).
    #[arg(long, value_name = "TEXT", value_parser = description)]
    pub description: Option<Description>,
    /// A dependency: `<coordinate> <requirement> ["why"]` (repeatable).
    #[arg(long, value_name = "DEPENDENCY", value_parser = dependency)]
    pub depends: Vec<Dependency>,
    /// An exclusion: `<coordinate> [<requirement>] ["why"]` (repeatable).
    #[arg(long, value_name = "EXCLUSION", value_parser = exclusion)]
    pub excludes: Vec<Exclusion>,
    /// A preference: `<coordinate> <requirement> ["why"]` (repeatable).
    #[arg(long, value_name = "PREFERENCE", value_parser = preference)]
    pub prefers: Vec<Preference>,
    /// Refuse (writing nothing) instead of warning when a check of publish
    /// time finds something: a dependency on an unknown artifact, on no
    /// release or only yanked ones, a deprecated license, an empty blob.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub writing: WriteArgs,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `yank|deprecate <root> <coordinate> <requirement> <reason> [--json]`
#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// The Journal root: a directory, a bucket URL (`s3://bucket/prefix`, `gs://…`,
    /// `az://…`, `file://…`, `memory://`) or a NATS root
    /// (`nats://host:port/<name>`, or `nats://h1:p1,h2:p2,…/<name>` for a
    /// cluster).
    pub root: PathBuf,
    /// The artifact.
    pub coordinate: ArtifactCoordinate,
    /// The releases concerned (`1.2.0`, `[1.0.0,2.0.0)`, `*`).
    pub requirement: VersionRequirement,
    /// Why (plain text, no quotes).
    #[arg(value_parser = description)]
    pub reason: Description,
    #[command(flatten)]
    pub writing: WriteArgs,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `recommend <root> <coordinate> <version> [--json]`
#[derive(Debug, Args)]
pub struct RecommendArgs {
    /// The Journal root: a directory, a bucket URL (`s3://bucket/prefix`, `gs://…`,
    /// `az://…`, `file://…`, `memory://`) or a NATS root
    /// (`nats://host:port/<name>`, or `nats://h1:p1,h2:p2,…/<name>` for a
    /// cluster).
    pub root: PathBuf,
    /// The artifact.
    pub coordinate: ArtifactCoordinate,
    /// The release to recommend (replaces any earlier RECOMMEND).
    #[arg(value_name = "VERSION")]
    pub release: ReleaseVersion,
    #[command(flatten)]
    pub writing: WriteArgs,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Free text as a description (no quotes: the text as typed).
fn description(text: &str) -> Result<Description, String> {
    Description::new(text).map_err(|e| e.message().to_owned())
}

/// Splits `<token> <rest>` at the first run of spaces.
fn first_token(text: &str) -> (&str, &str) {
    let text = text.trim_matches(' ');
    match text.split_once(' ') {
        Some((token, rest)) => (token, rest.trim_start_matches(' ')),
        None => (text, ""),
    }
}

/// The optional quoted description ending a line (`""` when absent).
fn trailing_description(rest: &str) -> Result<Option<Description>, String> {
    if rest.is_empty() {
        Ok(None)
    } else {
        rest.parse::<Description>()
            .map(Some)
            .map_err(|e| format!("in `{rest}`: {}", e.message()))
    }
}

fn coordinate(token: &str) -> Result<ArtifactCoordinate, String> {
    token
        .parse::<ArtifactCoordinate>()
        .map_err(|e| format!("in coordinate `{token}`: {}", e.message()))
}

fn requirement(token: &str) -> Result<VersionRequirement, String> {
    if token.is_empty() {
        return Err("found nothing after the coordinate, expected a requirement".to_owned());
    }
    token
        .parse::<VersionRequirement>()
        .map_err(|e| format!("in requirement `{token}`: {}", e.message()))
}

/// `<coordinate> <requirement> ["why"]`, as on a DEPENDS line.
fn dependency(text: &str) -> Result<Dependency, String> {
    let (artifact, rest) = first_token(text);
    let (req, rest) = first_token(rest);
    Ok(build::dependency(
        coordinate(artifact)?,
        requirement(req)?,
        trailing_description(rest)?,
    ))
}

/// `<coordinate> [<requirement>] ["why"]`, as on an EXCLUDES line.
fn exclusion(text: &str) -> Result<Exclusion, String> {
    let (artifact, rest) = first_token(text);
    let (req, rest) = if rest.is_empty() || rest.starts_with('"') {
        (None, rest)
    } else {
        let (req, rest) = first_token(rest);
        (Some(requirement(req)?), rest)
    };
    Ok(build::exclusion(
        coordinate(artifact)?,
        req,
        trailing_description(rest)?,
    ))
}

/// `<coordinate> <requirement> ["why"]`, as on a PREFERS line.
fn preference(text: &str) -> Result<Preference, String> {
    let (artifact, rest) = first_token(text);
    let (req, rest) = first_token(rest);
    Ok(build::preference(
        coordinate(artifact)?,
        requirement(req)?,
        trailing_description(rest)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::{dependency, exclusion, preference};

    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory as _;
        crate::args::Cli::command().debug_assert();
    }

    #[test]
    fn a_wait_or_a_checkpoint_interval_is_humantime_or_seconds() {
        use std::time::Duration;
        assert_eq!(super::duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(super::duration("1h 30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(super::duration("2.5"), Ok(Duration::from_millis(2500)));
        assert_eq!(super::duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(super::duration("0"), Ok(Duration::ZERO));
        assert!(super::duration("-1").is_err());
        assert!(super::duration("soon").is_err_and(|e| e.contains("`30s`")));
    }

    #[test]
    fn lines_read_as_in_the_format() {
        let d = dependency("serde [1.0.0,2.0.0) \"derive \\\"it\\\"\"").ok();
        assert_eq!(
            d.as_ref().map(|d| (
                d.artifact().to_string(),
                d.requirement().to_string(),
                d.description().map(|t| t.as_str().to_owned())
            )),
            Some((
                "serde".to_owned(),
                "[1.0.0,2.0.0)".to_owned(),
                Some("derive \"it\"".to_owned())
            ))
        );
        let x = exclusion("openssl \"no C\"").ok();
        assert_eq!(
            x.as_ref()
                .map(|x| (x.requirement().is_none(), x.description().is_some())),
            Some((true, true))
        );
        assert!(exclusion("openssl 1.0.0").is_ok_and(|x| x.requirement().is_some()));
        assert!(preference("log 0.4.0").is_ok());
        assert!(dependency("serde").is_err(), "a requirement is required");
        assert!(dependency("serde 1.0.0 unquoted").is_err());
        assert!(dependency("Not A Coordinate 1.0.0").is_err());
    }
}
