//! The cases every store runs: the in-memory one (fast) and the S3
//! protocol server (real HTTP, real conditional puts).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::path::Path;
use std::sync::Arc;

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_fs::{FileSystem, LoadOptions, load, load_with, refresh_with};
use nenjim_journal_objstore::ObjectFs;
use nenjim_journal_store::BlobStore as _;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt as _, PutPayload};

use crate::support::{self, Fault, Faulty, genesis, row, successor, texts, worldview};

/// Makes a new, empty store (a new bucket) named after the case.
pub type NewStore<'a> = &'a dyn Fn(&str) -> Arc<ObjectFs>;

/// Makes a new, empty object store (a new bucket, or a new key prefix of
/// one) named after the case, for a wrapper store to sit in front of.
pub type NewObjectStore<'a> = &'a dyn Fn(&str) -> Arc<dyn ObjectStore>;

fn open(fs: &Arc<ObjectFs>, root: &Path) -> FsJournalWriter {
    fs.ensure_dir(root).unwrap();
    FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()).unwrap()
}

/// The same tree loaded from a directory and from a bucket gives the same
/// worldview, revision by revision; and so does a refresh after appends.
pub fn a_tree_loads_the_same_from_a_directory_and_a_bucket(new_store: NewStore<'_>) {
    let dir = tempfile::tempdir().unwrap();
    let mut local =
        FsJournalWriter::open(dir.path(), WriterOptions::new().segment_span(3)).unwrap();
    let all = texts();
    let (first, later) = all.split_at(5);
    for text in first {
        local.append(text).unwrap();
    }
    let fs = new_store("same-tree");
    support::copy_into(dir.path(), &**fs.object_store(), "journals/main");
    let root = Path::new("/journals/main");
    let from_dir = load(dir.path(), LoadOptions::new()).unwrap();
    let from_bucket = load_with(&*fs, root, LoadOptions::new()).unwrap();
    assert_eq!(worldview(&from_bucket), worldview(&from_dir));
    assert_eq!(worldview(&from_dir).len(), 5);

    // The rest appended to each, then a refresh of the bucket's state.
    for text in later {
        local.append(text).unwrap();
    }
    local.close().unwrap();
    support::copy_into(dir.path(), &**fs.object_store(), "journals/main");
    let mut published = 0;
    let report = refresh_with(&*fs, root, LoadOptions::new(), &from_bucket, &mut |_| {
        published += 1
    })
    .unwrap();
    assert_eq!(report.ingested(), later.len(), "{report:?}");
    let reloaded = load_with(&*fs, root, LoadOptions::new()).unwrap();
    assert_eq!(
        worldview(&reloaded),
        worldview(&load(dir.path(), LoadOptions::new()).unwrap())
    );
}

/// A writer appends to a bucket: lease, ledger, revisions; a second writer
/// is refused while the first holds the lease, and continues after close.
pub fn a_writer_appends_to_a_bucket_under_its_lease(new_store: NewStore<'_>) {
    let fs = new_store("writer");
    let root = Path::new("/j");
    let all = texts();
    let mut writer = open(&fs, root);
    for (i, text) in all.iter().take(4).enumerate() {
        let appended = writer.append(text).unwrap();
        assert_eq!(
            (appended.sequence(), appended.is_new()),
            (i as u64 + 1, true)
        );
    }
    // An idempotent repeat writes nothing.
    assert!(!writer.append(&all[0]).unwrap().is_new());
    let error = FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LeaseHeld, "{error}");
    writer.close().unwrap();
    let mut second = open(&fs, root);
    assert_eq!(second.append(&all[4]).unwrap().sequence(), 5);
    second.close().unwrap();
    let loaded = load_with(&*fs, root, LoadOptions::new()).unwrap();
    let sequences: Vec<u64> = worldview(&loaded).iter().map(|r| r.0).collect();
    assert_eq!(sequences, vec![1, 2, 3, 4, 5]);
    // The ledger entries are objects holding their records.
    let record = fs
        .read_record(&root.join(".ledger/log/00000000000000000005"))
        .unwrap();
    assert!(
        String::from_utf8(record)
            .unwrap()
            .starts_with("5 REVISION ")
    );
    // And the revision files are where a local root has them.
    assert_eq!(
        fs.read(&root.join("left-pad/20260101T000000Z.journal"), 1 << 20)
            .unwrap(),
        all[0].as_bytes()
    );
}

/// A lease taken over after it expired (here: a clock that says so) fences
/// the old holder: its next commit is refused, nothing of it is loaded.
pub fn a_lease_taken_over_fences_the_old_writer(new_store: NewStore<'_>) {
    let fs = new_store("takeover");
    let root = Path::new("/j");
    let mut old = open(&fs, root);
    old.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    // Another machine sees the lease expired: rewrite its expiry.
    expire_lease(&fs, "j");
    let mut new = open(&fs, root);
    let text = genesis("bbb", "20260101T000000Z");
    let error = old.append(&text).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LeaseLost, "{error}");
    let loaded = load_with(&*fs, root, LoadOptions::new()).unwrap();
    assert_eq!(worldview(&loaded).len(), 1);
    assert_eq!(new.append(&text).unwrap().sequence(), 3, "2 is the fence");
    assert_eq!(
        old.append(&genesis("eee", "20260101T000000Z"))
            .unwrap_err()
            .kind(),
        ErrorKind::LeaseLost
    );
}

/// Two writers race on one bucket: each append either commits once or is
/// refused with TipMoved or LeaseHeld; nothing is lost or doubled.
pub fn two_writers_racing_commit_each_sequence_once(new_store: NewStore<'_>) {
    let fs = new_store("race");
    let root = Path::new("/race");
    fs.ensure_dir(root).unwrap();
    let committed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for w in 0..2 {
            // Each writer a client of its own, as two processes would be.
            let fs =
                Arc::new(ObjectFs::new(fs.object_store().clone(), format!("writer {w}")).unwrap());
            let committed = &committed;
            scope.spawn(move || {
                for i in 0..6 {
                    let text = genesis(&format!("w{w}-a{i}"), "20260101T000000Z");
                    match FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()) {
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
                            let _ = writer.close();
                        }
                        Err(e) => assert_eq!(e.kind(), ErrorKind::LeaseHeld, "{e}"),
                    }
                }
            });
        }
    });
    let mut committed = committed.into_inner().unwrap();
    committed.sort();
    let loaded = load_with(&*fs, root, LoadOptions::new()).unwrap();
    let view = worldview(&loaded);
    assert_eq!(view.len(), committed.len());
    for ((sequence, text), row) in committed.iter().zip(&view) {
        assert_eq!(*sequence, row.0);
        assert!(text.contains(&format!("ARTIFACT {}\n", row.1)));
    }
}

/// Every revision a Journal serves, by sequence (the same rows as [`worldview`]).
fn served(service: &dyn nenjim_journal_api::JournalService) -> Vec<(u64, String, String, String)> {
    let mut cursor = service
        .replay(&nenjim_journal_api::model::ReplayRequest::after(0))
        .unwrap();
    let mut out = Vec::new();
    while let Some(r) = cursor.next().unwrap() {
        out.push(row(&r));
    }
    out
}

/// Three hubs (reference Journals, each with a client of its own) start
/// from one bucket and refresh while a writer appends: each sees a prefix
/// of the final worldview at every refresh, and all of it at the end;
/// `journal_root()` is the root's path inside the store.
pub fn hubs_refreshing_while_a_writer_appends_agree_on_every_sequence(new_store: NewStore<'_>) {
    use nenjim_journal_ref::JournalAssembly;
    let fs = new_store("hubs");
    let root = Path::new("/hub");
    let all = texts();
    let mut writer = open(&fs, root);
    writer.append(&all[0]).unwrap();
    let hubs: Vec<JournalAssembly> = (0..3)
        .map(|i| {
            let client = ObjectFs::new(fs.object_store().clone(), format!("hub {i}")).unwrap();
            JournalAssembly::with_file_system(root, LoadOptions::new(), Arc::new(client))
        })
        .collect();
    for hub in &hubs {
        hub.process().start().unwrap();
        assert_eq!(hub.manager().journal_root(), root);
    }
    let seen = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for hub in &hubs {
            let seen = &seen;
            scope.spawn(move || {
                for _ in 0..6 {
                    hub.manager().refresh().unwrap();
                    seen.lock().unwrap().push(served(&*hub.service()));
                }
            });
        }
        for text in &all[1..] {
            writer.append(text).unwrap();
        }
    });
    writer.close().unwrap();
    let expected = worldview(&load_with(&*fs, root, LoadOptions::new()).unwrap());
    assert_eq!(expected.len(), all.len());
    for view in seen.into_inner().unwrap() {
        assert_eq!(view[..], expected[..view.len()]);
    }
    for hub in &hubs {
        hub.manager().refresh().unwrap();
        assert_eq!(served(&*hub.service()), expected);
    }
}

/// Blobs streamed into a content store in a bucket (`put_blob_from` over
/// `BlobStore::put_by_digest`), in one conditional put and, above the
/// store's single-put bound, in a multipart upload: each lands at
/// `<store>/blobs/sha256/<hex>` with its bytes, a second put of the same
/// bytes is idempotent, and a put over other bytes under that name is
/// `BlobMismatch` and leaves them as they are. The blob is read back in a
/// stream (`Store::open`), as the writer's check of a release reads it.
pub fn blobs_are_streamed_into_a_bucket(new_store: NewStore<'_>) {
    use nenjim_journal_api::valuetypes::ContentDigest;
    use nenjim_journal_writer::put_blob_from;

    let fs = new_store("blobs");
    let store = Path::new("/content");
    // Over one read buffer (64 KiB), so that the spool, the upload and the
    // read-back each take several steps.
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let small = b"a small blob".to_vec();
    // One put each, then the multipart path (a bound below both sizes).
    let multipart = Arc::new(
        ObjectFs::new(fs.object_store().clone(), "multipart")
            .unwrap()
            .with_single_put_max(4),
    );
    for (fs, blob) in [
        (fs.clone(), bytes.clone()),
        (multipart.clone(), {
            let mut other = bytes.clone();
            other.reverse();
            other
        }),
        (multipart.clone(), small.clone()),
    ] {
        let hex = ContentDigest::of_bytes(&blob).to_hex();
        let path = store.join("blobs/sha256").join(&hex);
        let put = put_blob_from(&*fs, store, &mut blob.as_slice()).unwrap();
        assert_eq!(put.pointer().digest().to_hex(), hex);
        assert_eq!(put.pointer().size(), blob.len() as u64);
        assert_eq!(put.path(), path);
        assert!(put.is_new());
        let mut read = Vec::new();
        std::io::Read::read_to_end(&mut fs.open(&path).unwrap(), &mut read).unwrap();
        assert_eq!(read, blob);
        let again = put_blob_from(&*fs, store, &mut blob.as_slice()).unwrap();
        assert!(!again.is_new());
        assert_eq!(again.pointer(), put.pointer());
    }
    // Other bytes under a blob's name: refused, never replaced, by either path.
    let hex = ContentDigest::of_bytes(&small).to_hex();
    let key = Key::from(format!("content/blobs/sha256/{hex}"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime
        .block_on(
            fs.object_store()
                .put(&key, PutPayload::from_static(b"damaged")),
        )
        .unwrap();
    for fs in [&fs, &multipart] {
        let error = put_blob_from(&**fs, store, &mut small.as_slice()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::BlobMismatch, "{error}");
        assert!(error.to_string().contains("damaged"), "{error}");
    }
    let kept = runtime.block_on(async {
        fs.object_store()
            .get(&key)
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap()
    });
    assert_eq!(&kept[..], b"damaged");
}

/// How many appends a session of the fault walk makes.
const SESSION_APPENDS: usize = 3;

/// Runs a writer session (open, [`SESSION_APPENDS`] appends, close) on the
/// root `/j` of `inner` through a store with `fault`; returns each append's
/// text and whether it reported success.
fn session(inner: &Arc<dyn ObjectStore>, fault: Fault) -> Vec<(String, bool)> {
    let faulty = Arc::new(Faulty::new(inner.clone(), fault));
    let fs = Arc::new(ObjectFs::new(faulty, "faulty").unwrap());
    let root = Path::new("/j");
    let mut results = Vec::new();
    if fs.ensure_dir(root).is_err() {
        return results;
    }
    let Ok(mut writer) = FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()) else {
        return results;
    };
    for text in texts().iter().take(SESSION_APPENDS) {
        results.push((text.clone(), writer.append(text).is_ok()));
    }
    let _ = writer.close();
    results
}

/// A store that fails any single call of a writer session, or loses its
/// answer (the call took effect, the writer is told it failed), never
/// leaves a root that does not load: every call of a session in turn, each
/// case on a new store from `new_inner`. Each append that reported success
/// is loaded, sequences stay increasing from 1, and a writer opened
/// afterwards appends on top (or finds the lease of a session whose close
/// failed, until it expires). Lost answers are settled by reading back.
pub fn a_fault_on_any_single_call_never_leaves_a_root_that_does_not_load(
    new_inner: NewObjectStore<'_>,
) {
    let calls = {
        let inner = new_inner("fault-count");
        let faulty = Arc::new(Faulty::new(inner, Fault::Never));
        let fs = Arc::new(ObjectFs::new(faulty.clone(), "counting").unwrap());
        let root = Path::new("/j");
        fs.ensure_dir(root).unwrap();
        let mut writer = FsJournalWriter::open_store(fs, root, WriterOptions::new()).unwrap();
        for text in texts().iter().take(SESSION_APPENDS) {
            writer.append(text).unwrap();
        }
        writer.close().unwrap();
        faulty.calls()
    };
    assert!(calls > 10, "{calls}");
    println!("a session of {SESSION_APPENDS} appends makes {calls} calls");
    for fault in (1..=calls).flat_map(|n| [Fault::LoseAnswer(n), Fault::Refuse(n)]) {
        let inner = new_inner(&format!("{fault:?}"));
        let results = session(&inner, fault);
        let fs = ObjectFs::new(inner, "after").unwrap();
        let loaded = load_with(&fs, Path::new("/j"), LoadOptions::new());
        let loaded = match loaded {
            Ok(state) => state,
            // A session that failed before the root had anything.
            Err(e) if e.kind() == ErrorKind::RootMissing => {
                assert!(results.iter().all(|(_, ok)| !ok), "{fault:?}");
                continue;
            }
            Err(e) => panic!("{fault:?}: the root does not load: {e}"),
        };
        let view = worldview(&loaded);
        for (text, ok) in &results {
            if *ok {
                let artifact = text.lines().nth(1).unwrap().trim_start_matches("ARTIFACT ");
                assert!(
                    view.iter().any(|r| r.1 == artifact),
                    "{fault:?}: the reported append of {artifact} is not loaded"
                );
            }
        }
        // Sequences increase from 1 (a fence may take one).
        for (i, row) in view.iter().enumerate() {
            assert!(row.0 > i as u64, "{fault:?}: {view:?}");
        }
        // A writer opened afterwards appends on top of whatever is there
        // (unless the fault hit the close: the lease then stays until it expires).
        let fs = Arc::new(fs);
        match FsJournalWriter::open_store(fs.clone(), Path::new("/j"), WriterOptions::new()) {
            Ok(mut writer) => {
                writer
                    .append(&genesis("after", "20260301T000000Z"))
                    .unwrap();
            }
            Err(e) => assert_eq!(e.kind(), ErrorKind::LeaseHeld, "{fault:?}: {e}"),
        }
    }
}

/// Rewrites the lease of the root at key prefix `root` in `fs`'s bucket as
/// expired but not released (testkit's `expired_lease`): the next writer
/// takes it over and fences the tip.
fn expire_lease(fs: &Arc<ObjectFs>, root: &str) {
    let key = Key::from(format!("{root}/.ledger/lease"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let bytes = fs
            .object_store()
            .get(&key)
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        let expired =
            nenjim_journal_testkit::feeds::expired_lease(std::str::from_utf8(&bytes).unwrap());
        fs.object_store()
            .put(&key, PutPayload::from(expired.into_bytes()))
            .await
            .unwrap();
    });
}

/// Issue 20: on a bucket, both feeds of a served Journal resume exactly
/// after a sequence before, at or after each fence's gap, from a start and
/// after a refresh that read more gaps.
pub fn feeds_resume_across_the_gaps_fences_leave(new_store: NewStore<'_>) {
    use nenjim_journal_ref::JournalAssembly;
    use nenjim_journal_testkit::feeds::assert_feeds_resume_across_gaps;
    let fs = new_store("gaps");
    let root = Path::new("/g");
    let aaa = genesis("aaa", "20260101T000000Z");
    let after_takeover = |texts: &[String]| {
        expire_lease(&fs, "g");
        let mut writer = open(&fs, root);
        for text in texts {
            writer.append(text).unwrap();
        }
        writer.close().unwrap();
    };
    let mut first = open(&fs, root);
    first.append(&aaa).unwrap();
    first.close().unwrap();
    after_takeover(&[
        genesis("bbb", "20260101T000000Z"),
        genesis("ccc", "20260101T000000Z"),
    ]);
    let hub = JournalAssembly::with_file_system(root, LoadOptions::new(), fs.clone());
    hub.process().start().unwrap();
    assert_feeds_resume_across_gaps(&*hub.service(), &[1, 3, 4], &[1, 3, 4]);
    // A successor that changes the description: an event at 6.
    let changed = successor(&aaa, "20260102T000000Z", "").replace(
        "DESCRIPTION \"aaa\"",
        "DESCRIPTION \"aaa, described again\"",
    );
    after_takeover(&[changed]);
    hub.manager().refresh().unwrap();
    assert_feeds_resume_across_gaps(&*hub.service(), &[1, 3, 4, 6], &[1, 3, 4, 6]);
}

/// A signed root in a bucket (format section 10): the writer keeps the
/// tiles and the checkpoint at `<root>/.ledger/tlog/` there as on a
/// directory, a verifying start and refresh read them, and a writer
/// without the key (or with another) is refused with `CheckpointInvalid`
/// without a single PUT.
pub fn a_signed_bucket_root_is_written_verified_and_kept_to_its_key(new_store: NewStore<'_>) {
    use nenjim_journal_testkit::signed;
    let fs = new_store("signed");
    let root = Path::new("/signed");
    fs.ensure_dir(root).unwrap();
    let (skey, vkey) = signed::key("bucket.example/journal", 7);
    let all = texts();
    let mut writer =
        FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new().signing_key(&skey))
            .unwrap();
    for text in all.iter().take(3) {
        writer.append(text).unwrap();
    }
    writer.close().unwrap();
    let (checkpoint, entries) = signed::checked(&*fs, root, &vkey).unwrap();
    assert_eq!((checkpoint.size(), entries.len()), (3, 3));
    assert!(
        fs.read(&root.join(".ledger/tlog/tile/entries/000.p/3"), 1 << 20)
            .is_ok()
    );
    let options = LoadOptions::new().verifier(&vkey);
    let (state, verified) = nenjim_journal_fs::load_verified(&*fs, root, options).unwrap();
    assert_eq!(state.len(), 3);
    let mut verified = verified;

    let before = fs.requests().put;
    let (other, _) = signed::key("bucket.example/journal", 8);
    for options in [
        WriterOptions::new(),
        WriterOptions::new().signing_key(&other),
    ] {
        let error = FsJournalWriter::open_store(fs.clone(), root, options).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::CheckpointInvalid, "{error}");
    }
    assert_eq!(fs.requests().put, before, "a refused writer wrote");

    let mut writer =
        FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new().signing_key(&skey))
            .unwrap();
    writer.append(&all[3]).unwrap();
    writer.close().unwrap();
    let mut published = Vec::new();
    let report = nenjim_journal_fs::refresh_verified(
        &*fs,
        root,
        options,
        &state,
        &mut verified,
        &mut |next| published.push(next),
    )
    .unwrap();
    assert_eq!(report.ingested(), 1);
    assert_eq!(published.len(), 1);
    assert_eq!(verified.map(|v| v.checkpoint().size()), Some(4));
}

/// (coordinate, Journal version) of a revision text.
fn named(text: &str) -> (String, String) {
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap()
            .to_owned()
    };
    (field("ARTIFACT "), field("JOURNAL_VERSION "))
}

/// Runs a batch session (open, one `append_batch` of `batch`, close) on
/// `/j` of `inner` through a store with `fault`; returns the texts the
/// batch reported appended, and how many calls the session made.
fn batch_session(inner: &Arc<dyn ObjectStore>, fault: Fault, batch: &[&str]) -> (Vec<String>, u64) {
    let faulty = Arc::new(Faulty::new(inner.clone(), fault));
    let fs = Arc::new(ObjectFs::new(faulty.clone(), "faulty").unwrap());
    let root = Path::new("/j");
    if fs.ensure_dir(root).is_err() {
        return (Vec::new(), faulty.calls());
    }
    let Ok(mut writer) = FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()) else {
        return (Vec::new(), faulty.calls());
    };
    let appended = match writer.append_batch(batch) {
        Ok(appended) => appended,
        Err(stopped) => stopped.into_parts().0,
    };
    let _ = writer.close();
    let reported = batch
        .iter()
        .take(appended.len())
        .map(|t| (*t).to_owned())
        .collect();
    (reported, faulty.calls())
}

/// Batched appends in a bucket: a batch commits in order with the
/// sequences of single appends, a refused text in the middle commits the
/// prefix before it only; and a fault on any single call of a batch
/// session (refused, or its answer lost) leaves a root that loads holding
/// a prefix of the batch (never a gap) that includes every text reported.
pub fn a_batch_in_a_bucket_commits_a_prefix_whatever_call_fails(new_inner: NewObjectStore<'_>) {
    let all = texts();
    let batch: Vec<&str> = all.iter().map(String::as_str).take(6).collect();
    {
        let fs = Arc::new(ObjectFs::new(new_inner("batch"), "batch").unwrap());
        let root = Path::new("/b");
        fs.ensure_dir(root).unwrap();
        let mut writer =
            FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()).unwrap();
        let broken = "FORMAT nenjim-journal/1\nARTIFACT broken\n";
        let mut refused: Vec<&str> = batch.clone();
        refused.insert(3, broken);
        let stopped = writer.append_batch(&refused).unwrap_err();
        assert_eq!(stopped.index(), 3, "{stopped}");
        let sequences: Vec<u64> = stopped.appended().iter().map(|a| a.sequence()).collect();
        assert_eq!(sequences, [1, 2, 3]);
        let rest = writer.append_batch(&batch[3..]).unwrap();
        let sequences: Vec<u64> = rest.iter().map(|a| a.sequence()).collect();
        assert_eq!(sequences, [4, 5, 6]);
        writer.close().unwrap();
        let loaded = load_with(&*fs, root, LoadOptions::new()).unwrap();
        let names: Vec<(String, String)> =
            worldview(&loaded).into_iter().map(|r| (r.1, r.2)).collect();
        let wanted: Vec<(String, String)> = batch.iter().map(|t| named(t)).collect();
        assert_eq!(names, wanted);
    }
    let (reported, calls) = batch_session(&new_inner("batch-count"), Fault::Never, &batch);
    assert_eq!(reported.len(), 6);
    assert!(calls > 10, "{calls}");
    for fault in (1..=calls).flat_map(|n| [Fault::LoseAnswer(n), Fault::Refuse(n)]) {
        let inner = new_inner(&format!("batch {fault:?}"));
        let (reported, _) = batch_session(&inner, fault, &batch);
        let fs = ObjectFs::new(inner, "after").unwrap();
        let loaded = match load_with(&fs, Path::new("/j"), LoadOptions::new()) {
            Ok(state) => state,
            Err(e) if e.kind() == ErrorKind::RootMissing => {
                assert!(reported.is_empty(), "{fault:?}");
                continue;
            }
            Err(e) => panic!("{fault:?}: the root does not load: {e}"),
        };
        let names: Vec<(String, String)> =
            worldview(&loaded).into_iter().map(|r| (r.1, r.2)).collect();
        let prefix: Vec<(String, String)> =
            batch.iter().take(names.len()).map(|t| named(t)).collect();
        assert_eq!(names, prefix, "{fault:?}: not a prefix of the batch");
        assert!(
            names.len() >= reported.len(),
            "{fault:?}: {} reported, {} loaded",
            reported.len(),
            names.len()
        );
    }
}
