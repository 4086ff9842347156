//! The diagnosis of roots laid out wrong.

#![allow(clippy::unwrap_used, clippy::panic)] // a test fails by panicking

use std::path::Path;

use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_store::{BlobStore as _, RealFileSystem};
use nenjim_journal_testkit::texts::{Root, bare_genesis, broken_root, files, restated};

use super::{DiagnoseOptions, Diagnosis, path_text, scan_with};

fn every() -> DiagnoseOptions {
    DiagnoseOptions::new()
}

/// Each error as (kind, path relative to `root`, line, column, message
/// with `root` left out).
fn rows(diagnosis: &Diagnosis, root: &Path) -> Vec<(String, String, usize, usize, String)> {
    let prefix = format!("{}/", path_text(root));
    diagnosis
        .errors
        .iter()
        .map(|e| {
            (
                e.kind().as_str().to_owned(),
                path_text(e.path().unwrap()).replace(&prefix, ""),
                e.line().unwrap_or(0),
                e.column().unwrap_or(0),
                e.message().replace(&prefix, ""),
            )
        })
        .collect()
}

#[test]
fn a_broken_root_gives_the_same_errors_from_a_directory_and_a_store() {
    let dir = broken_root();
    let local = scan_with(&RealFileSystem, dir.path(), &every()).unwrap();
    let expected = rows(&local, dir.path());
    let kinds: Vec<&str> = expected.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "InvalidFileName",
            "UnexpectedEntry",
            "Syntax",
            "Semantic",
            "UnknownPredecessor",
            "InvalidFileName"
        ],
        "{expected:#?}"
    );
    // The same tree in the test kit's in-memory store, under a prefix.
    let bucket = nenjim_journal_testkit::memory::store("diagnose-unit");
    let root = Path::new("/journals/broken");
    for (relative, bytes) in files(dir.path()) {
        bucket.put_if_absent(&root.join(relative), &bytes).unwrap();
    }
    let from_bucket = scan_with(&*bucket, root, &every()).unwrap();
    assert_eq!(rows(&from_bucket, root), expected);
    assert!(!from_bucket.truncated);
    // The limit applies the same way.
    let first_two = scan_with(&*bucket, root, &every().max_errors(2)).unwrap();
    assert_eq!(rows(&first_two, root), expected[..2]);
    assert!(first_two.truncated);
}

/// The one error of `root`'s scan: (kind, path, message), relative.
fn only_error(root: &Path) -> (String, String, String) {
    let diagnosis = scan_with(&RealFileSystem, root, &every()).unwrap();
    let rows = rows(&diagnosis, root);
    assert_eq!(rows.len(), 1, "{rows:#?}");
    let (kind, path, _, _, message) = rows.into_iter().next().unwrap();
    (kind, path, message)
}

/// A successor whose timestamp is earlier than its predecessor's is
/// named before it: it is ingested again after its predecessor, and
/// the chain says what is wrong; the scan names the predecessor's file.
#[test]
fn a_successor_named_before_its_predecessor_is_the_chains_non_increasing_version() {
    let root = Root::new();
    let g = bare_genesis("aaa", "20260101T000000Z");
    let p = restated(&g, "20260301T000000Z", "");
    let s = restated(&p, "20260201T000000Z", "");
    root.put("aaa", "20260101T000000Z", &g);
    root.put("aaa", "20260301T000000Z", &p);
    root.put("aaa", "20260201T000000Z", &s);
    let (kind, path, message) = only_error(root.path());
    assert_eq!(kind, "NonIncreasingVersion", "{message}");
    assert_eq!(path, "aaa/20260201T000000Z.journal");
    assert!(
        message.contains(
            "not after its predecessor's 20260301T000000Z"
        ) && message.contains(
            "PREDECESSOR is the digest of `20260301T000000Z.journal`, a later revision: this file's timestamp must be after 20260301T000000Z"
        ),
        "{message}"
    );
}

/// A PREDECESSOR naming a revision of another artifact is the chain's
/// `CrossArtifactPredecessor`, whichever artifact is walked first, and
/// the scan names that revision's file.
#[test]
fn a_predecessor_of_another_artifact_is_the_chains_cross_artifact_error() {
    for (owner, successor) in [("aaa", "bbb"), ("bbb", "aaa")] {
        let root = Root::new();
        let g = bare_genesis(owner, "20260101T000000Z");
        let cross = format!(
            "FORMAT nenjim-journal/1\nARTIFACT {successor}\nJOURNAL_VERSION 20260201T000000Z\nPREDECESSOR {}\nDESCRIPTION \"{successor}\"\n",
            RevisionDigest::of_text(&g)
        );
        root.put(owner, "20260101T000000Z", &g);
        root.put(successor, "20260201T000000Z", &cross);
        let (kind, path, message) = only_error(root.path());
        assert_eq!(kind, "CrossArtifactPredecessor", "{message}");
        assert_eq!(path, format!("{successor}/20260201T000000Z.journal"));
        assert!(
            message.contains(&format!(
                "the digest of `{owner}/20260101T000000Z.journal`, a revision of another artifact"
            )),
            "{message}"
        );
    }
}
