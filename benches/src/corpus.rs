//! The deterministic synthetic corpus: Journal revision texts (and the same
//! worldviews as crates.io-index-style JSON lines) from a seed.
//!
//! One [`ArtifactGen`] writes the chain of one artifact. Each call of
//! [`ArtifactGen::next_revision`] adds releases and draws a fresh policy:
//!
//! - releases are strictly ascending by SemVer precedence (patch, minor and
//!   major bumps, some `-alpha.N` / `-rc.N` pre-releases before their
//!   release); every earlier release is kept byte-for-byte (immutability);
//! - a release has a compound or simple SPDX license, a CONTENT pointer
//!   (SHA-256 of `coordinate@version`, a size), sometimes a description with
//!   escapes, 0–12 DEPENDS with mixed exact/interval/`*` requirements, up to
//!   two EXCLUDES (some without requirement) and up to two PREFERS; never its
//!   own artifact, never the same artifact twice in one list, never an
//!   artifact both depended on and excluded;
//! - policy obeys section 5: every YANK/DEPRECATE matches at least one
//!   release, no release is matched by two YANKs or two DEPRECATEs, at most
//!   one RECOMMEND naming a release that is not yanked;
//! - PREDECESSOR is the SHA-256 of the previous text's exact bytes and
//!   JOURNAL_VERSION grows strictly (one day per revision, plus a
//!   per-artifact offset).

use std::cmp::Ordering;
use std::fmt::{self, Write as _};
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::prng::SplitMix64;

/// The shape of a synthetic root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CorpusSpec {
    /// Number of artifacts (directories).
    pub artifacts: usize,
    /// Revisions per artifact (files per directory).
    pub revisions: usize,
    /// Releases added by each revision (the genesis adds at least one).
    pub releases_per_revision: usize,
    /// The PRNG seed; the same spec always gives the same bytes.
    pub seed: u64,
}

/// What [`write_corpus`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CorpusStats {
    /// Journal files written.
    pub files: usize,
    /// Their total size in bytes.
    pub journal_bytes: u64,
    /// Releases in the latest revisions (= JSON lines written).
    pub releases: usize,
    /// Total size of the JSON index files.
    pub index_bytes: u64,
}

/// The hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        let _ = write!(out, "{b:02x}");
    }
    out
}

// ---------------------------------------------------------------- versions

/// A SemVer version without build metadata; pre-releases are `label.N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ver {
    major: u64,
    minor: u64,
    patch: u64,
    pre: Option<(&'static str, u64)>,
}

impl Ver {
    const fn new(major: u64, minor: u64, patch: u64) -> Ver {
        Ver {
            major,
            minor,
            patch,
            pre: None,
        }
    }
    fn triple(self) -> (u64, u64, u64) {
        (self.major, self.minor, self.patch)
    }
}

impl Ord for Ver {
    fn cmp(&self, other: &Ver) -> Ordering {
        self.triple()
            .cmp(&other.triple())
            .then_with(|| match (self.pre, other.pre) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
                // Alphanumeric labels compare as ASCII, numbers numerically.
                (Some(a), Some(b)) => a.0.cmp(b.0).then(a.1.cmp(&b.1)),
            })
    }
}

impl PartialOrd for Ver {
    fn partial_cmp(&self, other: &Ver) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Ver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if let Some((label, n)) = self.pre {
            write!(f, "-{label}.{n}")?;
        }
        Ok(())
    }
}

// ------------------------------------------------------------ requirements

/// A requirement as generated: rendered both as a Journal token and as a
/// Cargo requirement for the JSON peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Req {
    Any,
    Exact(Ver),
    /// `(bound, inclusive)`; at least one bound, never empty.
    Interval {
        lower: Option<(Ver, bool)>,
        upper: Option<(Ver, bool)>,
    },
}

impl Req {
    fn journal(self) -> String {
        match self {
            Req::Any => "*".to_owned(),
            Req::Exact(v) => v.to_string(),
            Req::Interval { lower, upper } => {
                let mut s = String::new();
                match lower {
                    None => s.push_str("(,"),
                    Some((v, true)) => {
                        let _ = write!(s, "[{v},");
                    }
                    Some((v, false)) => {
                        let _ = write!(s, "({v},");
                    }
                }
                match upper {
                    None => s.push(')'),
                    Some((v, true)) => {
                        let _ = write!(s, "{v}]");
                    }
                    Some((v, false)) => {
                        let _ = write!(s, "{v})");
                    }
                }
                s
            }
        }
    }

    fn cargo(self) -> String {
        match self {
            Req::Any => "*".to_owned(),
            Req::Exact(v) => format!("={v}"),
            Req::Interval { lower, upper } => {
                let mut parts = Vec::new();
                match lower {
                    Some((v, true)) => parts.push(format!(">={v}")),
                    Some((v, false)) => parts.push(format!(">{v}")),
                    None => {}
                }
                match upper {
                    Some((v, true)) => parts.push(format!("<={v}")),
                    Some((v, false)) => parts.push(format!("<{v}")),
                    None => {}
                }
                parts.join(", ")
            }
        }
    }

    fn random(rng: &mut SplitMix64) -> Req {
        let a = rng.below(4) as u64;
        let b = rng.below(12) as u64;
        let c = rng.below(20) as u64;
        match rng.below(100) {
            0..=29 => Req::Interval {
                // caret-like
                lower: Some((Ver::new(a.max(1), b, 0), true)),
                upper: Some((Ver::new(a.max(1) + 1, 0, 0), false)),
            },
            30..=44 => Req::Interval {
                // tilde-like
                lower: Some((Ver::new(a, b, c), true)),
                upper: Some((Ver::new(a, b + 1, 0), false)),
            },
            45..=64 => Req::Exact(Ver::new(a, b, c)),
            65..=74 => Req::Interval {
                lower: None,
                upper: Some((Ver::new(a + 1, 0, 0), false)),
            },
            75..=84 => Req::Interval {
                lower: Some((Ver::new(a, b, 0), true)),
                upper: None,
            },
            85..=89 => Req::Any,
            90..=94 => Req::Interval {
                lower: Some((Ver::new(a, b, c), true)),
                upper: Some((Ver::new(a, b, c), true)),
            },
            _ => Req::Interval {
                lower: Some((Ver::new(a, b, c), false)),
                upper: Some((Ver::new(a, b + 2, 0), true)),
            },
        }
    }
}

// ------------------------------------------------------------ text pools

const LICENSES: &[&str] = &[
    "MIT",
    "Apache-2.0",
    "Apache-2.0 OR MIT",
    "MIT AND BSD-3-Clause",
    "(MIT OR Apache-2.0) AND Unicode-DFS-2016",
    "GPL-2.0-or-later WITH Classpath-exception-2.0",
    "BSD-2-Clause",
    "ISC",
    "MPL-2.0",
    "LGPL-2.1-only OR MIT",
    "LicenseRef-Proprietary",
    "Zlib OR Apache-2.0 OR MIT",
];

/// Descriptions in quoted form (escapes as written in the file) and decoded.
const DESCRIPTIONS: &[(&str, &str)] = &[
    (r#"Fast \"zero-copy\" parser"#, "Fast \"zero-copy\" parser"),
    (r"First line\nsecond line", "First line\nsecond line"),
    (
        r"Columns\tseparated by tabs and a backslash \\ here",
        "Columns\tseparated by tabs and a backslash \\ here",
    ),
    (
        r"Checked \u{2713} by the caf\u{e9} team",
        "Checked \u{2713} by the caf\u{e9} team",
    ),
    ("Plain old description", "Plain old description"),
    (
        "Bindings for the well known libfoo, with Unicode: \u{00e5}ngstr\u{00f6}m",
        "Bindings for the well known libfoo, with Unicode: \u{00e5}ngstr\u{00f6}m",
    ),
];

const REASONS: &[&str] = &[
    r#"security advisory \"RUSTSEC-2024-0001\""#,
    "broken build on some platforms",
    r"superseded\tby the next minor",
    "maintenance only",
    r"published by mistake \u{26a0}",
];

const DEP_NOTES: &[&str] = &[
    r#"used by the \"fast\" path"#,
    "logging facade",
    "optional feature",
    r"tested combination \u{2714}",
];

const WORDS: &[&str] = &[
    "core",
    "util",
    "serde",
    "async",
    "net",
    "http",
    "json",
    "log",
    "time",
    "rand",
    "sync",
    "io",
    "fs",
    "db",
    "sql",
    "cli",
    "test",
    "macro",
    "derive",
    "proto",
    "crypto",
    "hash",
    "parse",
    "fmt",
    "api",
    "impl",
    "hubd",
    "valuetypes",
    "codec",
    "tls",
];

const TLDS: &[&str] = &["com", "org", "io", "net", "dev"];

/// `n` distinct, valid, sorted coordinates derived from `seed`.
pub fn coordinates(seed: u64, n: usize) -> Vec<String> {
    let mut rng = SplitMix64::new(seed ^ 0xC00D_1A7E);
    let mut out: Vec<String> = (0..n)
        .map(|i| {
            // The index in base 36 keeps names unique.
            let id = base36(i as u64);
            match rng.below(4) {
                0 => format!("{}.{}{id}", rng.pick(WORDS), rng.pick(WORDS)),
                1 => format!(
                    "{}.{}.{}-{}{id}",
                    rng.pick(TLDS),
                    rng.pick(WORDS),
                    rng.pick(WORDS),
                    rng.pick(WORDS)
                ),
                2 => format!("{}_{}{id}", rng.pick(WORDS), rng.pick(WORDS)),
                _ => format!("{}-{id}", rng.pick(WORDS)),
            }
        })
        .collect();
    out.sort();
    out
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut s = Vec::new();
    loop {
        s.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

// ------------------------------------------------------------ timestamps

/// `YYYYMMDDTHHMMSSZ` of a count of seconds since 1970-01-01T00:00:00Z.
pub fn timestamp(unix_seconds: i64) -> String {
    let days = unix_seconds.div_euclid(86_400);
    let secs = unix_seconds.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    )
}

/// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to (y, m, d).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// 2021-01-01T00:00:00Z.
const EPOCH_2021: i64 = 1_609_459_200;

// ------------------------------------------------------------ releases

#[derive(Clone, Debug)]
struct GenDep {
    artifact: usize,
    req: Option<Req>,
    note: Option<&'static str>,
}

#[derive(Clone, Debug)]
struct GenRelease {
    version: Ver,
    license: &'static str,
    cksum: String,
    size: u64,
    description: Option<usize>,
    depends: Vec<GenDep>,
    excludes: Vec<GenDep>,
    prefers: Vec<GenDep>,
    /// The release block exactly as written in every revision.
    text: String,
}

/// The generator of one artifact's chain.
#[derive(Debug)]
pub struct ArtifactGen<'u> {
    universe: &'u [String],
    me: usize,
    rng: SplitMix64,
    releases: Vec<GenRelease>,
    last: Option<Ver>,
    revision: usize,
    predecessor: Option<String>,
    offset: i64,
    yanked: Vec<bool>,
}

impl<'u> ArtifactGen<'u> {
    /// The generator of `universe[me]`; dependencies name other members of
    /// `universe` (which must be valid, distinct coordinates).
    pub fn new(universe: &'u [String], me: usize, seed: u64) -> ArtifactGen<'u> {
        let mut rng = SplitMix64::new(seed).fork(me as u64 + 1);
        let offset = rng.below(86_400) as i64;
        ArtifactGen {
            universe,
            me,
            rng,
            releases: Vec::new(),
            last: None,
            revision: 0,
            predecessor: None,
            offset,
            yanked: Vec::new(),
        }
    }

    /// The artifact's coordinate.
    pub fn coordinate(&self) -> &str {
        &self.universe[self.me]
    }

    /// The JOURNAL_VERSION of the revision `next_revision` writes next.
    pub fn next_timestamp(&self) -> String {
        timestamp(EPOCH_2021 + self.offset + self.revision as i64 * 86_400)
    }

    /// Number of releases so far.
    pub fn release_count(&self) -> usize {
        self.releases.len()
    }

    /// The versions of the releases so far, ascending.
    pub fn versions(&self) -> Vec<String> {
        self.releases
            .iter()
            .map(|r| r.version.to_string())
            .collect()
    }

    /// Writes the next revision: `new_releases` more releases (at least one
    /// for the genesis) and a freshly drawn policy. Returns its text.
    pub fn next_revision(&mut self, new_releases: usize) -> String {
        let adding = if self.releases.is_empty() {
            new_releases.max(1)
        } else {
            new_releases
        };
        for _ in 0..adding {
            let version = self.next_version();
            let release = self.release(version);
            self.releases.push(release);
        }
        let text = self.render();
        self.predecessor = Some(sha256_hex(text.as_bytes()));
        self.revision += 1;
        text
    }

    fn next_version(&mut self) -> Ver {
        let rng = &mut self.rng;
        let v = match self.last {
            None => {
                if rng.chance(50) {
                    Ver::new(0, 1, 0)
                } else {
                    Ver::new(1, 0, 0)
                }
            }
            Some(
                last @ Ver {
                    pre: Some((label, n)),
                    ..
                },
            ) => {
                if rng.chance(40) {
                    Ver {
                        pre: Some((label, n + 1)),
                        ..last
                    }
                } else if label == "alpha" && rng.chance(30) {
                    Ver {
                        pre: Some(("rc", 1)),
                        ..last
                    }
                } else {
                    Ver { pre: None, ..last }
                }
            }
            Some(last) => {
                let mut v = match rng.below(100) {
                    0..=64 => Ver::new(last.major, last.minor, last.patch + 1),
                    65..=92 => Ver::new(last.major, last.minor + 1, 0),
                    _ => Ver::new(last.major + 1, 0, 0),
                };
                if rng.chance(12) {
                    v.pre = Some((*rng.pick(&["alpha", "rc"]), 1));
                }
                v
            }
        };
        debug_assert!(self.last.is_none_or(|l| l < v));
        self.last = Some(v);
        v
    }

    /// Distinct other artifacts, none of `avoid`, up to `n`.
    fn others(&mut self, n: usize, avoid: &[usize]) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::with_capacity(n);
        if self.universe.len() <= 1 {
            return out;
        }
        let mut tries = 0;
        while out.len() < n && tries < n * 4 + 8 {
            tries += 1;
            let a = self.rng.below(self.universe.len());
            if a != self.me && !out.contains(&a) && !avoid.contains(&a) {
                out.push(a);
            }
        }
        out
    }

    fn release(&mut self, version: Ver) -> GenRelease {
        let coordinate = self.universe[self.me].clone();
        let cksum = sha256_hex(format!("{coordinate}@{version}").as_bytes());
        let size = self.rng.between(200, 5_000_000) as u64;
        let license = *self.rng.pick(LICENSES);
        let description = self
            .rng
            .chance(40)
            .then(|| self.rng.below(DESCRIPTIONS.len()));
        let dep_count = if self.rng.chance(15) {
            0
        } else {
            self.rng.between(1, 12)
        };
        let dep_ids = self.others(dep_count, &[]);
        let depends: Vec<GenDep> = dep_ids
            .iter()
            .map(|&artifact| GenDep {
                artifact,
                req: Some(Req::random(&mut self.rng)),
                note: self.rng.chance(15).then(|| *self.rng.pick(DEP_NOTES)),
            })
            .collect();
        let exclude_count = if self.rng.chance(30) {
            self.rng.between(1, 2)
        } else {
            0
        };
        let excludes: Vec<GenDep> = self
            .others(exclude_count, &dep_ids)
            .into_iter()
            .map(|artifact| GenDep {
                artifact,
                // Some exclusions have no requirement (every version).
                req: self.rng.chance(60).then(|| Req::random(&mut self.rng)),
                note: self.rng.chance(30).then(|| *self.rng.pick(DEP_NOTES)),
            })
            .collect();
        let mut prefers = Vec::new();
        if !dep_ids.is_empty() && self.rng.chance(25) {
            let n = self.rng.between(1, 2.min(dep_ids.len()));
            let start = self.rng.below(dep_ids.len());
            for k in 0..n {
                let artifact = dep_ids[(start + k) % dep_ids.len()];
                prefers.push(GenDep {
                    artifact,
                    req: Some(Req::random(&mut self.rng)),
                    note: self.rng.chance(40).then(|| *self.rng.pick(DEP_NOTES)),
                });
            }
        }
        let mut release = GenRelease {
            version,
            license,
            cksum,
            size,
            description,
            depends,
            excludes,
            prefers,
            text: String::new(),
        };
        release.text = self.release_text(&release);
        release
    }

    fn release_text(&self, r: &GenRelease) -> String {
        let mut t = String::with_capacity(128 + 48 * r.depends.len());
        let _ = writeln!(t, "RELEASE {}", r.version);
        let _ = writeln!(t, "  LICENSE {}", r.license);
        let _ = writeln!(t, "  CONTENT sha256:{} {}", r.cksum, r.size);
        if let Some(d) = r.description {
            let _ = writeln!(t, "  DESCRIPTION \"{}\"", DESCRIPTIONS[d].0);
        }
        for (keyword, list) in [
            ("DEPENDS", &r.depends),
            ("EXCLUDES", &r.excludes),
            ("PREFERS", &r.prefers),
        ] {
            for d in list {
                let _ = write!(t, "  {keyword} {}", self.universe[d.artifact]);
                if let Some(req) = d.req {
                    let _ = write!(t, " {}", req.journal());
                }
                if let Some(note) = d.note {
                    let _ = write!(t, " \"{note}\"");
                }
                t.push('\n');
            }
        }
        t
    }

    /// A requirement matching exactly releases `i..=j` of `versions`.
    fn range_req(&mut self, i: usize, j: usize) -> String {
        let n = self.releases.len();
        let v = |k: usize| self.releases[k].version;
        if i == j && self.rng.chance(60) {
            return v(i).to_string();
        }
        if i == 0 && j == n - 1 && self.rng.chance(30) {
            return "*".to_owned();
        }
        match self.rng.below(3) {
            0 if j + 1 < n => format!("[{},{})", v(i), v(j + 1)),
            1 if j == n - 1 => format!("[{},)", v(i)),
            2 if i == 0 => format!("(,{}]", v(j)),
            _ if i == j => v(i).to_string(),
            _ => format!("[{},{}]", v(i), v(j)),
        }
    }

    /// Draws up to `count` disjoint runs of releases and writes one statement each.
    fn policy_runs(&mut self, keyword: &str, count: usize, out: &mut String) -> Vec<bool> {
        let n = self.releases.len();
        let mut taken = vec![false; n];
        for _ in 0..count {
            let i = self.rng.below(n);
            let j = (i + self.rng.below(3)).min(n - 1);
            if taken[i..=j].iter().any(|&t| t) {
                continue;
            }
            taken[i..=j].iter_mut().for_each(|t| *t = true);
            let req = self.range_req(i, j);
            let reason = *self.rng.pick(REASONS);
            let _ = writeln!(out, "{keyword} {req} \"{reason}\"");
        }
        taken
    }

    fn render(&mut self) -> String {
        let coordinate = self.universe[self.me].clone();
        let size: usize = self.releases.iter().map(|r| r.text.len()).sum();
        let mut t = String::with_capacity(size + 512);
        if self.rng.chance(30) {
            let _ = writeln!(
                t,
                "# Synthetic revision {} of {coordinate}\n",
                self.revision + 1
            );
        }
        let _ = writeln!(t, "FORMAT nenjim-journal/1");
        let _ = writeln!(t, "ARTIFACT {coordinate}");
        let _ = writeln!(t, "JOURNAL_VERSION {}", self.next_timestamp());
        match &self.predecessor {
            None => t.push_str("PREDECESSOR GENESIS\n"),
            Some(hex) => {
                let _ = writeln!(t, "PREDECESSOR sha256:{hex}");
            }
        }
        let d = self.me % DESCRIPTIONS.len();
        let _ = writeln!(t, "DESCRIPTION \"{}\"", DESCRIPTIONS[d].0);
        if self.me % 10 < 7 {
            let _ = writeln!(t, "INFORMATION https://example.org/artifacts/{coordinate}");
        }
        t.push('\n');
        for r in &self.releases {
            t.push_str(&r.text);
        }
        let n = self.releases.len();
        let mut policy = String::new();
        let yanks = if n > 0 { self.rng.below(3) } else { 0 };
        let yanked = self.policy_runs("YANK", yanks, &mut policy);
        let deprecates = usize::from(n > 0 && self.rng.chance(25));
        self.policy_runs("DEPRECATE", deprecates, &mut policy);
        if n > 0 && self.rng.chance(50) {
            let k = self.rng.below(n);
            if let Some(pick) = (0..n).map(|s| (k + s) % n).find(|&c| !yanked[c]) {
                let _ = writeln!(policy, "RECOMMEND {}", self.releases[pick].version);
            }
        }
        if !policy.is_empty() {
            t.push('\n');
            t.push_str(&policy);
        }
        self.yanked = yanked;
        t
    }

    /// The latest revision's worldview as crates.io-index-style entries.
    pub fn index_entries(&self) -> Vec<IndexEntry> {
        self.releases
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let dep = |d: &GenDep, kind: DepKind| IndexDep {
                    name: self.universe[d.artifact].clone(),
                    req: d.req.map_or_else(|| "*".to_owned(), Req::cargo),
                    features: Vec::new(),
                    optional: false,
                    default_features: true,
                    target: None,
                    kind,
                    package: None,
                };
                let mut deps: Vec<IndexDep> =
                    r.depends.iter().map(|d| dep(d, DepKind::Normal)).collect();
                deps.extend(r.excludes.iter().map(|d| dep(d, DepKind::Exclude)));
                deps.extend(r.prefers.iter().map(|d| dep(d, DepKind::Prefer)));
                IndexEntry {
                    name: self.universe[self.me].clone(),
                    vers: r.version.to_string(),
                    deps,
                    cksum: r.cksum.clone(),
                    size: Some(r.size),
                    features: std::collections::BTreeMap::new(),
                    yanked: self.yanked.get(k).copied().unwrap_or(false),
                    links: None,
                    license: Some(r.license.to_owned()),
                    description: r.description.map(|d| DESCRIPTIONS[d].1.to_owned()),
                    v: Some(2),
                }
            })
            .collect()
    }
}

// ------------------------------------------------------------ index JSON

/// The kind of an index dependency (`exclude` and `prefer` extend Cargo's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DepKind {
    /// A normal dependency (DEPENDS).
    Normal,
    /// A build dependency.
    Build,
    /// A dev dependency.
    Dev,
    /// An exclusion (EXCLUDES), not in Cargo.
    Exclude,
    /// A preference (PREFERS), not in Cargo.
    Prefer,
}

/// One dependency of a crates.io index line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexDep {
    /// The dependency's name (the crate, unless `package` renames it).
    pub name: String,
    /// The Cargo requirement.
    pub req: String,
    /// Enabled features.
    pub features: Vec<String>,
    /// Whether it is optional.
    pub optional: bool,
    /// Whether default features are enabled.
    pub default_features: bool,
    /// A `cfg(...)` or target triple, if any.
    pub target: Option<String>,
    /// The kind.
    pub kind: DepKind,
    /// The real crate name, if renamed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
}

/// One crates.io index line (one release), the peer's typed form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexEntry {
    /// The crate name.
    pub name: String,
    /// The version.
    pub vers: String,
    /// The dependencies.
    pub deps: Vec<IndexDep>,
    /// The SHA-256 of the .crate file.
    pub cksum: String,
    /// The .crate size (an extension of this corpus).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The features.
    pub features: std::collections::BTreeMap<String, Vec<String>>,
    /// Whether the version is yanked.
    pub yanked: bool,
    /// The `links` value.
    #[serde(default)]
    pub links: Option<String>,
    /// The license (an extension; not in the real index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// The description (an extension; not in the real index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The index format version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v: Option<u32>,
}

/// The JSON lines of `entries`, each terminated by `\n`.
pub fn index_lines(entries: &[IndexEntry]) -> String {
    let mut out = String::new();
    for e in entries {
        if let Ok(line) = serde_json::to_string(e) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

// ------------------------------------------------------------ in memory

/// One large revision (the genesis of a single artifact with `releases`
/// releases, in a universe of 1000 artifacts) and its worldview as JSON lines.
pub fn large_revision(releases: usize, seed: u64) -> (String, String) {
    let universe = coordinates(seed, 1000);
    let mut g = ArtifactGen::new(&universe, 0, seed);
    let text = g.next_revision(releases);
    let json = index_lines(&g.index_entries());
    (text, json)
}

/// The texts of one artifact's chain: a genesis with `genesis_releases`
/// releases, then `revisions - 1` successors adding `releases_per_revision`.
pub fn chain_texts(
    coordinate_index: usize,
    universe: &[String],
    revisions: usize,
    genesis_releases: usize,
    releases_per_revision: usize,
    seed: u64,
) -> Vec<String> {
    let mut g = ArtifactGen::new(universe, coordinate_index, seed);
    (0..revisions)
        .map(|r| {
            g.next_revision(if r == 0 {
                genesis_releases
            } else {
                releases_per_revision
            })
        })
        .collect()
}

/// A revision body of about 10 kB, the append benches' (P8, P8b, P12):
/// releases with dependencies.
pub fn append_body() -> String {
    let mut body = String::new();
    let mut i = 0;
    while body.len() < 9_700 {
        body.push_str(&format!(
            "\nRELEASE 1.{i}.0\n  LICENSE Apache-2.0 OR MIT\n  CONTENT sha256:{:064x} {}\n  DEPENDS serde [1.0.0,2.0.0)\n  DEPENDS tokio [1.{i}.0,2.0.0) \"runtime\"\n",
            i + 1,
            1000 + i
        ));
        i += 1;
    }
    body
}

/// The append benches' revision of `artifact` at second `n` after
/// `predecessor` (or a genesis), with `body`.
pub fn append_revision(
    artifact: &str,
    n: i64,
    predecessor: Option<&nenjim_journal_api::valuetypes::RevisionDigest>,
    body: &str,
) -> String {
    let at = timestamp(1_767_225_600 + n);
    let predecessor = predecessor.map_or_else(|| "GENESIS".to_owned(), ToString::to_string);
    format!(
        "FORMAT nenjim-journal/1\nARTIFACT {artifact}\nJOURNAL_VERSION {at}\nPREDECESSOR {predecessor}\nDESCRIPTION \"append bench\"\n{body}"
    )
}

/// Appends the successor of `head` (or a genesis) of `append-bench` with
/// `body` through `writer`, timing the append alone; `head` becomes the
/// revision appended (P8's and P12's timed append).
pub fn timed_append(
    writer: &mut nenjim_journal_writer::FsJournalWriter,
    head: &mut Option<(i64, nenjim_journal_api::valuetypes::RevisionDigest)>,
    body: &str,
) -> Result<std::time::Duration, nenjim_journal_api::error::JournalError> {
    use nenjim_journal_api::append::JournalWriter as _;
    let (n, predecessor) = head.map_or((0, None), |(n, d)| (n + 1, Some(d)));
    let text = append_revision("append-bench", n, predecessor.as_ref(), body);
    let start = std::time::Instant::now();
    let appended = writer.append(&text)?;
    let took = start.elapsed();
    *head = Some((n, *appended.revision().digest()));
    Ok(took)
}

// ------------------------------------------------------------ on disk

/// The directory of the JSON index written beside the root `out`: `<out>-index`.
pub fn index_dir(out: &Path) -> PathBuf {
    let mut name = out
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push("-index");
    out.with_file_name(name)
}

/// Writes a synthetic root at `out` (`<out>/<coordinate>/<timestamp>.journal`)
/// and its latest worldviews at `<out>-index/<coordinate>` (JSON lines).
/// Refuses to write into a non-empty directory.
pub fn write_corpus(spec: &CorpusSpec, out: &Path) -> io::Result<CorpusStats> {
    if out.exists() && fs::read_dir(out)?.next().is_some() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} exists and is not empty", out.display()),
        ));
    }
    let index = index_dir(out);
    fs::create_dir_all(out)?;
    fs::create_dir_all(&index)?;
    let universe = coordinates(spec.seed, spec.artifacts);
    let mut stats = CorpusStats::default();
    for me in 0..universe.len() {
        let mut g = ArtifactGen::new(&universe, me, spec.seed);
        let dir = out.join(&universe[me]);
        fs::create_dir_all(&dir)?;
        for _ in 0..spec.revisions {
            let name = format!("{}.journal", g.next_timestamp());
            let text = g.next_revision(spec.releases_per_revision);
            fs::write(dir.join(name), &text)?;
            stats.files += 1;
            stats.journal_bytes += text.len() as u64;
        }
        let entries = g.index_entries();
        stats.releases += entries.len();
        let lines = index_lines(&entries);
        stats.index_bytes += lines.len() as u64;
        let mut f = io::BufWriter::new(fs::File::create(index.join(&universe[me]))?);
        f.write_all(lines.as_bytes())?;
        f.flush()?;
    }
    Ok(stats)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly
mod tests {
    use super::*;
    use nenjim_journal_api::valuetypes::{
        ArtifactCoordinate, Description, LicenseExpression, ReleaseVersion, VersionRequirement,
    };

    #[test]
    fn timestamps_are_calendar_instants() {
        assert_eq!(timestamp(0), "19700101T000000Z");
        assert_eq!(timestamp(EPOCH_2021), "20210101T000000Z");
        assert_eq!(timestamp(951_782_400 + 86_399), "20000229T235959Z");
    }

    #[test]
    fn pools_are_valid_tokens() {
        for l in LICENSES {
            assert!(l.parse::<LicenseExpression>().is_ok(), "{l}");
        }
        for (quoted, decoded) in DESCRIPTIONS {
            let d: Description = format!("\"{quoted}\"").parse().unwrap();
            assert_eq!(d.as_str(), *decoded);
        }
        for r in REASONS.iter().chain(DEP_NOTES) {
            assert!(format!("\"{r}\"").parse::<Description>().is_ok(), "{r}");
        }
        for c in coordinates(1, 2000) {
            assert!(c.parse::<ArtifactCoordinate>().is_ok(), "{c}");
        }
        let mut rng = SplitMix64::new(3);
        for _ in 0..1000 {
            let r = Req::random(&mut rng);
            assert!(r.journal().parse::<VersionRequirement>().is_ok(), "{r:?}");
        }
    }

    #[test]
    fn versions_ascend_by_semver_precedence() {
        let universe = coordinates(5, 10);
        let mut g = ArtifactGen::new(&universe, 3, 5);
        g.next_revision(500);
        let versions: Vec<ReleaseVersion> =
            g.versions().iter().map(|v| v.parse().unwrap()).collect();
        assert!(versions.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn successors_keep_earlier_releases_byte_for_byte() {
        let universe = coordinates(9, 50);
        let texts = chain_texts(7, &universe, 4, 3, 2, 9);
        for w in texts.windows(2) {
            let body = |t: &str| t[t.find("RELEASE ").unwrap()..].to_owned();
            let (old, new) = (body(&w[0]), body(&w[1]));
            let old_releases = old.split("\n\n").next().unwrap();
            assert!(new.starts_with(old_releases));
            assert!(w[1].contains(&format!(
                "PREDECESSOR sha256:{}",
                sha256_hex(w[0].as_bytes())
            )));
        }
    }

    #[test]
    fn index_lines_roundtrip() {
        let (_, json) = large_revision(50, 2);
        let entries: Vec<IndexEntry> = json
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(entries.len(), 50);
    }
}
