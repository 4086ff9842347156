//! The version-controlled examples under `data/nenjim/journals` parse, and
//! every artifact's files form a valid chain (section 6): directory name =
//! `ARTIFACT`, file stem = `JOURNAL_VERSION`, the first revision is the
//! genesis, each successor names the SHA-256 of its predecessor file's exact
//! bytes, versions strictly increase, and no release is ever rewritten.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use nenjim_journal_api::model::build;
use std::path::{Path, PathBuf};

use nenjim_journal_api::valuetypes::RevisionDigest;

const SUFFIX: &str = ".journal.example";

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/nenjim/journals")
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap_or_else(|e| panic!("{e}")).path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.starts_with('.'))
        })
        .collect();
    entries.sort();
    entries
}

#[test]
fn every_example_chain_is_valid() {
    let artifacts = sorted_entries(&data_dir());
    assert!(
        artifacts.len() >= 2,
        "expected at least two example artifacts"
    );
    let mut longest_chain = 0;
    for artifact_dir in artifacts {
        let directory = artifact_dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let files: Vec<PathBuf> = sorted_entries(&artifact_dir)
            .into_iter()
            .filter(|p| p.to_str().is_some_and(|s| s.ends_with(SUFFIX)))
            .collect();
        assert!(!files.is_empty(), "{directory} has no examples");
        let mut previous: Option<(String, nenjim_journal_api::model::JournalRevision)> = None;
        for file in &files {
            let name = file
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let stem = name.strip_suffix(SUFFIX).unwrap_or_default();
            let text = std::fs::read_to_string(file)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
            let revision = nenjim_journal_parser::parse(&text)
                .unwrap_or_else(|e| panic!("{}:{e}", file.display()));
            assert_eq!(
                revision.coordinate().as_str(),
                directory,
                "{name}: ARTIFACT"
            );
            assert_eq!(
                revision.journal_version().to_string(),
                stem,
                "{name}: JOURNAL_VERSION"
            );
            assert_eq!(revision.digest(), &RevisionDigest::of_text(&text));
            match &previous {
                None => assert!(
                    revision.is_genesis(),
                    "{name}: the first revision is the genesis"
                ),
                Some((previous_text, previous_revision)) => {
                    assert_eq!(
                        revision.predecessor(),
                        Some(&RevisionDigest::of_bytes(previous_text.as_bytes())),
                        "{name}: PREDECESSOR is the digest of the previous file"
                    );
                    assert!(
                        revision.journal_version() > previous_revision.journal_version(),
                        "{name}: versions strictly increase"
                    );
                    for old in previous_revision.releases() {
                        let new = revision.release(old.version()).unwrap_or_else(|| {
                            panic!("{name}: release {} was deleted", old.version())
                        });
                        assert!(
                            build::same_values(new, old),
                            "{name}: release {} was rewritten",
                            old.version()
                        );
                    }
                }
            }
            // The canonical text says the same thing.
            let canonical = nenjim_journal_parser::render(&revision);
            let again = nenjim_journal_parser::parse(&canonical)
                .unwrap_or_else(|e| panic!("canonical {name}: {e}\n{canonical}"));
            assert!(again.same_worldview(&revision));
            previous = Some((text, revision));
        }
        longest_chain = longest_chain.max(files.len());
    }
    assert!(
        longest_chain >= 3,
        "expected a chain of at least three revisions"
    );
}
