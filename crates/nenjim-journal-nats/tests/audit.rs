//! The audit's findings on the JetStream layer: each test reproduces one
//! way a commit, a lease, a follower or a read broke the contract (format
//! sections 6 and 9, api.md "Following" and "NATS JetStream roots").

use nenjim_journal_nats::{NatsLedger, NatsRoot};
use nenjim_journal_store::ledger::Record;
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::texts::{bare_genesis, ts};

use crate::jetstream::record;

/// The root `name` on `server`, without credentials from the environment.
fn root(server: &NatsServer, name: &str) -> NatsRoot {
    NatsRoot::parse_with_env(&server.root(name), Vec::<(String, String)>::new()).unwrap()
}

/// A connected ledger whose stream and buckets exist.
fn created(root: &NatsRoot) -> NatsLedger {
    let ledger = root.ledger().unwrap();
    ledger.create().unwrap();
    ledger
}

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
