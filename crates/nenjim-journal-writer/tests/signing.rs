//! Signed roots (format section 10) from the writer's side: the tiles and
//! the checkpoint after every commit, a root signed when a writer first
//! opens it with a key, writers without that key refused with nothing
//! written, a checkpoint behind the ledger brought forward, and a writer
//! killed at random instants.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use nenjim_journal_api::append::JournalWriter;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_fs::RealFileSystem;
use nenjim_journal_testkit::signed;
use nenjim_journal_testkit::texts::{bare_genesis as genesis, files};
use nenjim_journal_tlog::hash::leaf_hash;
use nenjim_journal_tlog::tile::{Tile, TileHashes, unbundle};
use nenjim_journal_tlog::tree::tree_root;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

fn signed_writer(root: &Path, key: &str) -> FsJournalWriter {
    FsJournalWriter::open(root, WriterOptions::new().signing_key(key)).unwrap()
}

fn tlog(root: &Path) -> std::path::PathBuf {
    root.join(".ledger/tlog")
}

/// Every append leaves a checkpoint of the whole ledger (fences
/// included), signed by the key, with the hash tiles and entry bundles
/// of its tree at the C2SP paths; the tiles give the checkpoint's root.
#[test]
fn every_commit_leaves_a_checkpoint_of_the_whole_ledger_and_its_tiles() {
    let root = tempfile::tempdir().unwrap();
    let (skey, vkey) = signed::key("example.org/journal", 1);
    let mut writer = signed_writer(root.path(), &skey);
    // An empty ledger is signed at once.
    let (checkpoint, _) = signed::checked(&RealFileSystem, root.path(), &vkey).unwrap();
    assert_eq!(checkpoint.size(), 0);
    for i in 0..300u64 {
        let appended = writer
            .append(&genesis(&format!("a{i:03}"), "20260101T000000Z"))
            .unwrap();
        assert_eq!(appended.sequence(), i + 1);
        if i % 97 == 0 || i == 299 {
            let (checkpoint, entries) =
                signed::checked(&RealFileSystem, root.path(), &vkey).unwrap();
            assert_eq!(checkpoint.size(), i + 1);
            assert_eq!(entries.len() as u64, i + 1);
        }
    }
    writer.close().unwrap();
    // The tiles alone give the root, and the entry bundles hold the records.
    let (checkpoint, entries) = signed::checked(&RealFileSystem, root.path(), &vkey).unwrap();
    let dir = tlog(root.path());
    let read = |tile: &Tile| Ok(std::fs::read(dir.join(tile.path())).unwrap());
    let mut hashes = TileHashes::new(300, read);
    assert_eq!(tree_root(&mut hashes, 300).unwrap(), *checkpoint.root());
    assert!(dir.join("tile/0/000").is_file());
    assert!(dir.join("tile/0/001.p/44").is_file());
    assert!(dir.join("tile/1/000.p/1").is_file());
    let full = std::fs::read(dir.join("tile/entries/000")).unwrap();
    let partial = std::fs::read(dir.join("tile/entries/001.p/44")).unwrap();
    let records: Vec<Vec<u8>> = unbundle(&full)
        .unwrap()
        .into_iter()
        .chain(unbundle(&partial).unwrap())
        .map(<[u8]>::to_vec)
        .collect();
    let expected: Vec<Vec<u8>> = entries.iter().map(|e| e.to_string().into_bytes()).collect();
    assert_eq!(records, expected);
    let level0 = std::fs::read(dir.join("tile/0/000")).unwrap();
    assert_eq!(&level0[..32], &leaf_hash(&expected[0]).0);
}

/// A root with revisions and no key is signed by the first writer that
/// opens it with one (over every entry it holds, the first ones
/// included); from then on a writer without the key, with another key or
/// with a malformed one is refused with `CheckpointInvalid` and writes
/// nothing (not even its lease).
#[test]
fn a_signed_root_refuses_writers_without_its_key_and_writes_nothing() {
    let root = tempfile::tempdir().unwrap();
    let mut plain = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    for name in ["a", "b", "c"] {
        plain.append(&genesis(name, "20260101T000000Z")).unwrap();
    }
    plain.close().unwrap();
    assert!(!tlog(root.path()).exists());
    let (skey, vkey) = signed::key("hub.example/journal", 2);
    let writer = signed_writer(root.path(), &skey);
    let (checkpoint, _) = signed::checked(&RealFileSystem, root.path(), &vkey).unwrap();
    assert_eq!(checkpoint.size(), 3);
    writer.close().unwrap();

    let before = files(root.path());
    let (other, _) = signed::key("hub.example/journal", 3);
    let (renamed, _) = signed::key("other.example/journal", 2);
    for options in [
        WriterOptions::new(),
        WriterOptions::new().signing_key(&other),
        WriterOptions::new().signing_key(&renamed),
        WriterOptions::new().signing_key("PRIVATE+KEY+broken"),
    ] {
        let error = FsJournalWriter::open(root.path(), options).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::CheckpointInvalid, "{error}");
        assert_eq!(files(root.path()), before, "{error}");
    }
    // A malformed key is refused on an unsigned root as well.
    let unsigned = tempfile::tempdir().unwrap();
    let error = FsJournalWriter::open(
        unsigned.path(),
        WriterOptions::new().signing_key("example+0000+AAAA"),
    )
    .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::CheckpointInvalid, "{error}");
    assert!(files(unsigned.path()).is_empty());
    // The holder of the key appends on.
    let mut writer = signed_writer(root.path(), &skey);
    writer.append(&genesis("d", "20260101T000000Z")).unwrap();
    let (checkpoint, _) = signed::checked(&RealFileSystem, root.path(), &vkey).unwrap();
    assert_eq!(checkpoint.size(), 4);
}

/// A checkpoint one commit behind the ledger (a crash between a commit
/// and its checkpoint) is brought forward by the next writer at open; an
/// older checkpoint that is not the tree of the ledger's first entries is
/// refused (`CheckpointMismatch`), never replaced.
#[test]
fn a_checkpoint_behind_is_brought_forward_and_a_foreign_one_refused() {
    let root = tempfile::tempdir().unwrap();
    let (skey, vkey) = signed::key("example.org/journal", 4);
    let mut writer = signed_writer(root.path(), &skey);
    writer.append(&genesis("a", "20260101T000000Z")).unwrap();
    let behind = std::fs::read(tlog(root.path()).join("checkpoint")).unwrap();
    writer.append(&genesis("b", "20260101T000000Z")).unwrap();
    writer.close().unwrap();
    std::fs::write(tlog(root.path()).join("checkpoint"), &behind).unwrap();
    assert_eq!(
        signed::checked(&RealFileSystem, root.path(), &vkey)
            .unwrap()
            .0
            .size(),
        1
    );
    let writer = signed_writer(root.path(), &skey);
    assert_eq!(
        signed::checked(&RealFileSystem, root.path(), &vkey)
            .unwrap()
            .0
            .size(),
        2
    );
    writer.close().unwrap();

    // A checkpoint of another tree of the same key (another root's).
    let other = tempfile::tempdir().unwrap();
    let mut foreign = signed_writer(other.path(), &skey);
    foreign.append(&genesis("x", "20260101T000000Z")).unwrap();
    foreign.close().unwrap();
    let stray = std::fs::read(tlog(other.path()).join("checkpoint")).unwrap();
    std::fs::write(tlog(root.path()).join("checkpoint"), &stray).unwrap();
    let error =
        FsJournalWriter::open(root.path(), WriterOptions::new().signing_key(&skey)).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::CheckpointMismatch, "{error}");
    assert_eq!(
        std::fs::read(tlog(root.path()).join("checkpoint")).unwrap(),
        stray
    );
}

/// A signing writer in a child process appends and reports each sequence;
/// it is killed (SIGKILL) after a varying number of reports, wherever it
/// is in its next append (between commit and checkpoint included). After
/// every kill the checkpoint on disk verifies, is the tree of the
/// ledger's first entries, and covers every append reported; the next
/// writer brings it to the whole ledger.
#[test]
fn a_killed_signing_writer_leaves_a_checkpoint_covering_what_it_reported() {
    let root = tempfile::tempdir().unwrap();
    let (_, vkey) = signed::key("example.org/journal", 5);
    let mut reported: BTreeMap<String, u64> = BTreeMap::new();
    for round in 0..16u64 {
        let wanted = 1 + (round * 5) % 7;
        let seen = nenjim_journal_testkit::killed::kill_after_reports(
            "signing::child_signs_until_killed",
            &[
                ("NENJIM_SIGNING_ROOT", root.path().as_os_str()),
                ("NENJIM_SIGNING_ROUND", round.to_string().as_ref()),
            ],
            wanted,
            &mut reported,
        );
        assert_eq!(seen, wanted, "round {round}: the child stopped early");
        let (checkpoint, entries) = signed::checked(&RealFileSystem, root.path(), &vkey).unwrap();
        let last = reported.values().max().copied().unwrap_or(0);
        assert!(
            checkpoint.size() >= last,
            "round {round}: the checkpoint covers {} entries, the writer reported {last}",
            checkpoint.size()
        );
        assert!(checkpoint.size() <= entries.len() as u64);
    }
    assert!(reported.len() >= 16);
}

#[test]
fn child_signs_until_killed() {
    let (Some(root), Some(round)) = (
        std::env::var_os("NENJIM_SIGNING_ROOT"),
        std::env::var_os("NENJIM_SIGNING_ROUND"),
    ) else {
        return; // only meaningful as the child of the test above
    };
    let round = round.to_string_lossy().into_owned();
    let (skey, _) = signed::key("example.org/journal", 5);
    let mut writer = loop {
        match FsJournalWriter::open(
            Path::new(&root),
            WriterOptions::new()
                .signing_key(&skey)
                .lease_ttl(Duration::from_secs(60)),
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
