//! Direct access to the server, around the ledger: what a test inspects
//! or damages (the other test modules use it too).

use async_nats::jetstream;
use nenjim_journal_testkit::nats::NatsServer;

pub struct Raw {
    runtime: tokio::runtime::Runtime,
    js: jetstream::Context,
}

impl Raw {
    pub fn connect(server: &NatsServer) -> Raw {
        Raw::connect_to(&server.url())
    }

    /// A raw client of the server(s) of `url` (`nats://h:p[,h:p…]`).
    pub fn connect_to(url: &str) -> Raw {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let servers: Vec<async_nats::ServerAddr> = url
            .trim_start_matches("nats://")
            .split(',')
            .map(|s| format!("nats://{s}").parse().unwrap())
            .collect();
        let js =
            runtime.block_on(async { jetstream::new(async_nats::connect(servers).await.unwrap()) });
        Raw { runtime, js }
    }

    /// How many consumers the stream `stream` has now.
    pub fn consumer_count(&self, stream: &str) -> usize {
        self.runtime.block_on(async {
            let mut stream = self.js.get_stream(stream).await.unwrap();
            stream.info().await.unwrap().state.consumer_count
        })
    }

    /// Every message of the stream `stream` from `start`, through an
    /// ordered consumer as the ledger reads them: for each, the stream
    /// sequence the reader takes from its reply subject
    /// (`ledger::stream_sequence`) and the one async-nats's own
    /// `Message::info` parses.
    pub fn sequences(&self, stream: &str, start: u64, count: usize) -> Vec<(Option<u64>, u64)> {
        use async_nats::jetstream::consumer::{DeliverPolicy, pull::OrderedConfig};
        use futures::StreamExt as _;
        self.runtime.block_on(async {
            let stream = self.js.get_stream(stream).await.unwrap();
            let consumer = stream
                .create_consumer(OrderedConfig {
                    deliver_policy: DeliverPolicy::ByStartSequence {
                        start_sequence: start,
                    },
                    ..Default::default()
                })
                .await
                .unwrap();
            let mut messages = consumer.messages().await.unwrap();
            let mut read = Vec::new();
            while read.len() < count {
                let message = messages.next().await.unwrap().unwrap();
                read.push((
                    nenjim_journal_nats::ledger::stream_sequence(&message),
                    message.info().unwrap().stream_sequence,
                ));
            }
            read
        })
    }

    /// The configuration of the stream `stream`.
    pub fn stream_config(&self, stream: &str) -> jetstream::stream::Config {
        self.runtime.block_on(async {
            let mut stream = self.js.get_stream(stream).await.unwrap();
            stream.info().await.unwrap().config.clone()
        })
    }

    /// The leader of the stream `stream` as its info says now (`None`:
    /// none elected, or not clustered).
    pub fn stream_leader(&self, stream: &str) -> Option<String> {
        self.runtime.block_on(async {
            let mut stream = self.js.get_stream(stream).await.unwrap();
            let info = stream.info().await.unwrap();
            info.cluster.as_ref().and_then(|c| c.leader.clone())
        })
    }

    /// The headers and body of message `sequence` of `stream`.
    pub fn message(&self, stream: &str, sequence: u64) -> (Vec<(String, String)>, Vec<u8>) {
        self.runtime.block_on(async {
            let stream = self.js.get_stream(stream).await.unwrap();
            let message = stream.get_raw_message(sequence).await.unwrap();
            let headers = message
                .headers
                .iter()
                .flat_map(|(k, vs)| {
                    vs.iter()
                        .map(move |v| (k.to_string(), v.as_str().to_owned()))
                })
                .collect();
            (headers, message.payload.to_vec())
        })
    }

    pub fn object(&self, bucket: &str, key: &str) -> Vec<u8> {
        self.runtime.block_on(async {
            let store = self.js.get_object_store(bucket).await.unwrap();
            let mut object = store.get(key).await.unwrap();
            let mut bytes = Vec::new();
            tokio::io::AsyncReadExt::read_to_end(&mut object, &mut bytes)
                .await
                .unwrap();
            bytes
        })
    }

    pub fn put_object(&self, bucket: &str, key: &str, bytes: &[u8]) {
        self.runtime.block_on(async {
            let store = self.js.get_object_store(bucket).await.unwrap();
            let mut reader = bytes;
            store.put(key, &mut reader).await.unwrap();
        });
    }

    pub fn delete_object(&self, bucket: &str, key: &str) {
        self.runtime.block_on(async {
            let store = self.js.get_object_store(bucket).await.unwrap();
            store.delete(key).await.unwrap();
        });
    }

    /// The lease bucket of the root `name`.
    fn lease_bucket(&self, name: &str) -> jetstream::kv::Store {
        self.runtime.block_on(async {
            self.js
                .get_key_value(format!("NENJIM_{name}_lease"))
                .await
                .unwrap()
        })
    }

    /// The lease of the root `name` and its key-value revision.
    pub fn lease(&self, name: &str) -> (nenjim_journal_nats::Lease, u64) {
        use nenjim_journal_nats::lease::{LEASE_KEY, Lease};
        let kv = self.lease_bucket(name);
        self.runtime.block_on(async {
            let entry = kv.entry(LEASE_KEY).await.unwrap().unwrap();
            let lease = Lease::parse(std::str::from_utf8(&entry.value).unwrap()).unwrap();
            (lease, entry.revision)
        })
    }

    /// Replaces the lease of the root `name`, at KV revision `revision`.
    pub fn put_lease(&self, name: &str, lease: &nenjim_journal_nats::Lease, revision: u64) {
        use nenjim_journal_nats::lease::LEASE_KEY;
        let kv = self.lease_bucket(name);
        self.runtime.block_on(async {
            kv.update(LEASE_KEY, lease.render().into(), revision)
                .await
                .unwrap();
        });
    }

    /// Changes a stream's configuration to `config`.
    pub fn update_stream(&self, config: &jetstream::stream::Config) {
        self.runtime.block_on(async {
            self.js.update_stream(config).await.unwrap();
        });
    }

    /// Creates a stream as it is configured (an older version's, say).
    pub fn create_stream(&self, config: jetstream::stream::Config) {
        self.runtime.block_on(async {
            self.js.create_stream(config).await.unwrap();
        });
    }

    pub fn publish(&self, subject: &str, headers: &[(&str, &str)], body: &[u8]) {
        self.runtime.block_on(async {
            let mut map = async_nats::HeaderMap::new();
            for (k, v) in headers {
                map.insert(*k, *v);
            }
            self.js
                .publish_with_headers(subject.to_owned(), map, body.to_vec().into())
                .await
                .unwrap()
                .await
                .unwrap();
        });
    }
}
