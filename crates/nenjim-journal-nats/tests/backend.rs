//! The NATS backend as the seam's `Backend` (`nenjim_journal_jetstream::kind`):
//! opened from its address by `NatsKind`, written by the seam's writer over
//! its `writing()` and `writer_opened()`, read by the reference Journal over
//! its `reading()`, its own blob bucket its `content_store()`: what a
//! program that resolves addresses to backends does with a NATS root.

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_nats::NatsKind;
use nenjim_journal_ref::{JournalAssembly, LoadOptions};
use nenjim_journal_store::backend::{BackendKind, Opening, Writing};
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::texts::{bare_genesis, ts};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

#[test]
fn a_nats_root_opened_by_its_kind_is_written_and_read_through_the_seam() {
    let server = NatsServer::start();
    let address = server.root("kind");
    assert_eq!(NatsKind.schemes(), ["nats"]);
    let root = NatsKind
        .open(&address, &Opening::new().reconnect_without_limit(true))
        .unwrap();
    assert_eq!(root.root_path().to_str(), Some(address.as_str()));
    assert_eq!(root.address(), address);
    // Opening creates nothing: no stream until a writer makes it.
    assert!(!root.exists().unwrap());

    let Writing::Native {
        store,
        ledger,
        lease,
    } = root.writing().unwrap()
    else {
        panic!("expected a NATS root's own ledger and lease");
    };
    // The root's own blob bucket as the content store: the writing's store
    // (`WriterOptions` takes a whole `Store`; `content_store()` is a
    // `BlobStore`), at the root's path.
    let path = root.root_path().to_path_buf();
    let options = WriterOptions::new().content_store_in(store.clone(), &path);
    let mut writer = FsJournalWriter::open_with(store, path, ledger, lease, options).unwrap();
    root.writer_opened().unwrap();
    assert!(root.exists().unwrap());
    let pointer = writer.put_blob(b"the release").unwrap();
    assert_eq!(
        writer
            .append(&bare_genesis("left-pad", &ts(1)))
            .unwrap()
            .sequence(),
        1
    );
    writer.close().unwrap();

    // The root's own bucket holds the blob the writer put (read on a
    // connection of its own: the writer's is closed).
    let (blobs, dir) = root.content_store().unwrap();
    assert_eq!(dir, root.root_path());
    let object = dir.join(format!("blobs/sha256/{}", pointer.digest().to_hex()));
    let (bytes, _) = blobs.get(&object, 1024).unwrap().unwrap();
    assert_eq!(bytes, b"the release");

    // The reference Journal over the backend's reading.
    let reading = root.reading();
    let assembly = JournalAssembly::with_ledger(
        root.root_path(),
        LoadOptions::default(),
        reading.file_system,
        reading.ledger.unwrap(),
        reading.follow,
    );
    assembly.process().start().unwrap();
    let coordinate = "left-pad".parse().unwrap();
    assert!(assembly.service().latest(&coordinate).unwrap().is_some());
    assembly.process().stop().unwrap();
}

/// Revisions travel through the ledger, never through files: the backend
/// stages nothing a writer puts at a revision's path (it refuses it), its
/// file system answers no revision path (`NotFound`, before and after the
/// commit, on the writer's connection and a reader's), and yet the
/// reference Journal loads the root from the bytes its entries carry.
#[test]
fn a_nats_root_answers_no_revision_path_and_still_loads() {
    use std::io::ErrorKind as Io;

    use nenjim_journal_store::ledger::revision_path;

    let server = NatsServer::start();
    let address = server.root("nofiles");
    let root = NatsKind.open(&address, &Opening::new()).unwrap();
    let Writing::Native {
        store,
        ledger,
        lease,
    } = root.writing().unwrap()
    else {
        panic!("expected a NATS root's own ledger and lease");
    };
    let path = root.root_path().to_path_buf();
    let text = bare_genesis("left-pad", &ts(1));
    let file = revision_path(&path, &"left-pad".parse().unwrap(), ts(1).parse().unwrap());
    // Nothing is staged: a put at a revision's path is refused.
    let refused = store.put_if_absent(&file, text.as_bytes()).unwrap_err();
    assert_eq!(refused.kind(), Io::Unsupported, "{refused}");
    let mut writer = FsJournalWriter::open_with(
        store.clone(),
        path.clone(),
        ledger,
        lease,
        WriterOptions::new(),
    )
    .unwrap();
    assert_eq!(writer.append(&text).unwrap().sequence(), 1);
    writer.close().unwrap();

    let reading = root.reading();
    for fs in [
        &*store as &dyn nenjim_journal_store::FileSystem,
        &*reading.file_system,
    ] {
        assert_eq!(fs.read(&file, 1 << 20).unwrap_err().kind(), Io::NotFound);
        assert_eq!(fs.metadata(&file).unwrap_err().kind(), Io::NotFound);
    }
    assert_eq!(
        store.open(&file).err().map(|e| e.kind()),
        Some(Io::NotFound)
    );

    let assembly = JournalAssembly::with_ledger(
        root.root_path(),
        LoadOptions::default(),
        reading.file_system.clone(),
        reading.ledger.unwrap(),
        reading.follow,
    );
    assembly.process().start().unwrap();
    let coordinate = "left-pad".parse().unwrap();
    let latest = assembly.service().latest(&coordinate).unwrap().unwrap();
    assert_eq!(latest.journal_version().to_string(), ts(1));
    assembly.process().stop().unwrap();
    // Still no file after the load.
    assert_eq!(
        reading.file_system.read(&file, 1 << 20).unwrap_err().kind(),
        Io::NotFound
    );
}
