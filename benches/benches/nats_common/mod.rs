//! What the NATS benches (P14-P16) share: the server's roots, the
//! revision texts, and the runtime their floors run the client on.
#![allow(dead_code)] // each bench uses a part
#![allow(clippy::panic)] // a bench with a broken setup fails loudly

use nenjim_journal_api::valuetypes::{ContentPointer, RevisionDigest};
use nenjim_journal_benches::corpus;
use nenjim_journal_nats::{NatsJournalWriter, NatsRoot};
use nenjim_journal_testkit::nats::{NatsCluster, NatsServer};

/// The root `name` on `server`.
pub fn root(server: &NatsServer, name: &str) -> NatsRoot {
    match NatsRoot::parse(&server.root(name)) {
        Ok(root) => root,
        Err(e) => panic!("the bench root {name}: {e}"),
    }
}

/// The runtime a floor runs the client on: the one the nats crate gives
/// each connection (multi-threaded, one worker), blocked on from the
/// bench's thread as the crate's blocking API does.
pub fn runtime() -> tokio::runtime::Runtime {
    match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => panic!("a tokio runtime: {e}"),
    }
}

/// A client of `server` and its JetStream context (made inside `runtime`).
pub fn client(
    runtime: &tokio::runtime::Runtime,
    server: &NatsServer,
) -> (async_nats::Client, async_nats::jetstream::Context) {
    client_at(runtime, server.port())
}

/// A client of the server on 127.0.0.1:`port` (one node of a cluster: the
/// R3 benches connect both sides of a ratio to the same node) and its
/// JetStream context (made inside `runtime`).
pub fn client_at(
    runtime: &tokio::runtime::Runtime,
    port: u16,
) -> (async_nats::Client, async_nats::jetstream::Context) {
    let client = match runtime.block_on(async_nats::connect(format!("127.0.0.1:{port}"))) {
        Ok(client) => client,
        Err(e) => panic!("cannot connect to 127.0.0.1:{port}: {e}"),
    };
    let js = {
        let _inside = runtime.enter();
        async_nats::jetstream::new(client.clone())
    };
    (client, js)
}

/// A revision body of about 10 kB (P8's shape: releases with
/// dependencies), release `i`'s content `content(i)` (the benches' NATS
/// writers name the root's own blob bucket as their content store, which
/// must hold the blob of every new release: put them with `put_blob`).
pub fn body(mut content: impl FnMut(usize) -> ContentPointer) -> String {
    let mut body = String::new();
    let mut i = 0;
    while body.len() < 9_700 {
        body.push_str(&format!(
            "\nRELEASE 1.{i}.0\n  LICENSE Apache-2.0 OR MIT\n  CONTENT {}\n  DEPENDS serde [1.0.0,2.0.0)\n  DEPENDS tokio [1.{i}.0,2.0.0) \"runtime\"\n",
            content(i)
        ));
        i += 1;
    }
    body
}

/// [`body`] with blobs put by `writer` (`<tag> <i>`).
pub fn body_of(writer: &mut NatsJournalWriter, tag: &str) -> String {
    body(|i| match writer.put_blob(format!("{tag} {i}").as_bytes()) {
        Ok(pointer) => pointer,
        Err(e) => panic!("put_blob: {e}"),
    })
}

/// A release `version` whose content is `content`.
pub fn release(version: &str, content: &ContentPointer) -> String {
    format!("\nRELEASE {version}\n  LICENSE MIT\n  CONTENT {content}\n")
}

/// The revision of `artifact` at second `n` after `predecessor` (or a
/// genesis), with `body` (P8's form).
pub fn revision(
    artifact: &str,
    n: i64,
    predecessor: Option<&RevisionDigest>,
    body: &str,
) -> String {
    let at = corpus::timestamp(1_767_225_600 + n);
    let predecessor = predecessor.map_or_else(|| "GENESIS".to_owned(), ToString::to_string);
    format!(
        "FORMAT nenjim-journal/1\nARTIFACT {artifact}\nJOURNAL_VERSION {at}\nPREDECESSOR {predecessor}\nDESCRIPTION \"append bench\"\n{body}"
    )
}

/// The root `name` on a cluster, named by node `node` alone (`nats://
/// 127.0.0.1:<its port>/<name>`): its writer and readers connect to that
/// node, as the floor's client does with [`client_at`], so that both sides
/// of an R3 ratio take the same path (the address of every node lets the
/// client pick one at random).
pub fn root_on_node(cluster: &NatsCluster, node: usize, name: &str) -> NatsRoot {
    let address = format!("nats://127.0.0.1:{}/{name}", cluster.port(node));
    match NatsRoot::parse(&address) {
        Ok(root) => root,
        Err(e) => panic!("the bench root {address}: {e}"),
    }
}

/// The name of the server leading the stream `stream` now, if one does.
pub fn leader_of(
    runtime: &tokio::runtime::Runtime,
    js: &async_nats::jetstream::Context,
    stream: &str,
) -> Option<String> {
    runtime.block_on(async {
        let mut handle = js.get_stream(stream).await.ok()?;
        let info = handle.info().await.ok()?;
        info.cluster.as_ref().and_then(|c| c.leader.clone())
    })
}

/// Moves the leadership of the replicated stream `stream` to the server
/// `wanted` (a leader step-down naming it as preferred, repeated until the
/// stream reports it, at most 10 times), so that the streams of both sides
/// of a ratio are led by the node their clients are connected to. Returns
/// the leader the stream has at the end (the wanted one unless the
/// cluster would not move it; the bench records it).
pub fn lead_on(
    runtime: &tokio::runtime::Runtime,
    client: &async_nats::Client,
    js: &async_nats::jetstream::Context,
    stream: &str,
    wanted: &str,
) -> String {
    let mut leader = String::new();
    for _ in 0..10 {
        // Wait until the stream has a leader (after a step-down, a new one).
        for _ in 0..200 {
            if let Some(now) = leader_of(runtime, js, stream) {
                leader = now;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        if leader == wanted {
            return leader;
        }
        let request = format!("{{\"placement\":{{\"preferred\":\"{wanted}\"}}}}");
        let subject = format!("$JS.API.STREAM.LEADER.STEPDOWN.{stream}");
        if let Err(e) = runtime.block_on(client.request(subject, request.into())) {
            eprintln!("step-down of {stream}: {e}");
        }
        // The old leader answers before the election: wait for a change.
        for _ in 0..200 {
            std::thread::sleep(std::time::Duration::from_millis(50));
            match leader_of(runtime, js, stream) {
                Some(now) if now != leader => {
                    leader = now;
                    break;
                }
                _ => {}
            }
        }
    }
    leader
}
