//! Following a ledger: waiting for the next entry after a sequence.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::consumer::pull::Ordered;
use futures::StreamExt as _;
use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::build::{self, ErrorContext as _};
use tokio::sync::watch;

use crate::ledger::{LedgerMessage, NatsLedger};

/// Ends every [`Follower`] of a ledger: a blocked wait returns `Stopped`,
/// and so does every later one. Cloning it gives another handle on the
/// same signal.
#[derive(Clone, Debug)]
pub struct StopSignal {
    sender: Arc<watch::Sender<bool>>,
}

impl Default for StopSignal {
    fn default() -> StopSignal {
        StopSignal::new()
    }
}

impl StopSignal {
    /// A signal not yet given.
    pub fn new() -> StopSignal {
        StopSignal {
            sender: Arc::new(watch::channel(false).0),
        }
    }
    /// Gives the signal.
    pub fn stop(&self) {
        self.sender.send_replace(true);
    }
    /// Whether it was given.
    pub fn is_stopped(&self) -> bool {
        *self.sender.borrow()
    }
    fn subscribe(&self) -> watch::Receiver<bool> {
        self.sender.subscribe()
    }
}

/// A live reader of a ledger: every entry after a sequence, in ascending
/// order, each exactly once, as it is committed (by any process). It reads
/// through a JetStream ordered consumer, which the client re-creates at the
/// next sequence after a reconnect; each message's stream sequence must be
/// the one after the last (`LedgerMismatch` otherwise), and each revision
/// is checked against its record as [`NatsLedger::read_after`] checks it.
pub struct Follower {
    ledger: NatsLedger,
    messages: Option<Ordered>,
    last: u64,
    stop: watch::Receiver<bool>,
}

impl std::fmt::Debug for Follower {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Follower")
            .field("ledger", &self.ledger.root())
            .field("last", &self.last)
            .field("live", &self.messages.is_some())
            .finish()
    }
}

/// What one wait ended with.
enum Woke {
    Message(Option<Result<Box<async_nats::jetstream::Message>, String>>),
    Stopped,
    Lost,
    TimedOut,
}

impl Follower {
    pub(crate) fn new(ledger: NatsLedger, after: u64) -> Result<Follower, JournalError> {
        let messages = ledger.ordered(after)?;
        let stop = ledger.stop_signal().subscribe();
        Ok(Follower {
            ledger,
            messages: Some(messages),
            last: after,
            stop,
        })
    }

    /// The sequence of the last entry yielded (or the one it started after).
    pub fn last(&self) -> u64 {
        self.last
    }

    /// Waits for the next entry: `Ok(None)` when none came within
    /// `timeout` (the follower stays usable), blocks without limit for
    /// `None`. `Stopped` once the ledger's [`StopSignal`] was given; a lost
    /// connection (the client's reconnect attempts ran out) is an `Io`
    /// error; both are final.
    pub fn next_timeout(
        &mut self,
        timeout: Option<Duration>,
    ) -> Result<Option<LedgerMessage>, JournalError> {
        let conn = self.ledger.conn();
        let stopped = || {
            build::error(
                ErrorKind::Stopped,
                "found the Journal stopped, expected it running to follow the ledger",
            )
            .with_path(&conn.address)
        };
        if *self.stop.borrow() {
            self.messages = None;
            return Err(stopped());
        }
        let Some(messages) = self.messages.as_mut() else {
            return Err(if *self.stop.borrow() {
                stopped()
            } else {
                conn.lost_error()
            });
        };
        let mut stop = self.stop.clone();
        let mut lost = conn.lost.clone();
        let woke = conn.block_on(async {
            let sleep = async {
                match timeout {
                    Some(d) => tokio::time::sleep(d).await,
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                biased;
                _ = stop.wait_for(|s| *s) => Woke::Stopped,
                _ = lost.wait_for(|l| *l) => Woke::Lost,
                next = messages.next() => Woke::Message(next.map(|r| r.map(Box::new).map_err(|e| e.to_string()))),
                () = sleep => Woke::TimedOut,
            }
        });
        match woke {
            Woke::TimedOut => Ok(None),
            Woke::Stopped => {
                self.messages = None;
                Err(stopped())
            }
            Woke::Lost | Woke::Message(None) => {
                self.messages = None;
                Err(conn.lost_error())
            }
            Woke::Message(Some(Err(e))) => {
                self.messages = None;
                Err(conn.request_error("cannot follow the ledger's stream", e))
            }
            Woke::Message(Some(Ok(message))) => {
                let decoded = self.ledger.decode(&message, self.last + 1);
                match decoded {
                    Ok(entry) => {
                        self.last += 1;
                        Ok(Some(entry))
                    }
                    Err(e) => {
                        self.messages = None;
                        Err(e)
                    }
                }
            }
        }
    }

    /// Waits for the next entry without limit (see [`Follower::next_timeout`]).
    pub fn wait(&mut self) -> Result<LedgerMessage, JournalError> {
        loop {
            if let Some(message) = self.next_timeout(None)? {
                return Ok(message);
            }
        }
    }
}
