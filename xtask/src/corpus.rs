//! `cargo xtask corpus`: a deterministic synthetic Journal root, and the
//! same worldviews as crates.io-index-style JSON lines beside it.

use std::path::PathBuf;

use nenjim_journal_benches::corpus::{self, CorpusSpec};

pub const USAGE: &str = "usage: cargo xtask corpus --artifacts N --revisions R \
--releases-per-revision K --out DIR [--seed S] [--check]";

pub fn run(args: &[String]) -> Result<(), String> {
    let mut spec = CorpusSpec {
        artifacts: 100,
        revisions: 5,
        releases_per_revision: 2,
        seed: 1,
    };
    let mut out: Option<PathBuf> = None;
    let mut check = false;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        let number = |v: String| {
            v.replace('_', "")
                .parse::<u64>()
                .map_err(|e| format!("{flag} {v}: {e}\n{USAGE}"))
        };
        match flag.as_str() {
            "--artifacts" => spec.artifacts = number(value()?)? as usize,
            "--revisions" => spec.revisions = number(value()?)? as usize,
            "--releases-per-revision" => spec.releases_per_revision = number(value()?)? as usize,
            "--seed" => spec.seed = number(value()?)?,
            "--out" => out = Some(PathBuf::from(value()?)),
            "--check" => check = true,
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    let out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
    let stats = corpus::write_corpus(&spec, &out).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!(
        "xtask: wrote {} journal files ({} bytes) under {} and {} JSON lines ({} bytes) under {}",
        stats.files,
        stats.journal_bytes,
        out.display(),
        stats.releases,
        stats.index_bytes,
        corpus::index_dir(&out).display()
    );
    if check {
        let state = nenjim_journal_fs::load(&out, nenjim_journal_fs::LoadOptions::new())
            .map_err(|e| format!("the corpus does not load: {e}"))?;
        eprintln!("xtask: loaded clean: {} revisions", state.len());
    }
    Ok(())
}
