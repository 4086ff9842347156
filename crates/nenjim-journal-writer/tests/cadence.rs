//! Checkpoints on a cadence (format section 10, "Writing" and "Reading"):
//! a writer at a checkpoint interval leaves the entries after its last
//! publication uncovered until the interval passes or it closes; a
//! verifying load serves exactly what the checkpoint covers, a refresh
//! counts what waits; a writer killed between a commit and its
//! publication leaves a checkpoint the next writer brings forward; a torn
//! checkpoint is written again by the key holder. No test here waits for
//! the clock: an interval is an hour (nothing is published in the test's
//! time) or the test waits for the publication itself.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use nenjim_journal_api::append::JournalWriter;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_fs::RealFileSystem;
use nenjim_journal_ref::{JournalAssembly, LoadOptions};
use nenjim_journal_testkit::signed;
use nenjim_journal_testkit::texts::bare_genesis as genesis;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

const HOUR: Duration = Duration::from_secs(3600);

fn writer_at(root: &Path, key: &str, interval: Duration) -> FsJournalWriter {
    FsJournalWriter::open(
        root,
        WriterOptions::new()
            .signing_key(key)
            .checkpoint_interval(interval),
    )
    .unwrap()
}

fn covered(root: &Path, vkey: &str) -> u64 {
    signed::checked(&RealFileSystem, root, vkey)
        .unwrap()
        .0
        .size()
}

/// A verified Journal of `root`, started.
fn verified(root: &Path, vkey: &str) -> JournalAssembly {
    let assembly = JournalAssembly::with_options(root, LoadOptions::new().verifier(vkey));
    assembly.process().start().unwrap();
    assembly
}

/// At an interval, appends and a batch leave the checkpoint where the
/// open left it; a verified load in between serves exactly its prefix and
/// a refresh says how many entries wait; the close covers everything,
/// and the next refresh takes it.
#[test]
fn a_writer_at_an_interval_covers_its_entries_when_it_closes() {
    let root = tempfile::tempdir().unwrap();
    let (skey, vkey) = signed::key("example.org/cadence", 11);
    let mut writer = writer_at(root.path(), &skey, Duration::ZERO);
    writer.append(&genesis("a", "20260101T000000Z")).unwrap();
    writer.append(&genesis("b", "20260101T000000Z")).unwrap();
    writer.close().unwrap();
    assert_eq!(covered(root.path(), &vkey), 2);

    let mut writer = writer_at(root.path(), &skey, HOUR);
    assert_eq!(writer.checkpoint_covers(), Some(2));
    writer.append(&genesis("c", "20260101T000000Z")).unwrap();
    writer
        .append_batch(&[
            &genesis("d", "20260101T000000Z"),
            &genesis("e", "20260101T000000Z"),
        ])
        .unwrap();
    assert_eq!(writer.tip(), 5);
    assert_eq!(writer.checkpoint_covers(), Some(2));
    assert_eq!(covered(root.path(), &vkey), 2);

    let journal = verified(root.path(), &vkey);
    let service = journal.service();
    assert_eq!(service.position().unwrap().last_sequence(), 2);
    assert!(service.latest(&"c".parse().unwrap()).unwrap().is_none());
    let report = journal.manager().refresh().unwrap();
    assert_eq!((report.ingested(), report.uncovered()), (0, 3));

    writer.close().unwrap();
    assert_eq!(covered(root.path(), &vkey), 5);
    let report = journal.manager().refresh().unwrap();
    assert_eq!((report.ingested(), report.uncovered()), (3, 0));
    assert_eq!(service.position().unwrap().last_sequence(), 5);
    assert!(service.latest(&"e".parse().unwrap()).unwrap().is_some());
}

/// Once the interval has passed, the timer publishes what is uncovered
/// without another commit: `wait_for_checkpoint` returns when it has (the
/// test waits for the event, not for a time).
#[test]
fn the_timer_covers_the_entries_once_the_interval_has_passed() {
    let root = tempfile::tempdir().unwrap();
    let (skey, vkey) = signed::key("example.org/cadence", 12);
    let mut writer = writer_at(root.path(), &skey, Duration::from_millis(20));
    let mut last = 0;
    for i in 0..5 {
        last = writer
            .append(&genesis(&format!("t{i}"), "20260101T000000Z"))
            .unwrap()
            .sequence();
    }
    let size = writer.wait_for_checkpoint(last).unwrap();
    assert!(size >= last, "covered {size}, waited for {last}");
    assert_eq!(covered(root.path(), &vkey), 5);
    // Nothing is left to cover: the wait returns at once.
    assert_eq!(writer.wait_for_checkpoint(1).unwrap(), 5);
    let unknown = writer.wait_for_checkpoint(6).unwrap_err();
    assert_eq!(unknown.kind(), ErrorKind::Usage, "{unknown}");
    writer.close().unwrap();
}

/// At interval zero every commit is covered before it returns (today's
/// behaviour); an unsigned writer has no checkpoint to wait for.
#[test]
fn at_interval_zero_every_commit_is_covered_and_an_unsigned_writer_has_none() {
    let root = tempfile::tempdir().unwrap();
    let (skey, vkey) = signed::key("example.org/cadence", 13);
    let mut writer = writer_at(root.path(), &skey, Duration::ZERO);
    let appended = writer.append(&genesis("z", "20260101T000000Z")).unwrap();
    assert_eq!(writer.checkpoint_covers(), Some(1));
    assert_eq!(covered(root.path(), &vkey), 1);
    assert_eq!(writer.wait_for_checkpoint(appended.sequence()).unwrap(), 1);
    writer.close().unwrap();

    let plain = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(plain.path(), WriterOptions::new()).unwrap();
    writer.append(&genesis("u", "20260101T000000Z")).unwrap();
    assert_eq!(writer.checkpoint_covers(), None);
    let error = writer.wait_for_checkpoint(1).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Usage, "{error}");
    writer.close().unwrap();
}

/// A writer dropped without `close` covers what it committed, as a close
/// would.
#[test]
fn a_dropped_writer_covers_its_entries() {
    let root = tempfile::tempdir().unwrap();
    let (skey, vkey) = signed::key("example.org/cadence", 14);
    let mut writer = writer_at(root.path(), &skey, HOUR);
    writer.append(&genesis("d", "20260101T000000Z")).unwrap();
    assert_eq!(covered(root.path(), &vkey), 0);
    drop(writer);
    assert_eq!(covered(root.path(), &vkey), 1);
}

/// A checkpoint torn by a crash (bytes that are not a note) is written
/// again by the next writer with the key, from the ledger, before it
/// commits; a writer without the key is refused, nothing written; a
/// verifying load of the torn root fails with `CheckpointInvalid`.
#[test]
fn a_torn_checkpoint_is_written_again_by_the_key_holder() {
    let root = tempfile::tempdir().unwrap();
    let (skey, vkey) = signed::key("example.org/cadence", 15);
    let mut writer = writer_at(root.path(), &skey, Duration::ZERO);
    writer.append(&genesis("a", "20260101T000000Z")).unwrap();
    writer.append(&genesis("b", "20260101T000000Z")).unwrap();
    writer.close().unwrap();
    let path = root.path().join(".ledger/tlog/checkpoint");
    let whole = std::fs::read(&path).unwrap();
    for torn in [&b""[..], &whole[..whole.len() / 2]] {
        std::fs::write(&path, torn).unwrap();
        let error = JournalAssembly::with_options(root.path(), LoadOptions::new().verifier(&vkey))
            .process()
            .start()
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::CheckpointInvalid, "{error}");
        let refused = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::CheckpointInvalid, "{refused}");
        assert_eq!(std::fs::read(&path).unwrap(), torn);
        let writer = writer_at(root.path(), &skey, HOUR);
        assert_eq!(covered(root.path(), &vkey), 2);
        writer.close().unwrap();
        let journal = verified(root.path(), &vkey);
        assert_eq!(journal.service().position().unwrap().last_sequence(), 2);
    }
}

/// A tile lost with a crash inside the checkpoint's tree is not silently
/// accepted: the writer's open at a lagging checkpoint rewrites the tiles
/// past it, and a publication rewrites a tile it finds torn.
#[test]
fn tiles_past_the_checkpoint_are_written_again_by_the_next_writer() {
    let root = tempfile::tempdir().unwrap();
    let (skey, vkey) = signed::key("example.org/cadence", 16);
    let mut writer = writer_at(root.path(), &skey, Duration::ZERO);
    writer.append(&genesis("a", "20260101T000000Z")).unwrap();
    let behind = std::fs::read(root.path().join(".ledger/tlog/checkpoint")).unwrap();
    writer.append(&genesis("b", "20260101T000000Z")).unwrap();
    writer.close().unwrap();
    // A crash after the commit of entry 2: its checkpoint never written,
    // its tiles torn or missing.
    let tlog = root.path().join(".ledger/tlog");
    std::fs::write(tlog.join("checkpoint"), &behind).unwrap();
    std::fs::write(tlog.join("tile/0/000.p/2"), b"torn").unwrap();
    let _ = std::fs::remove_file(tlog.join("tile/entries/000.p/2"));
    let writer = writer_at(root.path(), &skey, HOUR);
    assert_eq!(covered(root.path(), &vkey), 2);
    writer.close().unwrap();
    assert_eq!(
        std::fs::read(tlog.join("tile/0/000.p/2")).unwrap().len(),
        64
    );
    assert!(tlog.join("tile/entries/000.p/2").is_file());
}

/// A signing writer at an interval of an hour, in a child process,
/// appends and reports; it is killed (SIGKILL) after a varying number of
/// reports, its entries uncovered. The checkpoint on disk always verifies
/// and never shrinks; the next writer covers the whole ledger before it
/// commits anything (its fence), and its close covers the fence.
#[test]
fn a_killed_writer_at_an_interval_is_covered_by_the_next_writer() {
    let root = tempfile::tempdir().unwrap();
    let (skey, vkey) = signed::key("example.org/cadence", 17);
    let mut reported: BTreeMap<String, u64> = BTreeMap::new();
    let mut previous = 0;
    for round in 0..4u64 {
        let wanted = 2 + round;
        let seen = nenjim_journal_testkit::killed::kill_after_reports(
            "cadence::child_appends_at_an_interval_until_killed",
            &[
                ("NENJIM_CADENCE_ROOT", root.path().as_os_str()),
                ("NENJIM_CADENCE_ROUND", round.to_string().as_ref()),
            ],
            wanted,
            &mut reported,
        );
        assert_eq!(seen, wanted, "round {round}: the child stopped early");
        let (checkpoint, entries) = signed::checked(&RealFileSystem, root.path(), &vkey).unwrap();
        assert!(
            checkpoint.size() >= previous,
            "round {round}: a checkpoint shrank"
        );
        let last = reported.values().max().copied().unwrap_or(0);
        assert!(entries.len() as u64 >= last);
        // The next writer covers everything before its first commit.
        let writer = FsJournalWriter::open(
            root.path(),
            WriterOptions::new()
                .signing_key(&skey)
                .checkpoint_interval(HOUR),
        );
        let writer = match writer {
            Ok(writer) => writer,
            Err(e) => panic!("round {round}: {e}"),
        };
        // (It took the killed writer's lease over: its fence is the one
        // entry after the ones it covered at its open.)
        let covered_now = covered(root.path(), &vkey);
        assert_eq!(covered_now, entries.len() as u64, "round {round}");
        assert_eq!(writer.tip(), covered_now + 1, "round {round}");
        assert!(covered_now >= last);
        let tip = writer.tip();
        writer.close().unwrap();
        previous = covered(root.path(), &vkey);
        assert_eq!(previous, tip, "round {round}: the close covers the fence");
    }
}

#[test]
fn child_appends_at_an_interval_until_killed() {
    let (Some(root), Some(round)) = (
        std::env::var_os("NENJIM_CADENCE_ROOT"),
        std::env::var_os("NENJIM_CADENCE_ROUND"),
    ) else {
        return; // only meaningful as the child of the test above
    };
    let round = round.to_string_lossy().into_owned();
    let (skey, _) = signed::key("example.org/cadence", 17);
    let mut writer = writer_at(Path::new(&root), &skey, HOUR);
    for i in 0..10_000 {
        let name = format!("k{round}-{i}");
        let appended = writer.append(&genesis(&name, "20260101T000000Z")).unwrap();
        println!("APPENDED {name} {}", appended.sequence());
    }
}
