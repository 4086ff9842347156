//! `refresh`: unchanged files counted without parsing, new ones published
//! one at a time, conflicts refused, history never erased.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::model::RefreshReport;
use nenjim_journal_api::model::build;
use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::{LoadOptions, load, refresh};
use nenjim_journal_testkit::texts::{Root, genesis, successor, ts};

fn serde() -> ArtifactCoordinate {
    "serde".parse().unwrap()
}

fn refreshed(
    root: &Root,
    state: &ChainState,
) -> (
    Result<RefreshReport, nenjim_journal_api::error::JournalError>,
    Vec<ChainState>,
) {
    let mut published = Vec::new();
    let result = refresh(root.path(), LoadOptions::new(), state, &mut |s| {
        published.push(s)
    });
    (result, published)
}

#[test]
fn unchanged_files_are_counted() {
    let root = Root::new();
    let a = genesis("serde", &ts(1), &["1.0.0"]);
    root.put("serde", &ts(1), &a);
    root.put("serde", &ts(2), &successor(&a, "serde", &ts(2), &["1.0.0"]));
    let state = load(root.path(), LoadOptions::new()).unwrap();
    let (report, published) = refreshed(&root, &state);
    assert_eq!(report.unwrap(), build::refresh_report(0, 2, 0));
    assert!(published.is_empty());
}

#[test]
fn a_stored_text_is_recognised_by_its_digest() {
    // The state got the revision by other means than the loader: the file
    // with the same bytes is still an unchanged re-read.
    let root = Root::new();
    let a = genesis("serde", &ts(1), &["1.0.0"]);
    let revision = nenjim_journal_parser::parse(&a).unwrap();
    let state = ChainState::new()
        .ingest_revision(revision)
        .unwrap()
        .into_state();
    root.put("serde", &ts(1), &a);
    let (report, _) = refreshed(&root, &state);
    assert_eq!(report.unwrap(), build::refresh_report(0, 1, 0));
}

#[test]
fn new_revisions_are_published_one_by_one_in_order() {
    let root = Root::new();
    let a = genesis("serde", &ts(1), &["1.0.0"]);
    root.put("serde", &ts(1), &a);
    let state = load(root.path(), LoadOptions::new()).unwrap();
    let b = successor(&a, "serde", &ts(2), &["1.0.0", "1.1.0"]);
    let c = successor(&b, "serde", &ts(3), &["1.0.0", "1.1.0"]);
    root.put("serde", &ts(2), &b);
    root.put("serde", &ts(3), &c);
    root.put("left-pad", &ts(9), &genesis("left-pad", &ts(9), &[]));
    let (report, published) = refreshed(&root, &state);
    assert_eq!(report.unwrap(), build::refresh_report(3, 1, 0));
    let lens: Vec<u64> = published.iter().map(ChainState::len).collect();
    assert_eq!(lens, vec![2, 3, 4]);
    assert!(published[0].coordinates().contains("left-pad"));
    assert_eq!(
        published[2]
            .latest(&serde())
            .unwrap()
            .journal_version()
            .to_string(),
        ts(3)
    );
    assert_eq!(state.len(), 1, "the given state is never changed");
}

#[test]
fn a_changed_file_is_a_conflict() {
    let root = Root::new();
    let a = genesis("serde", &ts(1), &["1.0.0"]);
    let path = root.put("serde", &ts(1), &a);
    let state = load(root.path(), LoadOptions::new()).unwrap();
    std::fs::write(&path, a.replace("1.0.0", "1.0.1")).unwrap();
    let (report, published) = refreshed(&root, &state);
    let error = report.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conflict);
    assert_eq!(error.path(), Some(path.as_path()));
    assert!(published.is_empty());
}

#[test]
fn the_first_failure_stops_and_earlier_publications_stay() {
    let root = Root::new();
    let a = genesis("serde", &ts(1), &["1.0.0"]);
    root.put("serde", &ts(1), &a);
    let state = load(root.path(), LoadOptions::new()).unwrap();
    root.put("aaa", &ts(1), &genesis("aaa", &ts(1), &[]));
    let broken = root.put("bbb", &ts(1), "FORMAT nenjim-journal/1\n");
    root.put("ccc", &ts(1), &genesis("ccc", &ts(1), &[]));
    let (report, published) = refreshed(&root, &state);
    let error = report.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Syntax);
    assert_eq!(error.path(), Some(broken.as_path()));
    assert_eq!(published.len(), 1);
    assert!(published[0].coordinates().contains("aaa"));
    assert!(!published[0].coordinates().contains("ccc"));
}

#[test]
fn deleted_files_never_erase_history() {
    let root = Root::new();
    let a = genesis("serde", &ts(1), &["1.0.0"]);
    let path = root.put("serde", &ts(1), &a);
    let state = load(root.path(), LoadOptions::new()).unwrap();
    std::fs::remove_file(path).unwrap();
    let (report, published) = refreshed(&root, &state);
    assert_eq!(report.unwrap(), build::refresh_report(0, 0, 0));
    assert!(published.is_empty());
    assert_eq!(state.revisions(&serde()).len(), 1);
}

#[test]
fn a_new_genesis_for_a_known_artifact_is_refused() {
    let root = Root::new();
    let a = genesis("serde", &ts(1), &["1.0.0"]);
    root.put("serde", &ts(1), &a);
    let state = load(root.path(), LoadOptions::new()).unwrap();
    let path = root.put("serde", &ts(2), &genesis("serde", &ts(2), &[]));
    let (report, _) = refreshed(&root, &state);
    let error = report.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::DuplicateGenesis);
    assert_eq!(error.path(), Some(path.as_path()));
}
