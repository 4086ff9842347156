//! The JetStream layer against a real `nats-server -js` (started by the
//! tests on 127.0.0.1, stopped by PID; a test fails when it cannot be had).

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_nats::{CommitError, NatsLedger, NatsRoot};
use nenjim_journal_store::ledger::{Entry, Record, RevisionPointer};
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::texts::{genesis, successor, ts};

/// The root `name` on `server`, without credentials from the environment.
pub(crate) fn root(server: &NatsServer, name: &str) -> NatsRoot {
    NatsRoot::parse_with_env(&server.root(name), Vec::<(String, String)>::new()).unwrap()
}

/// A connected ledger whose stream and buckets exist.
pub(crate) fn created(root: &NatsRoot) -> NatsLedger {
    let ledger = root.ledger().unwrap();
    ledger.create().unwrap();
    ledger
}

/// The `REVISION` record of `text` (its coordinate and version given):
/// the one the tests of every module commit by hand.
pub(crate) fn record(coordinate: &str, version: &str, text: &[u8]) -> Record {
    Record::Revision(RevisionPointer::new(
        coordinate.parse().unwrap(),
        version.parse().unwrap(),
        text.len() as u64,
        RevisionDigest::of_bytes(text),
    ))
}

/// Commits the revision `text` of `left-pad` at `version` after `tip`.
fn commit(ledger: &NatsLedger, tip: u64, version: &str, text: &str) -> Entry {
    ledger
        .commit_at(
            tip,
            record("left-pad", version, text.as_bytes()),
            Some(text.as_bytes()),
        )
        .unwrap()
}

/// Every entry and revision of `ledger`, read in batches of `batch`.
fn everything(ledger: &NatsLedger, batch: usize) -> Vec<(Entry, Option<Vec<u8>>)> {
    let mut all = Vec::new();
    loop {
        let after = all.len() as u64;
        let read = ledger.read_after(after, batch).unwrap();
        if read.is_empty() {
            return all;
        }
        assert!(read.len() <= batch);
        for message in read {
            let (entry, revision) = message.into_parts();
            all.push((entry, revision.map(|b| b.to_vec())));
        }
    }
}

/// Three revisions of `left-pad`: texts and versions.
fn chain() -> Vec<(String, String)> {
    let v: Vec<String> = (1..=3).map(ts).collect();
    let g = genesis("left-pad", &v[0], &["1.0.0"]);
    let s1 = successor(&g, "left-pad", &v[1], &["1.0.0", "1.1.0"]);
    let s2 = successor(&s1, "left-pad", &v[2], &["1.0.0", "1.1.0", "2.0.0"]);
    vec![(v[0].clone(), g), (v[1].clone(), s1), (v[2].clone(), s2)]
}

#[test]
fn committed_entries_read_back_in_batches_with_their_revisions() {
    let server = NatsServer::start();
    let root = root(&server, "main");
    let ledger = created(&root);
    assert_eq!(ledger.tip().unwrap(), 0);
    assert!(ledger.read_after(0, 10).unwrap().is_empty());
    let chain = chain();
    let e1 = commit(&ledger, 0, &chain[0].0, &chain[0].1);
    let fence = ledger
        .commit_at(1, Record::Fence { epoch: 2 }, None)
        .unwrap();
    let e3 = commit(&ledger, 2, &chain[1].0, &chain[1].1);
    let e4 = commit(&ledger, 3, &chain[2].0, &chain[2].1);
    assert_eq!(
        [
            e1.sequence(),
            fence.sequence(),
            e3.sequence(),
            e4.sequence()
        ],
        [1, 2, 3, 4]
    );
    assert_eq!(ledger.tip().unwrap(), 4);

    // Another connection reads the same entries, in any batch size, and
    // the revisions' exact bytes.
    let reader = root.ledger().unwrap();
    for batch in [1, 3, 100] {
        let all = everything(&reader, batch);
        let entries: Vec<&Entry> = all.iter().map(|(e, _)| e).collect();
        assert_eq!(entries, [&e1, &fence, &e3, &e4]);
        assert_eq!(all[0].1.as_deref(), Some(chain[0].1.as_bytes()));
        assert_eq!(all[1].1, None);
        assert_eq!(all[3].1.as_deref(), Some(chain[2].1.as_bytes()));
    }
    let middle = reader.read_after(1, 2).unwrap();
    assert_eq!(
        middle.iter().map(|m| m.entry().clone()).collect::<Vec<_>>(),
        [fence.clone(), e3.clone()]
    );
    assert!(reader.read_after(4, 10).unwrap().is_empty());
    let ahead = reader.read_after(5, 10).unwrap_err();
    assert_eq!(ahead.kind(), ErrorKind::LedgerMismatch, "{ahead}");

    // The record line is the directory ledger's.
    assert_eq!(fence.to_string(), "2 FENCE 2");
}

/// The reader takes each message's stream sequence from its reply
/// subject without parsing the rest of it (`ledger::stream_sequence`):
/// on a server's own messages it reads what async-nats's `Message::info`
/// reads, from any start, fences and revisions alike; and it refuses a
/// subject that is not a `$JS.ACK` one of either form (ADR-15).
#[test]
fn the_stream_sequence_of_a_message_is_the_one_async_nats_reads() {
    let server = NatsServer::start();
    let root = root(&server, "main");
    let ledger = created(&root);
    let mut tip = 0;
    for (version, text) in chain() {
        tip = commit(&ledger, tip, &version, &text).sequence();
        tip = ledger
            .commit_at(tip, Record::Fence { epoch: tip }, None)
            .unwrap()
            .sequence();
    }
    let raw = raw::Raw::connect(&server);
    let stream = &ledger.names().stream;
    for start in [1, 2, 5] {
        let read = raw.sequences(stream, start, 7 - start as usize);
        let expected: Vec<(Option<u64>, u64)> = (start..=6).map(|s| (Some(s), s)).collect();
        assert_eq!(read, expected, "from {start}");
    }
    let message = |reply: &str| async_nats::Message {
        subject: "nenjim.main.ledger".into(),
        reply: Some(reply.into()),
        payload: Default::default(),
        headers: None,
        status: None,
        description: None,
        length: 0,
    };
    let sequence = |reply: &str| nenjim_journal_nats::ledger::stream_sequence(&message(reply));
    // ADR-15's two forms: 7 tokens after the prefix, and 9 or more.
    assert_eq!(
        sequence("$JS.ACK.S.C.1.42.7.1700000000000000000.0"),
        Some(42)
    );
    assert_eq!(
        sequence("$JS.ACK.hub.ACC.S.C.1.43.7.1700000000000000000.0.tok"),
        Some(43)
    );
    assert_eq!(
        sequence("$JS.ACK._.ACC.S.C.1.44.7.1700000000000000000.0"),
        Some(44)
    );
    for refused in [
        "$JS.ACK.S.C.1.x.7.1700000000000000000.0",
        "$JS.ACK.S.C.1.42.7.1700000000000000000",
        "$JS.ACK.S.C.1.42.7.17.0.1",
        "$JS.NAK.S.C.1.42.7.1700000000000000000.0",
        "_INBOX.abc",
    ] {
        assert_eq!(sequence(refused), None, "{refused}");
    }
    assert_eq!(
        nenjim_journal_nats::ledger::stream_sequence(&async_nats::Message {
            reply: None,
            ..message("$JS.ACK.S.C.1.42.7.1700000000000000000.0")
        }),
        None
    );
}

#[test]
fn a_root_without_its_stream_is_missing_and_loading_creates_nothing() {
    let server = NatsServer::start();
    let ledger = root(&server, "absent").ledger().unwrap();
    assert!(!ledger.exists().unwrap());
    let e = ledger.read_after(0, 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RootMissing, "{e}");
    assert!(e.message().contains("NENJIM_absent"), "{e}");
    assert!(!ledger.exists().unwrap());
}

#[test]
fn a_commit_with_bytes_that_differ_from_its_record_is_refused_and_stores_nothing() {
    let server = NatsServer::start();
    let ledger = created(&root(&server, "main"));
    let text = genesis("left-pad", &ts(1), &[]);
    let other = genesis("left-pad", &ts(2), &[]);
    let refused = ledger.commit_at(
        0,
        record("left-pad", &ts(1), text.as_bytes()),
        Some(other.as_bytes()),
    );
    assert!(
        matches!(refused, Err(CommitError::Failed(_))),
        "{refused:?}"
    );
    let refused = ledger.commit_at(0, Record::Fence { epoch: 1 }, Some(b"x"));
    assert!(
        matches!(refused, Err(CommitError::Failed(_))),
        "{refused:?}"
    );
    let refused = ledger.commit_at(0, record("left-pad", &ts(1), text.as_bytes()), None);
    assert!(
        matches!(refused, Err(CommitError::Failed(_))),
        "{refused:?}"
    );
    assert_eq!(ledger.tip().unwrap(), 0);
}

#[test]
fn of_two_racing_committers_one_wins_and_the_other_gets_tip_moved() {
    let server = NatsServer::start();
    let root = root(&server, "race");
    created(&root);
    for round in 0..10u32 {
        let a = root.ledger().unwrap();
        let b = root.ledger().unwrap();
        let tip = a.tip().unwrap();
        let barrier = Arc::new(Barrier::new(2));
        let racers: Vec<_> = [(a, 2 * round), (b, 2 * round + 1)]
            .into_iter()
            .map(|(ledger, k)| {
                let barrier = Arc::clone(&barrier);
                thread::spawn(move || {
                    let version = ts(k);
                    let text = genesis("left-pad", &version, &[]);
                    barrier.wait();
                    let outcome = ledger.commit_at(
                        tip,
                        record("left-pad", &version, text.as_bytes()),
                        Some(text.as_bytes()),
                    );
                    (ledger, outcome)
                })
            })
            .collect();
        let outcomes: Vec<_> = racers.into_iter().map(|t| t.join().unwrap()).collect();
        let won: Vec<&Entry> = outcomes
            .iter()
            .filter_map(|(_, o)| o.as_ref().ok())
            .collect();
        assert_eq!(won.len(), 1, "round {round}: {outcomes:?}");
        let winner = won[0].clone();
        assert_eq!(winner.sequence(), tip + 1);
        let (loser, lost) = outcomes.iter().find(|(_, o)| o.is_err()).unwrap();
        match lost {
            Err(CommitError::TipMoved {
                tip: found_tip,
                found,
            }) => {
                assert_eq!(*found_tip, tip + 1);
                assert_eq!(found.as_ref(), Some(&winner));
            }
            other => panic!("round {round}: {other:?}"),
        }
        // Nothing of the loser's is stored: the ledger holds the winner's entry once.
        assert_eq!(loser.tip().unwrap(), tip + 1);
        let read = loser.read_after(tip, 10).unwrap();
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].entry(), &winner);
    }
    assert_eq!(everything(&root.ledger().unwrap(), 100).len(), 10);
}

#[test]
fn a_resent_commit_is_stored_once_and_another_committers_is_not_taken_for_it() {
    let server = NatsServer::start();
    let root = root(&server, "dedup");
    let ledger = created(&root);
    let (version, text) = chain().remove(0);
    let first = commit(&ledger, 0, &version, &text);
    // The same handle sends the same commit again (its answer was lost,
    // say): the same Nats-Msg-Id, answered with the first's sequence.
    let again = commit(&ledger, 0, &version, &text);
    assert_eq!(again, first);
    assert_eq!(ledger.tip().unwrap(), 1);
    // Another handle with the same record is another committer: it lost.
    let other = root.ledger().unwrap();
    let outcome = other.commit_at(
        0,
        record("left-pad", &version, text.as_bytes()),
        Some(text.as_bytes()),
    );
    assert!(
        matches!(outcome, Err(CommitError::TipMoved { tip: 1, .. })),
        "{outcome:?}"
    );
    assert_eq!(everything(&other, 10).len(), 1);
}

/// A revision text of about `bytes` bytes (a long description).
fn large_revision(version: &str, bytes: usize) -> String {
    let mut text = genesis("left-pad", version, &[]);
    text.push_str("# ");
    text.push_str(&"x".repeat(bytes));
    text.push('\n');
    text
}

#[test]
fn a_revision_over_the_inline_limit_travels_as_a_checked_blob() {
    let server = NatsServer::start();
    let small = root(&server, "blobs").inline_limit(1024);
    let ledger = created(&small);
    assert_eq!(ledger.inline_limit(), 1024);
    let inline = genesis("left-pad", &ts(1), &[]);
    assert!(inline.len() <= 1024);
    let large = large_revision(&ts(2), 5000);
    commit(&ledger, 0, &ts(1), &inline);
    commit(&ledger, 1, &ts(2), &large);
    let reader = small.clone().inline_limit(1 << 20).ledger().unwrap();
    let all = everything(&reader, 10);
    assert_eq!(all[0].1.as_deref(), Some(inline.as_bytes()));
    assert_eq!(all[1].1.as_deref(), Some(large.as_bytes()));

    // The message carries a pointer, not the bytes; the object is the revision.
    let raw = raw::Raw::connect(&server);
    let (headers, body) = raw.message("NENJIM_blobs", 2);
    let key = headers
        .iter()
        .find(|(k, _)| k == "Nenjim-Blob")
        .map(|(_, v)| v.clone())
        .unwrap();
    assert_eq!(
        key,
        format!(
            "revisions/sha256/{}",
            RevisionDigest::of_text(&large)
                .to_string()
                .trim_start_matches("sha256:")
        )
    );
    assert!(body.is_empty());
    assert_eq!(raw.object("NENJIM_blobs_blobs", &key), large.as_bytes());
    let (_, body) = raw.message("NENJIM_blobs", 1);
    assert_eq!(body, inline.as_bytes());

    // A blob that no longer matches its pointer is refused on read.
    raw.put_object("NENJIM_blobs_blobs", &key, &large.as_bytes()[1..]);
    let e = reader.read_after(1, 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LedgerMismatch, "{e}");
    assert!(e.message().contains("bytes"), "{e}");
    let mut altered = large.clone().into_bytes();
    altered[10] ^= 1;
    raw.put_object("NENJIM_blobs_blobs", &key, &altered);
    let e = reader.read_after(1, 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LedgerMismatch, "{e}");
    assert!(e.message().contains("SHA-256"), "{e}");
    raw.delete_object("NENJIM_blobs_blobs", &key);
    let e = reader.read_after(1, 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LedgerMismatch, "{e}");
    // The entry before it still reads.
    assert_eq!(reader.read_after(0, 1).unwrap().len(), 1);
}

#[test]
fn by_default_a_revision_over_the_servers_message_limit_goes_through_the_blob_bucket() {
    let server = NatsServer::start();
    let root = root(&server, "big");
    let ledger = created(&root);
    // The server's max_payload is 1 MiB: the limit stays under it.
    assert_eq!(
        ledger.inline_limit(),
        (1 << 20) - nenjim_journal_nats::ledger::HEADER_ROOM
    );
    let large = large_revision(&ts(1), (1 << 20) + 100);
    commit(&ledger, 0, &ts(1), &large);
    let all = everything(&root.ledger().unwrap(), 10);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].1.as_deref(), Some(large.as_bytes()));
}

#[test]
fn a_message_whose_bytes_differ_from_its_record_is_a_ledger_mismatch() {
    let server = NatsServer::start();
    let root = root(&server, "tamper");
    let ledger = created(&root);
    let text = genesis("left-pad", &ts(1), &[]);
    commit(&ledger, 0, &ts(1), &text);
    let raw = raw::Raw::connect(&server);
    // Published around the ledger: a record of another sequence, bytes
    // that differ, no record at all.
    raw.publish(
        "nenjim.tamper.ledger",
        &[("Nenjim-Record", "5 FENCE 3")],
        b"",
    );
    let e = ledger.read_after(1, 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LedgerMismatch, "{e}");
    assert!(e.message().contains("sequence 2"), "{e}");
    let root2 =
        NatsRoot::parse_with_env(&server.root("tamper2"), Vec::<(String, String)>::new()).unwrap();
    let ledger2 = created(&root2);
    let line = Entry::new(1, record("left-pad", &ts(1), text.as_bytes())).to_string();
    raw.publish(
        "nenjim.tamper2.ledger",
        &[("Nenjim-Record", &line)],
        &text.as_bytes()[1..],
    );
    let e = ledger2.read_after(0, 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LedgerMismatch, "{e}");
    let root3 =
        NatsRoot::parse_with_env(&server.root("tamper3"), Vec::<(String, String)>::new()).unwrap();
    let ledger3 = created(&root3);
    raw.publish("nenjim.tamper3.ledger", &[], text.as_bytes());
    let e = ledger3.read_after(0, 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LedgerMismatch, "{e}");
    assert!(e.message().contains("Nenjim-Record"), "{e}");
}

/// The bytes `text` with its first `from` replaced by `to` (same size).
fn altered(text: &str, from: &str, to: &str) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    assert!(text.contains(from), "{text}");
    text.replacen(from, to, 1).into_bytes()
}

/// The public commit takes bytes from anyone: it checks their size and
/// SHA-256 against the record, and commits nothing of a batch holding bytes
/// that differ (the writer's seam commit, whose pointer is its parse's
/// digest of the bytes, checks their size alone).
#[test]
fn a_commit_or_a_batch_checks_the_given_bytes_size_and_sha256() {
    let server = NatsServer::start();
    let root = root(&server, "given");
    let ledger = created(&root);
    let text = genesis("left-pad", &ts(1), &["1.0.0"]);
    let flipped = altered(&text, "test artifact", "test artifacT");
    let record = || record("left-pad", &ts(1), text.as_bytes());
    match ledger.commit_at(0, record(), Some(&flipped)) {
        Err(CommitError::Failed(e)) => {
            assert_eq!(e.kind(), ErrorKind::Io, "{e}");
            assert!(e.message().contains("SHA-256"), "{e}");
        }
        other => panic!("expected a refusal, found {other:?}"),
    }
    match ledger.commit_at(0, record(), Some(&text.as_bytes()[1..])) {
        Err(CommitError::Failed(e)) => assert!(e.message().contains("bytes"), "{e}"),
        other => panic!("expected a refusal, found {other:?}"),
    }
    let next = successor(&text, "left-pad", &ts(2), &["1.0.0", "1.1.0"]);
    let next_flipped = altered(&next, "test artifact", "test artifacT");
    let (committed, stopped) = ledger.commit_batch_at(
        0,
        vec![
            (record(), Some(text.as_bytes())),
            (
                crate::jetstream::record("left-pad", &ts(2), next.as_bytes()),
                Some(&next_flipped),
            ),
        ],
    );
    assert!(committed.is_empty(), "{committed:?}");
    match stopped {
        Some(CommitError::Failed(e)) => assert!(e.message().contains("SHA-256"), "{e}"),
        other => panic!("expected a refusal, found {other:?}"),
    }
    assert_eq!(ledger.tip().unwrap(), 0, "nothing was committed");
    // The bytes of the record commit.
    commit(&ledger, 0, &ts(1), &text);
    assert_eq!(ledger.tip().unwrap(), 1);
}

/// A message whose bytes have the record's size but not its SHA-256 is
/// refused by every reader with `LedgerMismatch`: the ledger's own read
/// (which hashes them), and a start, a refresh and the loader over the
/// seam (whose read checks their size and leaves the SHA-256 to the
/// loader, which compares its parse's digest: each revision hashed once),
/// whether the altered bytes still parse or not.
#[test]
fn a_message_whose_bytes_differ_from_its_record_is_refused_by_every_reader() {
    let server = NatsServer::start();
    let raw = raw::Raw::connect(&server);
    let first = genesis("left-pad", &ts(1), &["1.0.0"]);
    let next = successor(&first, "left-pad", &ts(2), &["1.0.0", "1.1.0"]);
    for (name, from, to) in [
        ("flip-parses", "test artifact", "test artifacT"),
        ("flip-breaks", "FORMAT", "GORMAT"),
    ] {
        let root = root(&server, name);
        let ledger = created(&root);
        commit(&ledger, 0, &ts(1), &first);
        // A start and a refresh later: the tampered entry comes after.
        let assembly = root.assembly();
        assembly.process().start().unwrap();
        let line = Entry::new(2, record("left-pad", &ts(2), next.as_bytes())).to_string();
        raw.publish(
            &format!("nenjim.{name}.ledger"),
            &[("Nenjim-Record", &line)],
            &altered(&next, from, to),
        );
        let e = ledger.read_after(0, 10).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LedgerMismatch, "{name}: {e}");
        assert!(e.message().contains("SHA-256"), "{name}: {e}");

        let e = assembly.manager().refresh().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LedgerMismatch, "{name}: {e}");
        let e = root.assembly().process().start().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LedgerMismatch, "{name}: {e}");

        let backend = nenjim_journal_nats::NatsBackend::connect(&root).unwrap();
        let e = nenjim_journal_fs::load_recorded(&*backend, &*backend, backend.root_path())
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LedgerMismatch, "{name}: {e}");
        // Named as the revision it is, with the digest its bytes have.
        let path = e.path().map(|p| p.to_string_lossy().into_owned());
        assert_eq!(
            path.as_deref(),
            Some(format!("{}/left-pad/{}.journal", server.root(name), ts(2)).as_str()),
            "{name}: {e}"
        );
        let found = RevisionDigest::of_bytes(&altered(&next, from, to));
        assert!(e.message().contains(&found.to_string()), "{name}: {e}");
        assert!(
            e.message()
                .contains(&RevisionDigest::of_bytes(next.as_bytes()).to_string()),
            "{name}: {e}"
        );
    }
}

/// A reader's consumers go with it: the ledger read by one handle (a
/// command's start) leaves no consumer on the server once the handle is
/// dropped, rather than one lingering for the client's 30 s.
#[test]
fn a_dropped_reader_leaves_no_consumer_behind() {
    let server = NatsServer::start();
    let root = root(&server, "tidy");
    let ledger = created(&root);
    commit(&ledger, 0, &ts(1), &genesis("left-pad", &ts(1), &[]));
    let raw = raw::Raw::connect(&server);
    let reader = root.ledger().unwrap();
    assert_eq!(reader.read_after(0, 10).unwrap().len(), 1);
    let mut follower = reader.follow(1).unwrap();
    assert!(
        follower
            .next_timeout(Some(Duration::from_millis(10)))
            .unwrap()
            .is_none()
    );
    assert!(raw.consumer_count("NENJIM_tidy") >= 1);
    drop(follower);
    drop(reader);
    assert_eq!(raw.consumer_count("NENJIM_tidy"), 0);
}

/// A record that sizes its revision over the loader's 64 MiB limit is
/// refused before its blob is read (a hostile store cannot make a reader
/// fetch a huge object first).
#[test]
fn a_record_sizing_its_revision_over_the_limit_is_too_large_before_its_blob_is_read() {
    let server = NatsServer::start();
    let root = root(&server, "huge");
    let ledger = created(&root);
    let raw = raw::Raw::connect(&server);
    let size = nenjim_journal_fs::MAX_FILE_LEN + 1;
    let pointer = RevisionPointer::new(
        "left-pad".parse().unwrap(),
        ts(1).parse().unwrap(),
        size,
        RevisionDigest::of_bytes(b"whatever"),
    );
    let line = Entry::new(1, Record::Revision(pointer)).to_string();
    // The revision's own blob key, holding a small object: only the
    // record's size says huge.
    let key = format!(
        "revisions/sha256/{}",
        RevisionDigest::of_bytes(b"whatever").to_hex()
    );
    raw.put_object("NENJIM_huge_blobs", &key, b"small");
    raw.publish(
        "nenjim.huge.ledger",
        &[("Nenjim-Record", &line), ("Nenjim-Blob", &key)],
        b"",
    );
    let e = ledger.read_after(0, 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooLarge, "{e}");
    assert!(e.message().contains("is not read"), "{e}");
}

#[test]
fn the_lease_is_held_released_taken_over_and_the_old_holder_fenced() {
    let server = NatsServer::start();
    let root = root(&server, "lease");
    let ledger = created(&root);
    let ttl = Duration::from_secs(60);
    let mut a = ledger.lease().unwrap();
    assert!(a.read().unwrap().is_none());
    let got = a.acquire(ttl).unwrap();
    assert_eq!((got.epoch, got.taken_over), (1, false));
    a.renew(ttl).unwrap();

    // A second writer, on another connection, is refused while it is live.
    let other = root.ledger().unwrap();
    let mut b = other.lease().unwrap();
    let e = b.acquire(ttl).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LeaseHeld, "{e}");
    assert!(e.message().contains("epoch 1"), "{e}");

    // Released: taken as it is (next epoch, no takeover, no fence needed).
    a.release().unwrap();
    let got = b.acquire(Duration::ZERO).unwrap();
    assert_eq!((got.epoch, got.taken_over), (2, false));
    let tip = commit(&other, 0, &ts(1), &genesis("left-pad", &ts(1), &[])).sequence();

    // b's lease (of no time at all) has expired: c takes it over and fences.
    let third = root.ledger().unwrap();
    let mut c = third.lease().unwrap();
    let got = c.acquire(ttl).unwrap();
    assert_eq!((got.epoch, got.taken_over), (3, true));
    let fence = c.fence_ledger().unwrap();
    assert_eq!(fence, Entry::new(tip + 1, Record::Fence { epoch: 3 }));

    // b's next commit, at the tip it knew, fails: the fence is there.
    let text = genesis("right-pad", &ts(2), &[]);
    let refused = other
        .commit_at(
            tip,
            record("right-pad", &ts(2), text.as_bytes()),
            Some(text.as_bytes()),
        )
        .unwrap_err();
    let e = refused.into_error(&other, tip + 1, b.epoch());
    assert_eq!(e.kind(), ErrorKind::LeaseLost, "{e}");
    assert!(e.message().contains("epoch 3"), "{e}");
    let e = b.renew(ttl).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LeaseLost, "{e}");
    // b giving back a lease it no longer holds leaves c's alone.
    b.release().unwrap();
    let (lease, _) = c.read().unwrap().unwrap();
    assert_eq!((lease.epoch(), lease.expires() > 0), (3, true));
    c.renew(ttl).unwrap();
    assert_eq!(third.tip().unwrap(), tip + 1);
}

#[test]
fn sequences_and_revisions_survive_a_server_restart() {
    let mut server = NatsServer::start();
    let root = root(&server, "durable").inline_limit(1024);
    let before = {
        let ledger = created(&root);
        let chain = chain();
        commit(&ledger, 0, &chain[0].0, &chain[0].1);
        ledger
            .commit_at(1, Record::Fence { epoch: 2 }, None)
            .unwrap();
        commit(&ledger, 2, &chain[1].0, &chain[1].1);
        commit(&ledger, 3, &ts(9), &large_revision(&ts(9), 3000));
        everything(&ledger, 10)
    };
    server.restart();
    let ledger = root.ledger().unwrap();
    assert_eq!(ledger.tip().unwrap(), 4);
    assert_eq!(everything(&ledger, 2), before);
    let chain = chain();
    assert_eq!(commit(&ledger, 4, &chain[2].0, &chain[2].1).sequence(), 5);
    let mut lease = ledger.lease().unwrap();
    assert_eq!(lease.acquire(Duration::from_secs(60)).unwrap().epoch, 1);
}

#[test]
fn a_missing_server_fails_the_test_naming_how_to_install_it() {
    let missing = std::path::Path::new("/nonexistent/nats-server");
    let panic = std::panic::catch_unwind(|| NatsServer::start_with(missing)).unwrap_err();
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains(nenjim_journal_testkit::nats::INSTALL),
        "{message}"
    );
    assert!(message.contains("/nonexistent/nats-server"), "{message}");
}

/// Direct access to the server, around the ledger: what a test inspects
/// or damages (the other test modules use it too).
pub(crate) mod raw;

mod follow;

#[test]
fn content_blobs_are_put_once_and_checked_by_size_and_digest() {
    use nenjim_journal_api::valuetypes::{ContentDigest, ContentPointer};
    let server = NatsServer::start();
    let ledger = created(&root(&server, "content"));
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let pointer = ledger.put_blob(&bytes).unwrap();
    assert_eq!(
        pointer,
        ContentPointer::new(ContentDigest::of_bytes(&bytes), bytes.len() as u64)
    );
    assert_eq!(ledger.put_blob(&bytes).unwrap(), pointer);
    let reader = root(&server, "content").ledger().unwrap();
    reader.check_blob(&pointer).unwrap();
    let key = format!("blobs/sha256/{}", pointer.digest().to_hex());
    let raw = raw::Raw::connect(&server);
    assert_eq!(raw.object("NENJIM_content_blobs", &key), bytes);

    let absent = ContentPointer::new(ContentDigest::of_bytes(b"absent"), 6);
    let e = reader.check_blob(&absent).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BlobMissing, "{e}");
    let mut other = bytes.clone();
    other[7] ^= 1;
    raw.put_object("NENJIM_content_blobs", &key, &other);
    let e = reader.check_blob(&pointer).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BlobMismatch, "{e}");
    raw.put_object("NENJIM_content_blobs", &key, &bytes[1..]);
    let e = reader.check_blob(&pointer).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BlobMismatch, "{e}");
    assert!(
        e.message().contains(&format!("{} bytes", bytes.len() - 1)),
        "{e}"
    );
}
