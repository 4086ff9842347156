//! Following a ledger: waiting for the next entry after a sequence.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::jetstream::consumer::pull::Ordered;
use futures::StreamExt as _;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
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
    messages: Option<Ordered>,
    last: u64,
    stop: watch::Receiver<bool>,
    /// The connection's reconnections this follower's consumer has seen.
    reconnected: watch::Receiver<u64>,
    /// Why the consumer was dropped, until it is made again (the
    /// `follower resumed` event's `reason`).
    resuming: Option<&'static str>,
    /// Declared last: its runtime outlives the consumer above.
    ledger: NatsLedger,
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
    Reconnected,
    TimedOut,
}

impl Follower {
    pub(crate) fn new(ledger: NatsLedger, after: u64) -> Result<Follower, JournalError> {
        let messages = ledger.ordered(after)?;
        let stop = ledger.stop_signal().subscribe();
        let mut reconnected = ledger.conn().reconnected.clone();
        reconnected.mark_unchanged();
        Ok(Follower {
            ledger,
            messages: Some(messages),
            last: after,
            stop,
            reconnected,
            resuming: None,
        })
    }

    /// The sequence of the last entry yielded (or the one it started after).
    pub fn last(&self) -> u64 {
        self.last
    }

    /// Waits for the next entry: `Ok(None)` when none came within
    /// `timeout` (the follower stays usable), blocks without limit for
    /// `None`. `Stopped` once the ledger's [`StopSignal`] was given; a lost
    /// connection (the client's reconnect attempts ran out) is an
    /// `Unavailable` error; both are final. A consumer the server lost (a restart) is
    /// made again after the last entry yielded, so nothing is skipped or
    /// repeated.
    pub fn next_timeout(
        &mut self,
        timeout: Option<Duration>,
    ) -> Result<Option<LedgerMessage>, JournalError> {
        let deadline = timeout.map(|d| Instant::now() + d);
        let mut failures = 0;
        loop {
            let conn = self.ledger.conn();
            if *self.stop.borrow() {
                self.messages = None;
                return Err(self.stopped());
            }
            if conn.is_lost() {
                self.messages = None;
                return Err(conn.lost_error());
            }
            let remaining = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if self.messages.is_none() {
                self.reconnected.mark_unchanged();
                match self.ledger.ordered(self.last) {
                    Ok(messages) => {
                        tracing::info!(
                            target: "nenjim_journal_nats",
                            address = %conn.address,
                            after = self.last,
                            reason = self.resuming.take().unwrap_or("consumer lost"),
                            "follower resumed"
                        );
                        self.messages = Some(messages);
                    }
                    Err(e) if e.kind() == ErrorKind::RootMissing => return Err(e),
                    Err(e) => {
                        tracing::warn!(
                            target: "nenjim_journal_nats",
                            address = %conn.address,
                            after = self.last,
                            failures,
                            error = %e,
                            "follower cannot resume yet; trying again"
                        );
                        // An outage (the server restarting, a leader being
                        // elected) is waited out for as long as the
                        // connection lives; other failures a few times.
                        if e.kind() != ErrorKind::Unavailable {
                            failures += 1;
                        }
                        if failures > conn.max_reconnects.unwrap_or(10).max(1) {
                            return Err(e);
                        }
                        // The client is reconnecting: wait a little.
                        let pause = conn.reconnect_delay.max(Duration::from_millis(10));
                        let pause = remaining.map_or(pause, |r| r.min(pause));
                        if self.pause(pause) && remaining.is_some_and(|r| r == pause) {
                            return Ok(None);
                        }
                        continue;
                    }
                }
            }
            let Some(messages) = self.messages.as_mut() else {
                continue;
            };
            let mut stop = self.stop.clone();
            let mut lost = conn.lost.clone();
            let reconnected = &mut self.reconnected;
            let woke = conn.block_on(async {
                let sleep = async {
                    match remaining {
                        Some(d) => tokio::time::sleep(d).await,
                        None => std::future::pending::<()>().await,
                    }
                };
                tokio::select! {
                    biased;
                    _ = stop.wait_for(|s| *s) => Woke::Stopped,
                    _ = lost.wait_for(|l| *l) => Woke::Lost,
                    _ = reconnected.changed() => Woke::Reconnected,
                    next = messages.next() => Woke::Message(next.map(|r| r.map(Box::new).map_err(|e| e.to_string()))),
                    () = sleep => Woke::TimedOut,
                }
            });
            match woke {
                Woke::TimedOut => return Ok(None),
                // Checked at the top of the loop.
                Woke::Stopped | Woke::Lost => {}
                // The server may have lost the consumer (a restart): it is
                // made again after the last entry yielded at once, rather
                // than when its heartbeats are found missing.
                Woke::Reconnected => {
                    // The server may have lost the consumer (a restart):
                    // made again after the last entry, unless the
                    // connection is lost (then the top of the loop says so).
                    self.resuming = Some("reconnected");
                    self.messages = None;
                }
                Woke::Message(None | Some(Err(_))) => {
                    // The consumer is gone (a restarted server, say).
                    self.resuming = Some("consumer lost");
                    self.messages = None;
                }
                // The client makes an ordered consumer that lost its way (it
                // was deleted, it missed its heartbeats) again after the
                // last sequence it delivered, and from the stream's start
                // when it delivered none: an entry already yielded is that,
                // and the consumer is made again after the last one.
                Woke::Message(Some(Ok(message)))
                    if crate::ledger::stream_sequence(&message)
                        .is_some_and(|sequence| sequence <= self.last) =>
                {
                    self.resuming = Some("consumer restarted behind");
                    self.messages = None;
                }
                Woke::Message(Some(Ok(message))) => {
                    return match self.ledger.decode(&message, self.last + 1) {
                        Ok(entry) => {
                            self.last += 1;
                            tracing::trace!(
                                target: "nenjim_journal_nats",
                                address = %conn.address,
                                sequence = self.last,
                                "followed an entry"
                            );
                            Ok(Some(entry))
                        }
                        Err(e) => {
                            self.messages = None;
                            Err(e)
                        }
                    };
                }
            }
        }
    }

    /// The error of a stopped follower.
    fn stopped(&self) -> JournalError {
        error::error(
            ErrorKind::Stopped,
            "found the Journal stopped, expected it running to follow the ledger",
        )
        .with_path(&self.ledger.conn().address)
    }

    /// Waits `pause`, or less if stopped or lost; whether it waited it all.
    fn pause(&self, pause: Duration) -> bool {
        let conn = self.ledger.conn();
        let mut stop = self.stop.clone();
        let mut lost = conn.lost.clone();
        conn.block_on(async {
            tokio::select! {
                _ = stop.wait_for(|s| *s) => false,
                _ = lost.wait_for(|l| *l) => false,
                () = tokio::time::sleep(pause) => true,
            }
        })
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
