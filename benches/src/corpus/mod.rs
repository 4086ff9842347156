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
//!
//! Five files: this one holds the corpus as a whole (its spec and stats,
//! the timestamps, the revisions the benches ask for, writing a corpus
//! out); `version.rs` the SemVer versions and requirements drawn;
//! `vocabulary.rs` the words, licenses and coordinates drawn from;
//! `artifact.rs` [`ArtifactGen`], one artifact's chain; `index.rs` the
//! same worldviews as crates.io-index JSON lines.

mod version;

pub use artifact::ArtifactGen;
pub use index::{DepKind, IndexDep, IndexEntry, index_lines};
pub use version::Ver;
pub use vocabulary::coordinates;

use version::Req;
use vocabulary::{DEP_NOTES, DESCRIPTIONS, LICENSES, REASONS};
mod artifact;
mod index;
mod vocabulary;

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
