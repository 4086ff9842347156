//! The floor of every load: list the root, read every journal file and
//! SHA-256 its bytes, on `threads` threads (both cores by default).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::model::build::{self, ReleaseBuilder, RevisionBuilder};
use sha2::{Digest, Sha256};

/// Every `<root>/<dir>/<name>.journal` file, sorted (dot entries skipped).
pub fn journal_files(root: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for dir in fs::read_dir(root)? {
        let dir = dir?;
        if dir.file_name().to_string_lossy().starts_with('.') || !dir.file_type()?.is_dir() {
            continue;
        }
        for file in fs::read_dir(dir.path())? {
            let file = file?;
            let name = file.file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".journal") && !name.starts_with('.') {
                files.push(file.path());
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Total size in bytes of `files`.
pub fn total_bytes(files: &[PathBuf]) -> io::Result<u64> {
    files.iter().map(|f| fs::metadata(f).map(|m| m.len())).sum()
}

/// The floor: list `root`, then read and SHA-256 every journal file on
/// `threads` threads. Returns the XOR of the first digest bytes (so that the
/// work cannot be optimised away) and the bytes read.
pub fn read_and_hash(root: &Path, threads: usize) -> io::Result<(u8, u64)> {
    let files = journal_files(root)?;
    let threads = threads.max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let files = &files;
                scope.spawn(move || -> io::Result<(u8, u64)> {
                    let mut acc = 0u8;
                    let mut bytes = 0u64;
                    for f in files.iter().skip(t).step_by(threads) {
                        let data = fs::read(f)?;
                        bytes += data.len() as u64;
                        acc ^= Sha256::digest(&data)[0];
                    }
                    Ok((acc, bytes))
                })
            })
            .collect();
        let mut acc = 0u8;
        let mut bytes = 0u64;
        for h in handles {
            let (a, b) = h
                .join()
                .map_err(|_| io::Error::other("a floor thread panicked"))??;
            acc ^= a;
            bytes += b;
        }
        Ok((acc, bytes))
    })
}

/// The number of threads the floor uses: the available parallelism.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The least any parser that returns this crate's model does after reading
/// a text: build `revision` again from its values, already validated and
/// interned, through the api's builders (every release body and list
/// allocated, every shared value's count incremented, every semantic rule
/// of sections 4 and 5 checked), reading no text and hashing nothing. P1
/// reports it against SHA-256 (the `build_model` row): what the model costs
/// whatever the tokenizer.
pub fn rebuild(revision: &JournalRevision) -> Result<JournalRevision, JournalError> {
    let mut builder = RevisionBuilder::new(
        revision.coordinate().clone(),
        revision.journal_version(),
        revision.predecessor().copied(),
        revision.description().clone(),
    );
    if let Some(uri) = revision.information() {
        builder.information(uri.clone());
    }
    for release in revision.releases() {
        let mut b = ReleaseBuilder::new(
            release.coordinate().clone(),
            release.version().clone(),
            release.license().clone(),
            *release.content(),
        );
        if let Some(description) = release.description() {
            b.description(description.clone());
        }
        for d in release.dependencies() {
            b.push_dependency(build::dependency(
                d.artifact().clone(),
                d.requirement().clone(),
                d.description().cloned(),
            ))?;
        }
        for x in release.exclusions() {
            b.push_exclusion(build::exclusion(
                x.artifact().clone(),
                x.requirement().cloned(),
                x.description().cloned(),
            ))?;
        }
        for p in release.preferences() {
            b.push_preference(build::preference(
                p.artifact().clone(),
                p.requirement().clone(),
                p.description().cloned(),
            ))?;
        }
        builder.push_release(b.build())?;
    }
    for statement in revision.policy() {
        builder.push_policy(statement.clone())?;
    }
    Ok(builder.build(*revision.digest()))
}
