//! The append path, end to end on a real directory: sequences, idempotence,
//! refusals that write nothing, the lease and its fence, the content store,
//! the loader reading the ledger, and a writer killed at any instant.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

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

#[test]
fn blobs_are_required_before_their_pointers() {
    let (root, store, mut writer, g) = with_store();

    let pointer = writer.put_blob(b"the artifact's bytes").unwrap();
    let blob = store
        .path()
        .join("blobs/sha256")
        .join(pointer.digest().to_hex());
    assert_eq!(std::fs::read(&blob).unwrap(), b"the artifact's bytes");
    assert_eq!(
        writer.put_blob(b"the artifact's bytes").unwrap(),
        pointer,
        "idempotent"
    );

    let missing = successor(&g, "20260102T000000Z", &release("1.0.0", CONTENT));
    let before = files(root.path());
    let error = writer.append(&missing).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BlobMissing, "{error}");
    assert_eq!(files(root.path()), before);

    let wrong_size = format!("{} {}", pointer.digest(), pointer.size() + 1);
    let error = writer
        .append(&successor(
            &g,
            "20260102T000000Z",
            &release("1.0.0", &wrong_size),
        ))
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BlobMismatch, "{error}");

    let good = successor(
        &g,
        "20260102T000000Z",
        &release("1.0.0", &format!("{} {}", pointer.digest(), pointer.size())),
    );
    assert_eq!(writer.append(&good).unwrap().sequence(), 2);
    // A release the predecessor already had is not checked again.
    std::fs::remove_file(&blob).unwrap();
    let policy = successor(&good, "20260103T000000Z", "RECOMMEND 1.0.0\n");
    assert_eq!(writer.append(&policy).unwrap().sequence(), 3);
}

#[test]
fn a_live_lease_is_held_and_a_released_one_is_taken_without_a_fence() {
    let root = tempfile::tempdir().unwrap();
    let mut first = open(root.path());
    first.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    let error = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LeaseHeld, "{error}");
    first.close().unwrap();
    let mut second = open(root.path());
    assert_eq!(
        second
            .append(&genesis("bbb", "20260101T000000Z"))
            .unwrap()
            .sequence(),
        2
    );
}

#[test]
fn an_expired_lease_is_taken_over_and_fences_the_old_holder() {
    let root = tempfile::tempdir().unwrap();
    let mut old = FsJournalWriter::open(
        root.path(),
        WriterOptions::new().lease_ttl(Duration::from_millis(100)),
    )
    .unwrap();
    old.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    std::thread::sleep(Duration::from_millis(150));
    // The old holder's lease has expired: it is refused from now on.
    let error = old.append(&genesis("ccc", "20260101T000000Z")).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LeaseLost, "{error}");
    let mut new = open(root.path());
    assert_eq!(
        new.append(&genesis("bbb", "20260101T000000Z"))
            .unwrap()
            .sequence(),
        3,
        "2 is the fence"
    );
    assert_eq!(
        old.append(&genesis("ddd", "20260101T000000Z"))
            .unwrap_err()
            .kind(),
        ErrorKind::LeaseLost
    );
}

#[test]
fn a_holder_whose_clock_says_live_is_stopped_by_the_fence() {
    let root = tempfile::tempdir().unwrap();
    let mut old = open(root.path());
    old.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    // Another machine sees the lease expired (a skewed clock): rewrite its expiry.
    nenjim_journal_testkit::feeds::expire_lease_of(root.path());
    let mut new = open(root.path());
    let text = genesis("bbb", "20260101T000000Z");
    let error = old.append(&text).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LeaseLost, "{error}");
    // Nothing of the refused append is loaded; the new holder records the
    // file it left (the same bytes at the same place).
    let loaded = load(root.path(), LoadOptions::new()).unwrap();
    assert!(loaded.latest(&c("bbb")).is_none());
    assert_eq!(new.append(&text).unwrap().sequence(), 3);
    assert_eq!(
        old.append(&genesis("eee", "20260101T000000Z"))
            .unwrap_err()
            .kind(),
        ErrorKind::LeaseLost
    );
}

#[test]
fn a_file_placed_by_hand_is_recorded_or_refused_by_its_bytes() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    let text = genesis("aaa", "20260101T000000Z");
    std::fs::create_dir(root.path().join("aaa")).unwrap();
    let path = root.path().join("aaa/20260101T000000Z.journal");
    std::fs::write(&path, &text).unwrap();
    assert_eq!(
        load(root.path(), LoadOptions::new()).unwrap().len(),
        0,
        "not recorded, not loaded"
    );
    assert_eq!(writer.append(&text).unwrap().sequence(), 1);

    let other = genesis("bbb", "20260101T000000Z");
    std::fs::create_dir(root.path().join("bbb")).unwrap();
    std::fs::write(
        root.path().join("bbb/20260101T000000Z.journal"),
        other.replace("\"bbb\"", "\"x\""),
    )
    .unwrap();
    let error = writer.append(&other).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conflict, "{error}");
    assert_eq!(load(root.path(), LoadOptions::new()).unwrap().len(), 1);
}

#[test]
fn the_loader_refuses_a_recorded_file_that_changed_or_went_missing() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    let text = genesis("aaa", "20260101T000000Z");
    writer.append(&text).unwrap();
    writer.close().unwrap();
    let path = root.path().join("aaa/20260101T000000Z.journal");

    std::fs::write(&path, text.replace("\"aaa\"", "\"bbb\"")).unwrap();
    let error = load(root.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LedgerMismatch, "{error}");
    assert_eq!(error.path(), Some(path.as_path()));

    std::fs::write(&path, format!("{text}# one more line\n")).unwrap();
    assert_eq!(
        load(root.path(), LoadOptions::new()).unwrap_err().kind(),
        ErrorKind::LedgerMismatch
    );

    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        load(root.path(), LoadOptions::new()).unwrap_err().kind(),
        ErrorKind::LedgerMismatch
    );

    std::fs::write(&path, &text).unwrap();
    assert_eq!(load(root.path(), LoadOptions::new()).unwrap().len(), 1);
    // A malformed entry.
    std::os::unix::fs::symlink(
        "2 REVISION aaa",
        root.path().join(".ledger/log/00000000000000000002"),
    )
    .unwrap();
    assert_eq!(
        load(root.path(), LoadOptions::new()).unwrap_err().kind(),
        ErrorKind::LedgerMismatch
    );
}

#[test]
fn a_hub_refreshing_while_a_writer_appends_sees_each_append_once() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    writer.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    let assembly = JournalAssembly::new(root.path());
    assembly.process().start().unwrap();
    let (service, manager) = (assembly.service(), assembly.manager());
    let mut previous = genesis("aaa", "20260101T000000Z");
    for day in 2..=9 {
        let text = successor(&previous, &format!("202601{day:02}T000000Z"), "");
        let appended = writer.append(&text).unwrap();
        let report = manager.refresh().unwrap();
        assert_eq!((report.ingested(), report.unrecorded()), (1, 0));
        let latest = service.latest(&c("aaa")).unwrap().unwrap();
        assert_eq!(latest.sequence(), appended.sequence());
        assert_eq!(latest.digest(), appended.revision().digest());
        previous = text;
    }
    assert_eq!(manager.refresh().unwrap().ingested(), 0);
    // A file the ledger does not record is never loaded; a refresh reads
    // the ledger alone (it costs what is new), and `check`'s listing of
    // unrecorded files finds it.
    std::fs::create_dir(root.path().join("zzz")).unwrap();
    std::fs::write(
        root.path().join("zzz/20260101T000000Z.journal"),
        genesis("zzz", "20260101T000000Z"),
    )
    .unwrap();
    let report = manager.refresh().unwrap();
    assert_eq!((report.ingested(), report.unrecorded()), (0, 0));
    assert!(service.latest(&c("zzz")).unwrap().is_none());
    let held = |a: &ArtifactCoordinate, v| service.revision(a, v).unwrap().is_some();
    let found = nenjim_journal_fs::unrecorded(root.path(), LoadOptions::new(), &held).unwrap();
    assert_eq!(found, [root.path().join("zzz/20260101T000000Z.journal")]);
}

#[test]
fn segments_checkpoint_the_log() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    let count = nenjim_journal_fs::ledger::SEGMENT_SPAN + 5;
    for i in 0..count {
        writer
            .append(&genesis(&format!("a{i:05}"), "20260101T000000Z"))
            .unwrap();
    }
    writer.close().unwrap();
    let span = nenjim_journal_fs::ledger::SEGMENT_SPAN;
    assert!(
        root.path()
            .join(format!(".ledger/segments/{span:020}.segment"))
            .is_file()
    );
    let ledger = nenjim_journal_fs::ledger::read(&nenjim_journal_fs::RealFileSystem, root.path())
        .unwrap()
        .unwrap();
    assert_eq!((ledger.tip(), ledger.segmented()), (count, span));
    let state = load(root.path(), LoadOptions::new()).unwrap();
    assert_eq!(state.len(), count);
    assert_eq!(state.latest(&c("a01004")).unwrap().sequence(), 1005);
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

/// The event feed of a root with a ledger: a consumer that stored the
/// sequence of the last event it processed resumes after a restart (and
/// after appends made meanwhile) with exactly the events it has not seen.
#[test]
fn the_event_feed_resumes_from_a_stored_sequence_across_restarts_of_a_ledger_root() {
    use nenjim_journal_api::model::{EventChange, JournalEvent};

    fn drain(root: &Path, after: u64) -> Vec<JournalEvent> {
        let assembly = JournalAssembly::new(root);
        assembly.process().start().unwrap();
        let mut cursor = assembly
            .service()
            .replay_events(&ReplayRequest::after(after))
            .unwrap();
        let mut events = Vec::new();
        while let Some(event) = cursor.next().unwrap() {
            events.push(event);
        }
        events
    }

    let root = tempfile::tempdir().unwrap();
    let aaa = genesis("aaa", "20260101T000000Z");
    let mut writer = open(root.path());
    writer.append(&aaa).unwrap();
    writer.append(&genesis("bbb", "20260101T000000Z")).unwrap();
    let seen = drain(root.path(), 0);
    let stored = seen.last().unwrap().sequence();
    assert_eq!(stored, 2);

    // Appends while the consumer is away, one of them a historical import.
    let aaa2 = successor(&aaa, "20260102T000000Z", &release("1.0.0", CONTENT));
    writer.append(&aaa2).unwrap();
    writer.append(&genesis("old", "19990101T000000Z")).unwrap();
    writer.close().unwrap();

    for _restart in 0..2 {
        let resumed = drain(root.path(), stored);
        let got: Vec<(u64, String, &EventChange)> = resumed
            .iter()
            .map(|e| (e.sequence(), e.coordinate().to_string(), e.change()))
            .collect();
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!((got[0].0, got[0].1.as_str()), (3, "aaa"));
        assert!(
            matches!(got[0].2, EventChange::ReleasePublished(r) if r.version().to_string() == "1.0.0")
        );
        assert_eq!((got[1].0, got[1].1.as_str()), (4, "old"));
        assert_eq!(got[1].2, &EventChange::ArtifactCreated);
    }
}

/// Two people each write a successor of the same head: the writer records
/// the first and refuses the second (`StalePredecessor`), and a fork dropped
/// into the root by hand is not part of the Journal, so every start still
/// succeeds (a root without a ledger would refuse to start).
#[test]
fn a_fork_is_refused_by_the_writer_and_a_hand_placed_one_never_breaks_a_start() {
    let root = tempfile::tempdir().unwrap();
    let g = genesis("aaa", "20260101T000000Z");
    let mut writer = open(root.path());
    writer.append(&g).unwrap();
    let first = successor(&g, "20260102T000000Z", &release("1.0.0", CONTENT));
    let second = successor(&g, "20260103T000000Z", &release("2.0.0", CONTENT));
    writer.append(&first).unwrap();
    assert_eq!(
        writer.append(&second).unwrap_err().kind(),
        ErrorKind::StalePredecessor
    );
    writer.close().unwrap();

    std::fs::write(root.path().join("aaa/20260103T000000Z.journal"), &second).unwrap();
    let assembly = JournalAssembly::new(root.path());
    assembly.process().start().unwrap();
    let head = assembly.service().latest(&c("aaa")).unwrap().unwrap();
    assert_eq!(head.journal_version().to_string(), "20260102T000000Z");
    let held = |a: &ArtifactCoordinate, v| assembly.service().revision(a, v).unwrap().is_some();
    let unrecorded = nenjim_journal_fs::unrecorded(root.path(), LoadOptions::new(), &held).unwrap();
    assert_eq!(
        unrecorded,
        vec![root.path().join("aaa/20260103T000000Z.journal")]
    );
}

/// Recording a large root writes segments of the writer's span (a single
/// segment would outgrow what a reader accepts), with a start's sequences.
#[test]
fn recording_a_root_writes_segments_of_the_span() {
    let root = tempfile::tempdir().unwrap();
    for i in 0..25 {
        let name = format!("a{i:02}");
        std::fs::create_dir(root.path().join(&name)).unwrap();
        std::fs::write(
            root.path().join(&name).join("20260101T000000Z.journal"),
            genesis(&name, "20260101T000000Z"),
        )
        .unwrap();
    }
    let before = sequences(&load(root.path(), LoadOptions::new()).unwrap());
    let writer = FsJournalWriter::open(root.path(), WriterOptions::new().segment_span(10)).unwrap();
    writer.close().unwrap();
    let mut segments: Vec<String> = std::fs::read_dir(root.path().join(".ledger/segments"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    segments.sort();
    assert_eq!(
        segments,
        [10, 20, 25].map(|n| format!("{n:020}.segment")).to_vec()
    );
    assert_eq!(
        sequences(&load(root.path(), LoadOptions::new()).unwrap()),
        before
    );
}

/// Another writer commits the sequence this one was about to take (here:
/// its revision file and ledger entry placed behind the lease's back). The
/// append is refused with `TipMoved` and commits nothing; the writer reads
/// the ledger again, so retrying the same append commits it at the new tip.
#[test]
fn after_tip_moved_the_same_append_commits_at_the_new_tip() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    assert_eq!(
        writer
            .append(&genesis("aaa", "20260101T000000Z"))
            .unwrap()
            .sequence(),
        1
    );

    let other = genesis("bbb", "20260102T000000Z");
    std::fs::create_dir(root.path().join("bbb")).unwrap();
    std::fs::write(root.path().join("bbb/20260102T000000Z.journal"), &other).unwrap();
    std::os::unix::fs::symlink(
        format!(
            "2 REVISION bbb 20260102T000000Z {} {}",
            other.len(),
            RevisionDigest::of_text(&other)
        ),
        root.path().join(".ledger/log/00000000000000000002"),
    )
    .unwrap();

    let text = genesis("ccc", "20260103T000000Z");
    let error = writer.append(&text).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TipMoved, "{error}");
    assert!(error.message().contains("can be retried"), "{error}");
    // Nothing of ccc was committed: a load sees aaa and bbb.
    let loaded = sequences(&load(root.path(), LoadOptions::new()).unwrap());
    assert_eq!(loaded.len(), 2, "{loaded:?}");
    // The writer follows the ledger now: bbb is its state, and the retry
    // of the same text commits at sequence 3.
    assert!(writer.state().latest(&c("bbb")).is_some());
    assert_eq!(writer.append(&text).unwrap().sequence(), 3);
    writer.close().unwrap();

    let loaded = sequences(&load(root.path(), LoadOptions::new()).unwrap());
    let expected: BTreeMap<(String, String), u64> = [
        ("aaa", "20260101T000000Z", 1),
        ("bbb", "20260102T000000Z", 2),
        ("ccc", "20260103T000000Z", 3),
    ]
    .into_iter()
    .map(|(a, v, s)| ((a.to_owned(), v.to_owned()), s))
    .collect();
    assert_eq!(loaded, expected);
}

/// Appends `texts` through a writer that takes over an expired lease, so
/// the ledger gets a FENCE first: one sequence number that no revision has.
fn append_after_a_takeover(root: &Path, texts: &[String]) {
    nenjim_journal_testkit::feeds::expire_lease_of(root);
    let mut writer = open(root);
    for text in texts {
        writer.append(text).unwrap();
    }
    writer.close().unwrap();
}

/// Issue 20: both feeds resume exactly after a sequence before, at or after
/// each fence's gap, from a start and after a refresh that read more gaps.
#[test]
fn feeds_resume_across_the_gaps_fences_leave() {
    use nenjim_journal_testkit::feeds::assert_feeds_resume_across_gaps;
    let root = tempfile::tempdir().unwrap();
    let aaa = genesis("aaa", "20260101T000000Z");
    let mut first = open(root.path());
    first.append(&aaa).unwrap();
    first.close().unwrap();
    // Fence at 2, then 3 and 4.
    append_after_a_takeover(
        root.path(),
        &[
            genesis("bbb", "20260101T000000Z"),
            genesis("ccc", "20260101T000000Z"),
        ],
    );
    let assembly = JournalAssembly::new(root.path());
    assembly.process().start().unwrap();
    assert_feeds_resume_across_gaps(&*assembly.service(), &[1, 3, 4], &[1, 3, 4]);
    // Fence at 5, then 6 (a release: an event); a refresh reads it.
    append_after_a_takeover(
        root.path(),
        &[successor(
            &aaa,
            "20260102T000000Z",
            &release("1.0.0", CONTENT),
        )],
    );
    assembly.manager().refresh().unwrap();
    assert_feeds_resume_across_gaps(&*assembly.service(), &[1, 3, 4, 6], &[1, 3, 4, 6]);
    // A fresh start gives the same.
    let again = JournalAssembly::new(root.path());
    again.process().start().unwrap();
    assert_feeds_resume_across_gaps(&*again.service(), &[1, 3, 4, 6], &[1, 3, 4, 6]);
}

/// Each append is parsed after the last one (its restated release blocks
/// are not read again): what is appended is what a plain parse of each
/// text gives, whether a block is restated byte for byte, spelled
/// differently (spaces, a comment) or new, and after a text of another
/// artifact.
#[test]
fn a_successor_parsed_after_the_last_append_is_what_a_plain_parse_gives() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    let deps = "  DEPENDS bbb [1.0.0,2.0.0) \"runtime\"\n  DEPENDS ccc *\n";
    let first = format!(
        "{}{}{deps}",
        genesis("aaa", "20260101T000000Z"),
        release("1.0.0", CONTENT)
    );
    let second = successor(
        &first,
        "20260102T000000Z",
        &format!("{}{deps}", release("1.1.0", CONTENT)),
    );
    // The same values as `second`'s blocks, other bytes.
    let third = successor(&second, "20260103T000000Z", "").replace(
        "  DEPENDS ccc *",
        "  DEPENDS ccc  *\n# a comment inside the block",
    );
    let other = genesis("zzz", "20260101T000000Z");
    let fourth = successor(&third, "20260104T000000Z", &release("2.0.0", CONTENT));
    for text in [&first, &second, &third, &other, &fourth] {
        let appended = writer.append(text).unwrap();
        let plain = nenjim_journal_parser::parse(text).unwrap();
        assert!(appended.is_new());
        assert_eq!(appended.revision().digest(), plain.digest());
        assert!(appended.revision().same_worldview(&plain), "{text}");
    }
    let head = writer.state().latest(&c("aaa")).unwrap();
    assert_eq!(head.releases().len(), 3);
    assert_eq!(head.releases()[0].dependencies().len(), 2);
    // A restated block whose values changed is refused as before.
    let rewritten =
        successor(&fourth, "20260105T000000Z", "").replace("DEPENDS ccc  *", "DEPENDS ccc 1.0.0");
    assert_eq!(
        writer.append(&rewritten).unwrap_err().kind(),
        ErrorKind::ReleaseRewritten
    );
}
