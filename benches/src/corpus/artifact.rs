//! [`ArtifactGen`]: the chain of one artifact, one revision per call of
//! [`ArtifactGen::next_revision`] (see the [module docs](super) for what
//! a revision holds).

use super::*;

// ------------------------------------------------------------ releases

#[derive(Clone, Debug)]
pub(super) struct GenDep {
    pub(super) artifact: usize,
    pub(super) req: Option<Req>,
    pub(super) note: Option<&'static str>,
}

#[derive(Clone, Debug)]
pub(super) struct GenRelease {
    pub(super) version: Ver,
    pub(super) license: &'static str,
    pub(super) cksum: String,
    pub(super) size: u64,
    pub(super) description: Option<usize>,
    pub(super) depends: Vec<GenDep>,
    pub(super) excludes: Vec<GenDep>,
    pub(super) prefers: Vec<GenDep>,
    /// The release block exactly as written in every revision.
    pub(super) text: String,
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
