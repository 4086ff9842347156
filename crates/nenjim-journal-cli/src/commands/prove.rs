//! `prove <root> <coordinate> <journal-version> [--json]`: the RFC 6962
//! inclusion proof of one revision's ledger record in the tree of the
//! root's current checkpoint (format section 10), computed from the hash
//! tiles alone, so that anyone holding the checkpoint checks it with a few
//! hashes (Go's `tlog.CheckRecord`, or `nenjim_journal_tlog::tree::verify_inclusion`).
//!
//! The JSON shape is the API's: `{"index": i, "tree_size": N, "root":
//! "<base64>", "record": "<record text>", "proof": ["<base64>", …]}`.
//! The proof is checked against the checkpoint's root before it is
//! printed (a damaged tile is `CheckpointMismatch`, never a wrong proof).
//! The checkpoint is read, not verified: the one who checks the proof
//! verifies the checkpoint (`verify`, or its own copy).
//!
//! [`inclusion`] and [`Proof`] are also `append --prove`'s: the proof of
//! each revision appended, once a checkpoint covers it.

use std::path::PathBuf;

use clap::Args;
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion};
use nenjim_journal_store::ledger::Entry;
use nenjim_journal_tlog::checkpoint::Checkpoint;
use serde::Serialize;

use crate::args::parse_coordinate;
use crate::failure::{CliError, Status};
use crate::report::path_text;
use crate::ui::Ui;
use nenjim_journal_root::verify::SignedRoot;

/// `prove <root> <coordinate> <journal-version> [--json]`
#[derive(Debug, Args)]
pub struct ProveArgs {
    /// The Journal root: a directory, a bucket URL (`s3://bucket/prefix`, `gs://…`,
    /// `az://…`, `file://…`, `memory://`) or a NATS root
    /// (`nats://host:port/<name>`, or `nats://h1:p1,h2:p2,…/<name>` for a
    /// cluster).
    pub root: PathBuf,
    /// The artifact.
    #[arg(value_parser = parse_coordinate)]
    pub coordinate: ArtifactCoordinate,
    /// The revision's JOURNAL_VERSION (`YYYYMMDDTHHMMSSZ`).
    #[arg(value_name = "JOURNAL_VERSION")]
    pub journal_version: JournalVersion,
    /// Print the proof as one JSON document (the API's shape).
    #[arg(long)]
    pub json: bool,
}

/// An inclusion proof (docs/api.md, "the command"): `prove`'s document,
/// and each revision's `proof` in `append --prove --json`.
#[derive(Debug, Serialize)]
pub struct Proof {
    index: u64,
    tree_size: u64,
    root: String,
    record: String,
    proof: Vec<String>,
}

impl Proof {
    /// The text form: `index`, `tree_size`, `root`, `record` and one
    /// `proof <base64>` line per hash.
    pub fn text(&self) -> String {
        let mut text = format!(
            "index {}\ntree_size {}\nroot {}\nrecord {}\n",
            self.index, self.tree_size, self.root, self.record
        );
        for hash in &self.proof {
            text.push_str(&format!("proof {hash}\n"));
        }
        text
    }
}

/// The RFC 6962 inclusion proof of ledger entry `entry` in the tree of
/// `checkpoint` (the root's, as read): [`SignedRoot::prove`], from the
/// root's hash tiles, checked against the checkpoint's root before it is
/// returned (a damaged or missing tile is `CheckpointMismatch`, never a
/// wrong proof; so is an entry the checkpoint does not cover yet), in the
/// command's document form.
pub fn inclusion(
    root: &SignedRoot,
    checkpoint: &Checkpoint,
    entry: &Entry,
) -> Result<Proof, CliError> {
    let proved = root.prove(checkpoint, entry)?;
    Ok(Proof {
        index: proved.index(),
        tree_size: proved.tree_size(),
        root: proved.root().to_base64(),
        record: proved.record().to_owned(),
        proof: proved.proof().iter().map(|h| h.to_base64()).collect(),
    })
}

pub fn run(args: &ProveArgs, ui: &Ui) -> Result<Status, CliError> {
    let root = crate::address::signed(&args.root)?;
    let checkpoint = root.checkpoint_unverified()?;
    let entries = root.entries()?;
    let entry = entries.iter().find(|e| {
        e.revision().is_some_and(|p| {
            p.coordinate() == &args.coordinate && p.version() == args.journal_version
        })
    });
    let Some(entry) = entry else {
        return Err(CliError::refused(
            "UnknownRevision",
            format!(
                "found no ledger record of revision {} of `{}` in {}, expected one of its revisions (`nenjim-journal history {} {}` lists them)",
                args.journal_version,
                args.coordinate,
                path_text(&args.root),
                path_text(&args.root),
                args.coordinate
            ),
        ));
    };
    let proof = inclusion(&root, &checkpoint, entry)?;
    if args.json {
        ui.print_json(&proof)?;
    } else {
        ui.print(&proof.text())?;
    }
    Ok(Status::Ok)
}
