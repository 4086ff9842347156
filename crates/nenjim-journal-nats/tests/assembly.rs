//! The reference Journal over a NATS root (`NatsRoot::assembly`): the same
//! worldview and sequences as a directory holding the same appends, a
//! refresh that reads only what is new, follow cursors fed live by commits
//! of another connection, `stop()`, and a lost server as a typed error.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use nenjim_journal_api::JournalService;
use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::model::{EventChange, JournalRevision, ReplayRequest};
use nenjim_journal_nats::{NatsLedger, NatsRoot};
use nenjim_journal_ref::JournalAssembly;
use nenjim_journal_store::ledger::Entry;
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::texts::{bare_genesis, genesis, restated, successor, ts};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

fn root(server: &NatsServer, name: &str) -> NatsRoot {
    NatsRoot::parse_with_env(&server.root(name), Vec::<(String, String)>::new()).unwrap()
}

/// Commits `text` (of `coordinate` at `version`) after `tip` on `ledger`.
fn commit(ledger: &NatsLedger, tip: u64, coordinate: &str, version: &str, text: &str) -> Entry {
    let record = crate::jetstream::record(coordinate, version, text.as_bytes());
    ledger
        .commit_at(tip, record, Some(text.as_bytes()))
        .unwrap()
}

/// Four revisions of two artifacts, in append order.
fn appends() -> Vec<(&'static str, String, String)> {
    let a1 = genesis("aaa", &ts(1), &["1.0.0"]);
    let b1 = genesis("bbb", &ts(2), &["0.1.0"]);
    let a2 = successor(&a1, "aaa", &ts(3), &["1.0.0", "1.1.0"]);
    let b2 = successor(&b1, "bbb", &ts(4), &["0.1.0", "0.2.0"]);
    vec![
        ("aaa", ts(1), a1),
        ("bbb", ts(2), b1),
        ("aaa", ts(3), a2),
        ("bbb", ts(4), b2),
    ]
}

fn started(assembly: &JournalAssembly) -> std::sync::Arc<dyn JournalService> {
    assembly.process().start().unwrap();
    assembly.service()
}

/// Every revision of `service`, as (sequence, coordinate, version, digest).
fn worldview(service: &dyn JournalService) -> Vec<(u64, String, String, String)> {
    let mut all = Vec::new();
    for coordinate in service.coordinates().unwrap() {
        for revision in service.revisions(&coordinate).unwrap() {
            all.push(row(&revision));
        }
    }
    all.sort();
    all
}

fn row(revision: &JournalRevision) -> (u64, String, String, String) {
    (
        revision.sequence(),
        revision.coordinate().to_string(),
        revision.journal_version().to_string(),
        revision.digest().to_string(),
    )
}

#[test]
fn a_nats_root_loads_and_refreshes_to_the_worldview_of_a_directory() {
    let server = NatsServer::start();
    let nats = root(&server, "same");
    let ledger = nats.ledger().unwrap();
    ledger.create().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(dir.path(), WriterOptions::new()).unwrap();
    let mut tip = 0;
    let all = appends();
    for (coordinate, version, text) in &all[..2] {
        tip = commit(&ledger, tip, coordinate, version, text).sequence();
        writer.append(text).unwrap();
    }
    let assembly = nats.assembly();
    let service = started(&assembly);
    assert_eq!(
        assembly.manager().journal_root().to_string_lossy(),
        server.root("same")
    );
    for (coordinate, version, text) in &all[2..] {
        tip = commit(&ledger, tip, coordinate, version, text).sequence();
        writer.append(text).unwrap();
    }
    let report = assembly.manager().refresh().unwrap();
    assert_eq!((report.ingested(), report.unchanged()), (2, 2));
    let directory = JournalAssembly::new(dir.path());
    let from_dir = started(&directory);
    assert_eq!(worldview(&*service), worldview(&*from_dir));
    assert_eq!(worldview(&*service).len(), 4);
    // A second start in another assembly gives the same sequences.
    let again = nats.assembly();
    assert_eq!(worldview(&*started(&again)), worldview(&*from_dir));
    // Nothing new: a refresh ingests nothing.
    assert_eq!(assembly.manager().refresh().unwrap().ingested(), 0);
}

#[test]
fn a_root_no_writer_created_is_root_missing() {
    let server = NatsServer::start();
    let assembly = root(&server, "nobody").assembly();
    let e = assembly.process().start().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RootMissing, "{e}");
    assert!(e.to_string().contains("nobody"), "{e}");
}

#[test]
fn a_follow_cursor_sees_each_commit_of_another_connection_once_and_in_order() {
    let server = NatsServer::start();
    let nats = root(&server, "live");
    let ledger = nats.ledger().unwrap();
    ledger.create().unwrap();
    let all = appends();
    commit(&ledger, 0, all[0].0, &all[0].1, &all[0].2);
    let assembly = nats.assembly();
    let service = started(&assembly);
    let mut revisions = service
        .replay(&ReplayRequest::after(0).follow(true))
        .unwrap();
    let mut events = service
        .replay_events(&ReplayRequest::after(1).follow(true))
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = thread::spawn(move || {
        let mut seen = Vec::new();
        for _ in 0..4 {
            seen.push(row(&revisions.next().unwrap().unwrap()));
            tx.send(()).unwrap();
        }
        // Nothing more arrives: the cursor says so and stays usable.
        let none = revisions.next_timeout(Duration::from_millis(20)).unwrap();
        (seen, none.is_none())
    });
    // Another connection (a writer elsewhere) commits the rest.
    let other = nats.ledger().unwrap();
    let mut tip = 1;
    for (coordinate, version, text) in &all[1..] {
        tip = commit(&other, tip, coordinate, version, text).sequence();
    }
    for _ in 0..4 {
        rx.recv().unwrap();
    }
    let (seen, drained) = reader.join().unwrap();
    assert!(drained);
    let sequences: Vec<u64> = seen.iter().map(|r| r.0).collect();
    assert_eq!(sequences, vec![1, 2, 3, 4]);
    // The events of 2..4: bbb created, published; aaa 1.1.0; bbb 0.2.0.
    let mut changes = Vec::new();
    for _ in 0..4 {
        let event = events.next().unwrap().unwrap();
        let what = match event.change() {
            EventChange::ArtifactCreated => "created".to_owned(),
            EventChange::ReleasePublished(r) => format!("published {}", r.version()),
            other => format!("{other:?}"),
        };
        changes.push((event.sequence(), event.coordinate().to_string(), what));
    }
    assert!(
        events
            .next_timeout(Duration::from_millis(20))
            .unwrap()
            .is_none()
    );
    assert_eq!(
        changes,
        vec![
            (2, "bbb".into(), "created".into()),
            (2, "bbb".into(), "published 0.1.0".into()),
            (3, "aaa".into(), "published 1.1.0".into()),
            (4, "bbb".into(), "published 0.2.0".into()),
        ]
    );
    // Following published nothing.
    assert_eq!(worldview(&*service).len(), 1);
}

#[test]
fn stop_releases_a_blocked_follow_cursor_with_stopped() {
    let server = NatsServer::start();
    let nats = root(&server, "stopping");
    nats.ledger().unwrap().create().unwrap();
    let assembly = nats.assembly();
    let service = started(&assembly);
    let mut cursor = service
        .replay(&ReplayRequest::after(0).follow(true))
        .unwrap();
    let blocked = thread::spawn(move || cursor.next().map(|r| r.map(|r| r.sequence())));
    assembly.process().stop().unwrap();
    let e = blocked.join().unwrap().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Stopped, "{e}");
}

#[test]
fn a_server_lost_under_a_follow_cursor_is_a_typed_error_never_an_end() {
    let mut server = NatsServer::start();
    let nats = root(&server, "lost")
        .max_reconnects(2)
        .reconnect_delay(Duration::from_millis(20))
        .request_timeout(Duration::from_secs(2));
    nats.ledger().unwrap().create().unwrap();
    let assembly = nats.assembly();
    let service = started(&assembly);
    let mut cursor = service
        .replay_events(&ReplayRequest::after(0).follow(true))
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let blocked = thread::spawn(move || {
        tx.send(()).unwrap();
        cursor.next().map(|e| e.map(|e| e.sequence()))
    });
    rx.recv().unwrap();
    server.stop();
    let e = blocked.join().unwrap().unwrap_err();
    // The server gone for good: retry later (was `Io` before outages
    // became `Unavailable`).
    assert_eq!(e.kind(), ErrorKind::Unavailable, "{e}");
}

#[test]
fn a_signed_nats_root_starts_and_refreshes_with_its_verifier_and_refuses_another_key() {
    use nenjim_journal_ref::LoadOptions;
    let server = NatsServer::start();
    let nats = root(&server, "signed");
    let (key, verifier) = nenjim_journal_testkit::signed::key("hub.example", 3);
    let mut writer = nats.writer(WriterOptions::new().signing_key(&key)).unwrap();
    // Texts without releases: the writer's content store (the root's
    // bucket) holds no blob.
    let a1 = bare_genesis("aaa", &ts(1));
    let all = [
        a1.clone(),
        bare_genesis("bbb", &ts(2)),
        restated(&a1, &ts(3), ""),
        bare_genesis("ccc", &ts(4)),
    ];
    for text in &all[..2] {
        writer.append(text).unwrap();
    }
    let assembly = nats.assembly_with(LoadOptions::new().verifier(&verifier));
    let service = started(&assembly);
    assert_eq!(worldview(&*service).len(), 2);
    for text in &all[2..] {
        writer.append(text).unwrap();
    }
    writer.close().unwrap();
    let report = assembly.manager().refresh().unwrap();
    assert_eq!(report.ingested(), 2);
    // Another key: nothing is published.
    let (_, other) = nenjim_journal_testkit::signed::key("hub.example", 4);
    let refused = nats.assembly_with(LoadOptions::new().verifier(&other));
    let e = refused.process().start().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CheckpointInvalid, "{e}");
    assert_eq!(
        refused.service().coordinates().unwrap_err().kind(),
        ErrorKind::NotStarted
    );
}
