//! The bucket cases against a real S3 protocol server (the fault walk of a
//! store failing each single call among them): the `moto` package's
//! server, started on 127.0.0.1 (a free port) by the test and stopped
//! after. `cargo xtask ci` installs it (`moto[server]==5.1.18`); without it this
//! test fails, it never skips.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bounded;
mod scenarios;
mod support;

use std::path::Path;
use std::sync::Arc;

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_fs::{LoadOptions, load_with, refresh_with};
use nenjim_journal_objstore::ObjectFs;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
use object_store::path::Path as Key;
use object_store::prefix::PrefixStore;
use object_store::{ObjectStoreExt as _, PutMode, PutOptions, PutPayload};

use support::{Moto, MotoBuckets as _, texts};

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
    scenarios::feeds_resume_across_the_gaps_fences_leave(&new_store);
    scenarios::hubs_refreshing_while_a_writer_appends_agree_on_every_sequence(&new_store);
    scenarios::blobs_are_streamed_into_a_bucket(&new_store);
    scenarios::a_signed_bucket_root_is_written_verified_and_kept_to_its_key(&new_store);
    // The fault walk against the server: each case under a key prefix of
    // its own in one bucket.
    let faults = moto.bucket({
        moto.create_bucket("faults");
        "faults"
    });
    scenarios::a_fault_on_any_single_call_never_leaves_a_root_that_does_not_load(&|case| {
        Arc::new(PrefixStore::new(
            faults.clone(),
            case.replace(['(', ')'], "-"),
        ))
    });
    requests_per_start_and_per_unchanged_refresh(&moto);
    // Reads are bounded on the server's answers too.
    bounded::an_object_over_the_limit_is_refused_after_at_most_limit_plus_one_bytes(moto.bucket({
        moto.create_bucket("bounded");
        "bounded"
    }));
    writer_and_reader_processes_race_on_one_bucket(&moto);
}

/// The environment variable that makes [`race_process`] a writer or a reader.
const ROLE: &str = "NENJIM_RACE_ROLE";

/// Two writer processes race on one bucket for many appends while three
/// reader processes refresh: every append reported is committed exactly
/// once, the loser of each race gets `TipMoved` or `LeaseHeld`, nothing is
/// lost or doubled, and the readers agree on every sequence.
fn writer_and_reader_processes_race_on_one_bucket(moto: &Moto) {
    moto.create_bucket("race-processes");
    let spawn = |role: String| {
        std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "race_process", "--nocapture", "--test-threads=1"])
            .env(ROLE, role)
            .env("NENJIM_RACE_ENDPOINT", moto.endpoint())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let children: Vec<_> = ["writer 0", "writer 1", "reader", "reader", "reader"]
        .iter()
        .map(|role| spawn((*role).to_owned()))
        .collect();
    let outputs: Vec<String> = children
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().unwrap();
            assert!(output.status.success());
            String::from_utf8(output.stdout).unwrap()
        })
        .collect();
    let fs = ObjectFs::new(moto.bucket("race-processes"), "s3://race-processes").unwrap();
    let loaded = load_with(&fs, Path::new("/race"), LoadOptions::new()).unwrap();
    let expected: std::collections::BTreeMap<u64, String> = support::worldview(&loaded)
        .into_iter()
        .map(|(sequence, coordinate, ..)| (sequence, coordinate))
        .collect();
    let mut committed = std::collections::BTreeMap::new();
    let mut refused = 0;
    for line in outputs.iter().flat_map(|o| o.lines()) {
        // The harness's `test race_process ... ` may precede the first line.
        let line = ["committed ", "refused ", "seen "]
            .iter()
            .filter_map(|k| line.find(k))
            .min()
            .map_or(line, |at| &line[at..]);
        let words: Vec<&str> = line.split(' ').collect();
        match words[..] {
            ["committed", sequence, artifact] => {
                let sequence: u64 = sequence.parse().unwrap();
                assert!(
                    committed.insert(sequence, artifact.to_owned()).is_none(),
                    "{line}"
                );
            }
            ["refused", kind] => {
                assert!(
                    ["TipMoved", "LeaseHeld", "LeaseLost"].contains(&kind),
                    "{line}"
                );
                refused += 1;
            }
            ["seen", sequence, artifact] => {
                let sequence: u64 = sequence.parse().unwrap();
                assert_eq!(
                    expected.get(&sequence).map(String::as_str),
                    Some(artifact),
                    "{line}"
                );
            }
            _ => {}
        }
    }
    assert_eq!(committed, expected, "{refused} refused: {outputs:?}");
    assert_eq!(committed.len() + refused, 2 * 10);
}

/// Not a case of its own: the body of a writer or reader process of
/// [`writer_and_reader_processes_race_on_one_bucket`], which sets `ROLE`
/// (without it, this returns at once).
#[test]
fn race_process() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let endpoint = std::env::var("NENJIM_RACE_ENDPOINT").unwrap();
    nenjim_journal_objstore::tls::install_crypto_provider();
    let bucket: Arc<dyn object_store::ObjectStore> = Arc::new(
        object_store::aws::AmazonS3Builder::new()
            .with_endpoint(endpoint)
            .with_allow_http(true)
            .with_bucket_name("race-processes")
            .with_region("us-east-1")
            .with_access_key_id("test")
            .with_secret_access_key("test")
            .build()
            .unwrap(),
    );
    let fs = Arc::new(ObjectFs::new(bucket, "s3://race-processes").unwrap());
    let root = Path::new("/race");
    fs.ensure_dir(root).unwrap();
    if let Some(writer) = role.strip_prefix("writer ") {
        for i in 0..10 {
            let artifact = format!("w{writer}-a{i}");
            let text = support::genesis(&artifact, "20260101T000000Z");
            match FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()) {
                Ok(mut writer) => {
                    match writer.append(&text) {
                        Ok(appended) => println!("committed {} {artifact}", appended.sequence()),
                        Err(e) => println!(
                            "refused {}\ndetail append {artifact}: {e}",
                            e.kind().as_str()
                        ),
                    }
                    writer.close().unwrap();
                }
                Err(e) => println!("refused {}\ndetail open {artifact}: {e}", e.kind().as_str()),
            }
        }
    } else {
        let hub =
            nenjim_journal_ref::JournalAssembly::with_file_system(root, LoadOptions::new(), fs);
        hub.process().start().unwrap();
        for _ in 0..10 {
            hub.manager().refresh().unwrap();
            let mut cursor = hub
                .service()
                .replay(&nenjim_journal_api::model::ReplayRequest::after(0))
                .unwrap();
            while let Some(r) = cursor.next().unwrap() {
                println!("seen {} {}", r.sequence(), r.coordinate());
            }
        }
    }
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
