//! An artifact's revisions from its index entries: one per `pubtime` day,
//! instants that grow, release blocks written once and reused byte for
//! byte, and the DEPENDS lines kept.

use super::requirements::{convert_requirement, release_version};
use super::*;

// ------------------------------------------------------------ revisions

pub(super) struct Release {
    version: ReleaseVersion,
    text: String,
    yanked: bool,
}

/// Quotes `text` for a Journal quoted string (canonical escapes).
pub(super) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `(rank, requirement, note)`; the lowest rank (optional, has a target,
/// not normal) is the most unconditional entry.
pub(super) type KeptDependency = ((bool, bool, bool), VersionRequirement, String);

/// The DEPENDS lines of one entry, after the documented merging.
pub(super) fn depends_lines(
    name: &str,
    vers: &str,
    me: &ArtifactCoordinate,
    deps: &[RawDep],
    report: &mut Report,
) -> String {
    // coordinate -> (rank, requirement, note)
    let mut kept: BTreeMap<String, KeptDependency> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for dep in deps {
        let kind = dep.kind.as_deref().unwrap_or("normal");
        let real = dep.package.as_deref().unwrap_or(&dep.name);
        let where_ = format!("crate `{name}` {vers}: dependency `{real}`");
        match kind {
            "normal" | "build" => {}
            "dev" => {
                report.dev_dependencies_dropped += 1;
                continue;
            }
            other => {
                report.note(format!("{where_}: unknown kind `{other}`; skipped"));
                continue;
            }
        }
        let coordinate = match coordinate_of(real) {
            Ok(c) => c,
            Err(e) => {
                report.note(format!("{where_}: {e}; skipped"));
                continue;
            }
        };
        if &coordinate == me {
            report.note(format!("{where_}: depends on its own crate; skipped"));
            continue;
        }
        let requirement = match convert_requirement(&dep.req) {
            Ok(r) => r,
            Err(e) => {
                report.note(format!("{where_} `{}`: {e}; skipped", dep.req));
                continue;
            }
        };
        let mut notes = Vec::new();
        if kind != "normal" {
            notes.push(kind.to_owned());
        }
        if dep.optional {
            notes.push("optional".to_owned());
        }
        if let Some(target) = &dep.target {
            notes.push(format!("target {target}"));
        }
        if real != dep.name {
            notes.push(format!("renamed {}", dep.name));
        }
        let rank = (dep.optional, dep.target.is_some(), kind != "normal");
        let key = coordinate.as_str().to_owned();
        match kept.get(&key) {
            None => {
                order.push(key.clone());
                kept.insert(key, (rank, requirement, notes.join("; ")));
            }
            Some((old_rank, old_req, _)) => {
                let keep_new = rank < *old_rank;
                let (kept_req, dropped_req) = if keep_new {
                    (&requirement, old_req)
                } else {
                    (old_req, &requirement)
                };
                if kept_req != dropped_req {
                    report.note(format!(
                        "{where_}: listed twice; kept the most unconditional entry ({kept_req}), \
                         dropped requirement {dropped_req}"
                    ));
                }
                if keep_new {
                    kept.insert(key, (rank, requirement, notes.join("; ")));
                }
            }
        }
    }
    let mut out = String::new();
    for key in order {
        if let Some((_, requirement, note)) = kept.get(&key) {
            let _ = write!(out, "  DEPENDS {key} {requirement}");
            if !note.is_empty() {
                let _ = write!(out, " {}", quote(note));
            }
            out.push('\n');
        }
    }
    out
}

/// Seconds since the epoch of a `pubtime` (`YYYY-MM-DDTHH:MM:SS[.f]Z`).
pub(super) fn pubtime_seconds(pubtime: &str) -> Option<i64> {
    let b = pubtime.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| pubtime.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 59 {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// The revision texts of one crate, `(timestamp, text)` in chain order.
pub(super) fn artifact_revisions(
    name: &str,
    coordinate: &ArtifactCoordinate,
    entries: &[RawEntry],
    report: &mut Report,
) -> Vec<(String, String)> {
    // Group entries: consecutive entries with the same pubtime day share a
    // revision; entries without pubtime get one each.
    let mut groups: Vec<(Option<String>, Vec<&RawEntry>)> = Vec::new();
    for entry in entries {
        let day = entry
            .pubtime
            .as_deref()
            .filter(|p| pubtime_seconds(p).is_some())
            .map(|p| p[..10].to_owned());
        if entry.pubtime.is_some() && day.is_none() {
            report.note(format!(
                "crate `{name}` {}: unreadable pubtime; treated as missing",
                entry.vers
            ));
        }
        match (groups.last_mut(), &day) {
            (Some((Some(last), members)), Some(d)) if last == d => members.push(entry),
            _ => groups.push((day, vec![entry])),
        }
    }
    let mut releases: BTreeMap<ReleaseVersion, Release> = BTreeMap::new();
    let mut seen: BTreeSet<ReleaseVersion> = BTreeSet::new();
    let mut plan: Vec<(i64, Vec<ReleaseVersion>)> = Vec::new();
    let mut synthetic = 0i64;
    for (day, members) in &groups {
        let mut added = 0;
        for entry in members {
            let where_ = format!("crate `{name}` {}", entry.vers);
            let mut version = match semver::Version::parse(&entry.vers) {
                Ok(v) => v,
                Err(e) => {
                    report.note(format!("{where_}: not SemVer ({e}); skipped"));
                    continue;
                }
            };
            if !version.build.is_empty() {
                report.note(format!("{where_}: build metadata stripped"));
                version.build = semver::BuildMetadata::EMPTY;
            }
            let version = match release_version(&version) {
                Ok(v) => v,
                Err(e) => {
                    report.note(format!("{where_}: {e}; skipped"));
                    continue;
                }
            };
            if !seen.insert(version.clone()) {
                report.note(format!(
                    "{where_}: repeats version {version} (after stripping build metadata); skipped"
                ));
                continue;
            }
            let cksum = entry.cksum.as_str();
            if cksum.len() != 64
                || !cksum
                    .bytes()
                    .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            {
                report.note(format!(
                    "{where_}: cksum is not a SHA-256 hex digest; skipped"
                ));
                continue;
            }
            let license = entry
                .license
                .as_deref()
                .filter(|l| l.parse::<LicenseExpression>().is_ok())
                .unwrap_or("NOASSERTION");
            let mut text = String::new();
            let _ = writeln!(text, "RELEASE {version}");
            let _ = writeln!(text, "  LICENSE {license}");
            let _ = writeln!(text, "  CONTENT sha256:{cksum} {}", entry.size.unwrap_or(0));
            text.push_str(&depends_lines(
                name,
                &entry.vers,
                coordinate,
                &entry.deps,
                report,
            ));
            releases.insert(
                version.clone(),
                Release {
                    version,
                    text,
                    yanked: entry.yanked,
                },
            );
            added += 1;
        }
        if added == 0 {
            continue;
        }
        let mut at = match day {
            Some(_) => members
                .iter()
                .filter_map(|e| e.pubtime.as_deref().and_then(pubtime_seconds))
                .max()
                .unwrap_or(0),
            None => {
                synthetic += 1;
                synthetic - 1
            }
        };
        if let Some((prev, _)) = plan.last()
            && at <= *prev
        {
            report.note(format!(
                "crate `{name}`: revision instant {} moved after the previous one",
                timestamp(at)
            ));
            at = prev + 1;
        }
        plan.push((at, releases.keys().cloned().collect::<Vec<_>>()));
    }
    let mut out: Vec<(String, String)> = Vec::with_capacity(plan.len());
    for (k, (at, present)) in plan.iter().enumerate() {
        let stamp = timestamp(*at);
        let mut text = String::new();
        let _ = writeln!(text, "FORMAT nenjim-journal/1");
        let _ = writeln!(text, "ARTIFACT {coordinate}");
        let _ = writeln!(text, "JOURNAL_VERSION {stamp}");
        match out.last() {
            None => text.push_str("PREDECESSOR GENESIS\n"),
            Some((_, prev_text)) => {
                let _ = writeln!(
                    text,
                    "PREDECESSOR sha256:{}",
                    sha256_hex(prev_text.as_bytes())
                );
            }
        }
        let _ = writeln!(
            text,
            "DESCRIPTION {}",
            quote(&format!("crates.io crate {name} (imported from the index)"))
        );
        let _ = writeln!(text, "INFORMATION https://crates.io/crates/{name}");
        text.push('\n');
        let present: Vec<&Release> = present.iter().filter_map(|v| releases.get(v)).collect();
        for r in &present {
            text.push_str(&r.text);
        }
        // Only the head carries the yanks (the index has no yank times).
        if k + 1 == plan.len() && present.iter().any(|r| r.yanked) {
            text.push('\n');
            for r in present.iter().filter(|r| r.yanked) {
                let _ = writeln!(text, "YANK {} \"yanked on crates.io\"", r.version);
            }
        }
        out.push((stamp, text));
    }
    out
}
