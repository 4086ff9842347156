//! From an async service: the library's calls block, so an async program
//! makes them in `spawn_blocking`; one made on a runtime's own thread by
//! mistake still works or is refused with an error, never a panic. Run on
//! a bucket root (`memory://`, the object store backend and its own
//! runtime), through the example service.

use crate::service_example as service;

fn serve(address: &str) -> service::Served {
    let mut out = Vec::new();
    service::run(address, "hub-demo", "1.0.0", &mut out).unwrap()
}

#[test]
fn from_spawn_blocking_in_a_multi_threaded_runtime() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let served = runtime
        .block_on(async { tokio::task::spawn_blocking(|| serve("memory://hub/journal")).await })
        .unwrap();
    assert_eq!(served.followed, vec![1, 2]);
}

#[test]
fn called_on_a_runtime_thread_it_does_not_panic() {
    for runtime in [
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap(),
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap(),
    ] {
        let served = runtime.block_on(async { serve("memory://hub/journal") });
        assert_eq!(served.published, 2);
    }
}

/// A NATS root (a network backend with its own runtime, and live following)
/// from an async service: in `spawn_blocking`, and on a runtime's thread.
#[test]
fn a_nats_root_from_inside_runtimes_never_panics() {
    let server = nenjim_journal_testkit::nats::NatsServer::start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let address = server.root("hub");
    let first = runtime
        .block_on(async {
            let address = address.clone();
            tokio::task::spawn_blocking(move || serve(&address)).await
        })
        .unwrap();
    assert_eq!(first.followed, vec![1, 2]);
    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut out = Vec::new();
    let second = current
        .block_on(async { service::run(&address, "hub-demo", "1.1.0", &mut out) })
        .unwrap();
    // Followed live: what this run appended, after its start.
    assert_eq!(second.followed, vec![3]);
}
