//! A small synthetic corpus loads clean through the real loader, and its
//! latest revisions agree with the JSON index written beside it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::path::Path;

use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use nenjim_journal_benches::corpus::{self, CorpusSpec, IndexEntry};
use nenjim_journal_fs::{LoadOptions, load};

#[test]
fn small_corpus_loads_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let spec = CorpusSpec {
        artifacts: 40,
        revisions: 4,
        releases_per_revision: 3,
        seed: 11,
    };
    let stats = corpus::write_corpus(&spec, &root).unwrap();
    assert_eq!(stats.files, 160);
    let state = match load(&root, LoadOptions::new()) {
        Ok(state) => state,
        Err(e) => panic!("the synthetic corpus does not load: {e}"),
    };
    assert_eq!(state.len(), 160);
    for coordinate in state.coordinates() {
        let latest = state.latest(&coordinate).unwrap();
        assert_eq!(latest.releases().len(), 12);
        let lines =
            std::fs::read_to_string(corpus::index_dir(&root).join(coordinate.as_str())).unwrap();
        let entries: Vec<IndexEntry> = lines
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(entries.len(), 12);
        for (entry, release) in entries.iter().zip(latest.releases()) {
            assert_eq!(entry.vers, release.version().to_string());
            assert_eq!(entry.yanked, release.policy().yanked().is_some());
            assert_eq!(entry.license.as_deref(), Some(release.license().as_str()));
        }
    }
    let _: ArtifactCoordinate = "bench.check".parse().unwrap();
    assert!(Path::new(&root).is_dir());
}

#[test]
fn chains_with_policy_only_successors_load_clean() {
    let universe = corpus::coordinates(3, 20);
    let texts = corpus::chain_texts(0, &universe, 200, 3, 0, 3);
    let state = nenjim_journal_chain::ChainState::new();
    let state = state
        .ingest_all(texts.iter().map(|t| match nenjim_journal_parser::parse(t) {
            Ok(r) => r,
            Err(e) => panic!("{e}\n{t}"),
        }))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state.len(), 200);
}
