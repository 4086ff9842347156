//! A start from the S3 protocol server against a floor that GETs every
//! object of the root with the same concurrency (issue 14's cost check):
//!
//! ```sh
//! cargo run --release -p nenjim-journal-objstore --example s3_start_bench [artifacts]
//! ```
//!
//! Starts moto on 127.0.0.1 (it must be installed: `.ci/run` installs it),
//! writes a local root of `artifacts` artifacts with two revisions each
//! through the writer, copies it into a bucket, then times (best of 5) a
//! start through `ObjectFs` and the floor, and prints both, their ratio and
//! the requests of a start and of an unchanged refresh.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/support/mod.rs"]
mod support;

use support::MotoBuckets as _;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures::TryStreamExt as _;
use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_fs::{LoadOptions, load_with, refresh_with};
use nenjim_journal_objstore::ObjectFs;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
use object_store::{ObjectStore, ObjectStoreExt as _};

fn main() {
    let artifacts: usize = std::env::args()
        .nth(1)
        .map_or(500, |a| a.parse().expect("a number of artifacts"));
    let dir = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(dir.path(), WriterOptions::new()).unwrap();
    for i in 0..artifacts {
        let first = support::genesis(&format!("artifact-{i:06}"), "20260101T000000Z");
        let second = support::successor(&first, "20260201T000000Z", "");
        writer.append(&first).unwrap();
        writer.append(&second).unwrap();
    }
    writer.close().unwrap();
    let moto = support::Moto::start();
    moto.create_bucket("bench");
    let bucket = moto.bucket("bench");
    support::copy_into(dir.path(), &*bucket, "root");
    let root = Path::new("/root");
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());

    let mut start = Duration::MAX;
    let mut requests = None;
    for _ in 0..5 {
        let fs = ObjectFs::new(bucket.clone(), "s3://bench").unwrap();
        let began = Instant::now();
        let state = load_with(&fs, root, LoadOptions::new()).unwrap();
        start = start.min(began.elapsed());
        let at_start = fs.requests();
        refresh_with(&fs, root, LoadOptions::new(), &state, &mut |_| {}).unwrap();
        requests = Some((at_start, fs.requests()));
    }
    let mut floor = Duration::MAX;
    let mut objects = 0;
    for _ in 0..5 {
        let (elapsed, count) = get_every_object(&bucket, workers);
        floor = floor.min(elapsed);
        objects = count;
    }
    let (at_start, after_refresh) = requests.unwrap();
    println!(
        "{} revisions ({artifacts} artifacts), {objects} objects, {workers} workers",
        artifacts * 2
    );
    println!("start from S3: {:.3} s (best of 5)", start.as_secs_f64());
    println!(
        "floor (LIST + GET of every object, {workers} threads): {:.3} s",
        floor.as_secs_f64()
    );
    println!("ratio: {:.2}x", start.as_secs_f64() / floor.as_secs_f64());
    println!("requests of a start: {at_start:?}");
    println!(
        "requests of an unchanged refresh: list {}, get {}, head {}",
        after_refresh.list - at_start.list,
        after_refresh.get - at_start.get,
        after_refresh.head - at_start.head
    );
}

/// Lists the bucket and GETs every object with `workers` threads.
fn get_every_object(bucket: &Arc<dyn ObjectStore>, workers: usize) -> (Duration, usize) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let began = Instant::now();
    let keys: Vec<object_store::path::Path> = runtime
        .block_on(bucket.list(None).map_ok(|o| o.location).try_collect())
        .unwrap();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(key) = keys.get(next.fetch_add(1, Ordering::Relaxed)) {
                    runtime.block_on(async {
                        bucket.get(key).await.unwrap().bytes().await.unwrap();
                    });
                }
            });
        }
    });
    (began.elapsed(), keys.len())
}
