//! `cargo xtask import-figure [DIR] [--limit N]`: the import figure of
//! issue 24. Converts the crates.io index entries cargo caches on this
//! machine (`DIR`, default `~/.cargo/registry/index/*/.cache`) into a root
//! of revision files (`import-crates-index`), then appends that root into
//! an empty ledger root through the command (`nenjim-journal append <dest>
//! <source-root>`, the copy of a whole root), once with `--batch 1000`
//! (group commit) and once with `--batch 1` (one by one), and prints the
//! seconds per 1 000 revisions of each. With `--limit N`, the one-by-one
//! run copies a source root of the first N revisions (by sequence) only.
//! Everything lives under `<target>/nenjim-bench/import/`, removed first.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

pub const USAGE: &str = "usage: cargo xtask import-figure [DIR] [--limit N]";

pub fn run(
    target: &Path,
    args: &[String],
    cargo: impl Fn(&[&str]) -> Result<(), String>,
) -> Result<(), String> {
    let mut dir: Option<PathBuf> = None;
    let mut limit: Option<usize> = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--limit" => {
                let n = it
                    .next()
                    .ok_or_else(|| format!("--limit needs a value\n{USAGE}"))?;
                limit = Some(
                    n.parse()
                        .map_err(|_| format!("--limit {n}: expected a count\n{USAGE}"))?,
                );
            }
            flag if flag.starts_with("--") => {
                return Err(format!("unknown option `{flag}`\n{USAGE}"));
            }
            path if dir.is_none() => dir = Some(PathBuf::from(path)),
            extra => return Err(format!("unexpected argument `{extra}`\n{USAGE}")),
        }
    }
    let dir = match dir {
        Some(dir) => dir,
        None => cargo_cache()?,
    };
    let work = target.join("nenjim-bench").join("import");
    let _ = fs::remove_dir_all(&work);
    fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let source = work.join("source");
    let (_, artifacts, files) = crate::import::import(&dir, &source)?;
    eprintln!(
        "xtask: {} converted: {artifacts} crates, {files} revision files",
        dir.display()
    );
    cargo(&["build", "--release", "-p", "nenjim-journal-cli"])?;
    let bin = target.join("release").join("nenjim-journal");
    let batched = append(&bin, &work.join("batched"), &source, 1000)?;
    let single_source = match limit.filter(|n| *n < files) {
        Some(n) => first_revisions(&source, &work.join("source-first"), n)?,
        None => source.clone(),
    };
    let single = append(&bin, &work.join("single"), &single_source, 1)?;
    let per_1000 = |(secs, n): (f64, usize)| secs / n.max(1) as f64 * 1000.0;
    let text = format!(
        "{{\n  \"crates\": {artifacts},\n  \"batched\": {{ \"revisions\": {}, \"seconds\": {:.3}, \"seconds_per_1000\": {:.3} }},\n  \"one_by_one\": {{ \"revisions\": {}, \"seconds\": {:.3}, \"seconds_per_1000\": {:.3} }}\n}}\n",
        batched.1,
        batched.0,
        per_1000(batched),
        single.1,
        single.0,
        per_1000(single)
    );
    print!("{text}");
    let out = target.join("nenjim-bench").join("results");
    fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    fs::write(out.join("import_figure.json"), text).map_err(|e| e.to_string())?;
    // The roots are large: only the figure is kept.
    let _ = fs::remove_dir_all(&work);
    Ok(())
}

/// The first cache directory of cargo's crates.io index.
fn cargo_cache() -> Result<PathBuf, String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .ok_or("neither CARGO_HOME nor HOME is set")?;
    let index = home.join("registry").join("index");
    let mut found: Vec<PathBuf> = fs::read_dir(&index)
        .map_err(|e| format!("{}: {e}", index.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path().join(".cache"))
        .filter(|p| p.is_dir())
        .collect();
    found.sort();
    found
        .into_iter()
        .next()
        .ok_or_else(|| format!("no index cache under {}", index.display()))
}

/// Appends the root `source` into the new empty root `dest` through the
/// command, `batch` revisions a barrier; returns the seconds it took and
/// how many revisions the destination then holds.
fn append(bin: &Path, dest: &Path, source: &Path, batch: usize) -> Result<(f64, usize), String> {
    fs::create_dir_all(dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    let start = Instant::now();
    let status = Command::new(bin)
        .arg("append")
        .arg(dest)
        .arg(source)
        .args(["--batch", &batch.to_string()])
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    let secs = start.elapsed().as_secs_f64();
    if !status.success() {
        return Err(format!("append --batch {batch} failed ({status})"));
    }
    let state = nenjim_journal_fs::load(dest, nenjim_journal_fs::LoadOptions::new())
        .map_err(|e| format!("the appended root does not load: {e}"))?;
    let n = usize::try_from(state.len()).unwrap_or(usize::MAX);
    eprintln!(
        "xtask: --batch {batch}: {n} revisions in {secs:.3} s ({:.3} s per 1 000)",
        secs / n.max(1) as f64 * 1000.0
    );
    Ok((secs, n))
}

/// A root at `out` holding the first `n` revisions of `source` by
/// sequence (hard links to its files).
fn first_revisions(source: &Path, out: &Path, n: usize) -> Result<PathBuf, String> {
    let state = nenjim_journal_fs::load(source, nenjim_journal_fs::LoadOptions::new())
        .map_err(|e| format!("the imported root does not load: {e}"))?;
    let mut cursor = state.replay(0);
    let mut taken = 0;
    while taken < n {
        let Some(revision) = cursor.next().map_err(|e| e.to_string())? else {
            break;
        };
        let relative = Path::new(revision.coordinate().as_str())
            .join(format!("{}.journal", revision.journal_version()));
        let dir = out.join(revision.coordinate().as_str());
        fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        fs::hard_link(source.join(&relative), out.join(&relative))
            .map_err(|e| format!("{}: {e}", relative.display()))?;
        taken += 1;
    }
    Ok(out.to_path_buf())
}
