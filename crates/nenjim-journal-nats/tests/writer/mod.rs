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
mod content_and_batches;
