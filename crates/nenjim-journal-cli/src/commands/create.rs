//! `create <root> <coordinate> --description <text> [--information <uri>]`:
//! append the genesis revision of a new artifact (no releases, no policy).

use nenjim_journal_api::error::{self, ErrorKind};
use nenjim_journal_api::model::build;
use nenjim_journal_api::valuetypes::RevisionDigest;

use super::publish::{Plan, Publish, publish};
use crate::args::CreateArgs;
use crate::failure::{CliError, Status};
use crate::ui::Ui;

pub fn run(args: &CreateArgs, ui: &Ui) -> Result<Status, CliError> {
    let what = Publish::header_or_policy(
        "create",
        &args.root,
        &args.coordinate,
        &args.writing,
        args.json,
    );
    publish(&what, ui, |head, at| {
        if let Some(head) = head {
            return Err(error::error(
                ErrorKind::DuplicateGenesis,
                format!(
                    "found artifact {} already created (head {}, {}), expected a new artifact; publish to it with release, yank, deprecate or recommend",
                    head.coordinate(),
                    head.journal_version(),
                    head.digest()
                ),
            ));
        }
        let mut builder = build::RevisionBuilder::new(
            args.coordinate.clone(),
            at,
            None,
            args.description.clone(),
        );
        if let Some(uri) = &args.information {
            builder.information(uri.clone());
        }
        // The digest is the text's, computed again when the text is parsed.
        let genesis = builder.build(RevisionDigest::of_text(""));
        Ok(Plan::Append {
            text: nenjim_journal_parser::render(&genesis),
            blobs: Vec::new(),
        })
    })
}
