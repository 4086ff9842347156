//! The bucket cases on `object_store`'s in-memory store (the fault walk
//! among them, which `s3.rs` runs against the server too), and a store
//! that lies about preconditions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bounded;
mod scenarios;
mod support;

use std::path::Path;
use std::sync::Arc;

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_fs::{FileSystem as _, LoadOptions, load_with};
use nenjim_journal_objstore::ObjectFs;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
use object_store::ObjectStore;
use object_store::memory::InMemory;

use support::{Fault, Faulty, genesis, worldview};

fn memory(_name: &str) -> Arc<ObjectFs> {
    Arc::new(ObjectFs::memory().unwrap())
}

#[test]
fn a_tree_loads_the_same_from_a_directory_and_a_bucket() {
    scenarios::a_tree_loads_the_same_from_a_directory_and_a_bucket(&memory);
}

#[test]
fn a_writer_appends_to_a_bucket_under_its_lease() {
    scenarios::a_writer_appends_to_a_bucket_under_its_lease(&memory);
}

#[test]
fn a_lease_taken_over_fences_the_old_writer() {
    scenarios::a_lease_taken_over_fences_the_old_writer(&memory);
}

#[test]
fn feeds_resume_across_the_gaps_fences_leave() {
    scenarios::feeds_resume_across_the_gaps_fences_leave(&memory);
}

#[test]
fn two_writers_racing_commit_each_sequence_once() {
    scenarios::two_writers_racing_commit_each_sequence_once(&memory);
}

#[test]
fn hubs_refreshing_while_a_writer_appends_agree_on_every_sequence() {
    scenarios::hubs_refreshing_while_a_writer_appends_agree_on_every_sequence(&memory);
}

#[test]
fn a_signed_bucket_root_is_written_verified_and_kept_to_its_key() {
    scenarios::a_signed_bucket_root_is_written_verified_and_kept_to_its_key(&memory);
}

#[test]
fn blobs_are_streamed_into_a_bucket() {
    scenarios::blobs_are_streamed_into_a_bucket(&memory);
}

#[test]
fn a_root_without_a_ledger_loads_and_fails_the_same_from_a_bucket() {
    let dir = tempfile::tempdir().unwrap();
    for (i, artifact) in ["left-pad", "serde", "zz"].iter().enumerate() {
        std::fs::create_dir(dir.path().join(artifact)).unwrap();
        let text = genesis(artifact, &format!("2026010{}T000000Z", i + 1));
        std::fs::write(
            dir.path()
                .join(artifact)
                .join(format!("2026010{}T000000Z.journal", i + 1)),
            text,
        )
        .unwrap();
    }
    let root = Path::new("/r");
    let compare = |expect_ok: bool| {
        let fs = ObjectFs::memory().unwrap();
        support::copy_into(dir.path(), &**fs.object_store(), "r");
        let local = nenjim_journal_fs::load(dir.path(), LoadOptions::new());
        let bucket = load_with(&fs, root, LoadOptions::new());
        match (local, bucket) {
            (Ok(local), Ok(bucket)) if expect_ok => {
                assert_eq!(worldview(&bucket), worldview(&local))
            }
            (Err(local), Err(bucket)) if !expect_ok => {
                assert_eq!(bucket.kind(), local.kind(), "{bucket} / {local}");
                let relative = |e: &nenjim_journal_api::error::JournalError, base: &Path| {
                    e.path().unwrap().strip_prefix(base).unwrap().to_path_buf()
                };
                assert_eq!(relative(&bucket, root), relative(&local, dir.path()));
            }
            (local, bucket) => panic!("{local:?} / {bucket:?}"),
        }
    };
    compare(true);
    // A directory below an artifact, then a misnamed artifact directory
    // (sorting before the others): the same errors at the same places.
    std::fs::create_dir_all(dir.path().join("serde/sub")).unwrap();
    std::fs::write(dir.path().join("serde/sub/x"), "").unwrap();
    compare(false);
    std::fs::remove_dir_all(dir.path().join("serde/sub")).unwrap();
    std::fs::create_dir(dir.path().join("-bad")).unwrap();
    std::fs::write(dir.path().join("-bad/x"), "").unwrap();
    compare(false);
}

#[test]
fn a_store_that_ignores_preconditions_is_refused_for_writing() {
    let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let liar = Arc::new(Faulty::new(inner, Fault::Lie));
    let fs = Arc::new(ObjectFs::new(liar, "memory://liar").unwrap());
    let root = Path::new("/j");
    fs.ensure_dir(root).unwrap();
    let error = FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Io, "{error}");
    assert!(
        error.to_string().contains("ignores the preconditions"),
        "{error}"
    );
    // Nothing was written but the probe: no lease, no ledger.
    assert!(fs.read_record(&root.join(".ledger/lease")).is_err());
    assert!(fs.read_record(&root.join(".ledger/LEDGER")).is_err());
}

#[test]
fn a_fault_on_any_single_call_never_leaves_a_root_that_does_not_load() {
    scenarios::a_fault_on_any_single_call_never_leaves_a_root_that_does_not_load(&|_| {
        Arc::new(InMemory::new())
    });
}

#[test]
fn a_batch_in_a_bucket_commits_a_prefix_whatever_call_fails() {
    scenarios::a_batch_in_a_bucket_commits_a_prefix_whatever_call_fails(&|_| {
        Arc::new(InMemory::new())
    });
}

#[test]
fn an_object_over_the_limit_is_refused_after_at_most_limit_plus_one_bytes() {
    bounded::an_object_over_the_limit_is_refused_after_at_most_limit_plus_one_bytes(Arc::new(
        InMemory::new(),
    ));
}

/// The requests of a refresh that finds 10 new revisions, on a root of
/// `held` revisions already loaded (segments of 8 entries).
fn requests_of_a_refresh_with_ten_new(held: usize) -> (nenjim_journal_objstore::Requests, usize) {
    use nenjim_journal_api::append::JournalWriter as _;
    let fs = Arc::new(ObjectFs::memory().unwrap());
    let root = Path::new("/j");
    fs.ensure_dir(root).unwrap();
    let options = WriterOptions::new().segment_span(8);
    let mut writer = FsJournalWriter::open_store(fs.clone(), root, options).unwrap();
    for i in 0..held {
        writer
            .append(&genesis(&format!("a{i:05}"), "20260101T000000Z"))
            .unwrap();
    }
    let reader = ObjectFs::new(fs.object_store().clone(), "memory://").unwrap();
    let state = load_with(&reader, root, LoadOptions::new()).unwrap();
    for i in 0..10 {
        writer
            .append(&genesis(&format!("b{i:05}"), "20260101T000000Z"))
            .unwrap();
    }
    let before = reader.requests();
    let report =
        nenjim_journal_fs::refresh_with(&reader, root, LoadOptions::new(), &state, &mut |_| {})
            .unwrap();
    let after = reader.requests();
    assert_eq!(report.unchanged(), held, "{report:?}");
    let delta = nenjim_journal_objstore::Requests {
        list: after.list - before.list,
        get: after.get - before.get,
        head: after.head - before.head,
        put: after.put - before.put,
        delete: after.delete - before.delete,
    };
    (delta, report.ingested())
}

/// A refresh of a bucket root reads the ledger from the last sequence it
/// holds and the new revision files, nothing else: the same requests for a
/// root of 26 revisions as for one of 1 018 (no listing of the root, no
/// revision it holds read again, no earlier segment).
#[test]
fn a_refresh_of_a_bucket_root_costs_what_is_new_whatever_its_size() {
    let (small, ingested_small) = requests_of_a_refresh_with_ten_new(26);
    let (large, ingested_large) = requests_of_a_refresh_with_ten_new(1018);
    assert_eq!((ingested_small, ingested_large), (10, 10));
    assert_eq!(small, large);
    // The marker's HEAD and GET, one LIST of the segments, at most one
    // segment, the entries after it (batches of 1 and 2: one absent more,
    // at most), and the 10 revisions.
    assert!(small.list <= 1 && small.head <= 1, "{small:?}");
    assert!(small.get <= 1 + 1 + 10 + 3 + 10, "{small:?}");
    assert_eq!((small.put, small.delete), (0, 0));
}

/// Opening a writer on a bucket root without a ledger reads each revision
/// once (the root is loaded once and its ledger never read back), and a
/// `TipMoved` reads only what the other writer committed, not the root.
#[test]
fn a_writer_reads_each_revision_once_to_record_a_root_and_only_the_new_after_tip_moved() {
    use nenjim_journal_api::append::JournalWriter as _;
    use nenjim_journal_store::BlobStore as _;
    let fs = Arc::new(ObjectFs::memory().unwrap());
    let root = Path::new("/j");
    let revisions = 20;
    for i in 0..revisions {
        let artifact = format!("a{i:02}");
        let path = root.join(&artifact).join("20260101T000000Z.journal");
        fs.put_if_absent(&path, genesis(&artifact, "20260101T000000Z").as_bytes())
            .unwrap();
    }
    let before = fs.requests();
    let mut writer = FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()).unwrap();
    let opened = fs.requests();
    let gets = opened.get - before.get;
    // Each revision once, the lease (absent) once, and the signed root's
    // checkpoint (absent: the root is not signed) twice: read before the
    // lease is taken, so a writer without the key is refused before it
    // writes anything, and again under the lease (issue 23).
    assert!(
        (revisions..=revisions + 2 + 2).contains(&gets),
        "{gets} GETs to open: {before:?} -> {opened:?}"
    );
    assert_eq!(writer.state().len(), revisions);

    // Another writer commits entry 21 behind this one's back.
    let other = genesis("zz", "20260101T000000Z");
    let path = root.join("zz/20260101T000000Z.journal");
    fs.put_if_absent(&path, other.as_bytes()).unwrap();
    let digest = nenjim_journal_api::valuetypes::RevisionDigest::of_bytes(other.as_bytes());
    fs.put_record(
        &root.join(".ledger/log/00000000000000000021"),
        &format!("21 REVISION zz 20260101T000000Z {} {digest}", other.len()),
    )
    .unwrap();
    let text = genesis("yy", "20260101T000000Z");
    let start = fs.requests();
    let error = writer.append(&text).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TipMoved, "{error}");
    let moved = fs.requests();
    // The entry found, the ledger after the tip (marker, segments, entry 21
    // and the two after it), the one new revision: not the root again.
    assert!(moved.get - start.get <= 8, "{start:?} -> {moved:?}");
    assert_eq!(writer.state().len(), revisions + 1);
    assert_eq!(writer.append(&text).unwrap().sequence(), 22);
}

/// A put whose answer is lost is never retried blindly: it is settled by
/// reading the object back, and a hub operator sees it as a warning with
/// its outcome (`stored`: the first put landed; `another's`: other bytes
/// are there).
#[test]
fn a_lost_answer_is_settled_by_reading_back_and_traced() {
    use nenjim_journal_store::BlobStore as _;
    use nenjim_journal_testkit::traces::capture;

    let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let entry = Path::new("/root/.ledger/log/00000000000000000001");
    let (result, seen) = capture(|| {
        let lost = ObjectFs::new(
            Arc::new(Faulty::new(inner.clone(), Fault::LoseAnswer(1))),
            "memory://",
        )
        .unwrap();
        lost.put_record(entry, "1 FENCE 1\n")
    });
    result.unwrap();
    let settled = seen.one("put answer lost or refused; settled by reading the object back");
    assert_eq!(settled.target, "nenjim_journal_objstore");
    assert_eq!(settled.level, tracing::Level::WARN);
    assert_eq!(settled.field("outcome"), Some("stored"));
    assert_eq!(
        settled.field("key"),
        Some("root/.ledger/log/00000000000000000001")
    );
    assert_eq!(settled.field("location"), Some("memory://"));
    assert!(
        settled
            .field("error")
            .is_some_and(|e| e.contains("injected"))
    );

    // Another record is there: the same settlement says so, and the put
    // is refused.
    let (result, seen) = capture(|| {
        let lost = ObjectFs::new(
            Arc::new(Faulty::new(inner.clone(), Fault::LoseAnswer(1))),
            "memory://",
        )
        .unwrap();
        lost.put_record(entry, "1 FENCE 2\n")
    });
    assert!(result.is_err());
    let settled = seen.one("put answer lost or refused; settled by reading the object back");
    assert_eq!(settled.field("outcome"), Some("another's"));
}
