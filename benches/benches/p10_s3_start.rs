//! P10 a start from the S3 protocol server (issue 14's cost check).
//!
//! - `p10_s3_start/start`: `start()` of a reference Journal over a root in a
//!   bucket of moto's S3 server (started here on 127.0.0.1, a free port, and
//!   killed after; `pip install 'moto[server]==5.1.18'`), through
//!   `ObjectFs`, against `p10_s3_start/floor`: one listing of the bucket
//!   and a GET of every object in it (ledger entries included) with the
//!   same concurrency as the loader (one thread per core over one client).
//!   Target <= 1.5x.
//! - The requests of a start and of an unchanged refresh (LIST, GET, HEAD)
//!   are recorded for the report (report-only rows): a start reads each
//!   revision once, an unchanged refresh none.
//!
//! The root: `NENJIM_BENCH_S3_ARTIFACTS` artifacts (default 500) of two
//! revisions each, written by the writer to a local root (one segment of
//! the ledger per thousand entries) and copied into the bucket. Not run by
//! CI (`cargo xtask ci` builds benches but never runs them).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // a bench with a broken setup fails loudly

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use futures::TryStreamExt as _;
use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_benches::{floor, setup};
use nenjim_journal_fs::{LoadOptions, load_with, refresh_with};
use nenjim_journal_objstore::{ObjectFs, Requests};
use nenjim_journal_ref::JournalAssembly;
use nenjim_journal_testkit::moto::Moto;
use nenjim_journal_testkit::texts::{files, genesis, successor, ts};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt as _, PutPayload};

/// A runtime for the bench's own requests (the copy and the floor).
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Lists the bucket and GETs every object with `workers` threads over one
/// client and one runtime (as `ObjectFs` serves the loader's workers);
/// returns how many objects it read.
fn get_every_object(
    runtime: &tokio::runtime::Runtime,
    bucket: &Arc<dyn ObjectStore>,
    workers: usize,
) -> usize {
    let keys: Vec<Key> = runtime
        .block_on(bucket.list(None).map_ok(|o| o.location).try_collect())
        .unwrap();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(key) = keys.get(next.fetch_add(1, Ordering::Relaxed)) {
                    runtime.block_on(async {
                        std::hint::black_box(bucket.get(key).await.unwrap().bytes().await.unwrap());
                    });
                }
            });
        }
    });
    keys.len()
}

/// `{list, get, head}` of `requests`.
fn counts(requests: Requests) -> serde_json::Value {
    serde_json::json!({ "list": requests.list, "get": requests.get, "head": requests.head })
}

fn p10(c: &mut Criterion) {
    let artifacts = setup::env_usize("NENJIM_BENCH_S3_ARTIFACTS", 500);
    let dir = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(dir.path(), WriterOptions::new()).unwrap();
    for i in 0..artifacts {
        let name = format!("artifact-{i:06}");
        let first = genesis(&name, &ts(1), &["1.0.0"]);
        writer.append(&first).unwrap();
        writer
            .append(&successor(&first, &name, &ts(2), &["1.0.0", "1.1.0"]))
            .unwrap();
    }
    writer.close().unwrap();
    let moto = Moto::start();
    moto.create_bucket("bench");
    let bucket = moto.bucket("bench");
    let runtime = runtime();
    for (relative, bytes) in files(dir.path()) {
        let key = Key::from(format!("root/{}", relative.to_str().unwrap()));
        runtime
            .block_on(bucket.put(&key, PutPayload::from(bytes)))
            .unwrap();
    }
    let root = Path::new("/root");
    let workers = floor::cores();

    // The requests of one start and of an unchanged refresh after it.
    let fs = ObjectFs::new(bucket.clone(), "s3://bench").unwrap();
    let state = load_with(&fs, root, LoadOptions::new()).unwrap();
    let start = fs.requests();
    let report = refresh_with(&fs, root, LoadOptions::new(), &state, &mut |_| {}).unwrap();
    assert_eq!(report.unchanged(), 2 * artifacts, "{report:?}");
    let after = fs.requests();
    let refresh = Requests {
        list: after.list - start.list,
        get: after.get - start.get,
        head: after.head - start.head,
        put: after.put - start.put,
        delete: after.delete - start.delete,
    };
    let objects = get_every_object(&runtime, &bucket, workers);
    if let Err(e) = setup::record(
        "p10_s3_start",
        &serde_json::json!({
            "artifacts": artifacts,
            "revisions": 2 * artifacts,
            "objects": objects,
            "workers": workers,
            "start": counts(start),
            "refresh": counts(refresh),
        }),
    ) {
        eprintln!("cannot record the P10 sizes: {e}");
    }

    let mut group = c.benchmark_group("p10_s3_start");
    // Each iteration takes seconds: one per sample.
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(60));
    group.bench_function("floor", |b| {
        b.iter(|| get_every_object(&runtime, &bucket, workers))
    });
    group.bench_function("start", |b| {
        b.iter(|| {
            let fs = Arc::new(ObjectFs::new(bucket.clone(), "s3://bench").unwrap());
            let assembly = JournalAssembly::with_file_system(root, LoadOptions::new(), fs);
            if let Err(e) = assembly.process().start() {
                panic!("start failed: {e}");
            }
            assembly
        })
    });
    group.finish();
}

criterion_group!(benches, p10);
criterion_main!(benches);
