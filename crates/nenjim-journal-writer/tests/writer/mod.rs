//! The append path, end to end on a real directory: sequences, idempotence,
//! refusals that write nothing, the lease and its fence, the content store,
//! the loader reading the ledger, and a writer killed at any instant.
//!
//! This file holds the helpers the other test files of the crate share
//! (`CONTENT`, `with_store`, `kill_rounds`), sequences, idempotence,
//! refusals, and the tests that run children of this binary (their names,
//! `writer::child_*`, are what the parents ask for); `lease.rs` the lease,
//! takeovers and fences; `loader.rs` what the loader, a hub and the event
//! feed read of what the writer wrote.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod lease;
mod loader;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use nenjim_journal_api::append::JournalWriter;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::model::ReplayRequest;
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, RevisionDigest};
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::{LoadOptions, load};
use nenjim_journal_ref::JournalAssembly;
use nenjim_journal_testkit::texts::{bare_genesis as genesis, files, restated as successor};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
use rstest::rstest;

/// A content pointer the writer tests' releases carry (no blob behind it).
pub(crate) const CONTENT: &str =
    "sha256:1e0a5b9c3d2f4a6b8c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d 48213";

/// A writer of a new root with a content store, after the genesis of
/// `aaa` (returned): the root, the store, the writer, the genesis.
pub(crate) fn with_store() -> (
    tempfile::TempDir,
    tempfile::TempDir,
    FsJournalWriter,
    String,
) {
    let root = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let options = WriterOptions::new().content_store(store.path());
    let mut writer = FsJournalWriter::open(root.path(), options).unwrap();
    let g = genesis("aaa", "20260101T000000Z");
    writer.append(&g).unwrap();
    (root, store, writer, g)
}

fn release(version: &str, content: &str) -> String {
    format!("RELEASE {version}\n  LICENSE MIT\n  CONTENT {content}\n")
}

fn open(root: &Path) -> FsJournalWriter {
    FsJournalWriter::open(root, WriterOptions::new()).unwrap()
}

fn c(s: &str) -> ArtifactCoordinate {
    s.parse().unwrap()
}

/// (coordinate, version) -> sequence of every revision a fresh load gives.
fn sequences(state: &ChainState) -> BTreeMap<(String, String), u64> {
    let mut cursor = state.replay(0);
    let mut out = BTreeMap::new();
    while let Some(r) = cursor.next().unwrap() {
        out.insert(
            (r.coordinate().to_string(), r.journal_version().to_string()),
            r.sequence(),
        );
    }
    out
}

#[test]
fn sequences_are_the_ledgers_across_restarts_and_processes() {
    let root = tempfile::tempdir().unwrap();
    let aaa = genesis("aaa", "20260101T000000Z");
    let bbb = genesis("bbb", "20260101T000000Z");
    let aaa2 = successor(&aaa, "20260102T000000Z", &release("1.0.0", CONTENT));
    let mut writer = open(root.path());
    assert_eq!(writer.append(&aaa).unwrap().sequence(), 1);
    assert_eq!(writer.append(&bbb).unwrap().sequence(), 2);
    let appended = writer.append(&aaa2).unwrap();
    assert_eq!((appended.sequence(), appended.is_new()), (3, true));
    writer.close().unwrap();

    let expected: BTreeMap<(String, String), u64> = [
        (("aaa".into(), "20260101T000000Z".into()), 1),
        (("bbb".into(), "20260101T000000Z".into()), 2),
        (("aaa".into(), "20260102T000000Z".into()), 3),
    ]
    .into();
    for _restart in 0..2 {
        assert_eq!(
            sequences(&load(root.path(), LoadOptions::new()).unwrap()),
            expected
        );
    }
    // A mirror that stored "after 2" sees exactly the new revision.
    let assembly = JournalAssembly::new(root.path());
    assembly.process().start().unwrap();
    let mut feed = assembly.service().replay(&ReplayRequest::after(2)).unwrap();
    let next = feed.next().unwrap().unwrap();
    assert_eq!((next.coordinate().as_str(), next.sequence()), ("aaa", 3));
    assert!(feed.next().unwrap().is_none());
    // And a second process gives the same numbers.
    assert_eq!(child_sequences(root.path()), expected);
}

/// Runs this test binary as a child that loads `root` and prints its sequences.
fn child_sequences(root: &Path) -> BTreeMap<(String, String), u64> {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "writer::child_prints_sequences",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("NENJIM_CHILD_ROOT", root)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        // (The harness may print on the same line before the child's output.)
        .filter_map(|l| l.split_once("SEQ ").map(|(_, rest)| rest))
        .map(|l| {
            let parts: Vec<&str> = l.split(' ').collect();
            (
                (parts[0].to_owned(), parts[1].to_owned()),
                parts[2].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn child_prints_sequences() {
    let Some(root) = std::env::var_os("NENJIM_CHILD_ROOT") else {
        return; // only meaningful as the child of the test above
    };
    for ((coordinate, version), sequence) in
        sequences(&load(Path::new(&root), LoadOptions::new()).unwrap())
    {
        println!("SEQ {coordinate} {version} {sequence}");
    }
}

#[test]
fn opening_a_root_without_a_ledger_keeps_the_numbers_a_start_gives() {
    let root = tempfile::tempdir().unwrap();
    let texts = [
        ("zzz", genesis("zzz", "20260101T000000Z")),
        ("aaa", genesis("aaa", "20260105T000000Z")),
    ];
    for (artifact, text) in &texts {
        std::fs::create_dir(root.path().join(artifact)).unwrap();
        let at = text
            .lines()
            .nth(2)
            .unwrap()
            .trim_start_matches("JOURNAL_VERSION ");
        std::fs::write(
            root.path().join(artifact).join(format!("{at}.journal")),
            text,
        )
        .unwrap();
    }
    let before = sequences(&load(root.path(), LoadOptions::new()).unwrap());
    let mut writer = open(root.path());
    assert_eq!(sequences(writer.state()), before);
    // A historical import (an older Journal version, a new artifact) goes at the end.
    let old = genesis("mmm", "19990101T000000Z");
    assert_eq!(writer.append(&old).unwrap().sequence(), 3);
    drop(writer);
    let after = sequences(&load(root.path(), LoadOptions::new()).unwrap());
    assert_eq!(
        after.get(&("aaa".into(), "20260105T000000Z".into())),
        Some(&1)
    );
    assert_eq!(
        after.get(&("zzz".into(), "20260101T000000Z".into())),
        Some(&2)
    );
    assert_eq!(
        after.get(&("mmm".into(), "19990101T000000Z".into())),
        Some(&3)
    );
    assert!(
        root.path()
            .join(".ledger/segments/00000000000000000002.segment")
            .is_file()
    );
}

#[test]
fn an_idempotent_repeat_keeps_its_sequence_and_writes_nothing() {
    let root = tempfile::tempdir().unwrap();
    let text = genesis("aaa", "20260101T000000Z");
    let mut writer = open(root.path());
    writer.append(&text).unwrap();
    writer.append(&genesis("bbb", "20260101T000000Z")).unwrap();
    let before = files(root.path());
    let again = writer.append(&text).unwrap();
    assert_eq!((again.sequence(), again.is_new()), (1, false));
    assert_eq!(files(root.path()), before);
}

/// What each refused append is, built on a root holding `aaa` (a genesis,
/// then a successor with release 1.0.0).
#[rstest]
#[case::empty("", ErrorKind::EmptyInput)]
#[case::syntax("FORMAT nenjim-journal/1\nARTIFACT aaa\n", ErrorKind::Syntax)]
#[case::conflict(
    &genesis("aaa", "20260101T000000Z").replace("\"aaa\"", "\"other\""),
    ErrorKind::Conflict
)]
#[case::duplicate_genesis(&genesis("aaa", "20260301T000000Z"), ErrorKind::DuplicateGenesis)]
#[case::stale(
    &successor(&genesis("aaa", "20260101T000000Z"), "20260301T000000Z", ""),
    ErrorKind::StalePredecessor
)]
#[case::rewritten(
    &successor(&head(), "20260301T000000Z", "").replace("LICENSE MIT", "LICENSE Apache-2.0"),
    ErrorKind::ReleaseRewritten
)]
#[case::not_increasing(&successor(&head(), "20260101T120000Z", ""), ErrorKind::NonIncreasingVersion)]
fn a_refusal_writes_nothing(#[case] text: &str, #[case] kind: ErrorKind) {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    writer.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    writer.append(&head()).unwrap();
    let before = files(root.path());
    let loaded = sequences(&load(root.path(), LoadOptions::new()).unwrap());
    assert_eq!(writer.append(text).unwrap_err().kind(), kind);
    assert_eq!(files(root.path()), before);
    assert_eq!(
        sequences(&load(root.path(), LoadOptions::new()).unwrap()),
        loaded
    );
    // The writer goes on.
    assert_eq!(
        writer
            .append(&genesis("bbb", "20260101T000000Z"))
            .unwrap()
            .sequence(),
        3
    );
}

/// The second revision of `aaa`: release 1.0.0.
fn head() -> String {
    successor(
        &genesis("aaa", "20260101T000000Z"),
        "20260201T000000Z",
        &release("1.0.0", CONTENT),
    )
}

/// Rounds `0..rounds` of the child test `child` on `root`: each kills the
/// child (SIGKILL) after `wanted(round)` reports, loads the root, checks
/// that it holds every revision reported so far at its reported sequence,
/// then runs `check` on the round and the loaded state. Returns the reports.
pub(crate) fn kill_rounds(
    child: &str,
    root: &Path,
    rounds: u64,
    wanted: impl Fn(u64) -> u64,
    mut check: impl FnMut(u64, &ChainState),
) -> BTreeMap<String, u64> {
    let mut reported: BTreeMap<String, u64> = BTreeMap::new();
    for round in 0..rounds {
        let _ = nenjim_journal_testkit::killed::kill_after_reports(
            child,
            &[
                ("NENJIM_CHILD_ROOT", root.as_os_str()),
                ("NENJIM_CHILD_ROUND", round.to_string().as_ref()),
            ],
            wanted(round),
            &mut reported,
        );
        let state = load(root, LoadOptions::new()).unwrap();
        for (name, sequence) in &reported {
            let revision = state
                .latest(&c(name))
                .unwrap_or_else(|| panic!("round {round}: {name} was lost"));
            assert_eq!(revision.sequence(), *sequence, "{name}");
        }
        check(round, &state);
    }
    reported
}

/// A writer in a child process appends revisions and reports each sequence
/// it got; it is killed (SIGKILL) after a varying number of reports, at any
/// point of its next append. The root must load after every kill, holding
/// every reported append with its reported sequence.
#[test]
fn a_killed_writer_loses_nothing_it_reported() {
    let root = tempfile::tempdir().unwrap();
    let reported = kill_rounds(
        "writer::child_appends_until_killed",
        root.path(),
        12,
        |round| 1 + (round * 7) % 5,
        |_, _| {},
    );
    assert!(reported.len() >= 12);
}

#[test]
fn child_appends_until_killed() {
    let (Some(root), Some(round)) = (
        std::env::var_os("NENJIM_CHILD_ROOT"),
        std::env::var_os("NENJIM_CHILD_ROUND"),
    ) else {
        return; // only meaningful as the child of the test above
    };
    let round = round.to_string_lossy().into_owned();
    // A killed writer leaves an unreleased lease, taken over at once: its
    // holder is a process of this host that is gone (killed and reaped).
    // A long lease: a short one expired under a loaded machine's slow
    // append and made the child stop early (LeaseLost).
    let mut writer = loop {
        match FsJournalWriter::open(
            Path::new(&root),
            WriterOptions::new().lease_ttl(Duration::from_secs(60)),
        ) {
            Ok(writer) => break writer,
            Err(e) if e.kind() == ErrorKind::LeaseHeld => {
                std::thread::sleep(Duration::from_millis(50))
            }
            Err(e) => panic!("{e}"),
        }
    };
    for i in 0..10_000 {
        let name = format!("r{round}-{i}");
        let appended = writer.append(&genesis(&name, "20260101T000000Z")).unwrap();
        println!("APPENDED {name} {}", appended.sequence());
    }
}
