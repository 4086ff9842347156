//! `cargo xtask import-crates-index DIR --out ROOT`: a crates.io index (or
//! cargo's cache of it) as a Journal root.
//!
//! Input: every file under `DIR` (recursively; `.git` and `config.json`
//! skipped) is either JSON lines, one release each, as in the crates.io-index
//! repository, or a cargo index cache file (`.cache/**`: one byte cache
//! version, a `u32` index format version, the NUL-terminated index version,
//! then NUL-terminated pairs of version and JSON record).
//!
//! The mapping, and what is reported and skipped instead of guessed:
//!
//! - Crate name to coordinate: ASCII lower-casing, `_` and `-` kept. A name
//!   that is then no valid coordinate (`foo--bar`, `foo_`, non-ASCII) is
//!   skipped and reported; so is a second crate mapping to a taken
//!   coordinate (crates.io forbids such pairs, mirrors may not). The same
//!   mapping names dependencies (through `package` when a dependency is
//!   renamed).
//! - One artifact per crate; one revision per distinct `pubtime` day, at the
//!   last `pubtime` instant of that day; entries without `pubtime` get one
//!   revision each at synthetic instants `19700101T000000Z + n seconds`
//!   (index order is publication order). Instants are forced to grow
//!   strictly (reported when moved).
//! - Versions: SemVer; build metadata is stripped (reported); a version that
//!   then repeats an earlier one is skipped (reported). Releases are written
//!   in SemVer precedence; each release's block is written once and reused
//!   byte-for-byte by later revisions.
//! - CONTENT is `sha256:<cksum>` with the entry's `size` or 0 when unknown;
//!   a malformed cksum skips the release (reported). LICENSE is the entry's
//!   `license` when it is a valid SPDX expression, else `NOASSERTION` (the
//!   real index has no license field).
//! - Dependencies: `normal` and `build` become DEPENDS; `dev` ones are not
//!   needed to use a release and are dropped (counted). Optional and
//!   target-specific dependencies are kept, their kind/optional/target noted
//!   in the dependency's description. A dependency on the crate itself is
//!   dropped (reported). Cargo allows a crate twice (different targets or
//!   kinds): the Journal allows it once, so the most unconditional one is
//!   kept (non-optional, then no target, then normal before build) and the
//!   others are reported when their requirement differs.
//! - Requirements: Cargo's comparator lists (caret, tilde, wildcard, `=`,
//!   `>`, `>=`, `<`, `<=`, comma-separated intersections) become one exact
//!   version, `*` or one interval, exactly over release versions. An empty
//!   intersection is reported and the dependency skipped. Cargo also hides
//!   pre-releases from a requirement unless a comparator names the same
//!   `major.minor.patch` with a pre-release; Journal intervals are pure
//!   SemVer precedence, so the two can only differ on pre-releases.
//! - Yanked versions: yank times are not in the index, so the head revision
//!   carries one `YANK <version>` per yanked release (one YANK per release,
//!   by construction). No RECOMMEND is written (crates.io has none).
//!
//! A report (`<ROOT>/.import-report`, a dot file, which loading ignores)
//! lists every skip. Unless `--no-check`, the root is loaded afterwards
//! with `nenjim_journal_fs::load`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::ops::Bound;
use std::path::{Path, PathBuf};

use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, LicenseExpression, ReleaseVersion, VersionRequirement,
};
use nenjim_journal_benches::corpus::{sha256_hex, timestamp};
use serde::Deserialize;

pub const USAGE: &str = "usage: cargo xtask import-crates-index DIR --out ROOT [--no-check]";

#[derive(Debug, Deserialize)]
struct RawEntry {
    name: String,
    vers: String,
    #[serde(default)]
    deps: Vec<RawDep>,
    #[serde(default)]
    cksum: String,
    #[serde(default)]
    yanked: bool,
    #[serde(default)]
    pubtime: Option<String>,
    #[serde(default)]
    size: Option<u64>,
    #[serde(default)]
    license: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawDep {
    name: String,
    req: String,
    #[serde(default)]
    optional: bool,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    package: Option<String>,
}

/// Everything skipped or changed, in order.
#[derive(Debug, Default)]
pub struct Report {
    pub lines: Vec<String>,
    pub dev_dependencies_dropped: usize,
}

impl Report {
    fn note(&mut self, line: String) {
        self.lines.push(line);
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let mut dir: Option<PathBuf> = None;
    let mut out: Option<PathBuf> = None;
    let mut check = true;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--out" => {
                out = Some(PathBuf::from(
                    it.next()
                        .ok_or_else(|| format!("--out needs a value\n{USAGE}"))?,
                ));
            }
            "--no-check" => check = false,
            flag if flag.starts_with("--") => {
                return Err(format!("unknown option `{flag}`\n{USAGE}"));
            }
            path if dir.is_none() => dir = Some(PathBuf::from(path)),
            extra => return Err(format!("unexpected argument `{extra}`\n{USAGE}")),
        }
    }
    let dir = dir.ok_or_else(|| format!("DIR is required\n{USAGE}"))?;
    let out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
    let (report, artifacts, files) = import(&dir, &out)?;
    for line in &report.lines {
        eprintln!("xtask: {line}");
    }
    eprintln!(
        "xtask: imported {artifacts} crates as {files} revision files under {} \
         ({} notes, {} dev-dependencies dropped; see {}/.import-report)",
        out.display(),
        report.lines.len(),
        report.dev_dependencies_dropped,
        out.display()
    );
    if check {
        let state = nenjim_journal_fs::load(&out, nenjim_journal_fs::LoadOptions::new())
            .map_err(|e| format!("the imported root does not load: {e}"))?;
        eprintln!(
            "xtask: the imported root loads clean ({} revisions)",
            state.len()
        );
    }
    Ok(())
}

/// Imports `dir` into a new root `out`; returns the report, the number of
/// artifacts and of files written.
pub fn import(dir: &Path, out: &Path) -> Result<(Report, usize, usize), String> {
    if out.exists()
        && fs::read_dir(out)
            .map_err(|e| format!("{}: {e}", out.display()))?
            .next()
            .is_some()
    {
        return Err(format!("{} exists and is not empty", out.display()));
    }
    let mut report = Report::default();
    let mut files = Vec::new();
    collect_files(dir, &mut files).map_err(|e| format!("{}: {e}", dir.display()))?;
    files.sort();
    // Crate name -> entries in index (publication) order.
    let mut crates: BTreeMap<String, Vec<RawEntry>> = BTreeMap::new();
    for file in &files {
        let bytes = fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        for (n, record) in records(&bytes).into_iter().enumerate() {
            match serde_json::from_slice::<RawEntry>(record) {
                Ok(entry) => crates.entry(entry.name.clone()).or_default().push(entry),
                Err(e) => report.note(format!(
                    "{} record {}: not an index entry ({e}); skipped",
                    file.display(),
                    n + 1
                )),
            }
        }
    }
    fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut taken: BTreeMap<String, String> = BTreeMap::new();
    let mut artifacts = 0;
    let mut written = 0;
    for (name, entries) in &crates {
        let coordinate = match coordinate_of(name) {
            Ok(c) => c,
            Err(e) => {
                report.note(format!("crate `{name}`: {e}; skipped"));
                continue;
            }
        };
        if let Some(first) = taken.get(coordinate.as_str()) {
            report.note(format!(
                "crate `{name}`: coordinate {coordinate} is taken by crate `{first}`; skipped"
            ));
            continue;
        }
        taken.insert(coordinate.as_str().to_owned(), name.clone());
        let revisions = artifact_revisions(name, &coordinate, entries, &mut report);
        if revisions.is_empty() {
            report.note(format!("crate `{name}`: no importable version; skipped"));
            continue;
        }
        let artifact_dir = out.join(coordinate.as_str());
        fs::create_dir_all(&artifact_dir)
            .map_err(|e| format!("{}: {e}", artifact_dir.display()))?;
        for (stamp, text) in revisions {
            let path = artifact_dir.join(format!("{stamp}.journal"));
            fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            written += 1;
        }
        artifacts += 1;
    }
    let mut text = String::new();
    for line in &report.lines {
        let _ = writeln!(text, "{line}");
    }
    let _ = writeln!(
        text,
        "{} dev-dependencies dropped",
        report.dev_dependencies_dropped
    );
    fs::write(out.join(".import-report"), text).map_err(|e| e.to_string())?;
    Ok((report, artifacts, written))
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if dir.is_file() {
        out.push(dir.to_path_buf());
        return Ok(());
    }
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == ".git" || name == "config.json" {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            collect_files(&entry.path(), out)?;
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
    Ok(())
}

/// The JSON records of one index file: JSON lines, or cargo's cache format.
fn records(bytes: &[u8]) -> Vec<&[u8]> {
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    if first == Some(b'{') || bytes.is_empty() {
        return bytes
            .split(|&b| b == b'\n')
            .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
            .collect();
    }
    // Cache: [cache version: u8][index format version: u32 LE][index
    // version]\0 then ([semver]\0[json]\0)*.
    if bytes.len() < 5 {
        return Vec::new();
    }
    let mut fields = bytes[5..].split(|&b| b == 0);
    let _index_version = fields.next();
    let mut out = Vec::new();
    while let (Some(_version), Some(json)) = (fields.next(), fields.next()) {
        if !json.is_empty() {
            out.push(json);
        }
    }
    out
}

/// The coordinate of a crate name: ASCII lower-case, `_` and `-` kept.
pub fn coordinate_of(name: &str) -> Result<ArtifactCoordinate, String> {
    if !name.is_ascii() {
        return Err("not ASCII, cannot be a coordinate".to_owned());
    }
    name.to_ascii_lowercase()
        .parse::<ArtifactCoordinate>()
        .map_err(|e| format!("`{}` is not a coordinate: {e}", name.to_ascii_lowercase()))
}

// ------------------------------------------------------------ requirements

fn v(major: u64, minor: u64, patch: u64) -> semver::Version {
    semver::Version::new(major, minor, patch)
}

fn inc(n: u64) -> Result<u64, String> {
    n.checked_add(1)
        .ok_or_else(|| "a version number overflows".to_owned())
}

type Bounds = (Bound<semver::Version>, Bound<semver::Version>);

/// One Cargo comparator as a precedence interval (pre-release opt-in aside).
fn comparator_bounds(c: &semver::Comparator) -> Result<Bounds, String> {
    use semver::Op;
    use std::ops::Bound::{Excluded, Included, Unbounded};
    let full = || semver::Version {
        major: c.major,
        minor: c.minor.unwrap_or(0),
        patch: c.patch.unwrap_or(0),
        pre: c.pre.clone(),
        build: semver::BuildMetadata::EMPTY,
    };
    let (major, minor, patch) = (c.major, c.minor, c.patch);
    Ok(match c.op {
        Op::Exact | Op::Wildcard => match (minor, patch) {
            (Some(_), Some(_)) => (Included(full()), Included(full())),
            (Some(mi), None) => (Included(v(major, mi, 0)), Excluded(v(major, inc(mi)?, 0))),
            (None, _) => (Included(v(major, 0, 0)), Excluded(v(inc(major)?, 0, 0))),
        },
        Op::Greater => match (minor, patch) {
            (Some(_), Some(_)) => (Excluded(full()), Unbounded),
            (Some(mi), None) => (Included(v(major, inc(mi)?, 0)), Unbounded),
            (None, _) => (Included(v(inc(major)?, 0, 0)), Unbounded),
        },
        Op::GreaterEq => match (minor, patch) {
            (Some(_), Some(_)) => (Included(full()), Unbounded),
            (Some(mi), None) => (Included(v(major, mi, 0)), Unbounded),
            (None, _) => (Included(v(major, 0, 0)), Unbounded),
        },
        Op::Less => match (minor, patch) {
            (Some(_), Some(_)) => (Unbounded, Excluded(full())),
            (Some(mi), None) => (Unbounded, Excluded(v(major, mi, 0))),
            (None, _) => (Unbounded, Excluded(v(major, 0, 0))),
        },
        Op::LessEq => match (minor, patch) {
            (Some(_), Some(_)) => (Unbounded, Included(full())),
            (Some(mi), None) => (Unbounded, Excluded(v(major, inc(mi)?, 0))),
            (None, _) => (Unbounded, Excluded(v(inc(major)?, 0, 0))),
        },
        Op::Tilde => match (minor, patch) {
            (Some(mi), Some(_)) => (Included(full()), Excluded(v(major, inc(mi)?, 0))),
            (Some(mi), None) => (Included(v(major, mi, 0)), Excluded(v(major, inc(mi)?, 0))),
            (None, _) => (Included(v(major, 0, 0)), Excluded(v(inc(major)?, 0, 0))),
        },
        Op::Caret => match (major, minor, patch) {
            (0, Some(0), Some(pa)) if c.pre.is_empty() => {
                let _ = pa;
                (Included(full()), Included(full()))
            }
            // ^0.0.3-alpha: 0.0.3-alpha up to 0.0.3 itself.
            (0, Some(0), Some(pa)) => (Included(full()), Included(v(0, 0, pa))),
            (0, Some(mi), Some(_)) => (Included(full()), Excluded(v(0, inc(mi)?, 0))),
            (_, Some(_), Some(_)) => (Included(full()), Excluded(v(inc(major)?, 0, 0))),
            (0, Some(mi), None) => (Included(v(0, mi, 0)), Excluded(v(0, inc(mi)?, 0))),
            (_, Some(mi), None) => (Included(v(major, mi, 0)), Excluded(v(inc(major)?, 0, 0))),
            (_, None, _) => (Included(v(major, 0, 0)), Excluded(v(inc(major)?, 0, 0))),
        },
        _ => return Err(format!("unsupported comparator `{c}`")),
    })
}

fn version_of(b: &Bound<semver::Version>) -> Option<&semver::Version> {
    match b {
        Bound::Included(v) | Bound::Excluded(v) => Some(v),
        Bound::Unbounded => None,
    }
}

/// The higher of two lower bounds (exclusive wins a tie).
fn max_lower(a: Bound<semver::Version>, b: Bound<semver::Version>) -> Bound<semver::Version> {
    match (version_of(&a), version_of(&b)) {
        (None, _) => b,
        (_, None) => a,
        (Some(x), Some(y)) if x > y => a,
        (Some(x), Some(y)) if y > x => b,
        _ if matches!(a, Bound::Excluded(_)) => a,
        _ => b,
    }
}

/// The lower of two upper bounds (exclusive wins a tie).
fn min_upper(a: Bound<semver::Version>, b: Bound<semver::Version>) -> Bound<semver::Version> {
    match (version_of(&a), version_of(&b)) {
        (None, _) => b,
        (_, None) => a,
        (Some(x), Some(y)) if x < y => a,
        (Some(x), Some(y)) if y < x => b,
        _ if matches!(a, Bound::Excluded(_)) => a,
        _ => b,
    }
}

/// A `semver::Version` (without build metadata) as a Journal release version,
/// through its text: the API keeps `semver` out of its signatures.
fn release_version(v: &semver::Version) -> Result<ReleaseVersion, String> {
    v.to_string()
        .parse::<ReleaseVersion>()
        .map_err(|e| e.to_string())
}

fn release_bound(b: Bound<semver::Version>) -> Result<Bound<ReleaseVersion>, String> {
    Ok(match b {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) => Bound::Included(release_version(&v)?),
        Bound::Excluded(v) => Bound::Excluded(release_version(&v)?),
    })
}

/// A Cargo requirement as a Journal requirement, exactly (see the module doc).
pub fn convert_requirement(req: &str) -> Result<VersionRequirement, String> {
    let parsed =
        semver::VersionReq::parse(req).map_err(|e| format!("unparsable requirement: {e}"))?;
    let mut lower = Bound::Unbounded;
    let mut upper = Bound::Unbounded;
    for c in &parsed.comparators {
        let (l, u) = comparator_bounds(c)?;
        lower = max_lower(lower, l);
        upper = min_upper(upper, u);
    }
    match (&lower, &upper) {
        (Bound::Unbounded, Bound::Unbounded) => return Ok(VersionRequirement::any()),
        (Bound::Included(a), Bound::Included(b)) if a == b => {
            let exact = release_version(a)?;
            return Ok(VersionRequirement::exact(exact));
        }
        _ => {}
    }
    VersionRequirement::interval(release_bound(lower)?, release_bound(upper)?)
        .map_err(|_| "the comparators cannot all hold (empty intersection)".to_owned())
}

// ------------------------------------------------------------ revisions

struct Release {
    version: ReleaseVersion,
    text: String,
    yanked: bool,
}

/// Quotes `text` for a Journal quoted string (canonical escapes).
fn quote(text: &str) -> String {
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
type KeptDependency = ((bool, bool, bool), VersionRequirement, String);

/// The DEPENDS lines of one entry, after the documented merging.
fn depends_lines(
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
fn pubtime_seconds(pubtime: &str) -> Option<i64> {
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
fn artifact_revisions(
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)] // tests fail loudly
mod tests {
    use super::*;

    #[test]
    fn requirements_convert_exactly() {
        for (cargo, journal) in [
            ("1.2.3", "[1.2.3,2.0.0)"),
            ("^1.2", "[1.2.0,2.0.0)"),
            ("^0.2.3", "[0.2.3,0.3.0)"),
            ("^0.0.3", "0.0.3"),
            ("^0.0", "[0.0.0,0.1.0)"),
            ("^0", "[0.0.0,1.0.0)"),
            ("~1.2.3", "[1.2.3,1.3.0)"),
            ("~1", "[1.0.0,2.0.0)"),
            ("1.*", "[1.0.0,2.0.0)"),
            ("1.2.*", "[1.2.0,1.3.0)"),
            ("*", "*"),
            ("=1.0.0", "1.0.0"),
            ("=1.0", "[1.0.0,1.1.0)"),
            (">=1.2.0, <2.0.0", "[1.2.0,2.0.0)"),
            (">1.2.0", "(1.2.0,)"),
            (">1.2", "[1.3.0,)"),
            ("<=1.2", "(,1.3.0)"),
            ("<=1.2.3", "(,1.2.3]"),
            (">= 1.0, < 1.5, >= 1.2", "[1.2.0,1.5.0)"),
            ("^1.0.0-beta.2", "[1.0.0-beta.2,2.0.0)"),
            (">=1.0.0, <=1.0.0", "1.0.0"),
        ] {
            let got = convert_requirement(cargo).unwrap_or_else(|e| panic!("{cargo}: {e}"));
            assert_eq!(got.to_string(), journal, "{cargo}");
        }
        assert!(convert_requirement(">=2.0.0, <1.0.0").is_err());
        assert!(convert_requirement(">1.0.0, <1.0.0").is_err());
        assert!(convert_requirement("not a req").is_err());
    }

    #[test]
    fn names_map_to_coordinates() {
        assert_eq!(coordinate_of("Inflector").unwrap().as_str(), "inflector");
        assert_eq!(coordinate_of("serde_json").unwrap().as_str(), "serde_json");
        assert!(coordinate_of("foo--bar").is_err());
        assert!(coordinate_of("foo_").is_err());
    }

    #[test]
    fn cache_records_are_read() {
        let mut bytes = vec![3u8, 2, 0, 0, 0];
        bytes.extend_from_slice(b"etag\0");
        bytes.extend_from_slice(b"1.0.0\0{\"a\":1}\0");
        bytes.extend_from_slice(b"1.0.1\0{\"b\":2}\0");
        let got: Vec<&[u8]> = records(&bytes);
        assert_eq!(got, vec![&b"{\"a\":1}"[..], &b"{\"b\":2}"[..]]);
        assert_eq!(pubtime_seconds("1970-01-02T00:00:01Z"), Some(86_401));
        assert_eq!(pubtime_seconds("2021-01-01T00:00:00Z"), Some(1_609_459_200));
    }
}
