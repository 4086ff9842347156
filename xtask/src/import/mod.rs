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
//!
//! Three files: this one reads the index (its two file formats, the crate
//! names) and writes the root and its report; `requirements.rs` turns a
//! cargo version requirement into a Journal interval, exactly or not at
//! all; `revisions.rs` makes an artifact's revisions (days, instants,
//! release blocks written once, DEPENDS lines).

mod requirements;
mod revisions;

use revisions::artifact_revisions;

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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)] // tests fail loudly
mod tests {
    use super::requirements::convert_requirement;
    use super::revisions::pubtime_seconds;
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
