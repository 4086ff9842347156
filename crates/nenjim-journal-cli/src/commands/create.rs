//! `create <root> <coordinate> --description <text> [--information <uri>]`:
//! append the genesis revision of a new artifact (no releases, no policy).

use super::publish::{Publish, publish};
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
        nenjim_journal_root::publish::plan_create(
            head,
            at,
            &args.coordinate,
            &args.description,
            args.information.as_ref(),
        )
    })
}
