//! The storage seam's traits over NATS: the loader reads a NATS ledger
//! through `LedgerReader`, and the lease works through `Lease`.

use std::time::Duration;

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_nats::NatsRoot;
use nenjim_journal_store::RealFileSystem;
use nenjim_journal_store::lease::Lease;
use nenjim_journal_store::ledger::{LedgerReader, Record};
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::texts::{Root, genesis, successor, ts};

fn root(server: &NatsServer, name: &str) -> NatsRoot {
    NatsRoot::parse_with_env(&server.root(name), Vec::<(String, String)>::new()).unwrap()
}

#[test]
fn the_loader_reads_a_nats_ledger_through_the_seam_with_its_sequences() {
    let server = NatsServer::start();
    let nats = root(&server, "seam");
    let ledger = nats.ledger().unwrap();
    let reader: &dyn LedgerReader = &ledger;
    assert!(!reader.exists().unwrap());
    ledger.create().unwrap();
    assert!(reader.exists().unwrap());

    // Three revisions and a fence between them; the same texts as files
    // of a directory the loader reads them from.
    let g = genesis("left-pad", &ts(1), &["1.0.0"]);
    let s = successor(&g, "left-pad", &ts(2), &["1.0.0", "1.1.0"]);
    let r = genesis("right-pad", &ts(3), &[]);
    ledger
        .commit_at(
            0,
            crate::jetstream::record("left-pad", &ts(1), g.as_bytes()),
            Some(g.as_bytes()),
        )
        .unwrap();
    ledger
        .commit_at(1, Record::Fence { epoch: 2 }, None)
        .unwrap();
    ledger
        .commit_at(
            2,
            crate::jetstream::record("left-pad", &ts(2), s.as_bytes()),
            Some(s.as_bytes()),
        )
        .unwrap();
    ledger
        .commit_at(
            3,
            crate::jetstream::record("right-pad", &ts(3), r.as_bytes()),
            Some(r.as_bytes()),
        )
        .unwrap();
    let files = Root::new();
    files.put("left-pad", &ts(1), &g);
    files.put("left-pad", &ts(2), &s);
    files.put("right-pad", &ts(3), &r);

    for batch in [1, 2, 100] {
        let entries = reader.read_after(0, batch).unwrap();
        assert_eq!(entries.len(), batch.min(4));
        assert_eq!(entries[0].sequence(), 1);
    }
    let (state, tip) = nenjim_journal_fs::load_recorded(&RealFileSystem, reader, files.path())
        .unwrap()
        .unwrap();
    assert_eq!(tip, 4);
    let sequences: Vec<(String, u64)> = ["left-pad", "right-pad"]
        .iter()
        .flat_map(|a| state.revisions(&a.parse().unwrap()))
        .map(|rev| (rev.coordinate().to_string(), rev.sequence()))
        .collect();
    assert_eq!(
        sequences,
        [
            ("left-pad".to_owned(), 1),
            ("left-pad".to_owned(), 3),
            ("right-pad".to_owned(), 4)
        ]
    );
    assert!(
        reader
            .entry_path(3)
            .to_string_lossy()
            .ends_with("/seam/ledger/3")
    );
}

#[test]
fn the_lease_works_through_the_seams_trait() {
    let server = NatsServer::start();
    let nats = root(&server, "seam-lease");
    let ledger = nats.ledger().unwrap();
    ledger.create().unwrap();
    let ttl = Duration::from_secs(60);
    let mut first: Box<dyn Lease> = Box::new(ledger.lease().unwrap());
    assert_eq!(first.epoch(), 0);
    let got = first.acquire(ttl).unwrap();
    assert_eq!((got.epoch, got.taken_over), (1, false));
    assert_eq!(first.fence(), Record::Fence { epoch: 1 });
    first.renew(ttl).unwrap();
    let other = nats.ledger().unwrap();
    let mut second: Box<dyn Lease> = Box::new(other.lease().unwrap());
    let e = second.acquire(ttl).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LeaseHeld, "{e}");
    assert!(
        second
            .path()
            .to_string_lossy()
            .ends_with("/seam-lease/lease")
    );
    first.release().unwrap();
    assert_eq!(second.acquire(ttl).unwrap().epoch, 2);
}

/// The store record (`<root>/.ledger/store`, what the command's `init`
/// writes) is a file of a NATS root: absent until written, then created,
/// replaced only at the version read, and read back, kept in the
/// key-value bucket `NENJIM_<name>_meta`; no other `.ledger/` file is.
#[test]
fn the_store_record_is_kept_in_the_metadata_bucket_and_replaced_only_if_unchanged() {
    use nenjim_journal_store::{BlobStore as _, FileSystem as _};
    let server = NatsServer::start();
    let nats = root(&server, "seam-store");
    let backend = nenjim_journal_nats::NatsBackend::connect(&nats).unwrap();
    backend.ledger().create().unwrap();
    let record = backend.root_path().join(".ledger/store");
    let e = backend.read(&record, 1024).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::NotFound, "{e}");
    assert_eq!(backend.get(&record, 1024).unwrap(), None);

    let first = backend
        .replace_if_unchanged(&record, b"nenjim-store/1\nstore .\n", None)
        .unwrap()
        .unwrap();
    // A create where one exists, or a replacement at a stale version, is refused.
    assert_eq!(
        backend
            .replace_if_unchanged(&record, b"other", None)
            .unwrap(),
        None
    );
    let (bytes, version) = backend.get(&record, 1024).unwrap().unwrap();
    assert_eq!(
        (bytes.as_slice(), &version),
        (b"nenjim-store/1\nstore .\n".as_slice(), &first)
    );
    let second = backend
        .replace_if_unchanged(&record, b"nenjim-store/1\nstore s3://b/p\n", Some(&first))
        .unwrap()
        .unwrap();
    assert_eq!(
        backend
            .replace_if_unchanged(&record, b"stale", Some(&first))
            .unwrap(),
        None
    );
    assert_ne!(first, second);
    // Another connection reads it, from the bucket the root's names say.
    let other = nenjim_journal_nats::NatsBackend::connect(&nats).unwrap();
    assert_eq!(
        other.read(&record, 1024).unwrap(),
        b"nenjim-store/1\nstore s3://b/p\n"
    );
    assert_eq!(other.ledger().names().meta_bucket, "NENJIM_seam-store_meta");
    // Another file under `.ledger/` has no place on a NATS root.
    let lease = backend.root_path().join(".ledger/lease");
    let e = backend.put_if_absent(&lease, b"x").unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::Unsupported, "{e}");
}
