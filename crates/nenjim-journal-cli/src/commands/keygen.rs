//! `keygen <name> --out <file> [--witness] [--json]`: a new Ed25519 note signer key
//! (`PRIVATE+KEY+<name>+<hash>+<base64>`, the format of Go's
//! `golang.org/x/mod/sumdb/note`) written to a new file, readable by its
//! owner only (mode 0600), never over an existing file and never left
//! partial; its verifier key (`<name>+<hash>+<base64>`) goes to stdout.
//! With `--witness` the key is a witness's C2SP `cosignature/v1` key (type
//! `0x04`) for `witness --key`.
//!
//! The key file is written as a temporary file beside it (mode 0600 from
//! its creation), synced, and hard-linked to its name, which fails if the
//! name exists; the directory is synced after.

use std::fs::{self, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use clap::Args;
use nenjim_journal_tlog::note::{Algorithm, SignerKey};
use serde::Serialize;

use crate::failure::{CliError, Status};
use crate::report::path_text;
use crate::ui::Ui;

/// `keygen <name> --out <file> [--json]`
#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// The key name: a checkpoint's origin, e.g. `example.org/journal`
    /// (non-empty, no spaces, no `+`).
    #[arg(value_parser = key_name)]
    pub name: String,
    /// The new signer key file (mode 0600; never over an existing file).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// A witness's key (C2SP `cosignature/v1`, type 0x04) for `witness
    /// --key`, instead of a log's Ed25519 checkpoint key.
    #[arg(long)]
    pub witness: bool,
    /// Print one JSON document instead of the verifier key alone.
    #[arg(long)]
    pub json: bool,
}

/// A valid note key name, or the usage error (exit code 2).
fn key_name(text: &str) -> Result<String, String> {
    if nenjim_journal_tlog::note::is_valid_name(text) {
        Ok(text.to_owned())
    } else {
        Err(
            "expected a non-empty key name without spaces or `+`, such as `example.org/journal`"
                .to_owned(),
        )
    }
}

/// The `--json` document.
#[derive(Debug, Serialize)]
struct KeygenDocument {
    command: &'static str,
    ok: bool,
    name: String,
    key_hash: String,
    verifier_key: String,
    path: String,
}

pub fn run(args: &KeygenArgs, ui: &Ui) -> Result<Status, CliError> {
    let out = &args.out;
    if fs::symlink_metadata(out).is_ok() {
        // Refused before anything else; the link below is the real guard.
        return Err(exists(out));
    }
    let algorithm = if args.witness {
        Algorithm::CosignatureV1
    } else {
        Algorithm::Ed25519
    };
    let key = SignerKey::generate(&args.name, algorithm)?;
    match create_private(out, format!("{}\n", key.to_key_string()).as_bytes()) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(exists(out)),
        Err(e) => return Err(CliError::io(out, "cannot write the signer key", e)),
    }
    let verifier = key.verifier().to_string();
    if args.json {
        ui.print_json(&KeygenDocument {
            command: "keygen",
            ok: true,
            name: key.name().to_owned(),
            key_hash: format!("{:08x}", key.key_hash()),
            verifier_key: verifier,
            path: path_text(out),
        })?;
    } else {
        // The verifier key alone, for scripts.
        ui.print(&format!("{verifier}\n"))?;
    }
    Ok(Status::Ok)
}

/// Creates `path` with `bytes`, mode 0600, durably, failing with
/// `AlreadyExists` if it exists.
fn create_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut seed = [0u8; 8];
    getrandom::fill(&mut seed).map_err(io::Error::other)?;
    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(
        ".{name}.{}.tmp",
        seed.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ));
    let written = (|| {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        let mut file = options.open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::hard_link(&tmp, path)
    })();
    let removed = fs::remove_file(&tmp);
    written?;
    removed?;
    if let Ok(dir) = fs::File::open(dir) {
        dir.sync_all()?;
    }
    Ok(())
}

fn exists(out: &Path) -> CliError {
    CliError::io(
        out,
        "cannot write the signer key: the file exists (keygen never overwrites; name a new file)",
        io::Error::from(io::ErrorKind::AlreadyExists),
    )
}
