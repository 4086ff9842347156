//! An Atom feed (RFC 4287) of Journal events, for people who follow a hub
//! in a feed reader.
//!
//! The feed's `id` is derived from the root's absolute path, each entry's
//! from the event's artifact, revision and position in that revision
//! (`urn:nenjim-journal:event:<coordinate>:<journal version>:<n>`), so an
//! event keeps its id from one run to the next; `updated` is the Journal
//! version of the revision that made the change. Every text is escaped for
//! XML and is free of control characters (descriptions and reasons are
//! written in their quoted, escaped form).

use std::fmt::Write as _;
use std::path::Path;

use nenjim_journal_api::model::EventChange;
use nenjim_journal_api::valuetypes::JournalVersion;
use sha2::{Digest as _, Sha256};

use crate::commands::Numbered;
use crate::report::path_text;

/// The feed of `events` (newest first) of the Journal at `root`.
pub fn feed<'a>(root: &Path, events: impl Iterator<Item = &'a Numbered> + Clone) -> String {
    let root_text = path_text(root);
    let feed_id: String = Sha256::digest(root_text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let updated = events
        .clone()
        .map(|n| n.event.journal_version())
        .max()
        .map_or_else(|| "1970-01-01T00:00:00Z".to_owned(), rfc3339);
    let mut xml = String::new();
    xml.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    xml.push_str("<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    let _ = writeln!(
        xml,
        "  <title>{}</title>",
        escape(&format!("Nenjim Journal events: {root_text}"))
    );
    let _ = writeln!(xml, "  <id>urn:nenjim-journal:feed:{feed_id}</id>");
    let _ = writeln!(xml, "  <updated>{updated}</updated>");
    xml.push_str("  <author><name>nenjim-journal</name></author>\n");
    let _ = writeln!(
        xml,
        "  <generator version=\"{}\">nenjim-journal</generator>",
        env!("CARGO_PKG_VERSION")
    );
    for numbered in events {
        entry(&mut xml, numbered);
    }
    xml.push_str("</feed>\n");
    xml
}

fn entry(xml: &mut String, numbered: &Numbered) {
    let event = &numbered.event;
    let coordinate = event.coordinate().as_str();
    let version = event.journal_version();
    let change = event.change();
    let text = format!("{change:#}");
    let (kind, title) = match event.change() {
        EventChange::ArtifactCreated => ("artifact_created", format!("{coordinate} created")),
        EventChange::DescriptionChanged(_) => (
            "description_changed",
            format!("{coordinate}: description changed"),
        ),
        EventChange::InformationChanged(_) => (
            "information_changed",
            format!("{coordinate}: information changed"),
        ),
        EventChange::ReleasePublished(r) => (
            "release_published",
            format!("{coordinate} {} published", r.version()),
        ),
        EventChange::PolicyWithdrawn(_) => (
            "policy_withdrawn",
            format!("{coordinate}: {text} withdrawn"),
        ),
        EventChange::PolicyStated(_) => ("policy_stated", format!("{coordinate}: {text}")),
        _ => ("other", format!("{coordinate}: {text}")),
    };
    let mut content = format!(
        "{change}\n{coordinate} revision {version}, sequence {}",
        event.sequence()
    );
    if let EventChange::ReleasePublished(release) = event.change() {
        let _ = write!(
            content,
            "\nLICENSE {}\nCONTENT {} {}",
            release.license().as_str(),
            release.content().digest(),
            release.content().size()
        );
        let policy = release.policy();
        if let Some(reason) = policy.yanked() {
            let _ = write!(content, "\nyanked: {reason}");
        }
        if let Some(reason) = policy.deprecated() {
            let _ = write!(content, "\ndeprecated: {reason}");
        }
        if policy.is_recommended() {
            content.push_str("\nrecommended");
        }
    }
    xml.push_str("  <entry>\n");
    let _ = writeln!(
        xml,
        "    <id>urn:nenjim-journal:event:{coordinate}:{version}:{}</id>",
        numbered.index
    );
    let _ = writeln!(xml, "    <title>{}</title>", escape(&title));
    let _ = writeln!(xml, "    <updated>{}</updated>", rfc3339(version));
    let _ = writeln!(xml, "    <category term=\"{kind}\"/>");
    let _ = writeln!(
        xml,
        "    <content type=\"text\">{}</content>",
        escape(&content)
    );
    xml.push_str("  </entry>\n");
}

/// `20261129T101530Z` as RFC 3339 (`2026-11-29T10:15:30Z`).
fn rfc3339(version: JournalVersion) -> String {
    let t = version.to_string();
    let part = |range: std::ops::Range<usize>| t.get(range).unwrap_or("00");
    format!(
        "{}-{}-{}T{}:{}:{}Z",
        part(0..4),
        part(4..6),
        part(6..8),
        part(9..11),
        part(11..13),
        part(13..15)
    )
}

/// `text` with the five XML special characters escaped and any control
/// character other than a newline or tab replaced (XML 1.0 forbids them).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{escape, rfc3339};

    #[test]
    fn timestamps_and_escapes() {
        let version = "20261129T101530Z".parse().ok();
        assert_eq!(
            version.map(rfc3339).as_deref(),
            Some("2026-11-29T10:15:30Z")
        );
        assert_eq!(
            escape("a<b & \"c\"\u{1}"),
            "a&lt;b &amp; &quot;c&quot;\u{FFFD}"
        );
    }
}
