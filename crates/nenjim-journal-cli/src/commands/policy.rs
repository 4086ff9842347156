//! `yank` and `deprecate <root> <coordinate> <requirement> <reason>`, and
//! `recommend <root> <coordinate> <version>`: append the head's successor
//! with one policy change. A head that already holds the very statement is
//! a success that writes nothing.

use nenjim_journal_api::model::PolicyStatement;
use nenjim_journal_root::publish::plan_policy;

use super::publish::{Publish, publish};
use crate::args::{PolicyArgs, RecommendArgs};
use crate::failure::{CliError, Status};
use crate::ui::Ui;

pub fn yank(args: &PolicyArgs, ui: &Ui) -> Result<Status, CliError> {
    let statement = PolicyStatement::Yank {
        requirement: args.requirement.clone(),
        reason: args.reason.clone(),
    };
    add(&target("yank", args), ui, statement)
}

pub fn deprecate(args: &PolicyArgs, ui: &Ui) -> Result<Status, CliError> {
    let statement = PolicyStatement::Deprecate {
        requirement: args.requirement.clone(),
        reason: args.reason.clone(),
    };
    add(&target("deprecate", args), ui, statement)
}

fn target<'a>(command: &'static str, args: &'a PolicyArgs) -> Publish<'a> {
    Publish::header_or_policy(
        command,
        &args.root,
        &args.coordinate,
        &args.writing,
        args.json,
    )
}

/// Appends the successor with `statement` after the head's policy.
fn add(what: &Publish<'_>, ui: &Ui, statement: PolicyStatement) -> Result<Status, CliError> {
    publish(what, ui, |head, at| plan_policy(head, at, &statement))
}

pub fn recommend(args: &RecommendArgs, ui: &Ui) -> Result<Status, CliError> {
    let what = Publish::header_or_policy(
        "recommend",
        &args.root,
        &args.coordinate,
        &args.writing,
        args.json,
    );
    // At most one RECOMMEND: the new one replaces the head's.
    let statement = PolicyStatement::Recommend {
        version: args.release.clone(),
    };
    add(&what, ui, statement)
}
