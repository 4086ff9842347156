//! `versions <root> <coordinate> [--at T | --as-of T] [--json]`: the
//! releases of one revision (the latest by default), one line each, oldest
//! first, with their policy markers.

use serde::Serialize;

use super::{revisions_of, select};
use crate::args::VersionsArgs;
use crate::failure::{CliError, Status};
use crate::load::load;
use crate::report::path_text;
use crate::ui::{Paint, Ui};

/// The `--json` document.
#[derive(Debug, Serialize)]
struct VersionsDocument {
    command: &'static str,
    ok: bool,
    root: String,
    coordinate: String,
    /// The revision the releases are read from.
    journal_version: String,
    versions: Vec<VersionJson>,
}

/// One release and its markers.
#[derive(Debug, Serialize)]
struct VersionJson {
    version: String,
    license: String,
    /// The yank reason, `null` when not yanked.
    yanked: Option<String>,
    /// The deprecation reason, `null` when not deprecated.
    deprecated: Option<String>,
    recommended: bool,
}

pub fn run(args: &VersionsArgs, ui: &Ui) -> Result<Status, CliError> {
    let loaded = load(&args.root, ui)?;
    let service = &*loaded.service;
    let revisions = revisions_of(service, &args.root.root, &args.coordinate)?;
    let revision = select::by_options(service, &args.coordinate, &revisions, &args.revision)?;
    let versions: Vec<VersionJson> = revision
        .releases()
        .iter()
        .map(|r| {
            let policy = r.policy();
            VersionJson {
                version: r.version().to_string(),
                license: r.license().as_str().to_owned(),
                yanked: policy.yanked().map(|d| d.as_str().to_owned()),
                deprecated: policy.deprecated().map(|d| d.as_str().to_owned()),
                recommended: policy.is_recommended(),
            }
        })
        .collect();
    if args.json {
        ui.print_json(&VersionsDocument {
            command: "versions",
            ok: true,
            root: path_text(&args.root.root),
            coordinate: args.coordinate.to_string(),
            journal_version: revision.journal_version().to_string(),
            versions,
        })?;
        return Ok(Status::Ok);
    }
    // Each column as wide as its widest cell, so the markers line up.
    let width = versions
        .iter()
        .map(|v| v.version.chars().count())
        .max()
        .unwrap_or(0);
    let license_width = versions
        .iter()
        .map(|v| v.license.chars().count())
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for v in &versions {
        let mut markers = Vec::new();
        if v.recommended {
            markers.push(ui.out(Paint::Good, "recommended"));
        }
        if let Some(reason) = &v.yanked {
            markers.push(ui.out(Paint::Bad, &format!("yanked: {reason}")));
        }
        if let Some(reason) = &v.deprecated {
            markers.push(ui.out(Paint::Warn, &format!("deprecated: {reason}")));
        }
        let pad = " ".repeat(width.saturating_sub(v.version.chars().count()));
        let license_pad = " ".repeat(license_width.saturating_sub(v.license.chars().count()));
        let line = format!(
            "{}{pad}  {}{license_pad}  {}",
            v.version,
            v.license,
            markers.join("  ")
        );
        text.push_str(line.trim_end());
        text.push('\n');
    }
    ui.page(&text)?;
    Ok(Status::Ok)
}
