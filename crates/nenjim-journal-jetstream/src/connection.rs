//! One client connection and the small runtime it runs on.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use async_nats::jetstream;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use tokio::sync::watch;

use crate::JetStreamRoot;
use crate::address::Auth;

/// A connection to a root's server: the client, its JetStream context and
/// the runtime they run on, with the connection's fate.
pub(crate) struct Connection {
    pub(crate) client: async_nats::Client,
    pub(crate) js: jetstream::Context,
    /// `true` once the client gave up (its reconnect attempts ran out, or it
    /// was closed): nothing will come over this connection again.
    pub(crate) lost: watch::Receiver<bool>,
    /// Counts the client's reconnections (each `Connected` after the first).
    pub(crate) reconnected: watch::Receiver<u64>,
    /// `nats://host:port/<name>`, for messages.
    pub(crate) address: String,
    /// `None`: without limit.
    pub(crate) max_reconnects: Option<usize>,
    pub(crate) reconnect_delay: Duration,
    /// See [`JetStreamRoot::election_wait`].
    pub(crate) election_wait: Duration,
    /// Declared last: dropped after the client it runs.
    runtime: nenjim_journal_store::blocking::Blocking,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// Connects to `root`'s server with its credentials and options.
    pub(crate) fn open(root: &JetStreamRoot) -> Result<Connection, JournalError> {
        let address = root.to_string();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("nenjim-nats")
            .enable_all()
            .build()
            .map_err(|e| error::io_error(&address, "cannot start the NATS client's runtime", e))?;
        let runtime = nenjim_journal_store::blocking::Blocking::new(runtime);
        let (lost_tx, lost) = watch::channel(false);
        let (reconnected_tx, reconnected) = watch::channel(0u64);
        let options = &root.options;
        let traced = address.clone();
        let step = options.reconnect_delay;
        let mut connect = async_nats::ConnectOptions::new()
            .name("nenjim-journal")
            .max_reconnects(options.max_reconnects)
            .connection_timeout(options.request_timeout)
            .request_timeout(Some(options.request_timeout))
            // The client counts the first connect (and the first attempt
            // after a disconnect) as attempt 1: that one is not delayed
            // (a delay there made every command wait a step first).
            .reconnect_delay_callback(move |attempts| {
                let waits = u32::try_from(attempts.saturating_sub(1)).unwrap_or(u32::MAX);
                step.saturating_mul(waits).min(Duration::from_secs(2))
            })
            .event_callback(move |event| {
                let lost_tx = lost_tx.clone();
                let reconnected_tx = reconnected_tx.clone();
                let address = traced.clone();
                async move {
                    if matches!(event, async_nats::Event::Connected) {
                        reconnected_tx.send_modify(|n| *n += 1);
                    }
                    trace_event(&address, &event, *reconnected_tx.borrow());
                    if matches!(
                        event,
                        async_nats::Event::Closed
                            | async_nats::Event::ClientError(
                                async_nats::ClientError::MaxReconnects
                            )
                    ) {
                        let _ = lost_tx.send(true);
                    }
                }
            });
        let credentials = &root.credentials;
        let setting = credentials.auth.setting();
        connect = match &credentials.auth {
            Auth::None => connect,
            Auth::CredsFile(path) => runtime
                .block_on(connect.credentials_file(path))
                .map_err(|e| setting_error(&address, "NATS_CREDS", path, e))?,
            Auth::NkeyFile(path) => {
                let seed = std::fs::read_to_string(path)
                    .map_err(|e| setting_error(&address, "NATS_NKEY", path, e))?;
                connect.nkey(seed.trim().to_owned())
            }
            Auth::UserPassword(user, password) => {
                connect.user_and_password(user.clone(), password.clone())
            }
            Auth::Token(token) => connect.token(token.clone()),
        };
        // Always our own TLS configuration, on the workspace's one crypto
        // provider (ring): also when the server alone asks for TLS.
        connect = connect.tls_client_config(crate::tls::client_config(credentials, &address)?);
        if credentials.tls() {
            connect = connect.require_tls(true);
        }
        let servers = root
            .servers
            .iter()
            .map(|s| format!("nats://{s}").parse::<async_nats::ServerAddr>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| {
                error::error(
                    ErrorKind::Usage,
                    format!("found `{address}`: {e}, expected servers the client can reach"),
                )
            })?;
        let client = runtime.block_on(connect.connect(servers)).map_err(|e| {
            if let Some(problem) = crate::tls::certificate_problem(&e, credentials) {
                return error::error(
                    ErrorKind::Io,
                    format!("cannot connect to the NATS server of {address}: {problem}"),
                )
                .with_path(&address);
            }
            // No server took the connection (refused, reset, timed out):
            // the servers are down or out of reach, which may pass.
            let down = e.kind() == async_nats::ConnectErrorKind::TimedOut
                || crate::outage::dyn_outage(&e).is_some();
            if down {
                return error::error(
                    ErrorKind::Unavailable,
                    format!(
                        "cannot connect to the NATS server of {address}: no server answered (they are down or out of reach); nothing was committed: retry later"
                    ),
                )
                .with_path(&address);
            }
            let how = match setting {
                "none" if e.kind() == async_nats::ConnectErrorKind::AuthorizationViolation => {
                    " (the server wants credentials and none is set: set one of NATS_CREDS, NATS_NKEY, NATS_USER and NATS_PASSWORD, or NATS_TOKEN)".to_owned()
                }
                "none" => String::new(),
                setting => format!(" (authenticating with {setting})"),
            };
            error::error(
                ErrorKind::Io,
                format!("cannot connect to the NATS server of {address}{how}: {e}"),
            )
            .with_path(&address)
        })?;
        // The context spawns its acker task on the runtime.
        let js = {
            let _inside = runtime.handle().enter();
            jetstream::ContextBuilder::new()
                .timeout(options.request_timeout)
                .build(client.clone())
        };
        Ok(Connection {
            client,
            js,
            lost,
            reconnected,
            address,
            max_reconnects: options.max_reconnects,
            reconnect_delay: options.reconnect_delay,
            election_wait: options.election_wait,
            runtime,
        })
    }

    /// Runs `future` to its end on the connection's runtime (from any
    /// thread: see `nenjim_journal_store::blocking`).
    pub(crate) fn block_on<F>(&self, future: F) -> F::Output
    where
        F: Future + Send,
        F::Output: Send,
    {
        self.runtime.block_on(future)
    }

    /// Whether the client gave up on the server.
    pub(crate) fn is_lost(&self) -> bool {
        *self.lost.borrow()
    }

    /// The typed error of a lost connection: the servers are down or out
    /// of reach (`Unavailable`, retry later).
    pub(crate) fn lost_error(&self) -> JournalError {
        error::error(
            ErrorKind::Unavailable,
            format!(
                "lost the connection to the NATS server of {}{}; nothing more was committed: retry later",
                self.address,
                self.max_reconnects
                    .map(|n| format!(" (after {n} reconnect attempts)"))
                    .unwrap_or_default()
            ),
        )
        .with_path(&self.address)
    }

    /// An error of a request to the server that committed nothing: the
    /// lost connection's when it was lost, `Unavailable` when it is an
    /// outage (said in one line, without the client's text), otherwise
    /// `what` and the client's error.
    pub(crate) fn request_error<E>(&self, what: &str, error: E) -> JournalError
    where
        E: std::fmt::Display + crate::outage::Outage,
    {
        self.failed(what, error, "nothing was committed")
    }

    /// An error of a commit whose answer may have been lost: as
    /// [`request_error`](Self::request_error), an outage saying that the
    /// entry may be stored and that running the same append again settles
    /// it (an append is idempotent).
    pub(crate) fn commit_error<E>(&self, what: &str, error: E) -> JournalError
    where
        E: std::fmt::Display + crate::outage::Outage,
    {
        self.failed(
            what,
            error,
            "the entry may or may not be stored: re-running the same append settles it",
        )
    }

    fn failed<E>(&self, what: &str, error: E, committed: &str) -> JournalError
    where
        E: std::fmt::Display + crate::outage::Outage,
    {
        if self.is_lost() {
            return self.lost_error();
        }
        // The error's kind, else the connection's state: a request that
        // failed while the client is not connected (its connection closed
        // under it) is an outage whatever the client called it.
        let why = error.outage().or_else(|| {
            (self.client.connection_state() != async_nats::connection::State::Connected)
                .then_some(crate::outage::Why::Disconnected)
        });
        if let Some(why) = why {
            return error::error(
                ErrorKind::Unavailable,
                format!(
                    "{what} on {}: {}; {committed}: retry later",
                    self.address,
                    why.said()
                ),
            )
            .with_path(&self.address);
        }
        error::error(
            ErrorKind::Io,
            format!("{what} on {}: {error}", self.address),
        )
        .with_path(&self.address)
    }
}

/// The event of a connection's `event` (the client's callback), with the
/// fields `address` and `reconnects` (the connections after the first so
/// far): `reconnected` at warn (a server restarted, a leader moved, the
/// network came back: the client connected again), `disconnected`,
/// `lame duck mode`, a slow consumer and a server's or the client's error
/// at warn, `connection closed` at error when the client gave up (its
/// reconnect attempts ran out) and at debug when it was closed.
fn trace_event(address: &str, event: &async_nats::Event, connects: u64) {
    let reconnects = connects.saturating_sub(1);
    match event {
        async_nats::Event::Connected if reconnects == 0 => {}
        async_nats::Event::Connected => {
            tracing::warn!(target: "nenjim_journal_nats", address, reconnects, "reconnected");
        }
        async_nats::Event::Disconnected => {
            tracing::warn!(target: "nenjim_journal_nats", address, reconnects, "disconnected");
        }
        async_nats::Event::Closed => {
            tracing::debug!(target: "nenjim_journal_nats", address, reconnects, "connection closed");
        }
        async_nats::Event::ClientError(async_nats::ClientError::MaxReconnects) => {
            tracing::error!(
                target: "nenjim_journal_nats",
                address,
                reconnects,
                "connection lost: the reconnect attempts ran out"
            );
        }
        event => {
            tracing::warn!(target: "nenjim_journal_nats", address, reconnects, event = %event, "connection event");
        }
    }
}

/// A setting's file could not be used: names the variable and the file.
fn setting_error(
    address: &str,
    variable: &str,
    path: &std::path::Path,
    error: std::io::Error,
) -> JournalError {
    error::error(
        ErrorKind::Io,
        format!(
            "cannot read the file {} named by {variable} to connect to {address}: {error}",
            path.display()
        ),
    )
    .with_path(PathBuf::from(path))
}
