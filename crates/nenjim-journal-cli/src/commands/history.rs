//! `history <root> <coordinate> [--examples] [--json]`: the chain of one
//! artifact, oldest first: each revision's version, digest, sequence and
//! release count, and what it changed against its predecessor (releases
//! added, policy statements added and removed). The genesis adds everything
//! it holds.

use nenjim_journal_api::model::{JournalRevision, PolicyStatement};
use serde::Serialize;

use super::revisions_of;
use crate::args::HistoryArgs;
use crate::failure::{CliError, Status};
use crate::load::load;
use crate::report::{PolicyJson, counted, path_text, policy_text};
use crate::ui::{Paint, Ui};

/// The `--json` document.
#[derive(Debug, Serialize)]
struct HistoryDocument {
    command: &'static str,
    ok: bool,
    root: String,
    coordinate: String,
    revisions: Vec<RevisionChange>,
}

/// One revision and its change against the predecessor.
#[derive(Debug, Serialize)]
struct RevisionChange {
    journal_version: String,
    digest: String,
    /// `null` for the genesis.
    predecessor: Option<String>,
    sequence: u64,
    /// How many releases this revision holds.
    releases: usize,
    releases_added: Vec<String>,
    policy_added: Vec<PolicyJson>,
    policy_removed: Vec<PolicyJson>,
}

/// What `revision` changed against `previous` (everything, for the genesis).
struct Change<'a> {
    releases_added: Vec<String>,
    policy_added: Vec<&'a PolicyStatement>,
    policy_removed: Vec<&'a PolicyStatement>,
}

fn change<'a>(previous: Option<&'a JournalRevision>, revision: &'a JournalRevision) -> Change<'a> {
    let old_policy: &[PolicyStatement] = previous.map_or(&[], |p| p.policy());
    Change {
        releases_added: revision
            .releases()
            .iter()
            .filter(|r| previous.is_none_or(|p| p.release(r.version()).is_none()))
            .map(|r| r.version().to_string())
            .collect(),
        policy_added: revision
            .policy()
            .iter()
            .filter(|s| !old_policy.contains(s))
            .collect(),
        policy_removed: old_policy
            .iter()
            .filter(|s| !revision.policy().contains(s))
            .collect(),
    }
}

pub fn run(args: &HistoryArgs, ui: &Ui) -> Result<Status, CliError> {
    let loaded = load(&args.root, ui)?;
    let revisions = revisions_of(&*loaded.service, &args.root.root, &args.coordinate)?;
    let mut previous: Option<&JournalRevision> = None;
    let mut entries = Vec::with_capacity(revisions.len());
    let mut text = format!(
        "{}: {}\n",
        ui.out(Paint::Strong, args.coordinate.as_str()),
        counted(revisions.len(), "revision")
    );
    for revision in &revisions {
        let change = change(previous, revision);
        text.push_str(&format!(
            "{}  {}  seq {}  {}{}\n",
            ui.out(Paint::Strong, &revision.journal_version().to_string()),
            revision.digest(),
            revision.sequence(),
            counted(revision.releases().len(), "release"),
            if revision.is_genesis() {
                "  (genesis)"
            } else {
                ""
            },
        ));
        for version in &change.releases_added {
            text.push_str(&format!(
                "  {} RELEASE {version}\n",
                ui.out(Paint::Good, "+")
            ));
        }
        for statement in &change.policy_added {
            text.push_str(&format!(
                "  {} {}\n",
                ui.out(Paint::Good, "+"),
                policy_text(statement)
            ));
        }
        for statement in &change.policy_removed {
            text.push_str(&format!(
                "  {} {}\n",
                ui.out(Paint::Warn, "-"),
                policy_text(statement)
            ));
        }
        entries.push(RevisionChange {
            journal_version: revision.journal_version().to_string(),
            digest: revision.digest().to_string(),
            predecessor: revision.predecessor().map(ToString::to_string),
            sequence: revision.sequence(),
            releases: revision.releases().len(),
            releases_added: change.releases_added,
            policy_added: change
                .policy_added
                .into_iter()
                .map(PolicyJson::of)
                .collect(),
            policy_removed: change
                .policy_removed
                .into_iter()
                .map(PolicyJson::of)
                .collect(),
        });
        previous = Some(revision);
    }
    if args.json {
        ui.print_json(&HistoryDocument {
            command: "history",
            ok: true,
            root: path_text(&args.root.root),
            coordinate: args.coordinate.to_string(),
            revisions: entries,
        })?;
    } else {
        ui.print(&text)?;
    }
    Ok(Status::Ok)
}
