//! `yank` and `deprecate <root> <coordinate> <requirement> <reason>`, and
//! `recommend <root> <coordinate> <version>`: append the head's successor
//! with one policy change. A head that already holds the very statement is
//! a success that writes nothing.

use nenjim_journal_api::model::{JournalRevision, PolicyStatement};
use nenjim_journal_api::valuetypes::JournalVersion;

use super::publish::{Plan, Publish, publish, successor_text};
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
    publish(what, ui, |head, at| {
        let Some(head) = head else {
            return Ok(Plan::Unchanged);
        };
        if head.policy().contains(&statement) {
            return Ok(Plan::Unchanged);
        }
        let mut policy = head.policy().to_vec();
        policy.push(statement);
        successor(head, at, &policy)
    })
}

pub fn recommend(args: &RecommendArgs, ui: &Ui) -> Result<Status, CliError> {
    let what = Publish::header_or_policy(
        "recommend",
        &args.root,
        &args.coordinate,
        &args.writing,
        args.json,
    );
    let statement = PolicyStatement::Recommend {
        version: args.release.clone(),
    };
    publish(&what, ui, |head, at| {
        let Some(head) = head else {
            return Ok(Plan::Unchanged);
        };
        if head.policy().contains(&statement) {
            return Ok(Plan::Unchanged);
        }
        // At most one RECOMMEND: the new one replaces the head's.
        let mut policy: Vec<PolicyStatement> = head
            .policy()
            .iter()
            .filter(|s| !matches!(s, PolicyStatement::Recommend { .. }))
            .cloned()
            .collect();
        policy.push(statement);
        successor(head, at, &policy)
    })
}

fn successor(
    head: &JournalRevision,
    at: JournalVersion,
    policy: &[PolicyStatement],
) -> Result<Plan, nenjim_journal_api::error::JournalError> {
    Ok(Plan::Append {
        text: successor_text(head, at, head.releases(), policy)?,
        blobs: Vec::new(),
    })
}
