//! Which failed requests are an outage (retry later: `Unavailable`) rather
//! than an answer: by the client's typed error kinds and the JetStream
//! error codes, never by reading an error's text.
//!
//! An outage is a request that timed out (no answer within the request
//! timeout), one that no server took (no responders: the stream has no
//! leader now, or no server of it is up), a connection lost under it, or a
//! JetStream answer that the cluster is not ready (no leader, the stream
//! offline, the cluster unavailable). Everything else is an answer.

use async_nats::jetstream::ErrorCode;
use async_nats::jetstream::context::{
    CreateKeyValueErrorKind, CreateStreamErrorKind, GetStreamErrorKind, KeyValueErrorKind,
    ObjectStoreErrorKind, PublishErrorKind, RequestErrorKind,
};
use async_nats::jetstream::stream::{
    ConsumerErrorKind, DirectGetErrorKind, LastRawMessageErrorKind,
};

/// Why a request got no answer, for the one line said of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    /// No answer within the request timeout.
    TimedOut,
    /// No server took the request, or the cluster said it is not ready.
    NoLeader,
    /// The connection was lost under the request.
    Disconnected,
}

impl Why {
    /// What happened, said for an operator.
    pub(crate) fn said(self) -> &'static str {
        match self {
            Why::TimedOut => "the server did not answer in time",
            Why::NoLeader => {
                "no server answered for the root's stream (its leader is being elected, or its servers are down)"
            }
            Why::Disconnected => "the connection to the server was lost",
        }
    }
}

/// A failure that may be an outage.
pub(crate) trait Outage {
    /// Why it is one; `None` when the failure is an answer.
    fn outage(&self) -> Option<Why>;
}

impl<K> Outage for async_nats::error::Error<K>
where
    K: OutageKind + Clone + std::fmt::Debug + std::fmt::Display + PartialEq,
{
    fn outage(&self) -> Option<Why> {
        // The kind, else what it wraps (a key-value create fails as
        // `Other` around the publish whose stream had no leader yet).
        self.kind()
            .outage()
            .or_else(|| std::error::Error::source(self).and_then(dyn_outage))
    }
}

/// A kind of the client's errors that may be an outage.
pub(crate) trait OutageKind {
    fn outage(&self) -> Option<Why>;
}

/// The JetStream codes that say the cluster cannot answer now.
fn code(error: &async_nats::jetstream::Error) -> Option<Why> {
    const NOT_READY: [ErrorCode; 5] = [
        ErrorCode::CLUSTER_NOT_AVAILABLE,
        ErrorCode::CLUSTER_NOT_LEADER,
        ErrorCode::CLUSTER_NOT_ACTIVE,
        ErrorCode::STREAM_OFFLINE,
        ErrorCode::CLUSTER_PEER_NOT_MEMBER,
    ];
    NOT_READY
        .contains(&error.error_code())
        .then_some(Why::NoLeader)
}

impl OutageKind for RequestErrorKind {
    fn outage(&self) -> Option<Why> {
        match self {
            RequestErrorKind::TimedOut => Some(Why::TimedOut),
            RequestErrorKind::NoResponders => Some(Why::NoLeader),
            _ => None,
        }
    }
}

impl OutageKind for PublishErrorKind {
    fn outage(&self) -> Option<Why> {
        match self {
            PublishErrorKind::TimedOut => Some(Why::TimedOut),
            PublishErrorKind::BrokenPipe => Some(Why::Disconnected),
            // A publish no stream took: on a root that exists, its stream
            // has no leader now.
            PublishErrorKind::StreamNotFound => Some(Why::NoLeader),
            _ => None,
        }
    }
}

impl OutageKind for GetStreamErrorKind {
    fn outage(&self) -> Option<Why> {
        match self {
            GetStreamErrorKind::JetStream(e) => code(e),
            GetStreamErrorKind::Request => Some(Why::TimedOut),
            _ => None,
        }
    }
}

impl OutageKind for CreateStreamErrorKind {
    fn outage(&self) -> Option<Why> {
        match self {
            CreateStreamErrorKind::JetStream(e) => code(e),
            CreateStreamErrorKind::TimedOut => Some(Why::TimedOut),
            CreateStreamErrorKind::JetStreamUnavailable => Some(Why::NoLeader),
            _ => None,
        }
    }
}

impl OutageKind for LastRawMessageErrorKind {
    fn outage(&self) -> Option<Why> {
        match self {
            LastRawMessageErrorKind::JetStream(e) => code(e),
            // A request that got no answer (a timeout, no responders).
            LastRawMessageErrorKind::Other => Some(Why::TimedOut),
            _ => None,
        }
    }
}

impl OutageKind for ConsumerErrorKind {
    fn outage(&self) -> Option<Why> {
        match self {
            ConsumerErrorKind::JetStream(e) => code(e),
            ConsumerErrorKind::TimedOut | ConsumerErrorKind::Request => Some(Why::TimedOut),
            _ => None,
        }
    }
}

impl OutageKind for DirectGetErrorKind {
    fn outage(&self) -> Option<Why> {
        match self {
            DirectGetErrorKind::TimedOut | DirectGetErrorKind::Request => Some(Why::TimedOut),
            _ => None,
        }
    }
}

impl OutageKind for KeyValueErrorKind {
    fn outage(&self) -> Option<Why> {
        match self {
            KeyValueErrorKind::GetBucket | KeyValueErrorKind::JetStream => Some(Why::TimedOut),
            KeyValueErrorKind::InvalidStoreName => None,
        }
    }
}

impl OutageKind for CreateKeyValueErrorKind {
    fn outage(&self) -> Option<Why> {
        match self {
            CreateKeyValueErrorKind::TimedOut => Some(Why::TimedOut),
            _ => None,
        }
    }
}

impl OutageKind for ObjectStoreErrorKind {
    fn outage(&self) -> Option<Why> {
        match self {
            ObjectStoreErrorKind::GetStore => Some(Why::TimedOut),
            ObjectStoreErrorKind::InvalidBucketName => None,
        }
    }
}

macro_rules! timed_out {
    ($($kind:path => [$($variant:ident),*]),* $(,)?) => {
        $(impl OutageKind for $kind {
            fn outage(&self) -> Option<Why> {
                use $kind as K;
                match self {
                    $(K::$variant)|* => Some(Why::TimedOut),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        })*
    };
}

timed_out! {
    async_nats::jetstream::kv::EntryErrorKind => [TimedOut],
    async_nats::jetstream::kv::UpdateErrorKind => [TimedOut],
    async_nats::jetstream::kv::CreateErrorKind => [Publish, Ack],
    async_nats::jetstream::object_store::InfoErrorKind => [TimedOut],
    async_nats::jetstream::object_store::GetErrorKind => [TimedOut, ConsumerCreate],
    async_nats::jetstream::object_store::PutErrorKind => [TimedOut, PublishChunks, PublishMetadata],
    async_nats::jetstream::consumer::StreamErrorKind => [TimedOut],
    async_nats::jetstream::consumer::pull::OrderedErrorKind => [MissingHeartbeat],
    async_nats::jetstream::consumer::pull::MessagesErrorKind => [MissingHeartbeat],
}

/// A failure already said as text, with whether it was an outage.
#[derive(Debug)]
pub(crate) struct Said(pub(crate) String, pub(crate) Option<Why>);

impl std::fmt::Display for Said {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Outage for Said {
    fn outage(&self) -> Option<Why> {
        self.1
    }
}

impl<T: Outage + ?Sized> Outage for &T {
    fn outage(&self) -> Option<Why> {
        (**self).outage()
    }
}

/// A boxed error of the client (what an async block with `?` over several
/// of its error types gives): an outage when one of its sources is.
impl Outage for async_nats::Error {
    fn outage(&self) -> Option<Why> {
        dyn_outage(&**self)
    }
}

/// Whether `error` or one of its sources is an outage: the client's error
/// types a read or a stream of messages gives, and the I/O errors of a
/// connection lost or timed out.
pub(crate) fn dyn_outage(error: &(dyn std::error::Error + 'static)) -> Option<Why> {
    use async_nats::jetstream::consumer::{StreamError, pull};
    let mut next = Some(error);
    while let Some(error) = next {
        let found = if let Some(e) = error.downcast_ref::<pull::OrderedError>() {
            e.outage()
        } else if let Some(e) = error.downcast_ref::<pull::MessagesError>() {
            e.outage()
        } else if let Some(e) = error.downcast_ref::<StreamError>() {
            e.outage()
        } else if let Some(e) = error.downcast_ref::<async_nats::jetstream::stream::ConsumerError>()
        {
            e.outage()
        } else if let Some(e) = error.downcast_ref::<async_nats::jetstream::context::RequestError>()
        {
            e.outage()
        } else if let Some(e) =
            error.downcast_ref::<async_nats::jetstream::object_store::GetError>()
        {
            e.outage()
        } else if let Some(e) = error.downcast_ref::<async_nats::jetstream::context::PublishError>()
        {
            e.outage()
        } else if let Some(e) = error.downcast_ref::<async_nats::jetstream::kv::EntryError>() {
            e.outage()
        } else if let Some(e) =
            error.downcast_ref::<async_nats::jetstream::stream::LastRawMessageError>()
        {
            e.outage()
        } else if let Some(e) =
            error.downcast_ref::<async_nats::jetstream::stream::DirectGetError>()
        {
            e.outage()
        } else if let Some(e) = error.downcast_ref::<std::io::Error>() {
            match e.kind() {
                std::io::ErrorKind::TimedOut => Some(Why::TimedOut),
                std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::ConnectionRefused
                | std::io::ErrorKind::ConnectionAborted
                | std::io::ErrorKind::BrokenPipe
                | std::io::ErrorKind::NotConnected
                | std::io::ErrorKind::UnexpectedEof => Some(Why::Disconnected),
                _ => None,
            }
        } else {
            None
        };
        if found.is_some() {
            return found;
        }
        next = error.source();
    }
    None
}
