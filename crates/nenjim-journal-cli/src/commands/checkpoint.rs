//! `checkpoint <root>`: prints the root's current signed checkpoint note
//! (`<root>/.ledger/tlog/checkpoint`, format section 10) exactly as
//! stored, byte for byte, so that a mirror saves it for a later `verify
//! --since`. A root without one (not signed) is `CheckpointInvalid`.

use std::path::PathBuf;

use clap::Args;

use crate::failure::{CliError, Status};
use crate::ui::Ui;

/// `checkpoint <root>`
#[derive(Debug, Args)]
pub struct CheckpointArgs {
    /// The Journal root: a directory, a bucket URL (`s3://bucket/prefix`, `gs://…`,
    /// `az://…`, `file://…`, `memory://`) or a NATS root
    /// (`nats://host:port/<name>`, or `nats://h1:p1,h2:p2,…/<name>` for a
    /// cluster).
    pub root: PathBuf,
}

pub fn run(args: &CheckpointArgs, ui: &Ui) -> Result<Status, CliError> {
    let root = crate::address::signed(&args.root)?;
    ui.print_bytes(&root.checkpoint_bytes()?)?;
    Ok(Status::Ok)
}
