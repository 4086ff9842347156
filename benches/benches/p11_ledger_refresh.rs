//! P11 a refresh of a root with a ledger costs what is new (issue 21).
//!
//! - `p11_ledger_refresh/large` against `p11_ledger_refresh/small`: a
//!   refresh that finds 10 new revisions (each iteration refreshes the same
//!   older state, so each finds the same 10), of a root of
//!   `NENJIM_BENCH_LEDGER_LARGE` revisions (default 100 000) against one of
//!   1 000. Target <= 2x: a refresh reads the ledger from the last sequence
//!   the state holds and the new revision files, nothing else.
//! - The requests of the same refresh of the same two roots copied into an
//!   in-memory bucket (`ObjectFs`, which counts them) are recorded for the
//!   report: independent of the root's size (the ratio of the larger
//!   root's requests to the smaller's, target <= 1x).
//!
//! Each root is the P3/P6 corpus of that size given a ledger by a writer
//! (`setup::ledger_copy`), copied (hard links; entries as symbolic links)
//! and appended 10 revisions of new artifacts to by a writer.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // a bench with a broken setup fails loudly

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_benches::{corpus, setup};
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::{LoadOptions, RealFileSystem, load, load_with, refresh_with};
use nenjim_journal_objstore::{ObjectFs, Requests};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
use object_store::path::Path as Key;
use object_store::{ObjectStoreExt as _, PutPayload};

/// How many revisions each refresh finds.
const NEW: usize = 10;

/// The genesis of the new artifact `n`.
fn new_revision(n: usize) -> String {
    format!(
        "FORMAT nenjim-journal/1\nARTIFACT p11-new-{n:02}\nJOURNAL_VERSION {}\nPREDECESSOR GENESIS\nDESCRIPTION \"new\"\n",
        corpus::timestamp(1_767_225_600)
    )
}

/// Copies the tree `from` to `to`: directories made, files hard-linked,
/// symbolic links (ledger entries) made again with their targets.
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_tree(&source, &target);
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&source).unwrap(), &target).unwrap();
        } else {
            fs::hard_link(&source, &target).unwrap();
        }
    }
}

/// Puts every file of the local `root` (ledger entries by their record)
/// into `fs` under `/p11`.
fn copy_into_bucket(root: &Path, fs: &ObjectFs) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let store = fs.object_store().clone();
    runtime.block_on(async {
        for (relative, bytes) in nenjim_journal_testkit::texts::files(root) {
            let key = Key::from(format!("p11/{}", relative.display()));
            store.put(&key, PutPayload::from(bytes)).await.unwrap();
        }
    });
}

/// A root of `files` revisions with a ledger, the state a refresh starts
/// from (everything but the 10 new revisions), and the same root and state
/// in an in-memory bucket.
struct Case {
    root: PathBuf,
    old: ChainState,
    bucket: ObjectFs,
    bucket_old: ChainState,
}

fn case(files: usize) -> Case {
    let plain = setup::cached_root(&setup::large_root_spec(files)).unwrap();
    let ledger = setup::ledger_copy(&plain).unwrap();
    let root = setup::bench_dir().join("p11").join(format!("root-{files}"));
    let _ = fs::remove_dir_all(&root);
    copy_tree(&ledger, &root);
    let _ = fs::remove_file(root.join(".ledger/lease"));
    let old = load(&root, LoadOptions::new()).unwrap();
    let bucket = ObjectFs::memory().unwrap();
    copy_into_bucket(&root, &bucket);
    let bucket_root = Path::new("/p11");
    let bucket_old = load_with(&bucket, bucket_root, LoadOptions::new()).unwrap();
    // The same 10 revisions appended to both.
    let mut local = FsJournalWriter::open(&root, WriterOptions::new()).unwrap();
    let shared =
        std::sync::Arc::new(ObjectFs::new(bucket.object_store().clone(), "memory://").unwrap());
    let mut remote =
        FsJournalWriter::open_store(shared, bucket_root, WriterOptions::new()).unwrap();
    for n in 0..NEW {
        local.append(&new_revision(n)).unwrap();
        remote.append(&new_revision(n)).unwrap();
    }
    local.close().unwrap();
    remote.close().unwrap();
    Case {
        root,
        old,
        bucket,
        bucket_old,
    }
}

/// The requests of one refresh of the bucket copy from its older state.
fn bucket_requests(case: &Case) -> Requests {
    let before = case.bucket.requests();
    let report = refresh_with(
        &case.bucket,
        Path::new("/p11"),
        LoadOptions::new(),
        &case.bucket_old,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(report.ingested(), NEW);
    let after = case.bucket.requests();
    Requests {
        list: after.list - before.list,
        get: after.get - before.get,
        head: after.head - before.head,
        put: after.put - before.put,
        delete: after.delete - before.delete,
    }
}

fn counts(r: Requests) -> serde_json::Value {
    serde_json::json!({ "list": r.list, "get": r.get, "head": r.head, "total": r.list + r.get + r.head })
}

fn p11(c: &mut Criterion) {
    let large = setup::env_usize("NENJIM_BENCH_LEDGER_LARGE", 100_000);
    let cases =
        [("small", 1_000), ("large", large)].map(|(name, files)| (name, files, case(files)));
    let mut record = serde_json::Map::new();
    for (name, files, case) in &cases {
        record.insert(
            (*name).to_owned(),
            serde_json::json!({ "files": files, "requests": counts(bucket_requests(case)) }),
        );
    }
    if let Err(e) = setup::record("p11_ledger_refresh", &serde_json::Value::Object(record)) {
        eprintln!("cannot record the P11 sizes: {e}");
    }
    let mut group = c.benchmark_group("p11_ledger_refresh");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, _, case) in &cases {
        group.bench_function(*name, |b| {
            b.iter(|| {
                let report = refresh_with(
                    &RealFileSystem,
                    &case.root,
                    LoadOptions::new(),
                    &case.old,
                    &mut |_| {},
                )
                .unwrap();
                assert_eq!(report.ingested(), NEW);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, p11);
criterion_main!(benches);
