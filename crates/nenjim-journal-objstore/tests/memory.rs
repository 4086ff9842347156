//! The bucket cases on `object_store`'s in-memory store, and the faults
//! only a wrapper can inject: a store that lies, lost answers, a failure
//! of any single call.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod scenarios;
mod support;

use std::path::Path;
use std::sync::Arc;

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_fs::{FileSystem as _, LoadOptions, Store, load_with};
use nenjim_journal_objstore::ObjectFs;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
use object_store::ObjectStore;
use object_store::memory::InMemory;

use support::{Fault, Faulty, genesis, texts, worldview};

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
fn two_writers_racing_commit_each_sequence_once() {
    scenarios::two_writers_racing_commit_each_sequence_once(&memory);
}

#[test]
fn hubs_refreshing_while_a_writer_appends_agree_on_every_sequence() {
    scenarios::hubs_refreshing_while_a_writer_appends_agree_on_every_sequence(&memory);
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

/// Runs a writer session (open, three appends, close) through a store with
/// `fault`; returns whether each append reported success.
fn session(inner: &Arc<dyn ObjectStore>, fault: Fault) -> Vec<(String, bool)> {
    let faulty = Arc::new(Faulty::new(inner.clone(), fault));
    let fs = Arc::new(ObjectFs::new(faulty, "memory://faulty").unwrap());
    let root = Path::new("/j");
    let mut results = Vec::new();
    if fs.ensure_dir(root).is_err() {
        return results;
    }
    let Ok(mut writer) = FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()) else {
        return results;
    };
    for text in texts().iter().take(3) {
        results.push((text.clone(), writer.append(text).is_ok()));
    }
    let _ = writer.close();
    results
}

#[test]
fn an_answer_lost_after_a_commit_is_settled_by_reading_the_entry_back() {
    // Every call of a session in turn loses its answer: each append that
    // reported success is loaded, under its sequence, and the root loads.
    let calls = {
        let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let faulty = Arc::new(Faulty::new(inner, Fault::Never));
        let fs = Arc::new(ObjectFs::new(faulty.clone(), "memory://").unwrap());
        let root = Path::new("/j");
        fs.ensure_dir(root).unwrap();
        let mut writer = FsJournalWriter::open_store(fs, root, WriterOptions::new()).unwrap();
        for text in texts().iter().take(3) {
            writer.append(text).unwrap();
        }
        writer.close().unwrap();
        faulty.calls()
    };
    assert!(calls > 10, "{calls}");
    for fault in (1..=calls).flat_map(|n| [Fault::LoseAnswer(n), Fault::Refuse(n)]) {
        let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let results = session(&inner, fault);
        let fs = ObjectFs::new(inner, "memory://").unwrap();
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
        // Sequences are contiguous from 1 (a fence may take one).
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
