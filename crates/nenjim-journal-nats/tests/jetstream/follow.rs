//! Following the stream against a real `nats-server -js`: each append of
//! another connection once and in order, a stop, a stopped server, a
//! restart without a gap or a repeat.

use super::*;

#[test]
fn a_follower_sees_each_append_of_another_connection_once_and_in_order() {
    let server = NatsServer::start();
    let root = root(&server, "follow");
    let writer = created(&root);
    let chain = chain();
    commit(&writer, 0, &chain[0].0, &chain[0].1);
    let reader = root.ledger().unwrap();
    let mut follower = reader.follow(0).unwrap();
    // The backlog first.
    let first = follower.wait().unwrap();
    assert_eq!(first.entry().sequence(), 1);
    assert_eq!(first.revision(), Some(chain[0].1.as_bytes()));
    // Then each commit made elsewhere, as it comes.
    let appender = thread::spawn(move || {
        let chain = chain;
        commit(&writer, 1, &chain[1].0, &chain[1].1);
        writer
            .commit_at(2, Record::Fence { epoch: 2 }, None)
            .unwrap();
        commit(&writer, 3, &chain[2].0, &chain[2].1);
        writer
    });
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(follower.wait().unwrap().entry().clone());
    }
    let writer = appender.join().unwrap();
    assert_eq!(
        seen,
        writer
            .read_after(1, 10)
            .unwrap()
            .into_iter()
            .map(|m| m.into_parts().0)
            .collect::<Vec<_>>()
    );
    assert_eq!(follower.last(), 4);
    // Nothing more: a wait with a timeout ends empty and the follower goes on.
    assert!(
        follower
            .next_timeout(Some(Duration::from_millis(100)))
            .unwrap()
            .is_none()
    );
    commit(&writer, 4, &ts(7), &genesis("right-pad", &ts(7), &[]));
    assert_eq!(follower.wait().unwrap().entry().sequence(), 5);

    // A follower started later, after the tip, sees only what comes next.
    let mut late = reader.follow(5).unwrap();
    assert!(
        late.next_timeout(Some(Duration::from_millis(50)))
            .unwrap()
            .is_none()
    );
    commit(&writer, 5, &ts(8), &genesis("up-pad", &ts(8), &[]));
    assert_eq!(late.wait().unwrap().entry().sequence(), 6);
    assert_eq!(follower.wait().unwrap().entry().sequence(), 6);
}

#[test]
fn the_stop_signal_releases_a_blocked_follower_with_stopped() {
    let server = NatsServer::start();
    let root = root(&server, "stop");
    let ledger = created(&root);
    let mut follower = ledger.follow(0).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let waiting = thread::spawn(move || {
        tx.send(()).unwrap();
        follower.wait()
    });
    rx.recv().unwrap();
    ledger.stop_signal().stop();
    let e = waiting.join().unwrap().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Stopped, "{e}");
    // Every later follower of that ledger is stopped too.
    let e = ledger.follow(0).unwrap().next_timeout(None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Stopped, "{e}");
}

#[test]
fn a_stopped_server_is_a_typed_error_for_a_waiting_follower_and_a_committer() {
    let mut server = NatsServer::start();
    let root = root(&server, "gone")
        .max_reconnects(2)
        .reconnect_delay(Duration::from_millis(20))
        .request_timeout(Duration::from_secs(2));
    let ledger = created(&root);
    commit(&ledger, 0, &ts(1), &genesis("left-pad", &ts(1), &[]));
    let mut follower = ledger.follow(1).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let waiting = thread::spawn(move || {
        tx.send(()).unwrap();
        follower.wait()
    });
    rx.recv().unwrap();
    server.stop();
    let e = waiting.join().unwrap().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable, "{e}");
    assert!(e.message().contains("lost the connection"), "{e}");
    assert!(e.message().contains("after 2 reconnect attempts"), "{e}");
    let text = genesis("left-pad", &ts(2), &[]);
    let outcome = ledger.commit_at(
        1,
        record("left-pad", &ts(2), text.as_bytes()),
        Some(text.as_bytes()),
    );
    match outcome {
        Err(CommitError::Failed(e)) => assert_eq!(e.kind(), ErrorKind::Unavailable, "{e}"),
        other => panic!("{other:?}"),
    }
    // Nothing was half committed: the restarted server holds entry 1 alone.
    server.restart();
    assert_eq!(everything(&root.ledger().unwrap(), 10).len(), 1);
}

#[test]
fn a_follower_goes_on_after_a_server_restart_without_a_gap_or_a_repeat() {
    let mut server = NatsServer::start();
    let root = root(&server, "restart")
        .max_reconnects(1000)
        .reconnect_delay(Duration::from_millis(10));
    let writer = created(&root);
    commit(&writer, 0, &ts(1), &genesis("left-pad", &ts(1), &[]));
    drop(writer);
    let reader = root.ledger().unwrap();
    let mut follower = reader.follow(0).unwrap();
    assert_eq!(follower.wait().unwrap().entry().sequence(), 1);
    // A batch read before the restart, on the follower's connection...
    assert_eq!(reader.read_after(0, 1).unwrap().len(), 1);
    server.restart();
    let writer = root.ledger().unwrap();
    commit(&writer, 1, &ts(2), &genesis("right-pad", &ts(2), &[]));
    commit(&writer, 2, &ts(3), &genesis("up-pad", &ts(3), &[]));
    assert_eq!(follower.wait().unwrap().entry().sequence(), 2);
    assert_eq!(follower.wait().unwrap().entry().sequence(), 3);
    assert!(
        follower
            .next_timeout(Some(Duration::from_millis(100)))
            .unwrap()
            .is_none()
    );
}
