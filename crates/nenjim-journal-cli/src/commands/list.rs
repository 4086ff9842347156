//! `list <root> [pattern] [--examples] [--json]`: one line per artifact:
//! head Journal version, release count, latest release, yanked count.

use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use serde::Serialize;

use crate::args::ListArgs;
use crate::failure::{CliError, Status};
use crate::load::load;
use crate::report::{counted, path_text};
use crate::ui::{Paint, Ui};

/// The `--json` document.
#[derive(Debug, Serialize)]
struct ListDocument {
    command: &'static str,
    ok: bool,
    root: String,
    pattern: Option<String>,
    artifacts: Vec<ArtifactJson>,
}

/// One artifact's head.
#[derive(Debug, Serialize)]
struct ArtifactJson {
    coordinate: String,
    /// The JOURNAL_VERSION of the latest revision.
    head: String,
    /// How many revisions the chain has.
    revisions: usize,
    /// Releases of the latest revision.
    releases: usize,
    /// The greatest release version (`null` when there is none).
    latest_release: Option<String>,
    /// Releases yanked in the latest revision.
    yanked: usize,
}

pub fn run(args: &ListArgs, ui: &Ui) -> Result<Status, CliError> {
    let loaded = load(&args.root, ui)?;
    let service = &*loaded.service;
    let mut artifacts = Vec::new();
    for coordinate in service.coordinates()? {
        if !args
            .pattern
            .as_deref()
            .is_none_or(|p| matches(p, coordinate.as_str()))
        {
            continue;
        }
        let Some(latest) = service.latest(&coordinate)? else {
            continue;
        };
        artifacts.push(ArtifactJson {
            coordinate: coordinate.to_string(),
            head: latest.journal_version().to_string(),
            revisions: service.revisions(&coordinate)?.len(),
            releases: latest.releases().len(),
            latest_release: latest
                .releases()
                .iter()
                .map(|r| r.version())
                .max()
                .map(ToString::to_string),
            yanked: latest
                .releases()
                .iter()
                .filter(|r| r.policy().yanked().is_some())
                .count(),
        });
    }
    if let Some(pattern) = &args.pattern
        && artifacts.is_empty()
    {
        return Err(CliError::refused(
            "NoMatch",
            format!(
                "found no artifact matching `{pattern}` in {}{}",
                path_text(&args.root.root),
                close_names(service, pattern)?
            ),
        ));
    }
    if args.json {
        ui.print_json(&ListDocument {
            command: "list",
            ok: true,
            root: path_text(&args.root.root),
            pattern: args.pattern.clone(),
            artifacts,
        })?;
        return Ok(Status::Ok);
    }
    let width = artifacts
        .iter()
        .map(|a| a.coordinate.chars().count())
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for a in &artifacts {
        let pad = " ".repeat(width.saturating_sub(a.coordinate.chars().count()));
        let yanked = match a.yanked {
            0 => String::new(),
            n => format!(", {}", ui.out(Paint::Warn, &format!("{n} yanked"))),
        };
        text.push_str(&format!(
            "{}{pad}  {}  {}, latest {}{yanked}\n",
            ui.out(Paint::Strong, &a.coordinate),
            a.head,
            counted(a.releases, "release"),
            a.latest_release.as_deref().unwrap_or("-"),
        ));
    }
    ui.page(&text)?;
    Ok(Status::Ok)
}

/// Whether `name` contains `pattern`, or matches it as a glob (`*`, `?`)
/// when it has one.
fn matches(pattern: &str, name: &str) -> bool {
    if !pattern.contains(['*', '?']) {
        return name.contains(pattern);
    }
    glob(pattern.as_bytes(), name.as_bytes())
}

fn glob(pattern: &[u8], name: &[u8]) -> bool {
    // Iterative matcher with one backtrack point for the last `*`.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == b'?' || Some(&c) == name.get(n) => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern
        .get(p..)
        .is_some_and(|rest| rest.iter().all(|&c| c == b'*'))
}

/// `; did you mean …` for a pattern that matches nothing.
fn close_names(
    service: &dyn nenjim_journal_api::JournalService,
    pattern: &str,
) -> Result<String, CliError> {
    let known = service.coordinates()?;
    let names = super::similar::similar_part(pattern, known.iter().map(ArtifactCoordinate::as_str));
    Ok(if names.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", names.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn substrings_and_globs() {
        assert!(matches("serde", "serde_json"));
        assert!(!matches("tokio", "serde"));
        assert!(matches("com.r35157.*", "com.r35157.nenjim-hubd-api"));
        assert!(matches("*api", "com.r35157.nenjim-hubd-api"));
        assert!(!matches("*api", "left-pad"));
        assert!(matches("left-p?d", "left-pad"));
    }
}
