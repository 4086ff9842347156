//! `diff <root> <coordinate> <from> <to> [--json]`: what changed between two
//! revisions of an artifact: the header (DESCRIPTION, INFORMATION), the
//! releases added (and, were the chain broken, removed or changed), and the
//! policy statements added and removed.

use nenjim_journal_api::model::build;
use nenjim_journal_api::model::{ArtifactRelease, JournalRevision, PolicyStatement};
use serde::Serialize;

use super::{revisions_of, select};
use crate::args::DiffArgs;
use crate::failure::{CliError, Status};
use crate::load::load;
use crate::report::{PolicyJson, RevisionRefJson, path_text};
use crate::ui::{Paint, Ui};

/// The `--json` document.
#[derive(Debug, Serialize)]
struct DiffDocument {
    command: &'static str,
    ok: bool,
    root: String,
    from: RevisionRefJson,
    to: RevisionRefJson,
    /// Header lines that differ (`DESCRIPTION`, `INFORMATION`).
    header: Vec<HeaderChange>,
    releases_added: Vec<String>,
    releases_removed: Vec<String>,
    /// Same version, other values (never in a valid chain).
    releases_changed: Vec<String>,
    policy_added: Vec<PolicyJson>,
    policy_removed: Vec<PolicyJson>,
    /// Whether anything differs.
    changed: bool,
}

/// One header line, before and after (`null` when absent).
#[derive(Debug, Serialize)]
struct HeaderChange {
    field: &'static str,
    from: Option<String>,
    to: Option<String>,
}

pub fn run(args: &DiffArgs, ui: &Ui) -> Result<Status, CliError> {
    let loaded = load(&args.root, ui)?;
    let service = &*loaded.service;
    let revisions = revisions_of(service, &args.root.root, &args.coordinate)?;
    let from = select::by_name(service, &args.coordinate, &revisions, &args.from)?;
    let to = select::by_name(service, &args.coordinate, &revisions, &args.to)?;
    let document = diff(path_text(&args.root.root), &from, &to);
    if args.json {
        ui.print_json(&document)?;
    } else {
        ui.page(&text(&document, &from, &to, ui))?;
    }
    Ok(Status::Ok)
}

fn diff(root: String, from: &JournalRevision, to: &JournalRevision) -> DiffDocument {
    let mut header = Vec::new();
    let (d0, d1) = (from.description().as_str(), to.description().as_str());
    if d0 != d1 {
        header.push(HeaderChange {
            field: "DESCRIPTION",
            from: Some(d0.to_owned()),
            to: Some(d1.to_owned()),
        });
    }
    let (i0, i1) = (
        from.information().map(|u| u.as_str().to_owned()),
        to.information().map(|u| u.as_str().to_owned()),
    );
    if i0 != i1 {
        header.push(HeaderChange {
            field: "INFORMATION",
            from: i0,
            to: i1,
        });
    }
    let versions = |a: &JournalRevision, b: &JournalRevision| -> Vec<String> {
        a.releases()
            .iter()
            .filter(|r| b.release(r.version()).is_none())
            .map(|r| r.version().to_string())
            .collect()
    };
    let releases_added = versions(to, from);
    let releases_removed = versions(from, to);
    let releases_changed: Vec<String> = to
        .releases()
        .iter()
        .filter(|r| {
            from.release(r.version())
                .is_some_and(|old: &ArtifactRelease| !build::same_values(old, r))
        })
        .map(|r| r.version().to_string())
        .collect();
    let only = |a: &[PolicyStatement], b: &[PolicyStatement]| -> Vec<PolicyJson> {
        a.iter()
            .filter(|s| !b.contains(s))
            .map(PolicyJson::of)
            .collect()
    };
    let policy_added = only(to.policy(), from.policy());
    let policy_removed = only(from.policy(), to.policy());
    let changed = !(header.is_empty()
        && releases_added.is_empty()
        && releases_removed.is_empty()
        && releases_changed.is_empty()
        && policy_added.is_empty()
        && policy_removed.is_empty());
    DiffDocument {
        command: "diff",
        ok: true,
        root,
        from: RevisionRefJson::of(from),
        to: RevisionRefJson::of(to),
        header,
        releases_added,
        releases_removed,
        releases_changed,
        policy_added,
        policy_removed,
        changed,
    }
}

fn text(d: &DiffDocument, from: &JournalRevision, to: &JournalRevision, ui: &Ui) -> String {
    let plus = ui.out(Paint::Good, "+");
    let minus = ui.out(Paint::Warn, "-");
    let mut text = format!(
        "{} {} -> {}\n",
        ui.out(Paint::Strong, &d.from.coordinate),
        d.from.journal_version,
        d.to.journal_version
    );
    for h in &d.header {
        if let Some(old) = &h.from {
            text.push_str(&format!("{minus} {} {}\n", h.field, quoted(h.field, old)));
        }
        if let Some(new) = &h.to {
            text.push_str(&format!("{plus} {} {}\n", h.field, quoted(h.field, new)));
        }
    }
    for v in &d.releases_removed {
        text.push_str(&format!("{minus} RELEASE {v}\n"));
    }
    for v in &d.releases_added {
        text.push_str(&format!("{plus} RELEASE {v}\n"));
    }
    for v in &d.releases_changed {
        text.push_str(&format!(
            "{} RELEASE {v} (changed values)\n",
            ui.out(Paint::Bad, "!")
        ));
    }
    for s in from.policy().iter().filter(|s| !to.policy().contains(s)) {
        text.push_str(&format!("{minus} {s}\n"));
    }
    for s in to.policy().iter().filter(|s| !from.policy().contains(s)) {
        text.push_str(&format!("{plus} {s}\n"));
    }
    if !d.changed {
        text.push_str("no change\n");
    }
    text
}

/// A header value as written: DESCRIPTION is a quoted string, INFORMATION a URI.
fn quoted(field: &str, value: &str) -> String {
    if field == "DESCRIPTION" {
        format!("{value:?}")
    } else {
        value.to_owned()
    }
}
