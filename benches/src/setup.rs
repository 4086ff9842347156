//! Bench sizes from the environment, the results directory, and generated
//! roots cached under the target directory (deterministic, so a cached root
//! is the same bytes as a fresh one).
//!
//! | variable | default | used by |
//! |---|---|---|
//! | `NENJIM_BENCH_FILES` | 10000 | P3, P4, P6, P9: files in the large root (`files/5` artifacts x 5 revisions, 2 releases each) |
//! | `NENJIM_BENCH_CHAIN` | 10000 | P5: revisions of the long chain |
//! | `NENJIM_BENCH_RELEASES` | 3000 | P1, P2: releases of the large revision (>= 1 MiB) |
//! | `NENJIM_BENCH_MILLION` | 1000000 | P7: files of the million-revision root (and a tenth of it for growth) |
//! | `NENJIM_BENCH_P7_RUNS` | 3 | P7: timed runs of each measure (the median is reported) |
//! | `NENJIM_BENCH_S3_ARTIFACTS` | 500 | P10: artifacts (two revisions each) of the root in moto's S3 bucket |
//! | `NENJIM_BENCH_LEDGER_LARGE` | 100000 | P11: revisions of the larger ledger root refreshed (the smaller has 1 000) |
//! | `NENJIM_BENCH_FOLLOW_APPENDS` | 1000 | P15: appends to a NATS root whose follow latency is measured |
//! | `NENJIM_BENCH_NATS_START` | 100000 | P16: revisions of the NATS root started (`N/5` artifacts x 5 revisions) |
//! | `NENJIM_BENCH_NATS_RUNS` | 3 | P16: timed runs of each measure (the median is reported) |

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::corpus::{self, CorpusSpec, CorpusStats};

/// Bumped whenever the generator's output changes, to invalidate caches.
pub const GENERATOR_VERSION: u32 = 1;

/// The seed of every bench corpus.
pub const SEED: u64 = 0x6E65_6E6A_696D;

/// Revisions per artifact in the large root.
pub const REVISIONS: usize = 5;

/// Releases added per revision in the large root.
pub const RELEASES_PER_REVISION: usize = 2;

/// Whether a bench without criterion's harness named `name` runs:
/// `cargo bench -- <filter>` passes the filters (and criterion's own
/// `--` flags, ignored); it runs when there is no filter or one that is
/// part of its name.
pub fn selected(name: &str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
}

/// An unsigned size from the environment, or `default`.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// A measure timed several times, in nanoseconds: the median and every
/// run, in the order run (what a bench without criterion records).
pub type Timed = (f64, Vec<f64>);

/// The median of `times`, and `times` as run.
pub fn median(times: Vec<f64>) -> Timed {
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    (
        sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN),
        times,
    )
}

/// `runs` (at least one) timings of `f`, each its nanoseconds.
pub fn median_ns(runs: usize, mut f: impl FnMut() -> u128) -> Timed {
    median((0..runs.max(1)).map(|_| f() as f64).collect())
}

/// `runs` (at least one) timings each of a floor and of what is measured
/// against it, in turns (floor, ours, floor, ours, ...), so that whatever
/// the host does during the runs falls on both alike; each closure
/// returns its nanoseconds. Returns (floor, ours).
pub fn in_turns(
    runs: usize,
    mut floor: impl FnMut() -> u128,
    mut ours: impl FnMut() -> u128,
) -> (Timed, Timed) {
    let (mut floors, mut measured) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(1) {
        floors.push(floor() as f64);
        measured.push(ours() as f64);
    }
    (median(floors), median(measured))
}

/// `NENJIM_BENCH_FILES` (default 10 000).
pub fn files() -> usize {
    env_usize("NENJIM_BENCH_FILES", 10_000).max(REVISIONS)
}

/// `NENJIM_BENCH_CHAIN` (default 10 000).
pub fn chain() -> usize {
    env_usize("NENJIM_BENCH_CHAIN", 10_000).max(1)
}

/// `NENJIM_BENCH_RELEASES` (default 3 000).
pub fn releases() -> usize {
    env_usize("NENJIM_BENCH_RELEASES", 3_000).max(1)
}

/// `NENJIM_BENCH_MILLION` (default 1 000 000): the P7 root's files.
pub fn million() -> usize {
    env_usize("NENJIM_BENCH_MILLION", 1_000_000).max(10 * REVISIONS)
}

/// The cargo target directory (`CARGO_TARGET_DIR`, else `<workspace>/target`).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap_or(Path::new("."))
            .join("target"),
    }
}

/// `<target>/nenjim-bench`: cached corpora and the non-criterion results.
pub fn bench_dir() -> PathBuf {
    target_dir().join("nenjim-bench")
}

/// The spec of the large root with `files` files.
pub fn large_root_spec(files: usize) -> CorpusSpec {
    CorpusSpec {
        artifacts: (files / REVISIONS).max(1),
        revisions: REVISIONS,
        releases_per_revision: RELEASES_PER_REVISION,
        seed: SEED,
    }
}

const COMPLETE: &str = ".complete";

/// A generated root for `spec`, cached under [`bench_dir`] (the `.complete`
/// marker is a dot entry, which loading ignores).
pub fn cached_root(spec: &CorpusSpec) -> io::Result<PathBuf> {
    let dir = bench_dir().join("corpora").join(format!(
        "root-a{}-r{}-k{}-s{:x}-g{GENERATOR_VERSION}",
        spec.artifacts, spec.revisions, spec.releases_per_revision, spec.seed
    ));
    if dir.join(COMPLETE).exists() {
        return Ok(dir);
    }
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    let index = corpus::index_dir(&dir);
    if index.exists() {
        fs::remove_dir_all(&index)?;
    }
    let stats: CorpusStats = corpus::write_corpus(spec, &dir)?;
    fs::write(dir.join(COMPLETE), format!("{stats:?}\n"))?;
    Ok(dir)
}

/// A copy of `root` (hard links, beside it, `<root>.ledger`) with a ledger:
/// an `FsJournalWriter` opened and closed on it once. Reused once complete
/// (a `.complete` marker, written after the writer closed); a writer's
/// failure is recorded in `<root>.ledger-failed` and returned again without
/// a new attempt (delete that file to retry).
pub fn ledger_copy(root: &Path) -> io::Result<PathBuf> {
    copy_with_writer(root, "ledger", nenjim_journal_writer::WriterOptions::new())
}

/// The note signer key of the signed bench roots (a fixed seed: a cached
/// root stays valid): (signer key, verifier key).
pub fn signing_key() -> (String, String) {
    use nenjim_journal_tlog::note::{Algorithm, SignerKey};
    match SignerKey::from_seed("bench.example/journal", Algorithm::Ed25519, [42; 32]) {
        Ok(key) => (key.to_key_string(), key.verifier().to_string()),
        Err(e) => (e.to_string(), String::new()),
    }
}

/// A copy of `root` (hard links) given a ledger and signed (format
/// section 10) by a writer holding [`signing_key`]: the tree over every
/// revision, its tiles and checkpoint.
pub fn signed_copy(root: &Path) -> io::Result<PathBuf> {
    let (key, _) = signing_key();
    copy_with_writer(
        root,
        "signed",
        nenjim_journal_writer::WriterOptions::new().signing_key(&key),
    )
}

/// A copy of `root` (hard links) at `root.<extension>`, opened and closed
/// once by a writer with `options`.
fn copy_with_writer(
    root: &Path,
    extension: &str,
    options: nenjim_journal_writer::WriterOptions,
) -> io::Result<PathBuf> {
    let copy = root.with_extension(extension);
    if copy.join(COMPLETE).exists() {
        return Ok(copy);
    }
    // A copy whose writer failed fails the same way again (the corpus is
    // deterministic): the error is kept beside it, not paid for again.
    let failed = copy.with_extension(format!("{extension}-failed"));
    if let Ok(error) = fs::read_to_string(&failed) {
        return Err(io::Error::other(format!(
            "{} (recorded in {})",
            error.trim(),
            failed.display()
        )));
    }
    if copy.exists() {
        fs::remove_dir_all(&copy)?;
    }
    fs::create_dir_all(&copy)?;
    for dir in fs::read_dir(root)? {
        let dir = dir?;
        if dir.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let target = copy.join(dir.file_name());
        fs::create_dir(&target)?;
        for file in fs::read_dir(dir.path())? {
            let file = file?;
            fs::hard_link(file.path(), target.join(file.file_name()))?;
        }
    }
    let opened = nenjim_journal_writer::FsJournalWriter::open(&copy, options)
        .and_then(|writer| writer.close());
    if let Err(e) = opened {
        fs::write(&failed, e.to_string())?;
        fs::remove_dir_all(&copy)?;
        return Err(io::Error::other(e.to_string()));
    }
    // Only a copy whose writer opened and closed cleanly is reused.
    fs::write(copy.join(COMPLETE), "\n")?;
    Ok(copy)
}

/// The P5 root: artifact `short` with one revision and artifact `long` with
/// `revisions` revisions (3 releases in the genesis, policy-only successors).
pub fn chain_root(revisions: usize) -> io::Result<PathBuf> {
    let dir = bench_dir()
        .join("corpora")
        .join(format!("chain-{revisions}-g{GENERATOR_VERSION}"));
    if dir.join(COMPLETE).exists() {
        return Ok(dir);
    }
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    let universe = chain_universe();
    for (index, count) in [(0, revisions), (1, 1)] {
        let mut g = corpus::ArtifactGen::new(&universe, index, SEED);
        let artifact_dir = dir.join(&universe[index]);
        fs::create_dir_all(&artifact_dir)?;
        for r in 0..count {
            let name = format!("{}.journal", g.next_timestamp());
            let text = g.next_revision(if r == 0 { 3 } else { 0 });
            fs::write(artifact_dir.join(name), text)?;
        }
    }
    fs::write(dir.join(COMPLETE), "\n")?;
    Ok(dir)
}

/// The coordinates of the P5 root: `[long, short, dependency targets...]`.
pub fn chain_universe() -> Vec<String> {
    let mut universe = vec![
        "bench.long-chain".to_owned(),
        "bench.short-chain".to_owned(),
    ];
    universe.extend(corpus::coordinates(SEED, 50));
    universe
}

/// Writes a machine-readable result for `cargo xtask bench-report`.
pub fn record(name: &str, value: &serde_json::Value) -> io::Result<()> {
    let dir = bench_dir().join("results");
    fs::create_dir_all(&dir)?;
    let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    fs::write(dir.join(format!("{name}.json")), text + "\n")
}
