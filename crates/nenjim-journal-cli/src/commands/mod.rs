//! One module per subcommand; each `run` prints its result and returns the
//! [`Status`] for the exit code, or the error that stopped it.

mod append;
mod check;
pub mod checkpoint;
mod create;
mod diff;
mod digest;
mod events;
mod generated;
mod history;
pub mod init;
pub mod keygen;
mod lint;
mod list;
mod policy;
pub mod prove;
mod publish;
pub mod publish_args;
mod publish_checks;
mod put_blob;
mod release;
mod select;
mod show;
mod similar;
mod store_layout;
mod successor;
pub mod verify;
mod verify_content;
mod versions;
pub mod witness;

pub use similar::similar;

use std::collections::BTreeSet;
use std::path::Path;

use nenjim_journal_api::JournalService;
use nenjim_journal_api::error;
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::valuetypes::ArtifactCoordinate;

pub use events::Numbered;

use crate::args::Command;
use crate::failure::{CliError, Status};
use crate::report::path_text;
use crate::ui::Ui;

/// Runs `command`.
pub fn run(command: &Command, ui: &Ui) -> Result<Status, CliError> {
    match command {
        Command::Check(args) => check::run(args, ui),
        Command::Lint(args) => lint::run(args, ui),
        Command::Digest(args) => digest::run(args, ui),
        Command::Successor(args) => successor::run(args, ui),
        Command::History(args) => history::run(args, ui),
        Command::Events(args) => events::run(args, ui),
        Command::Show(args) => show::run(args, ui),
        Command::VerifyContent(args) => verify_content::run(args, ui),
        Command::List(args) => list::run(args, ui),
        Command::Versions(args) => versions::run(args, ui),
        Command::Diff(args) => diff::run(args, ui),
        Command::Completions(args) => generated::completions(args, ui),
        Command::Man(args) => generated::man(args, ui),
        Command::Init(args) => init::run(args, ui),
        Command::Append(args) => append::run(args, ui),
        Command::PutBlob(args) => put_blob::run(args, ui),
        Command::Create(args) => create::run(args, ui),
        Command::Release(args) => release::run(args, ui),
        Command::Yank(args) => policy::yank(args, ui),
        Command::Deprecate(args) => policy::deprecate(args, ui),
        Command::Recommend(args) => policy::recommend(args, ui),
        Command::Keygen(args) => keygen::run(args, ui),
        Command::Checkpoint(args) => kind_named(checkpoint::run(args, ui)),
        Command::Verify(args) => kind_named(verify::run(args, ui)),
        Command::Prove(args) => kind_named(prove::run(args, ui)),
        Command::Witness(args) => kind_named(witness::run(args, ui)),
    }
}

/// The verifiable-ledger commands name the kind of what is invalid
/// (`CheckpointInvalid: …`, `Rollback: …`) in the text of a refusal (exit
/// code 1), which scripts and auditors match on.
fn kind_named(result: Result<Status, CliError>) -> Result<Status, CliError> {
    use nenjim_journal_api::error::ErrorContext as _;
    result.map_err(|error| match error {
        CliError::Journal(e) if Status::of_journal_error(&e) == Status::Invalid => {
            let kind = e.kind().as_str();
            CliError::Journal(e.context(kind))
        }
        CliError::Refused { kind, message } => CliError::Refused {
            kind,
            message: format!("{kind}: {message}"),
        },
        other => other,
    })
}

/// How many names a "did you mean" list shows at most.
const SHOWN_NAMES: usize = 20;

/// Every revision of `coordinate`, refusing an artifact the root does not hold.
fn revisions_of(
    service: &dyn JournalService,
    root: &Path,
    coordinate: &ArtifactCoordinate,
) -> Result<Vec<JournalRevision>, CliError> {
    let revisions = service.revisions(coordinate)?;
    if revisions.is_empty() {
        return Err(unknown_artifact(&service.coordinates()?, root, coordinate));
    }
    Ok(revisions)
}

/// The `UnknownArtifact` refusal of `coordinate`, listing the `known` ones.
fn unknown_artifact(
    known: &BTreeSet<ArtifactCoordinate>,
    root: &Path,
    coordinate: &ArtifactCoordinate,
) -> CliError {
    let known = if known.is_empty() {
        "the root holds no artifact".to_owned()
    } else {
        let names: Vec<&str> = known
            .iter()
            .take(SHOWN_NAMES)
            .map(ArtifactCoordinate::as_str)
            .collect();
        let more = match known.len().saturating_sub(SHOWN_NAMES) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let close = similar(
            coordinate.as_str(),
            known.iter().map(ArtifactCoordinate::as_str),
        );
        if close.is_empty() {
            format!("expected one of: {}{more}", names.join(", "))
        } else {
            format!("did you mean {}?", close.join(", "))
        }
    };
    CliError::refused(
        "UnknownArtifact",
        format!(
            "found no artifact `{coordinate}` in {}; {known}",
            path_text(root)
        ),
    )
}

/// Reads a revision file as text by the loader's rules: I/O errors are `Io`
/// (exit code 2), a file over [`nenjim_journal_fs::MAX_FILE_LEN`] is
/// `TooLarge`, bytes that are not UTF-8 are `InvalidUtf8` located at the
/// first bad byte (both exit code 1).
pub(crate) fn read_text(path: &Path) -> Result<String, CliError> {
    use nenjim_journal_api::error::ErrorContext as _;
    use nenjim_journal_api::error::ErrorKind;
    use nenjim_journal_fs::MAX_FILE_LEN;
    use std::io::Read as _;

    let file = std::fs::File::open(path).map_err(|e| CliError::io(path, "cannot open", e))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_LEN + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::io(path, "cannot read", e))?;
    if bytes.len() as u64 > MAX_FILE_LEN {
        return Err(error::error(
            ErrorKind::TooLarge,
            format!("found a file over {MAX_FILE_LEN} bytes, expected a revision of at most {MAX_FILE_LEN} bytes"),
        )
        .with_path(path)
        .into());
    }
    nenjim_journal_fs::decode_revision_text(bytes).map_err(|e| e.with_path(path).into())
}

/// SHA-256 and byte count of everything `reader` yields, read through a
/// fixed buffer (never the whole input in memory): the loader's
/// [`nenjim_journal_store::measure`].
fn hash_stream(mut reader: impl std::io::Read) -> std::io::Result<(u64, [u8; 32])> {
    let pointer = nenjim_journal_store::measure(&mut reader, &mut std::io::sink())?;
    Ok((pointer.size(), *pointer.digest().as_bytes()))
}
