//! `history <root> <coordinate> [--examples] [--json]`: the chain of one
//! artifact, oldest first: each revision's version, digest, sequence and
//! release count, and the events it made against its predecessor (header
//! values changed, releases published, policy statements withdrawn and
//! stated). It is a view of the event feed: the events are derived by
//! `nenjim_journal_chain::events`, the derivation `replay_events` uses. The
//! genesis publishes and states everything it holds.

use nenjim_journal_api::model::{EventChange, JournalRevision};
use serde::Serialize;

use super::events::marked;
use super::revisions_of;
use crate::args::HistoryArgs;
use crate::failure::{CliError, Status};
use crate::load::load;
use crate::report::{EventJson, PolicyJson, counted, path_text};
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
    /// Every event of the revision, as `events --json` prints them.
    events: Vec<EventJson>,
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
        let events = nenjim_journal_chain::events(previous, revision);
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
        let mut entry = RevisionChange {
            journal_version: revision.journal_version().to_string(),
            digest: revision.digest().to_string(),
            predecessor: revision.predecessor().map(ToString::to_string),
            sequence: revision.sequence(),
            releases: revision.releases().len(),
            releases_added: Vec::new(),
            policy_added: Vec::new(),
            policy_removed: Vec::new(),
            events: Vec::with_capacity(events.len()),
        };
        for event in &events {
            match event.change() {
                // The header line already says "(genesis)".
                EventChange::ArtifactCreated => {}
                change => text.push_str(&format!("  {}\n", marked(change, ui))),
            }
            match event.change() {
                EventChange::ReleasePublished(r) => {
                    entry.releases_added.push(r.version().to_string());
                }
                EventChange::PolicyStated(p) => entry.policy_added.push(PolicyJson::of(p)),
                EventChange::PolicyWithdrawn(p) => entry.policy_removed.push(PolicyJson::of(p)),
                _ => {}
            }
            entry.events.push(EventJson::of(event));
        }
        entries.push(entry);
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
