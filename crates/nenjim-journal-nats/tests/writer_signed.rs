//! A signed root (format section 10) on NATS: the checkpoint and tiles in
//! the root's key-value bucket `NENJIM_<name>_tlog`, kept by the writer as
//! on a directory; and the loader's reading of a recorded revision that
//! does not parse.

use nenjim_journal_api::append::JournalWriter;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_nats::NatsBackend;
use nenjim_journal_store::FileSystem;
use nenjim_journal_store::ledger::{self, LedgerReader};
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::texts::{bare_genesis, ts};
use nenjim_journal_tlog::checkpoint::Checkpoint;
use nenjim_journal_tlog::hash::TreeHasher;
use nenjim_journal_tlog::note::VerifierKey;
use nenjim_journal_writer::WriterOptions;

use crate::writer::root;

/// The checkpoint stored for `backend`'s root, opened with `verifier` and
/// checked against the tree of every ledger record: its size.
fn checked(backend: &NatsBackend, verifier: &str) -> u64 {
    let path = ledger::checkpoint_path(backend.root_path());
    assert!(path.to_string_lossy().starts_with("nats://"));
    let bytes = FileSystem::read(backend, &path, ledger::CHECKPOINT_MAX).unwrap();
    let (checkpoint, _) = Checkpoint::open(&bytes, &VerifierKey::parse(verifier).unwrap()).unwrap();
    let entries = nenjim_journal_fs::ledger::read_after(backend, 0).unwrap();
    let mut tree = TreeHasher::new();
    for entry in &entries {
        tree.push_record(entry.to_string().as_bytes());
    }
    assert_eq!(checkpoint.size(), entries.len() as u64);
    checkpoint.check_tree(tree.size(), &tree.root()).unwrap();
    checkpoint.size()
}

#[test]
fn a_signed_nats_root_keeps_a_checkpoint_of_every_commit_and_refuses_a_writer_without_its_key() {
    let server = NatsServer::start();
    let nats = root(&server, "signed");
    let (key, verifier) = nenjim_journal_testkit::signed::key("nats-test", 7);
    let mut w = nats.writer(WriterOptions::new().signing_key(&key)).unwrap();
    w.append(&bare_genesis("one", &ts(1))).unwrap();
    w.append_batch(&[&bare_genesis("two", &ts(2)), &bare_genesis("three", &ts(3))])
        .unwrap();
    let reader = NatsBackend::connect(&nats).unwrap();
    assert_eq!(checked(&reader, &verifier), 3);
    w.close().unwrap();

    // Without the key: refused before anything is written.
    let e = nats.writer(WriterOptions::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CheckpointInvalid, "{e}");
    assert_eq!(nats.ledger().unwrap().tip().unwrap(), 3);
    // With it again: the checkpoint follows every commit.
    let mut w = nats.writer(WriterOptions::new().signing_key(&key)).unwrap();
    w.append(&bare_genesis("four", &ts(4))).unwrap();
    w.close().unwrap();
    assert_eq!(checked(&reader, &verifier), 4);
}

/// The NATS writer at a checkpoint interval (an hour: nothing is published
/// in the test's time): its commits wait uncovered (`checkpoint_covers`);
/// at a short interval `wait_for_checkpoint` returns once the timer has
/// published one that covers the entry; the close covers the rest.
#[test]
fn a_nats_writer_at_an_interval_covers_on_its_timer_and_at_close() {
    let server = NatsServer::start();
    let nats = root(&server, "cadence");
    let (key, verifier) = nenjim_journal_testkit::signed::key("nats-test", 8);
    let hour = std::time::Duration::from_secs(3600);
    let mut w = nats
        .writer(
            WriterOptions::new()
                .signing_key(&key)
                .checkpoint_interval(hour),
        )
        .unwrap();
    assert_eq!(w.checkpoint_covers(), Some(0));
    w.append(&bare_genesis("one", &ts(1))).unwrap();
    w.append_batch(&[&bare_genesis("two", &ts(2))]).unwrap();
    assert_eq!(w.checkpoint_covers(), Some(0));
    w.close().unwrap();
    let reader = NatsBackend::connect(&nats).unwrap();
    assert_eq!(checked(&reader, &verifier), 2);

    let short = std::time::Duration::from_millis(10);
    let mut w = nats
        .writer(
            WriterOptions::new()
                .signing_key(&key)
                .checkpoint_interval(short),
        )
        .unwrap();
    let appended = w.append(&bare_genesis("three", &ts(3))).unwrap();
    assert_eq!(w.wait_for_checkpoint(appended.sequence()).unwrap(), 3);
    assert_eq!(w.checkpoint_covers(), Some(3));
    assert_eq!(checked(&reader, &verifier), 3);
    w.close().unwrap();
}

/// A recorded revision that does not parse (committed by hand, its record
/// true to its bytes): the loader reports the parse error at its path, as
/// on a directory, after reading the bytes again to tell it from a changed
/// file (the ledger reads them again by their entry's sequence; the
/// backend's file system has no revision file).
#[test]
fn a_recorded_revision_that_does_not_parse_is_its_parse_error_at_its_path() {
    let server = NatsServer::start();
    let nats = root(&server, "unparsed");
    let ledger = nats.ledger().unwrap();
    ledger.create().unwrap();
    let bad = "FORMAT nenjim-journal/1\nARTIFACT left-pad\n";
    let record = crate::jetstream::record("left-pad", &ts(1), bad.as_bytes());
    ledger.commit_at(0, record, Some(bad.as_bytes())).unwrap();
    let reader = NatsBackend::connect(&nats).unwrap();
    assert!(reader.exists().unwrap());
    let e = nenjim_journal_fs::load_recorded(&*reader, &*reader, reader.root_path()).unwrap_err();
    assert_ne!(e.kind(), ErrorKind::LedgerMismatch, "{e}");
    let expected = format!("{}/left-pad/{}.journal", server.root("unparsed"), ts(1));
    assert_eq!(
        e.path().map(|p| p.to_string_lossy().into_owned()),
        Some(expected.clone()),
        "{e}"
    );
    // The bytes come through the ledger, never as a file: read with their
    // entry, then again (any number of times) by the entry's sequence.
    let pointer = reader.read_after(0, 10).unwrap()[0]
        .revision()
        .unwrap()
        .clone();
    let with_bytes = reader.read_after_with_bytes(0, 10).unwrap();
    assert_eq!(with_bytes[0].1.as_deref(), Some(bad.as_bytes()));
    for again in [false, true] {
        let bytes = reader
            .read_revision(&*reader, reader.root_path(), 1, &pointer, again)
            .unwrap();
        assert_eq!(bytes.as_deref(), Some(bad.as_bytes()));
    }
    let path = std::path::PathBuf::from(&expected);
    for read in [
        FileSystem::read(&*reader, &path, 1 << 20).map(|_| ()),
        FileSystem::metadata(&*reader, &path).map(|_| ()),
    ] {
        assert_eq!(read.unwrap_err().kind(), std::io::ErrorKind::NotFound);
    }
    // A writer refuses to open it the same way, and commits nothing.
    let e = nats.writer(WriterOptions::new()).unwrap_err();
    assert_ne!(e.kind(), ErrorKind::LedgerMismatch, "{e}");
    assert_eq!(ledger.tip().unwrap(), 1);
}
