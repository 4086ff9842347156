//! The command line: one [`Cli`] with one [`Command`] per subcommand.
//!
//! Token arguments (coordinates, timestamps, release versions) are parsed
//! by clap with the API's own `FromStr`, so a malformed one is a usage
//! error (exit code 2) with the value type's message.

use clap::{Parser, Subcommand, ValueEnum};

pub use crate::commands::checkpoint::CheckpointArgs;
pub use crate::commands::keygen::KeygenArgs;
pub use crate::commands::prove::ProveArgs;
pub use crate::commands::publish_args::{
    AppendArgs, CreateArgs, InitArgs, PolicyArgs, PutBlobArgs, RecommendArgs, ReleaseArgs,
};
pub use crate::commands::verify::VerifyArgs;
pub use crate::commands::witness::WitnessArgs;

mod read;
pub use read::*;

/// Check, inspect, author and verify Nenjim Journal roots.
///
/// Every subcommand that takes a root takes a directory, a bucket URL
/// (`s3://bucket/prefix`, `gs://…`, `az://…`, `file://…`, `memory://`) or a
/// NATS JetStream root (`nats://host:port/<name>`, or
/// `nats://h1:p1,h2:p2,…/<name>` for a cluster: the client moves to another
/// server when it loses one). `init` makes a NATS root (its stream and
/// buckets; `--replicas N` keeps N copies of each, R3 for a hub); its
/// credentials and TLS come from `NATS_CREDS`, `NATS_NKEY`,
/// `NATS_USER`/`NATS_PASSWORD` or `NATS_TOKEN` (at most one), and `NATS_CA`,
/// `NATS_CERT`/`NATS_KEY`.
///
/// Exit codes: 0 everything is valid; 1 the journal, a file or the content
/// is invalid (or a coordinate, revision or release is unknown); 2 a usage
/// or I/O problem (bad arguments, missing or unreadable root, file or
/// store; a certificate or credentials refused); 75 refused for now, retry
/// later: a write refused with nothing written (another writer holds the
/// lease, committed first or took the lease over; --wait waits), or a
/// NATS root's servers did not answer (a timeout, a leader election,
/// servers down; the one-line message says whether anything was
/// committed); 130 a writing command stopped by SIGINT or SIGTERM (re-run
/// to resume).
#[derive(Debug, Parser)]
#[command(name = "nenjim-journal", version, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Print no summary, progress or warning; only results and errors.
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// When to colour the output: `auto` (on a terminal, unless `NO_COLOR` is set), `always` or `never`.
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Never send long output through a pager (`$PAGER`, else `less -FRX`);
    /// a pager is only used when stdout is a terminal.
    #[arg(long, global = true)]
    pub no_pager: bool,
    /// Show what the libraries do on stderr, as timestamped lines: `-v` the
    /// start or refresh of a root with its counts and time, the lease
    /// acquired, taken over, released or lost, each append with its
    /// sequence, retries and reconnects (and other crates' warnings);
    /// `-vv` more detail; `-vvv` everything. `RUST_LOG` (an env filter:
    /// `info`, `nenjim_journal_writer=debug`, …) chooses instead, or as
    /// well; with neither, nothing more is printed.
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

/// When output is coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always (also through a pipe).
    Always,
    /// Never.
    Never,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load a root exactly as `start()` does and report a summary, or every independent error.
    ///
    /// On success prints the number of artifacts, revisions and releases (of
    /// the latest revisions) and the load time, and warns (exit code 0) about
    /// deprecated license identifiers, empty blobs, and, in a root with a
    /// ledger, files the ledger does not record and stray files; on a signed
    /// root it names the key that signs its checkpoint. On failure
    /// prints every independent error (not only the first one the loader
    /// stops at) as `path:line:column: message` on stderr, with a count
    /// (`--max-errors N` stops after N), and exits 1 (2 when the root is
    /// missing, not a directory or unreadable, or on I/O errors).
    ///
    /// Warnings that repeat are summarised: of each kind (stray entry,
    /// unrecorded revision file, deprecated license, empty blob) the first
    /// 5 are printed, then one line with how many more there are;
    /// `--all-warnings` prints every one. Warnings never change the exit code.
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
    /// Print the event feed: what each revision changed, oldest first.
    ///
    /// One line per event (sequence, Journal version, coordinate, change):
    /// `* created`, `~` a header value changed, `+` a release published or a
    /// policy statement stated, `-` a statement withdrawn. `--after N` resumes
    /// after the last sequence a consumer processed; `--coordinate` and
    /// `--kind` select events (each may be repeated). `--json` prints one JSON
    /// object per line; `--format atom` writes an Atom feed of the newest
    /// events (50 unless `--limit`). `--follow` then prints each new event
    /// as it is appended, until SIGINT or SIGTERM (exit code 0): live on a
    /// NATS root (riding out server restarts and leader elections: it
    /// resumes after the last event read, printing none twice); on a
    /// directory or a bucket it polls, refreshing the root every
    /// `--interval` seconds (default 2). Exit code 1 for an unknown
    /// coordinate.
    Events(EventsArgs),
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
    /// List the artifacts of a root: head version, releases, latest release, yanked count.
    ///
    /// One line per artifact whose coordinate matches the pattern (a
    /// substring, or a glob with `*` and `?`); all artifacts without one.
    /// Exit code 1 when a pattern matches nothing.
    List(ListArgs),
    /// List the releases of an artifact, one line each (like `npm view x versions`).
    ///
    /// In the latest revision (or `--at` / `--as-of`), oldest first, each with
    /// its markers: yanked, deprecated, recommended. Exit code 1 for an
    /// unknown artifact.
    Versions(VersionsArgs),
    /// Show what changed between two revisions of an artifact, headers included.
    ///
    /// DESCRIPTION and INFORMATION, releases added (and, in a broken chain,
    /// removed or changed), and policy statements added and removed. Each
    /// revision is named by its JOURNAL_VERSION, `now`/a date (the newest at
    /// or before it) or `latest`. Exit code 1 for an unknown artifact or revision.
    Diff(DiffArgs),
    /// Print a shell completion script (bash, elvish, fish, powershell, zsh).
    ///
    /// Generated from this command's own definition, e.g.
    /// `nenjim-journal completions bash > /etc/bash_completion.d/nenjim-journal`.
    Completions(CompletionsArgs),
    /// Print the man page (roff), generated from this command's own definition.
    ///
    /// `nenjim-journal man > nenjim-journal.1 && man ./nenjim-journal.1`.
    Man(ManArgs),
    /// Create a Journal root and its ledger (on NATS: its stream and buckets), recording its content store.
    ///
    /// Creates the root (a directory or a bucket prefix) and its ledger;
    /// `--store` records the content store in `<root>/.ledger/store`, which
    /// `release`, `append` and `verify-content` then use unless given
    /// `--store`. A store that does not exist is refused unless `--create`.
    /// Running it again on an existing root records the store given.
    ///
    /// On a NATS root (`nats://host:port/<name>`, or
    /// `nats://h1:p1,h2:p2,…/<name>` for a cluster) it creates, where
    /// absent, the ledger's stream `NENJIM_<name>` and the root's buckets
    /// (lease, blobs, checkpoint, metadata); `--replicas N` keeps N copies
    /// of the stream and of every bucket, each on another server (on an
    /// existing root it changes them to N; R3 across failure domains for a
    /// hub). Without `--store`, a root that records no content store gets
    /// its own blob bucket recorded as one; `--store` records another (a
    /// directory, a bucket URL or another NATS root), in the bucket
    /// `NENJIM_<name>_meta`.
    /// Credentials and TLS come from `NATS_CREDS`, `NATS_NKEY`,
    /// `NATS_USER`/`NATS_PASSWORD` or `NATS_TOKEN`, and `NATS_CA`,
    /// `NATS_CERT`/`NATS_KEY`; a certificate or credentials refused is exit
    /// 2, servers that do not answer exit 75 (retry later).
    Init(InitArgs),
    /// Append hand-written revision files to a root through its writer, in the given order.
    ///
    /// Each file is validated exactly as ingestion does, written durably
    /// and recorded in the root's ledger (created on the first write);
    /// prints each one's sequence, digest and path. A file already recorded
    /// is a success that writes nothing. Stops at the first refusal (exit 1;
    /// the files before it stay appended). SIGINT or SIGTERM stops it
    /// between two files: it prints "N of M appended; re-run to resume",
    /// gives the lease back and exits 130. On a signed root (--signing-key)
    /// --prove then prints each revision's inclusion proof against a
    /// checkpoint that covers it, as `prove` does.
    Append(AppendArgs),
    /// Put a file into a content store and print its pointer (`sha256:<hex> <size>`).
    ///
    /// The blob goes to `<store>/blobs/sha256/<hex>` (a directory, a URL
    /// such as `s3://bucket/prefix`, or a NATS root `nats://host:port/<name>`:
    /// its own blob bucket), streamed and durably; putting it again is a
    /// success. Exit 1 if a different blob already has that name.
    PutBlob(PutBlobArgs),
    /// Create an artifact: append its genesis revision (no releases).
    ///
    /// Exit 1 (`DuplicateGenesis`) if the root already holds the artifact.
    Create(CreateArgs),
    /// Publish releases: put their blobs, then append the head's successor with them.
    ///
    /// Several versions (`release <root> <coordinate> 1.0.0 1.0.1 --content
    /// a.tgz --content b.tgz`) are published in one revision. A
    /// JOURNAL_VERSION has a resolution of one second, and each revision of
    /// an artifact must be later than the one before: releases published one
    /// command each, faster than once a second, are stamped ahead of the
    /// clock (so `--as-of now` does not see them yet); publish them in one
    /// command instead. Warns about a dependency on an unknown artifact, on
    /// no release or only yanked ones, a deprecated license or an empty blob
    /// (`--strict` refuses instead). Publishing a release the head already
    /// holds with the same values is a success that writes nothing; with
    /// other values it is `ReleaseRewritten` (exit 1): publish a new version,
    /// or yank the release.
    Release(ReleaseArgs),
    /// Yank releases: append the head's successor with one more YANK.
    Yank(PolicyArgs),
    /// Deprecate releases: append the head's successor with one more DEPRECATE.
    Deprecate(PolicyArgs),
    /// Recommend a release: append the head's successor whose RECOMMEND names it.
    Recommend(RecommendArgs),
    /// Generate a note signer key: write it to a new file (mode 0600) and print its verifier key.
    ///
    /// The keys are Ed25519 in the formats of Go's `golang.org/x/mod/sumdb/note`
    /// (signer `PRIVATE+KEY+<name>+<hash>+<base64>`, verifier
    /// `<name>+<hash>+<base64>`); the name is the origin of the checkpoints
    /// the key signs. Never writes over an existing file (exit 2).
    Keygen(KeygenArgs),
    /// Print the root's current signed checkpoint note, exactly as stored.
    ///
    /// The note `<root>/.ledger/tlog/checkpoint` (C2SP tlog-checkpoint,
    /// signed-note): save it to check later, with `verify --since`, that
    /// the root was not rolled back or forked. Exit 1 (`CheckpointInvalid`)
    /// for a root that is not signed.
    Checkpoint(CheckpointArgs),
    /// Verify a signed root: its checkpoint, its tree, every revision file, and no rollback.
    ///
    /// Checks the checkpoint's signature by --key, the tree over the
    /// ledger records it covers (its size and root hash, and the hash
    /// tiles' root; a missing tile is named), every revision file's size
    /// and SHA-256 against its record (each file streamed and hashed
    /// once), and reports how many ledger entries follow the checkpoint,
    /// waiting for the next one (a writer's --checkpoint-interval; not an
    /// error); with --since that an older saved
    /// checkpoint is consistent with the current one (an RFC 6962
    /// consistency proof from the tiles), and with --witness and --quorum
    /// that enough witnesses cosigned it. Exit 0 valid; 1 invalid, naming
    /// the kind (`CheckpointInvalid`, `CheckpointMismatch`,
    /// `LedgerMismatch`, `Rollback`); 2 when the root cannot be read.
    Verify(VerifyArgs),
    /// Print the inclusion proof of one revision's record in the current checkpoint's tree.
    ///
    /// `--json` prints `{"index", "tree_size", "root", "record", "proof"}`
    /// (RFC 6962, base64 hashes), which Go's `tlog.CheckRecord` checks.
    /// Exit 1 for a revision the ledger does not record, or one the
    /// checkpoint does not cover yet (`append --prove` waits for it).
    Prove(ProveArgs),
    /// Witness a signed root: check it extends what this witness cosigned, then cosign it.
    ///
    /// Verifies the checkpoint with the log's key (--log-key, kept in
    /// --state), checks it is consistent with the last one this witness
    /// cosigned (exit 1, `Rollback`, cosigning nothing, when it is smaller
    /// or inconsistent), records it in --state, and adds the witness's C2SP
    /// `cosignature/v1` to `<root>/.ledger/tlog/checkpoint.witnessed`.
    Witness(WitnessArgs),
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
            Command::Events(_) => "events",
            Command::Show(_) => "show",
            Command::VerifyContent(_) => "verify-content",
            Command::List(_) => "list",
            Command::Versions(_) => "versions",
            Command::Diff(_) => "diff",
            Command::Completions(_) => "completions",
            Command::Man(_) => "man",
            Command::Init(_) => "init",
            Command::Append(_) => "append",
            Command::PutBlob(_) => "put-blob",
            Command::Create(_) => "create",
            Command::Release(_) => "release",
            Command::Yank(_) => "yank",
            Command::Deprecate(_) => "deprecate",
            Command::Recommend(_) => "recommend",
            Command::Keygen(_) => "keygen",
            Command::Checkpoint(_) => "checkpoint",
            Command::Verify(_) => "verify",
            Command::Prove(_) => "prove",
            Command::Witness(_) => "witness",
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
            Command::Events(a) => a.format() == EventFormat::Json,
            Command::Show(a) => a.json,
            Command::VerifyContent(a) => a.json,
            Command::List(a) => a.json,
            Command::Versions(a) => a.json,
            Command::Diff(a) => a.json,
            Command::Completions(a) => a.json,
            Command::Man(a) => a.json,
            Command::Init(a) => a.json,
            Command::Append(a) => a.json,
            Command::PutBlob(a) => a.json,
            Command::Create(a) => a.json,
            Command::Release(a) => a.json,
            Command::Yank(a) | Command::Deprecate(a) => a.json,
            Command::Recommend(a) => a.json,
            Command::Keygen(a) => a.json,
            Command::Checkpoint(_) => false,
            Command::Verify(a) => a.json,
            Command::Prove(a) => a.json,
            Command::Witness(a) => a.json,
        }
    }
}
