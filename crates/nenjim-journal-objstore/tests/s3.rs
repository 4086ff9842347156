//! The bucket cases against a real S3 protocol server: the `moto` package's
//! server, started on 127.0.0.1 (a free port) by the test and stopped
//! after. `.ci/run` installs it (`moto[server]==5.1.18`); without it this
//! test fails, it never skips.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod scenarios;
mod support;

use std::path::Path;
use std::sync::Arc;

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_fs::{LoadOptions, Store, load_with, refresh_with};
use nenjim_journal_objstore::ObjectFs;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
use object_store::path::Path as Key;
use object_store::{ObjectStoreExt as _, PutMode, PutOptions, PutPayload};

use support::{Moto, texts};

#[test]
fn bucket_cases_against_the_s3_protocol_server() {
    let moto = Moto::start();
    // The server honours the preconditions the ledger relies on.
    let bucket = moto.bucket({
        moto.create_bucket("precondition");
        "precondition"
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let key = Key::from("k");
        let create = || PutOptions::from(PutMode::Create);
        bucket
            .put_opts(&key, PutPayload::from_static(b"1"), create())
            .await
            .unwrap();
        let second = bucket
            .put_opts(&key, PutPayload::from_static(b"2"), create())
            .await;
        assert!(
            matches!(second, Err(object_store::Error::AlreadyExists { .. })),
            "{second:?}"
        );
        assert_eq!(
            &bucket.get(&key).await.unwrap().bytes().await.unwrap()[..],
            b"1"
        );
    });

    let new_store = |name: &str| moto.object_fs(name);
    scenarios::a_tree_loads_the_same_from_a_directory_and_a_bucket(&new_store);
    scenarios::a_writer_appends_to_a_bucket_under_its_lease(&new_store);
    scenarios::a_lease_taken_over_fences_the_old_writer(&new_store);
    scenarios::two_writers_racing_commit_each_sequence_once(&new_store);
    scenarios::hubs_refreshing_while_a_writer_appends_agree_on_every_sequence(&new_store);
    requests_per_start_and_per_unchanged_refresh(&moto);
}

/// The requests of a start and of an unchanged refresh, printed for the
/// record (`--nocapture`), and bounded: each revision is read once by a
/// start and not at all by an unchanged refresh.
fn requests_per_start_and_per_unchanged_refresh(moto: &Moto) {
    let fs = moto.object_fs("cost");
    let root = Path::new("/j");
    fs.ensure_dir(root).unwrap();
    let mut writer =
        FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new().segment_span(4))
            .unwrap();
    let all = texts();
    for text in &all {
        writer.append(text).unwrap();
    }
    writer.close().unwrap();
    let reader = Arc::new(ObjectFs::new(fs.object_store().clone(), "s3://cost").unwrap());
    let state = load_with(&*reader, root, LoadOptions::new()).unwrap();
    let start = reader.requests();
    let report = refresh_with(&*reader, root, LoadOptions::new(), &state, &mut |_| {}).unwrap();
    let refresh = reader.requests();
    let revisions = all.len() as u64;
    let artifacts = 4;
    println!(
        "{revisions} revisions, {artifacts} artifacts, segment span 4: start {start:?}; unchanged refresh: list {}, get {}, head {}",
        refresh.list - start.list,
        refresh.get - start.get,
        refresh.head - start.head
    );
    assert_eq!(report.unchanged(), all.len(), "{report:?}");
    // A start: the marker, 2 segments, the entries after them and one
    // absent, each revision once.
    assert!(start.get <= revisions + 2 + 4 + 2, "{start:?}");
    // An unchanged refresh reads the ledger again, but no revision, and
    // walks the root in four listings (segments, the root's metadata, its
    // listing, the read-ahead of its artifacts').
    assert!(refresh.get - start.get <= 2 + 4 + 2, "{refresh:?}");
    assert!(refresh.list - start.list <= 4, "{refresh:?}");
}
