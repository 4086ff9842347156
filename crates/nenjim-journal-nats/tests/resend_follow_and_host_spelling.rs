//! The audit's findings on the JetStream layer: each test reproduces one
//! way a commit, a lease, a follower or a read broke the contract (format
//! sections 6 and 9, docs/api.md "Following" and "nenjim_journal_nats").

use std::time::Duration;

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_nats::NatsRoot;
use nenjim_journal_store::ledger::Record;
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::texts::{bare_genesis, ts};
use nenjim_journal_writer::WriterOptions;

use crate::jetstream::{created, record, root};

/// An atomic batch whose answer was lost is sent again by the same handle
/// (the same `Nats-Msg-Id`s at the same tip, under a new batch id): the
/// resend must be recognized as that batch's success, not a failure.
#[test]
fn a_resent_atomic_batch_is_its_own_success_and_is_stored_once() {
    let server = NatsServer::start();
    let nats = root(&server, "resentbatch");
    let ledger = created(&nats);
    assert!(ledger.atomic_batches().unwrap());
    let texts: Vec<String> = (0..3)
        .map(|i| bare_genesis(&format!("lib-{i}"), &ts(1)))
        .collect();
    let records = || -> Vec<(Record, Option<&[u8]>)> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                (
                    record(&format!("lib-{i}"), &ts(1), t.as_bytes()),
                    Some(t.as_bytes()),
                )
            })
            .collect()
    };
    let (first, failed) = ledger.commit_batch_at(0, records());
    assert!(failed.is_none(), "{failed:?}");
    assert_eq!(first.len(), 3);
    let (again, failed) = ledger.commit_batch_at(0, records());
    assert!(failed.is_none(), "{failed:?}");
    assert_eq!(again, first);
    assert_eq!(ledger.tip().unwrap(), 3);
}

/// Deletes every consumer of the stream `stream` on `server` (what an
/// operator's `nats consumer rm`, or a server that lost its ephemeral
/// consumers, does to a follower's consumer); how many it deleted.
fn delete_consumers(server: &NatsServer, stream: &str) -> usize {
    use futures::StreamExt as _;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let js = async_nats::jetstream::new(async_nats::connect(server.url()).await.unwrap());
        let stream = js.get_stream(stream).await.unwrap();
        let names: Vec<String> = stream
            .consumer_names()
            .map(|name| name.unwrap())
            .collect()
            .await;
        for name in &names {
            stream.delete_consumer(name).await.unwrap();
        }
        names.len()
    })
}

/// A follower waiting at the tip whose consumer is gone before it yielded
/// anything: the client makes the ordered consumer again, from the start
/// of the stream (it has seen no sequence yet). The follower must go on
/// with the next entry, not fail on the entries it started after.
#[test]
fn a_follower_whose_consumer_is_deleted_before_its_first_entry_goes_on_without_a_repeat() {
    let server = NatsServer::start();
    let nats = root(&server, "deleted");
    let ledger = created(&nats);
    for (i, tip) in (0..3u64).enumerate() {
        let text = bare_genesis(&format!("lib-{i}"), &ts(1));
        ledger
            .commit_at(
                tip,
                record(&format!("lib-{i}"), &ts(1), text.as_bytes()),
                Some(text.as_bytes()),
            )
            .unwrap();
    }
    let reader = nats.ledger().unwrap();
    let mut follower = reader.follow(3).unwrap();
    assert!(
        follower
            .next_timeout(Some(Duration::ZERO))
            .unwrap()
            .is_none()
    );
    assert_eq!(delete_consumers(&server, &ledger.names().stream), 1);
    let text = bare_genesis("lib-3", &ts(1));
    ledger
        .commit_at(
            3,
            record("lib-3", &ts(1), text.as_bytes()),
            Some(text.as_bytes()),
        )
        .unwrap();
    let next = follower.next_timeout(Some(Duration::from_secs(30)));
    let next = next.unwrap().expect("the entry after the tip");
    assert_eq!(next.entry().sequence(), 4);
    assert_eq!(next.revision(), Some(text.as_bytes()));
    assert!(
        follower
            .next_timeout(Some(Duration::ZERO))
            .unwrap()
            .is_none()
    );
}

/// A root is named by its server and name, not by how the address spells
/// the host: a writer of `nats://localhost:<port>/<name>` opens the root a
/// writer of `nats://127.0.0.1:<port>/<name>` created, and appends after
/// its entries.
#[test]
fn a_root_created_through_one_spelling_of_its_host_opens_through_another() {
    let server = NatsServer::start();
    let first = root(&server, "spelled");
    // A signed root: its checkpoint's bucket is made by the first writer.
    let (key, _) = nenjim_journal_testkit::signed::key("audit", 3);
    let mut w = first
        .writer(WriterOptions::new().signing_key(&key))
        .unwrap();
    assert_eq!(
        w.append(&bare_genesis("one", &ts(1))).unwrap().sequence(),
        1
    );
    w.close().unwrap();
    let other = NatsRoot::parse_with_env(
        &format!("nats://localhost:{}/spelled", server.port()),
        Vec::<(String, String)>::new(),
    )
    .unwrap()
    // Every revision goes through the blob bucket first.
    .inline_limit(16);
    assert_ne!(other.to_string(), first.to_string());
    let mut w = other
        .writer(WriterOptions::new().signing_key(&key))
        .unwrap();
    assert_eq!(
        w.append(&bare_genesis("two", &ts(1))).unwrap().sequence(),
        2
    );
    w.close().unwrap();
}
