//! The writer of a NATS root, continued: idempotence and refusals, blobs
//! over the inline limit, the content store, server restarts and stops,
//! and batches as atomic publishes.

use super::*;

#[test]
fn a_repeat_is_idempotent_and_every_refusal_commits_nothing() {
    let server = NatsServer::start();
    let nats = root(&server, "refusals");
    let ledger = nats.ledger().unwrap();
    let mut w = writer(&nats);
    let g = bare_genesis("left-pad", &ts(1));
    assert_eq!(w.append(&g).unwrap().sequence(), 1);
    let again = w.append(&g).unwrap();
    assert_eq!((again.sequence(), again.is_new()), (1, false));
    assert_eq!(ledger.tip().unwrap(), 1);

    let blob = ContentPointer::new(ContentDigest::of_bytes(b"never put"), 9);
    let missing = text("right-pad", &ts(2), None, &[("1.0.0", blob)]);
    let refusals = [
        (
            "FORMAT nenjim-journal/1\nARTIFACT\n".to_owned(),
            ErrorKind::Syntax,
        ),
        (
            // A successor of a text that was never appended.
            text(
                "left-pad",
                &ts(3),
                Some(&bare_genesis("left-pad", &ts(9))),
                &[],
            ),
            ErrorKind::UnknownPredecessor,
        ),
        (missing.clone(), ErrorKind::BlobMissing),
        (
            // The recorded version with another text.
            g.replace("DESCRIPTION \"left-pad\"", "DESCRIPTION \"other\""),
            ErrorKind::Conflict,
        ),
    ];
    for (refused, kind) in &refusals {
        let e = w.append(refused).unwrap_err();
        assert_eq!(e.kind(), *kind, "{e}");
        assert_eq!(ledger.tip().unwrap(), 1, "{e}");
        assert_eq!(w.tip(), 1, "{e}");
    }
    let e = w.append_batch(&[missing.as_str()]).unwrap_err();
    assert_eq!(e.error().kind(), ErrorKind::BlobMissing, "{e}");
    assert_eq!(ledger.tip().unwrap(), 1);
    // A batch stops at its refused text: the texts before it are
    // committed, nothing of it or after it.
    let (a, b) = (bare_genesis("a-lib", &ts(4)), bare_genesis("b-lib", &ts(5)));
    let e = w
        .append_batch(&[a.as_str(), missing.as_str(), b.as_str()])
        .unwrap_err();
    assert_eq!((e.index(), e.error().kind()), (1, ErrorKind::BlobMissing));
    assert_eq!(e.appended()[0].sequence(), 2);
    assert_eq!(ledger.tip().unwrap(), 2);
    // With the blob put, the same text is appended.
    assert_eq!(w.put_blob(b"never put").unwrap(), blob);
    assert_eq!(w.append(&missing).unwrap().sequence(), 3);
    w.close().unwrap();
    let (state, tip) = loaded(&nats);
    assert_eq!((tip, state.len()), (3, 3));
    assert!(state.latest(&"b-lib".parse().unwrap()).is_none());
}

/// A revision over the inline limit travels as a blob (the message carries
/// its key) and loads byte for byte, through the writer and a reader.
#[test]
fn a_revision_over_the_inline_limit_round_trips_through_its_blob() {
    let server = NatsServer::start();
    let nats = root(&server, "large").inline_limit(512);
    let mut w = nats.writer(WriterOptions::new()).unwrap();
    let small = bare_genesis("small", &ts(1));
    let large = bare_genesis("large", &ts(2)).replace(
        "DESCRIPTION \"large\"",
        &format!("DESCRIPTION \"{}\"", "x".repeat(4000)),
    );
    assert!(large.len() > 512 && small.len() < 512);
    w.append(&small).unwrap();
    assert_eq!(w.append(&large).unwrap().sequence(), 2);
    w.close().unwrap();

    let ledger = nats.ledger().unwrap();
    let entry = ledger.read_entry(2).unwrap();
    assert_eq!(entry.revision(), Some(large.as_bytes()));
    let raw = Raw::connect(&server).message("NENJIM_large", 2);
    assert!(raw.0.iter().any(|(k, v)| k == "Nenjim-Blob"
        && v == &format!(
            "revisions/sha256/{}",
            RevisionDigest::of_text(&large).to_hex()
        )));
    assert!(raw.1.is_empty());
    let (state, _) = loaded(&nats);
    let revision = state.latest(&"large".parse().unwrap()).unwrap();
    assert_eq!(revision.digest(), &RevisionDigest::of_text(&large));
    assert_eq!(revision.sequence(), 2);
}

/// The content store is a choice, as on a directory: a writer whose
/// options name none checks no blob (any CONTENT is appended) and puts
/// none; named by the root's address it is the root's own bucket (a
/// missing blob `BlobMissing` at its object there); another directory
/// requires the blobs there.
#[test]
fn the_content_store_is_the_one_the_options_name_and_none_checks_nothing() {
    let server = NatsServer::start();
    let nats = root(&server, "content");
    // A root a writer created without `init`, no store named: no check.
    let mut w = nats.writer(WriterOptions::new()).unwrap();
    let nowhere = ContentPointer::new(ContentDigest::of_bytes(b"nowhere"), 7);
    let unchecked = text("free", &ts(1), None, &[("1.0.0", nowhere)]);
    assert_eq!(w.append(&unchecked).unwrap().sequence(), 1);
    let e = w.put_blob(b"no store").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Usage, "{e}");
    w.close().unwrap();
    assert_eq!(
        nats.ledger()
            .unwrap()
            .check_blob(&nowhere)
            .unwrap_err()
            .kind(),
        ErrorKind::BlobMissing
    );

    // Another directory: the blob is required there, not in the bucket.
    let elsewhere = Root::new();
    let mut w = nats
        .writer(WriterOptions::new().content_store(elsewhere.path()))
        .unwrap();
    let pointer = nats.ledger().unwrap().put_blob(b"in the bucket").unwrap();
    let t = text("lib", &ts(1), None, &[("1.0.0", pointer)]);
    let e = w.append(&t).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BlobMissing, "{e}");
    assert!(
        e.path().is_some_and(|p| p.starts_with(elsewhere.path())),
        "{e}"
    );
    w.close().unwrap();

    // The root's own bucket, named by the root's address.
    let mut w = writer(&nats);
    assert_eq!(w.append(&t).unwrap().sequence(), 2);
    let missing = ContentPointer::new(ContentDigest::of_bytes(b"not put"), 7);
    let refused = text("other", &ts(1), None, &[("1.0.0", missing)]);
    let e = w.append(&refused).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BlobMissing, "{e}");
    let object = format!("{nats}/blobs/sha256/{}", missing.digest().to_hex());
    assert_eq!(e.path(), Some(std::path::Path::new(&object)), "{e}");
    // A blob put through the writer lands in the bucket.
    assert_eq!(w.put_blob(b"not put").unwrap(), missing);
    nats.ledger().unwrap().check_blob(&missing).unwrap();
    assert_eq!(w.append(&refused).unwrap().sequence(), 3);
    w.close().unwrap();
}

/// The server restarted between appends (its store kept): the writer goes
/// on, sequences unchanged, and a new writer and reader see them all.
#[test]
fn sequences_are_kept_across_a_server_restart_between_appends() {
    let mut server = NatsServer::start();
    let nats = root(&server, "restart");
    let mut w = writer(&nats);
    w.append(&bare_genesis("one", &ts(1))).unwrap();
    w.append(&bare_genesis("two", &ts(2))).unwrap();
    server.restart();
    assert_eq!(
        w.append(&bare_genesis("three", &ts(3))).unwrap().sequence(),
        3
    );
    w.close().unwrap();
    server.restart();
    let mut w = writer(&nats);
    assert_eq!(w.tip(), 3);
    assert_eq!(
        w.append(&bare_genesis("four", &ts(4))).unwrap().sequence(),
        4
    );
    w.close().unwrap();
    let (state, tip) = loaded(&nats);
    let names: BTreeMap<u64, String> = worldview(&state)
        .into_iter()
        .map(|(s, c, _, _)| (s, c))
        .collect();
    assert_eq!(tip, 4);
    assert_eq!(
        names.into_values().collect::<Vec<_>>(),
        ["one", "two", "three", "four"]
    );
}

/// The server stopped under a writer: its append fails (`Unavailable`, naming the
/// lost server), nothing of it is in the ledger once the server is back,
/// and the next writer appends at the next sequence.
#[test]
fn the_server_stopped_under_a_writer_leaves_nothing_half_committed() {
    let mut server = NatsServer::start();
    let nats = root(&server, "stopped")
        .max_reconnects(1)
        .reconnect_delay(Duration::from_millis(10))
        .request_timeout(Duration::from_secs(2));
    let mut w = nats.writer(WriterOptions::new()).unwrap();
    w.append(&bare_genesis("kept", &ts(1))).unwrap();
    server.stop();
    let e = w.append(&bare_genesis("lost", &ts(2))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable, "{e}");
    assert!(e.to_string().contains("nats://127.0.0.1"), "{e}");
    // The server back (same store): only what was acknowledged is there.
    server.restart();
    let ledger = root(&server, "stopped").ledger().unwrap();
    assert_eq!(ledger.tip().unwrap(), 1);
    drop(w);
    expire_lease(&server, "stopped");
    let mut next = writer(&root(&server, "stopped"));
    // The takeover fenced sequence 2; the append is the third entry.
    assert_eq!(next.tip(), 2);
    assert_eq!(
        next.append(&bare_genesis("lost", &ts(2)))
            .unwrap()
            .sequence(),
        3
    );
    next.close().unwrap();
    let (state, tip) = loaded(&root(&server, "stopped"));
    assert_eq!((tip, state.len()), (3, 2));
}

/// A batch is committed by atomic batch publishes: one batch id on every
/// message of a chunk of the writer's batch, a revision over the inline
/// limit among them (its blob put first), the sequences in order.
#[test]
fn a_batch_is_committed_by_atomic_publishes() {
    let server = NatsServer::start();
    let nats = root(&server, "atomic").inline_limit(512);
    let mut w = nats.writer(WriterOptions::new().batch_max(100)).unwrap();
    let mut texts: Vec<String> = (0..150)
        .map(|i| bare_genesis(&format!("lib-{i}"), &ts(1)))
        .collect();
    texts[7] = texts[7].replace(
        "DESCRIPTION \"lib-7\"",
        &format!("DESCRIPTION \"{}\"", "y".repeat(2000)),
    );
    let batch: Vec<&str> = texts.iter().map(String::as_str).collect();
    let appended = w.append_batch(&batch).unwrap();
    let sequences: Vec<u64> = appended.iter().map(|a| a.sequence()).collect();
    assert_eq!(sequences, (1..=150).collect::<Vec<_>>());
    w.close().unwrap();

    let batch_id = |sequence: u64| {
        let (headers, _) = Raw::connect(&server).message("NENJIM_atomic", sequence);
        headers
            .into_iter()
            .find(|(k, _)| k == "Nats-Batch-Id")
            .map(|(_, v)| v)
    };
    let first = batch_id(1).expect("the first chunk is an atomic batch");
    assert_eq!(batch_id(8).as_ref(), Some(&first));
    assert_eq!(batch_id(100).as_ref(), Some(&first));
    let second = batch_id(101).expect("the second chunk is an atomic batch");
    assert_ne!(first, second);
    assert_eq!(batch_id(150).as_ref(), Some(&second));
    let (state, tip) = loaded(&nats);
    assert_eq!((tip, state.len()), (150, 150));
    let large = state.latest(&"lib-7".parse().unwrap()).unwrap();
    assert_eq!(large.digest(), &RevisionDigest::of_text(&texts[7]));
}

/// A stream made without atomic publishes (by an older version) takes a
/// batch one publish per entry, with the same sequences; the next writer,
/// once it holds the lease, gives the stream atomic publishes, and its
/// batch is one.
#[test]
fn a_stream_without_atomic_publishes_takes_a_batch_entry_by_entry_until_a_writer_upgrades_it() {
    let server = NatsServer::start();
    Raw::connect(&server).create_stream(async_nats::jetstream::stream::Config {
        name: "NENJIM_older".to_owned(),
        subjects: vec!["nenjim.older.ledger".to_owned()],
        allow_direct: true,
        ..Default::default()
    });
    let nats = root(&server, "older");
    let ledger = nats.ledger().unwrap();
    assert!(!ledger.atomic_batches().unwrap());
    // The ledger's batch on the old stream: one publish per entry.
    let fences = vec![
        (Record::Fence { epoch: 1 }, None),
        (Record::Fence { epoch: 2 }, None),
    ];
    let (entries, failed) = ledger.commit_batch_at(0, fences);
    assert!(failed.is_none());
    assert_eq!(
        entries.iter().map(|e| e.sequence()).collect::<Vec<_>>(),
        [1, 2]
    );
    let batch_id = |sequence| {
        let (headers, _) = Raw::connect(&server).message("NENJIM_older", sequence);
        headers
            .into_iter()
            .find(|(k, _)| k == "Nats-Batch-Id")
            .map(|(_, v)| v)
    };
    assert_eq!(batch_id(2), None);
    // A writer upgrades the stream; its batch is one atomic publish.
    let mut w = writer(&nats);
    assert!(nats.ledger().unwrap().atomic_batches().unwrap());
    let texts: Vec<String> = (0..3)
        .map(|i| bare_genesis(&format!("lib-{i}"), &ts(1)))
        .collect();
    let batch: Vec<&str> = texts.iter().map(String::as_str).collect();
    let sequences: Vec<u64> = w
        .append_batch(&batch)
        .unwrap()
        .iter()
        .map(|a| a.sequence())
        .collect();
    assert_eq!(sequences, [3, 4, 5]);
    w.close().unwrap();
    let id = batch_id(4);
    assert!(id.is_some());
    assert_eq!(batch_id(3), id);
    assert_eq!(batch_id(5), id);
    let (state, tip) = loaded(&nats);
    assert_eq!((tip, state.len()), (5, 3));
}
