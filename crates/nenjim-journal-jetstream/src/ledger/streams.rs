//! Making a root's stream and buckets, and how they are replicated: the
//! `init` side of [`NatsLedger`] (creation with replicas, the cluster's
//! size, leader reads, atomic batches on an older stream), apart from its
//! reading and committing.

use super::*;

/// How long a step that rides out an election ([`NatsLedger::rides_out`])
/// pauses before it makes a request again that the cluster left
/// unanswered.
pub(crate) const ELECTION_POLL: Duration = Duration::from_millis(20);

impl NatsLedger {
    /// Creates the root's stream and buckets where absent (what a writer
    /// does before its first commit); an existing stream is kept as it is
    /// (the writer gives one made without atomic batch publishes them once
    /// it holds the lease: [`ensure_atomic_batches`](Self::ensure_atomic_batches)).
    pub fn create(&self) -> Result<(), JournalError> {
        self.create_replicated(None).map(|_| ())
    }

    /// [`create`](Self::create) with `replicas` copies of the stream and
    /// of every bucket (`None`: an existing root's as they are, a new
    /// one's 1). An existing root asked for another number is scaled to
    /// it. More replicas than the cluster has servers is refused
    /// (`Usage`), naming both numbers. Buckets created later (a signed
    /// root's transparency log) take the stream's number. On a cluster it
    /// returns once every stream of the root has a leader,
    /// so that a writer opened next finds them answering.
    ///
    /// On a cluster the create rides out an election (see
    /// [`JetStreamRoot::election_wait`](crate::JetStreamRoot::election_wait)):
    /// every step of it is one that may be made again (a stream or bucket
    /// that exists is kept, one at the replicas asked is not changed), so
    /// an outage of any step is met by making the whole create again, until
    /// it is done or the wait is over (`Unavailable`, saying the last
    /// outage and how long it was ridden out). A connection lost for good
    /// ends the wait at once.
    ///
    /// `Ok(true)` when the ledger's stream was new: absent when this call
    /// first looked (a try that made it but got no answer leaves it new).
    pub fn create_replicated(&self, replicas: Option<usize>) -> Result<bool, JournalError> {
        let conn = &self.inner.conn;
        let wait = conn.election_wait;
        let deadline = std::time::Instant::now() + wait;
        let mut existed = None;
        loop {
            let tried = match existed {
                Some(existed) => Ok(existed),
                None => self.exists(),
            }
            .and_then(|found| {
                existed = Some(found);
                self.create_once(replicas)
            })
            .and_then(|()| self.await_leaders(deadline));
            match tried.map(|()| existed == Some(false)) {
                Err(e) if e.kind() == ErrorKind::Unavailable && self.rides_out(deadline) => {
                    std::thread::sleep(ELECTION_POLL);
                }
                Err(e) if e.kind() == ErrorKind::Unavailable && self.is_clustered() => {
                    return Err(e.note(format!(
                        "the creation was tried again for {} ms, the root's election wait",
                        wait.as_millis()
                    )));
                }
                done => return done,
            }
        }
    }

    /// Whether an outage met before `deadline` is ridden out (the request
    /// made again after [`ELECTION_POLL`]): only on a cluster, whose
    /// leaders are elected, and not once the connection is lost for good.
    pub(crate) fn rides_out(&self, deadline: std::time::Instant) -> bool {
        self.is_clustered() && !self.inner.conn.is_lost() && std::time::Instant::now() < deadline
    }

    /// One try of [`create_replicated`](Self::create_replicated), without
    /// its wait for leaders.
    fn create_once(&self, replicas: Option<usize>) -> Result<(), JournalError> {
        let conn = &self.inner.conn;
        let names = &self.inner.names;
        if let Some(asked) = replicas {
            // A server of no cluster refuses more than one at once; a
            // cluster's own answer to the create decides (its INFO's list
            // of servers can lag a server that just joined), said with the
            // numbers by `replicas_error`.
            let servers = self.cluster_size();
            if asked == 0 || (asked > 1 && !self.is_clustered()) {
                return Err(error::error(
                    ErrorKind::Usage,
                    format!(
                        "found {asked} replicas asked for the root {}, expected 1 to {servers}: the server's cluster has {servers} server{}",
                        conn.address,
                        if servers == 1 { "" } else { "s" }
                    ),
                )
                .with_path(&conn.address));
            }
        }
        let config = Config {
            name: names.stream.clone(),
            subjects: vec![names.subject.clone()],
            storage: StorageType::File,
            // Entries are only ever added: never discarded, deleted or purged.
            discard: DiscardPolicy::New,
            deny_delete: true,
            deny_purge: true,
            allow_direct: true,
            // A batch of entries is one atomic publish (all or nothing).
            allow_atomic_publish: true,
            duplicate_window: Duration::from_secs(120),
            description: Some(format!(
                "the ledger of the Nenjim Journal root {}",
                conn.address
            )),
            num_replicas: replicas.unwrap_or(1),
            ..Config::default()
        };
        let mut stream = conn
            .block_on(conn.js.get_or_create_stream(config))
            .map_err(|e| self.replicas_error(replicas, "cannot create the ledger's stream", e))?;
        if let Some(asked) = replicas
            && stream.cached_info().config.num_replicas != asked
        {
            let mut wanted = stream.cached_info().config.clone();
            wanted.num_replicas = asked;
            conn.block_on(conn.js.update_stream(&wanted)).map_err(|e| {
                self.replicas_error(replicas, "cannot change the ledger stream's replicas", e)
            })?;
            stream = conn
                .block_on(conn.js.get_stream(&names.stream))
                .map_err(|e| conn.request_error("cannot look up the ledger's stream", e))?;
        }
        *lock(&self.inner.stream) = Some(Arc::new(stream));
        self.lease_bucket(true)?;
        self.blob_bucket(true)?;
        if replicas.is_some() {
            for bucket in names.bucket_streams() {
                self.scale(&bucket, replicas.unwrap_or(1))?;
            }
        }
        self.ensure_leader_reads()
    }

    /// On a cluster, waits (at most the root's election wait) until the
    /// root's stream and each of its buckets has a leader: after a bucket
    /// is created lazily (the transparency log's, the ledger metadata's),
    /// as [`create_replicated`](Self::create_replicated) does after it
    /// creates the others.
    pub(crate) fn await_bucket_leaders(&self) -> Result<(), JournalError> {
        self.await_leaders(std::time::Instant::now() + self.inner.conn.election_wait)
    }

    /// On a cluster, waits until the root's stream and each of its
    /// buckets has a leader (a stream whose leader stepped down after the
    /// create's answer elects another): a writer opened right after
    /// [`create_replicated`](Self::create_replicated) would otherwise find
    /// its lease bucket with no one to answer (`Unavailable`). Polls until
    /// `deadline`, then is `Unavailable` naming the stream; a failure other
    /// than an outage is returned at once.
    fn await_leaders(&self, deadline: std::time::Instant) -> Result<(), JournalError> {
        if !self.is_clustered() {
            return Ok(());
        }
        let conn = &self.inner.conn;
        let names = &self.inner.names;
        let streams = std::iter::once(names.stream.clone()).chain(names.bucket_streams());
        for name in streams {
            let what = format!("cannot read the stream info of {name}");
            loop {
                let led = match self.find_stream(&name, &what) {
                    Ok(None) => break,
                    Ok(Some(mut stream)) => conn
                        .block_on(stream.info())
                        .map(|info| info.cluster.as_ref().is_some_and(|c| c.leader.is_some()))
                        .map_err(|e| conn.request_error(&what, e)),
                    Err(e) => Err(e),
                };
                match led {
                    Ok(true) => break,
                    Err(e) if e.kind() != ErrorKind::Unavailable => return Err(e),
                    Err(e) if std::time::Instant::now() >= deadline => return Err(e),
                    Ok(false) if std::time::Instant::now() >= deadline => {
                        return Err(error::error(
                            ErrorKind::Unavailable,
                            format!(
                                "found no leader elected for the stream {name} of the root {}, expected one: retry later",
                                conn.address,
                            ),
                        )
                        .with_path(&conn.address));
                    }
                    _ => std::thread::sleep(ELECTION_POLL),
                }
            }
        }
        Ok(())
    }

    /// The ledger stream's replicas (1 when it cannot be read): the number
    /// every bucket of the root is created with, whichever connection
    /// creates it.
    pub(crate) fn stream_replicas(&self) -> usize {
        self.stream()
            .map_or(1, |s| s.cached_info().config.num_replicas.max(1))
    }

    /// How many servers the connected server's cluster has, as far as
    /// this client can tell: the client URLs the server advertises (every
    /// server of its cluster, itself included; a server that just joined
    /// may not be listed yet) or, when more, the servers the root's
    /// address names; at least 1.
    pub fn cluster_size(&self) -> usize {
        let info = self.inner.conn.client.server_info();
        let mut urls = info.connect_urls.clone();
        urls.sort();
        urls.dedup();
        let named = if info.cluster.is_some() {
            self.inner.root.servers.len()
        } else {
            1
        };
        urls.len().max(named).max(1)
    }

    /// Whether the connected server is one of a cluster.
    pub fn is_clustered(&self) -> bool {
        self.inner.conn.client.server_info().cluster.is_some()
    }

    /// The replicas of the ledger's stream and the server names of its
    /// leader and its current followers, as the stream's leader reports
    /// them now.
    pub fn replication(&self) -> Result<Replication, JournalError> {
        let mut stream = Stream::clone(&*self.stream()?);
        let conn = &self.inner.conn;
        let info = conn
            .block_on(stream.info())
            .map_err(|e| conn.request_error("cannot read the ledger's stream info", e))?;
        let cluster = info.cluster.as_ref();
        Ok(Replication {
            replicas: info.config.num_replicas.max(1),
            leader: cluster.and_then(|c| c.leader.clone()),
            current: cluster.map_or(0, |c| c.replicas.iter().filter(|r| r.current).count()),
            clustered: self.is_clustered(),
        })
    }

    /// Scales the stream `stream` (a bucket's) to `replicas`, if it exists.
    fn scale(&self, stream: &str, replicas: usize) -> Result<(), JournalError> {
        let conn = &self.inner.conn;
        let Some(mut found) =
            self.find_stream(stream, &format!("cannot look up the stream {stream}"))?
        else {
            return Ok(());
        };
        let config = found.cached_info().config.clone();
        if config.num_replicas == replicas {
            return Ok(());
        }
        let mut wanted = config;
        wanted.num_replicas = replicas;
        conn.block_on(conn.js.update_stream(&wanted)).map_err(|e| {
            self.replicas_error(
                Some(replicas),
                &format!("cannot change the replicas of {stream}"),
                e,
            )
        })?;
        let _ = conn.block_on(found.info());
        Ok(())
    }

    /// The stream `name`, `None` when it does not exist.
    /// `what` says the failure of the look-up itself.
    pub(crate) fn find_stream(
        &self,
        name: &str,
        what: &str,
    ) -> Result<Option<Stream>, JournalError> {
        let conn = &self.inner.conn;
        match conn.block_on(conn.js.get_stream(name)) {
            Ok(stream) => Ok(Some(stream)),
            Err(e)
                if matches!(
                    e.kind(),
                    async_nats::jetstream::context::GetStreamErrorKind::JetStream(j)
                        if j.error_code() == async_nats::jetstream::ErrorCode::STREAM_NOT_FOUND
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(conn.request_error(what, e)),
        }
    }

    /// Makes every read of the root's buckets one that their stream's
    /// leader answers: a bucket is made with direct gets, which any
    /// replica answers, one that lags included; a writer that read its own
    /// blob or the lease from such a replica would refuse what it had
    /// just written (`BlobMissing`) or misjudge the lease. Clears the
    /// direct gets of each bucket that exists (a change of its
    /// configuration: a writer's step, never a reader's) and drops the
    /// handles opened before.
    pub fn ensure_leader_reads(&self) -> Result<(), JournalError> {
        let conn = &self.inner.conn;
        let names = &self.inner.names;
        for bucket in names.bucket_streams() {
            let Some(stream) =
                self.find_stream(&bucket, &format!("cannot look up the stream {bucket}"))?
            else {
                continue;
            };
            if !stream.cached_info().config.allow_direct {
                continue;
            }
            let mut wanted = stream.cached_info().config.clone();
            wanted.allow_direct = false;
            conn.block_on(conn.js.update_stream(&wanted)).map_err(|e| {
                conn.request_error(
                    &format!(
                        "cannot make the reads of {bucket} go to its leader (direct gets off)"
                    ),
                    e,
                )
            })?;
        }
        *lock(&self.inner.blobs) = None;
        Ok(())
    }

    /// A failed stream create or update: the replicas refused (by the
    /// server's error code), said with the numbers, or the request's error.
    fn replicas_error(
        &self,
        replicas: Option<usize>,
        what: &str,
        error: async_nats::jetstream::context::CreateStreamError,
    ) -> JournalError {
        use async_nats::jetstream::ErrorCode;
        use async_nats::jetstream::context::CreateStreamErrorKind;
        let conn = &self.inner.conn;
        let refused = matches!(
            error.kind(),
            CreateStreamErrorKind::JetStream(j) if [
                ErrorCode::INSUFFICIENT_RESOURCES,
                ErrorCode::STREAM_REPLICAS_NOT_SUPPORTED,
                ErrorCode::CLUSTER_NO_PEERS,
            ]
            .contains(&j.error_code())
        );
        match replicas {
            Some(asked) if refused => {
                let servers = self.cluster_size();
                error::error(
                    ErrorKind::Usage,
                    format!(
                        "{what}: the cluster of {} refused {asked} replicas (it has {servers} server{}; each replica needs a server of its own that is up: {error})",
                        conn.address,
                        if servers == 1 { "" } else { "s" }
                    ),
                )
                .with_path(&conn.address)
            }
            _ => conn.request_error(what, error),
        }
    }

    /// Gives the root's existing stream atomic batch publishes if it was
    /// made without them (by an older version): what the root's writer
    /// does once it holds the lease, the one change made to an existing
    /// stream. Whether the stream takes them now (a server that refuses the
    /// change keeps the stream as it is, whose batches are then committed
    /// entry by entry).
    pub fn ensure_atomic_batches(&self) -> Result<bool, JournalError> {
        let stream = self.stream()?;
        if stream.cached_info().config.allow_atomic_publish {
            return Ok(true);
        }
        let conn = &self.inner.conn;
        let mut wanted = stream.cached_info().config.clone();
        wanted.allow_atomic_publish = true;
        if conn.block_on(conn.js.update_stream(&wanted)).is_ok()
            && let Ok(updated) = conn.block_on(conn.js.get_stream(&self.inner.names.stream))
        {
            let atomic = updated.cached_info().config.allow_atomic_publish;
            *lock(&self.inner.stream) = Some(Arc::new(updated));
            return Ok(atomic);
        }
        Ok(false)
    }
}
