//! The seed scenarios of the reference Journal, one test each (named after
//! the scenario), plus the lifecycle and concurrency cases of the issue.
//!
//! This file holds the helpers (`started` and `three_revisions` are also
//! `events.rs`'s); each sibling is one section of the scenarios:
//! `boundaries`, `queries`, `ingestion`, `layout`, `refresh`, `lifecycle`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod boundaries;
mod ingestion;
mod layout;
mod lifecycle;
mod queries;
mod refresh;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use nenjim_journal_api::JournalService;
use nenjim_journal_api::component::NenjimProcess;
use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::build;
use nenjim_journal_api::model::{JournalRevision, RefreshReport, ReplayRequest};
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, JournalVersion, ReleaseVersion, RevisionDigest,
};
use nenjim_journal_ref::{COMPONENT_NAME, JournalAssembly, LoadOptions};
use nenjim_journal_testkit::texts::{Root, genesis, revision, successor, ts};

fn coordinate(text: &str) -> ArtifactCoordinate {
    text.parse().unwrap()
}

fn version(text: &str) -> JournalVersion {
    text.parse().unwrap()
}

fn release(text: &str) -> ReleaseVersion {
    text.parse().unwrap()
}

/// An assembly over `root`, started successfully.
pub(crate) fn started(root: &Root) -> JournalAssembly {
    let assembly = JournalAssembly::new(root.path());
    assembly.process().start().unwrap();
    assembly
}

/// Every revision of the Journal as (artifact, version, digest, sequence), by replay.
fn dump(service: &dyn JournalService) -> Vec<(String, String, RevisionDigest, u64)> {
    let mut cursor = service.replay(&ReplayRequest::after(0)).unwrap();
    let mut out = Vec::new();
    while let Some(r) = cursor.next().unwrap() {
        out.push((
            r.coordinate().to_string(),
            r.journal_version().to_string(),
            *r.digest(),
            r.sequence(),
        ));
    }
    out
}

fn kind<T: std::fmt::Debug>(result: Result<T, JournalError>) -> ErrorKind {
    result.unwrap_err().kind()
}

/// Every query of the service fails with `expected`.
fn assert_all_queries_fail(service: &dyn JournalService, expected: ErrorKind) {
    let a = coordinate("serde");
    assert_eq!(kind(service.coordinates()), expected);
    assert_eq!(kind(service.revisions(&a)), expected);
    assert_eq!(kind(service.latest(&a)), expected);
    assert_eq!(kind(service.revision(&a, version(&ts(1)))), expected);
    assert_eq!(kind(service.revision_as_of(&a, version(&ts(1)))), expected);
    assert_eq!(
        kind(service.release(&a, version(&ts(1)), &release("1.0.0"))),
        expected
    );
    assert_eq!(
        service
            .replay(&ReplayRequest::after(0))
            .map(|_| ())
            .unwrap_err()
            .kind(),
        expected
    );
    assert_eq!(
        service
            .replay_events(&ReplayRequest::after(0))
            .map(|_| ())
            .unwrap_err()
            .kind(),
        expected
    );
}

/// A chain g -> s1 -> s2 of `serde` at ts(10), ts(20), ts(30), plus a
/// `left-pad` genesis: s1 recommends 1.1.0, s2 adds 2.0.0, yanks 1.0.0,
/// withdraws RECOMMEND 1.1.0 and recommends 2.0.0 (also the event feed's
/// fixture).
pub(crate) fn three_revisions(root: &Root) -> Vec<String> {
    let g = genesis("serde", &ts(10), &["1.0.0"]);
    let s1 = revision(
        "serde",
        &ts(20),
        Some(&g),
        &["1.0.0", "1.1.0"],
        &["RECOMMEND 1.1.0"],
    );
    let s2 = revision(
        "serde",
        &ts(30),
        Some(&s1),
        &["1.0.0", "1.1.0", "2.0.0"],
        &["YANK 1.0.0 \"broken\"", "RECOMMEND 2.0.0"],
    );
    root.put("serde", &ts(10), &g);
    root.put("serde", &ts(20), &s1);
    root.put("serde", &ts(30), &s2);
    root.put("left-pad", &ts(5), &genesis("left-pad", &ts(5), &["0.1.0"]));
    vec![g, s1, s2]
}

fn assert_chain_intact(revisions: &[JournalRevision]) {
    for (i, r) in revisions.iter().enumerate() {
        if i == 0 {
            assert!(r.is_genesis(), "{r:?}");
        } else {
            assert_eq!(r.predecessor(), Some(revisions[i - 1].digest()));
            assert!(r.journal_version() > revisions[i - 1].journal_version());
        }
    }
}

fn examples_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/nenjim/journals")
}
