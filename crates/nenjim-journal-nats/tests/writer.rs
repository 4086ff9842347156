//! The writer of a NATS root (`NatsRoot::writer` over the seam's writer
//! and a `NatsBackend`) and a reader loading it through the same backend:
//! the bucket writer's scenarios, on a real `nats-server -js`.

use std::collections::BTreeMap;
use std::time::Duration;

use nenjim_journal_api::append::JournalWriter;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::valuetypes::{ContentDigest, ContentPointer, RevisionDigest};
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::LoadOptions;
use nenjim_journal_nats::{Lease, NatsBackend, NatsJournalWriter, NatsRoot};

use crate::jetstream::raw::Raw;
use nenjim_journal_store::ledger::Record;
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::texts::{Root, bare_genesis, ts};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

/// The root `name` on `server`, without credentials from the environment.
pub(crate) fn root(server: &NatsServer, name: &str) -> NatsRoot {
    NatsRoot::parse_with_env(&server.root(name), Vec::<(String, String)>::new()).unwrap()
}

/// A revision of `coordinate` at `version` after `previous` (or a
/// genesis), releasing each `(version, content)`.
pub(crate) fn text(
    coordinate: &str,
    version: &str,
    previous: Option<&str>,
    releases: &[(&str, ContentPointer)],
) -> String {
    let mut text =
        format!("FORMAT nenjim-journal/1\nARTIFACT {coordinate}\nJOURNAL_VERSION {version}\n");
    match previous {
        None => text.push_str("PREDECESSOR GENESIS\n"),
        Some(p) => text.push_str(&format!("PREDECESSOR {}\n", RevisionDigest::of_text(p))),
    }
    text.push_str(&format!("DESCRIPTION \"{coordinate}\"\n"));
    for (release, content) in releases {
        text.push_str(&format!(
            "RELEASE {release}\n  LICENSE MIT\n  CONTENT {} {}\n",
            content.digest(),
            content.size()
        ));
    }
    text
}

/// Every revision a state holds: (sequence, coordinate, version, digest).
pub(crate) fn worldview(state: &ChainState) -> Vec<(u64, String, String, String)> {
    let mut cursor = state.replay(0);
    let mut rows = Vec::new();
    while let Some(r) = cursor.next().unwrap() {
        rows.push((
            r.sequence(),
            r.coordinate().to_string(),
            r.journal_version().to_string(),
            r.digest().to_string(),
        ));
    }
    rows
}

/// What a reader loads from the root through a backend of its own, and
/// the ledger's tip.
pub(crate) fn loaded(root: &NatsRoot) -> (ChainState, u64) {
    let backend = NatsBackend::connect(root).unwrap();
    nenjim_journal_fs::load_recorded(&*backend, &*backend, backend.root_path())
        .unwrap()
        .unwrap()
}

/// The root's writer, its own blob bucket its content store.
fn writer(root: &NatsRoot) -> NatsJournalWriter {
    root.writer(WriterOptions::new().content_store(root.to_string()))
        .unwrap()
}

/// The same appends, blobs, repeats, fences and batch on a directory (the
/// seam's writer over the local file system) and on a NATS root: the same
/// sequences and outcomes at every step, and the same worldview loaded.
#[test]
fn a_nats_root_takes_the_appends_of_a_directory_with_the_same_sequences_and_worldview() {
    let server = NatsServer::start();
    let nats = root(&server, "same");
    let dir = Root::new();
    let blobs = Root::new();
    let mut on_dir =
        FsJournalWriter::open(dir.path(), WriterOptions::new().content_store(blobs.path()))
            .unwrap();
    let mut on_nats = writer(&nats);

    let first = b"left-pad 1.0.0".as_slice();
    let second = b"left-pad 1.1.0, a little longer".as_slice();
    let (p1, p2) = (
        on_dir.put_blob(first).unwrap(),
        on_dir.put_blob(second).unwrap(),
    );
    assert_eq!(on_nats.put_blob(first).unwrap(), p1);
    assert_eq!(on_nats.put_blob(second).unwrap(), p2);
    // A blob put twice is the same pointer (idempotent).
    assert_eq!(on_nats.put_blob(first).unwrap(), p1);

    let g = text("left-pad", &ts(1), None, &[("1.0.0", p1)]);
    let r = bare_genesis("right-pad", &ts(2));
    let s = text(
        "left-pad",
        &ts(3),
        Some(&g),
        &[("1.0.0", p1), ("1.1.0", p2)],
    );
    let a = bare_genesis("a-lib", &ts(4));
    let b = bare_genesis("b-lib", &ts(5));

    // Each step's (sequence, is new) on the directory and on NATS.
    type Outcomes = Vec<(u64, bool)>;
    let mut steps: Vec<(Outcomes, Outcomes)> = Vec::new();
    for t in [&g, &r, &g] {
        let d = on_dir.append(t).unwrap();
        let n = on_nats.append(t).unwrap();
        steps.push((
            vec![(d.sequence(), d.is_new())],
            vec![(n.sequence(), n.is_new())],
        ));
    }
    // Two fences, as a copy keeps a source's gaps.
    on_dir.fence_to(on_dir.tip() + 2).unwrap();
    on_nats.fence_to(on_nats.tip() + 2).unwrap();
    assert_eq!((on_dir.tip(), on_nats.tip()), (4, 4));
    let d = on_dir.append(&s).unwrap();
    let n = on_nats.append(&s).unwrap();
    steps.push((
        vec![(d.sequence(), d.is_new())],
        vec![(n.sequence(), n.is_new())],
    ));
    let batch = [a.as_str(), r.as_str(), b.as_str()];
    let d = on_dir.append_batch(&batch).unwrap();
    let n = on_nats.append_batch(&batch).unwrap();
    let pairs = |v: &[nenjim_journal_api::append::Appended]| {
        v.iter()
            .map(|x| (x.sequence(), x.is_new()))
            .collect::<Vec<_>>()
    };
    steps.push((pairs(&d), pairs(&n)));
    for (d, n) in &steps {
        assert_eq!(d, n);
    }
    assert_eq!(
        steps
            .iter()
            .flat_map(|(d, _)| d.clone())
            .collect::<Vec<_>>(),
        [
            (1, true),
            (2, true),
            (1, false),
            (5, true),
            (6, true),
            (2, false),
            (7, true)
        ]
    );
    assert_eq!(on_dir.tip(), on_nats.tip());
    assert_eq!(worldview(on_dir.state()), worldview(on_nats.state()));
    on_dir.close().unwrap();
    on_nats.close().unwrap();

    // A reader of each root loads the same worldview.
    let from_dir = nenjim_journal_fs::load(dir.path(), LoadOptions::new()).unwrap();
    let (from_nats, tip) = loaded(&nats);
    assert_eq!(tip, 7);
    assert_eq!(worldview(&from_dir), worldview(&from_nats));
    assert_eq!(worldview(&from_nats).len(), 5);
}

/// A reader loads a NATS root and refreshes it through the backend: it
/// sees exactly what was appended, each revision once, at its sequence;
/// a name never written is a root without a ledger, which loads empty.
#[test]
fn a_reader_loads_and_refreshes_a_nats_root_through_the_backend() {
    let server = NatsServer::start();
    let nats = root(&server, "reader");
    let reader = NatsBackend::connect(&nats).unwrap();
    let path = reader.root_path().to_path_buf();
    assert_eq!(path.to_str().unwrap(), server.root("reader"));
    // Nothing written yet: no ledger, an empty root.
    assert!(
        nenjim_journal_fs::load_recorded(&*reader, &*reader, &path)
            .unwrap()
            .is_none()
    );
    let empty = nenjim_journal_fs::load_with(&*reader, &path, LoadOptions::new()).unwrap();
    assert_eq!(empty.len(), 0);

    let mut w = writer(&nats);
    for k in 1..=3 {
        w.append(&bare_genesis(&format!("lib-{k}"), &ts(k)))
            .unwrap();
    }
    let (state, tip) = nenjim_journal_fs::load_recorded(&*reader, &*reader, &path)
        .unwrap()
        .unwrap();
    assert_eq!(tip, 3);
    assert_eq!(worldview(&state), worldview(w.state()));

    // Two more and a fence between them: the refresh reads only those.
    w.append(&bare_genesis("lib-4", &ts(4))).unwrap();
    w.fence_to(w.tip() + 1).unwrap();
    w.append(&bare_genesis("lib-5", &ts(5))).unwrap();
    let mut published = Vec::new();
    let report = nenjim_journal_fs::refresh_recorded(&*reader, &*reader, &path, &state, &mut |s| {
        published.push(s.last_sequence())
    })
    .unwrap();
    assert_eq!(published, [4, 6]);
    assert_eq!(report.ingested(), 2);
    let refreshed = nenjim_journal_fs::load_recorded(&*reader, &*reader, &path)
        .unwrap()
        .unwrap();
    assert_eq!(refreshed.1, 6);
    assert_eq!(worldview(&refreshed.0), worldview(w.state()));
    // Nothing new: a refresh publishes nothing.
    let mut none = 0;
    nenjim_journal_fs::refresh_recorded(&*reader, &*reader, &path, &refreshed.0, &mut |_| {
        none += 1
    })
    .unwrap();
    assert_eq!(none, 0);
    w.close().unwrap();
}

/// Another writer committed first (behind this writer's back, as a racing
/// process would): `TipMoved`, nothing of the append committed, the writer
/// has read what the other committed, and the retry commits at the new tip.
#[test]
fn a_writer_that_lost_the_race_gets_tip_moved_commits_nothing_and_retries() {
    let server = NatsServer::start();
    let nats = root(&server, "race");
    let mut w = writer(&nats);
    w.append(&bare_genesis("first", &ts(1))).unwrap();

    let other = nats.ledger().unwrap();
    let x = bare_genesis("other", &ts(2));
    let record = crate::jetstream::record("other", &ts(2), x.as_bytes());
    other.commit_at(1, record, Some(x.as_bytes())).unwrap();

    let y = bare_genesis("mine", &ts(3));
    let e = w.append(&y).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TipMoved, "{e}");
    assert!(
        e.path()
            .is_some_and(|p| p.to_string_lossy().ends_with("/race/ledger/2")),
        "{e}"
    );
    assert_eq!(other.tip().unwrap(), 2);
    assert_eq!(w.tip(), 2);
    assert!(w.state().latest(&"other".parse().unwrap()).is_some());
    let retried = w.append(&y).unwrap();
    assert_eq!((retried.sequence(), retried.is_new()), (3, true));

    // The same for a batch: the first entry finds the tip moved, nothing
    // of the batch is committed, and the batch retried commits whole.
    let z = bare_genesis("other-two", &ts(4));
    let record = crate::jetstream::record("other-two", &ts(4), z.as_bytes());
    other.commit_at(3, record, Some(z.as_bytes())).unwrap();
    let batch = [
        bare_genesis("batch-one", &ts(5)),
        bare_genesis("batch-two", &ts(6)),
    ];
    let batch: Vec<&str> = batch.iter().map(String::as_str).collect();
    let e = w.append_batch(&batch).unwrap_err();
    assert_eq!(e.error().kind(), ErrorKind::TipMoved, "{e}");
    assert!(e.appended().is_empty());
    assert_eq!(other.tip().unwrap(), 4);
    let appended = w.append_batch(&batch).unwrap();
    let sequences: Vec<u64> = appended.iter().map(|a| a.sequence()).collect();
    assert_eq!(sequences, [5, 6]);
    w.close().unwrap();
    let (state, tip) = loaded(&nats);
    assert_eq!(tip, 6);
    let names: Vec<(u64, String)> = worldview(&state)
        .into_iter()
        .map(|(s, c, _, _)| (s, c))
        .collect();
    assert_eq!(
        names,
        [
            (1, "first".to_owned()),
            (2, "other".to_owned()),
            (3, "mine".to_owned()),
            (4, "other-two".to_owned()),
            (5, "batch-one".to_owned()),
            (6, "batch-two".to_owned())
        ]
    );
}

/// Two writers, each a client of its own, open, append and close in turn
/// as fast as they can: each sequence is committed once, every success
/// is in the ledger at its sequence, and nothing else is.
#[test]
fn two_writers_racing_commit_each_sequence_once() {
    let server = NatsServer::start();
    let nats = root(&server, "racing");
    let committed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for w in 0..2 {
            let (nats, committed) = (&nats, &committed);
            scope.spawn(move || {
                for i in 0..6 {
                    let text = bare_genesis(&format!("w{w}-a{i}"), &ts(1));
                    match nats.writer(WriterOptions::new()) {
                        Ok(mut writer) => {
                            match writer.append(&text) {
                                Ok(appended) => {
                                    committed.lock().unwrap().push((appended.sequence(), text))
                                }
                                Err(e) => assert!(
                                    matches!(e.kind(), ErrorKind::TipMoved | ErrorKind::LeaseLost),
                                    "{e}"
                                ),
                            }
                            writer.close().unwrap();
                        }
                        Err(e) => assert_eq!(e.kind(), ErrorKind::LeaseHeld, "{e}"),
                    }
                }
            });
        }
    });
    let mut committed = committed.into_inner().unwrap();
    committed.sort();
    assert!(!committed.is_empty());
    let (state, _) = loaded(&nats);
    let view = worldview(&state);
    assert_eq!(view.len(), committed.len());
    for ((sequence, text), row) in committed.iter().zip(&view) {
        assert_eq!(*sequence, row.0);
        assert!(text.contains(&format!("ARTIFACT {}\n", row.1)));
    }
}

/// Makes the root's lease expired (its `expires` in the past), as the
/// lease's time running out would: the next writer takes it over.
pub(crate) fn expire_lease(server: &NatsServer, name: &str) {
    let raw = Raw::connect(server);
    let (lease, revision) = raw.lease(name);
    raw.put_lease(
        name,
        &Lease::new(lease.holder(), lease.epoch(), 1),
        revision,
    );
}

/// The lease: held (`LeaseHeld`, nothing committed), released (taken as
/// it is, no fence), taken over once expired (the new writer fences the
/// tip), and the old writer fenced (`LeaseLost`, then every append).
#[test]
fn the_lease_is_held_released_and_taken_over_and_the_old_writer_fenced() {
    let server = NatsServer::start();
    let nats = root(&server, "leased");
    let mut a = writer(&nats);
    a.append(&bare_genesis("a", &ts(1))).unwrap();

    let e = nats.writer(WriterOptions::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LeaseHeld, "{e}");
    assert!(e.message().contains("epoch 1"), "{e}");
    assert_eq!(nats.ledger().unwrap().tip().unwrap(), 1);

    a.close().unwrap();
    let mut b = writer(&nats);
    assert_eq!(b.tip(), 1, "a released lease is taken without a fence");
    b.append(&bare_genesis("b", &ts(2))).unwrap();

    expire_lease(&server, "leased");
    let mut c = writer(&nats);
    assert_eq!(c.tip(), 3, "the takeover fenced the tip");
    let e = b.append(&bare_genesis("late", &ts(3))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LeaseLost, "{e}");
    assert!(e.message().contains("epoch 3"), "{e}");
    let e = b.append(&bare_genesis("later", &ts(4))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LeaseLost, "{e}");
    assert_eq!(c.append(&bare_genesis("c", &ts(5))).unwrap().sequence(), 4);
    c.close().unwrap();
    // b giving back a lease it lost leaves the root's lease alone.
    b.close().unwrap();
    let (state, tip) = loaded(&nats);
    assert_eq!(tip, 4);
    let names: Vec<String> = worldview(&state).into_iter().map(|r| r.1).collect();
    assert_eq!(names, ["a", "b", "c"]);
}

/// What a hub operator sees of a takeover on a NATS root: the lease taken
/// over (the NATS crate's event: both holders, the epochs, why), the
/// writer's fence and the old writer's lost lease, as on a directory.
#[test]
fn a_takeover_on_nats_is_traced() {
    use nenjim_journal_testkit::traces::capture;
    let server = NatsServer::start();
    let nats = root(&server, "traced");
    let ((), seen) = capture(|| {
        let mut a = writer(&nats);
        a.append(&bare_genesis("a", &ts(1))).unwrap();
        expire_lease(&server, "traced");
        let b = writer(&nats);
        let e = a.append(&bare_genesis("late", &ts(2))).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LeaseLost, "{e}");
        b.close().unwrap();
    });
    let acquired = seen.one("lease acquired");
    let taken = seen.one("lease taken over");
    assert_eq!(taken.target, "nenjim_journal_nats");
    assert_eq!(taken.level, tracing::Level::INFO);
    assert_eq!(taken.field("root"), Some(nats.to_string().as_str()));
    assert_eq!(taken.field("epoch"), Some("2"));
    assert_eq!(taken.field("previous_epoch"), Some("1"));
    assert_eq!(taken.field("reason"), Some("expired"));
    assert_eq!(taken.field("previous_holder"), acquired.field("holder"));
    let fenced = seen.one("ledger fenced");
    assert_eq!(fenced.field("sequence"), Some("2"));
    assert_eq!(seen.one("lease lost").level, tracing::Level::WARN);
    assert_eq!(seen.one("lease released").field("epoch"), Some("2"));
}

/// A repeated append is an idempotent success that commits nothing; every
/// refusal (a parse error, a chain error, a missing blob, a conflicting
/// text) commits nothing, and the writer goes on at the same tip.
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
