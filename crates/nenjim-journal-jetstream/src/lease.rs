//! The writer's lease of a NATS root: the key `lease` of the key-value
//! bucket `NENJIM_<name>_lease`, whose value has the text of a directory
//! root's lease file:
//!
//! ```text
//! nenjim-lease/1
//! holder <id>
//! epoch <n>
//! expires <milliseconds since the Unix epoch; 0 = released>
//! ```
//!
//! The first lease is a KV *create* (refused if the key exists); every
//! later change is a KV *update* at the revision read (refused if another
//! writer changed it since), so the lease is a compare-and-set exactly as
//! the directory's file replaced only if unchanged. The expiry is the
//! value's `expires`, not a KV time-to-live: an expired lease keeps its
//! epoch, which the next holder's grows by one. The semantics are the
//! directory writer's, and so is the value (the store's
//! [`LeaseRecord`](nenjim_journal_store::lease::LeaseRecord), re-exported
//! as [`Lease`]): a live lease of another holder is `LeaseHeld`; a
//! released one is taken as it is; an expired, unreleased one, or a live
//! one whose holder is provably gone, is taken over, and the new holder
//! fences the ledger at its tip ([`NatsLease::fence_ledger`]), so that the
//! previous holder's next commit fails (`LeaseLost`).
//!
//! # A gone holder
//!
//! A holder id names its host and process ([`holder_id`]), as a directory
//! root's does, and a holder that `/proc` shows gone (of this host, boot
//! and PID namespace: killed, crashed, a zombie) is taken over at once. A
//! holder `/proc` cannot judge (another host, another PID namespace) is
//! asked through the server: before its lease is written, a holder
//! subscribes to `nenjim.<name>.lease.<nonce>` (its id's nonce) and answers
//! every request there while its connection lives; it checks that with a
//! request of its own, and only then says so in its id (its last field
//! [`ANSWERS_NATS`]). A holder with no such subscription (it does not
//! answer when the server refuses it the subject) is not said to answer,
//! and its lease runs until it expires. A new writer that finds a live
//! lease of a holder that answers sends it a request: an answer, or no
//! answer in time, is a live holder (`LeaseHeld`); "no responders", which
//! the server says at once when no connection subscribes (a killed
//! process's connection is closed by its kernel, and the server drops it),
//! is a gone holder only once it is said for [`UNANSWERED_FOR`] (a holder
//! reconnecting after a restart of the server subscribes again within its
//! reconnect delay, at most 2 s). Then the lease is taken over exactly as
//! an expired one: a compare-and-set at the revision read, the epoch one
//! more, and the fence.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use async_nats::jetstream::kv::{CreateErrorKind, Operation, Store, UpdateErrorKind};
use async_nats::{RequestErrorKind, Subscriber};
use bytes::Bytes;
use futures::StreamExt as _;
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_store::ledger::{Entry, Record};

use nenjim_journal_store::lease::{
    ANSWERS_NATS, HolderId, Liveness, expiry, holder_id, holder_liveness, now_millis,
};

use crate::ledger::{CommitError, NatsLedger};

/// The lease's key in its bucket.
pub const LEASE_KEY: &str = "lease";

/// How long a holder that answers must be unanswered ("no responders")
/// before it is taken for gone: longer than the client's longest reconnect
/// delay (2 s), so that a holder reconnecting after a restart of the server
/// has subscribed again.
pub const UNANSWERED_FOR: Duration = Duration::from_secs(3);

/// How long a probe of a holder waits for its answer (a holder that
/// subscribes but does not answer in time is live).
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// How often a holder that did not answer is asked again.
const PROBE_INTERVAL: Duration = Duration::from_millis(100);

/// One state of the lease: the store's lease record, whose text a
/// directory root's lease file has too.
pub use nenjim_journal_store::lease::LeaseRecord as Lease;

/// What [`NatsLease::acquire`] took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acquired {
    /// The lease's epoch, now this holder's.
    pub epoch: u64,
    /// Whether an expired, unreleased lease was taken over: the caller then
    /// fences the ledger ([`NatsLease::fence_ledger`]).
    pub taken_over: bool,
}

/// The lease of one NATS root, as one holder sees it.
#[derive(Debug)]
pub struct NatsLease {
    ledger: NatsLedger,
    store: Store,
    path: PathBuf,
    holder: String,
    /// This holder's lease and its KV revision, once acquired.
    held: Option<(Lease, u64)>,
    /// The task answering probes of this holder, once it was tried
    /// (`Some(None)`: the holder could not answer; see the module docs).
    answering: Option<Option<Answering>>,
}

/// The task that answers the probes of a holder while its connection
/// lives; aborted (unsubscribing) when dropped.
#[derive(Debug)]
struct Answering(tokio::task::JoinHandle<()>);

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl NatsLease {
    pub(crate) fn new(ledger: NatsLedger) -> Result<NatsLease, JournalError> {
        let store = ledger.lease_bucket(false)?;
        let path = PathBuf::from(format!("{}/lease", ledger.conn().address));
        Ok(NatsLease {
            ledger,
            store,
            path,
            holder: holder_id(),
            held: None,
            answering: None,
        })
    }

    /// This holder's id (see [`holder_id`]): its last field is
    /// [`ANSWERS_NATS`] once it answers probes, from its first
    /// [`acquire`](Self::acquire) on.
    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// The subject the holder `holder` answers on, if it says it answers
    /// (and its nonce is one subject token).
    fn subject_of(&self, holder: &str) -> Option<String> {
        let id = HolderId::parse(holder)?;
        let token = id
            .nonce
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        (id.answers == ANSWERS_NATS && token)
            .then(|| format!("{}.{}", self.ledger.names().lease_subjects, id.nonce))
    }

    /// Starts answering probes of this holder, once: subscribes to its
    /// subject, spawns the task that answers, checks with a request of its
    /// own that the server routes one to it, and only then makes its id
    /// say it answers. Any failure leaves the id as it was (its lease then
    /// runs until it expires, for a writer `/proc` cannot judge it by).
    fn start_answering(&mut self) {
        if self.answering.is_some() {
            return;
        }
        let answering_id = HolderId::parse(&self.holder).map(|id| id.answering(ANSWERS_NATS));
        let subject = answering_id.as_deref().and_then(|id| self.subject_of(id));
        let (Some(answering_id), Some(subject)) = (answering_id, subject) else {
            self.answering = Some(None);
            return;
        };
        let conn = self.ledger.conn();
        let client = conn.client.clone();
        let reply_with = Bytes::from(answering_id.clone());
        let answering = conn.block_on(async move {
            let subscriber = client.subscribe(subject.clone()).await.ok()?;
            let task = Answering(tokio::spawn(answer(subscriber, client.clone(), reply_with)));
            let probe = async_nats::Request::new().timeout(Some(PROBE_TIMEOUT));
            client.send_request(subject, probe).await.ok()?;
            Some(task)
        });
        if answering.is_some() {
            self.holder = answering_id;
        }
        self.answering = Some(answering);
    }

    /// Whether the live lease `lease` is of a holder that is gone: by
    /// `/proc` ([`holder_liveness`]) when it can tell, else, for a holder
    /// that answers, when the server says "no responders" to every probe
    /// for [`UNANSWERED_FOR`] (an answer, a timeout or any other failure
    /// is a live holder).
    fn is_gone(&self, lease: &Lease) -> bool {
        match holder_liveness(lease.holder()) {
            Liveness::Gone => return true,
            Liveness::Alive => return false,
            Liveness::Unknown => {}
        }
        let Some(subject) = self.subject_of(lease.holder()) else {
            return false;
        };
        let conn = self.ledger.conn();
        unanswered_for(UNANSWERED_FOR, PROBE_INTERVAL, || {
            let probe = async_nats::Request::new().timeout(Some(PROBE_TIMEOUT));
            let asked = conn.block_on(conn.client.send_request(subject.clone(), probe));
            matches!(asked, Err(e) if e.kind() == RequestErrorKind::NoResponders)
        })
    }

    /// Where the lease lives, for messages: `nats://host:port/<name>/lease`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// This holder's epoch (0 before [`acquire`](Self::acquire)).
    pub fn epoch(&self) -> u64 {
        self.held.as_ref().map_or(0, |(l, _)| l.epoch())
    }

    /// The current lease and its KV revision (`None`: never taken).
    pub fn read(&self) -> Result<Option<(Lease, u64)>, JournalError> {
        let conn = self.ledger.conn();
        let entry = conn.block_on(self.store.entry(LEASE_KEY)).map_err(|e| {
            conn.request_error("cannot read the lease", e)
                .with_path(&self.path)
        })?;
        let Some(entry) = entry else {
            return Ok(None);
        };
        if entry.operation != Operation::Put {
            return Ok(None);
        }
        let lease = std::str::from_utf8(&entry.value)
            .ok()
            .and_then(Lease::parse);
        match lease {
            Some(lease) => Ok(Some((lease, entry.revision))),
            None => Err(error::error(
                ErrorKind::Io,
                "found a malformed lease, expected `nenjim-lease/1` with holder, epoch and expires",
            )
            .with_path(&self.path)),
        }
    }

    /// Writes `lease` if the key is still at `revision` (`None`: absent);
    /// its new revision, or `None` if another holder changed it.
    ///
    /// On a cluster, a write that no server took (no responders, or the
    /// cluster not ready: nothing was written) is made again for at most
    /// the root's election wait: a lease bucket just made or scaled is not
    /// yet known to every server, and a writer connected to another one
    /// found no one to take its first write (`init --replicas 3`, seen in
    /// CI). A write that timed out may have been written, and is not made
    /// again.
    fn replace(&self, lease: &Lease, revision: Option<u64>) -> Result<Option<u64>, JournalError> {
        let deadline = std::time::Instant::now() + self.ledger.conn().election_wait;
        loop {
            match self.replace_once(lease, revision) {
                Err((_, Some(crate::outage::Why::NoLeader))) if self.ledger.rides_out(deadline) => {
                    std::thread::sleep(crate::ledger::ELECTION_POLL);
                }
                done => return done.map_err(|(e, _)| e),
            }
        }
    }

    /// One try of [`replace`](Self::replace): its error with why it was an
    /// outage.
    fn replace_once(
        &self,
        lease: &Lease,
        revision: Option<u64>,
    ) -> Result<Option<u64>, (JournalError, Option<crate::outage::Why>)> {
        let conn = self.ledger.conn();
        let value = Bytes::from(lease.render());
        let error = |e: crate::outage::Said| {
            let why = e.1;
            (
                conn.request_error("cannot write the lease", e)
                    .with_path(&self.path),
                why,
            )
        };
        let said = |e: &dyn std::fmt::Display, why| crate::outage::Said(e.to_string(), why);
        match revision {
            None => match conn.block_on(self.store.create(LEASE_KEY, value)) {
                Ok(revision) => Ok(Some(revision)),
                Err(e) if e.kind() == CreateErrorKind::AlreadyExists => Ok(None),
                Err(e) => Err(error(said(&e, crate::outage::Outage::outage(&e)))),
            },
            Some(revision) => match conn.block_on(self.store.update(LEASE_KEY, value, revision)) {
                Ok(revision) => Ok(Some(revision)),
                Err(e) if e.kind() == UpdateErrorKind::WrongLastRevision => Ok(None),
                Err(e) => Err(error(said(&e, crate::outage::Outage::outage(&e)))),
            },
        }
    }

    /// Takes the lease for `ttl`: `LeaseHeld` while another holder's is
    /// live, unless that holder is provably gone: by `/proc`, a process of
    /// this host and PID namespace that is gone (killed, crashed: see
    /// [`holder_liveness`]), taken over at once as a directory root's is;
    /// or, a holder that answers probes, unanswered for [`UNANSWERED_FOR`]
    /// (see the module docs). This holder answers probes from here on.
    pub fn acquire(&mut self, ttl: Duration) -> Result<Acquired, JournalError> {
        self.start_answering();
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let current = self.read()?;
            let now = now_millis();
            let (lease, taken_over) = Lease::take_unless(
                current.as_ref().map(|(lease, _)| lease),
                &self.holder,
                now,
                ttl,
                &self.path,
                |lease| self.is_gone(lease),
            )?;
            // Changed since it was read: read it again.
            let previous = current.as_ref().map(|(lease, _)| lease.clone());
            if let Some(revision) = self.replace(&lease, current.map(|(_, r)| r))? {
                self.trace_acquired(previous.as_ref(), &lease, now);
                let epoch = lease.epoch();
                self.held = Some((lease, revision));
                return Ok(Acquired { epoch, taken_over });
            }
            tracing::warn!(
                target: "nenjim_journal_nats",
                root = %self.ledger.conn().address,
                attempt,
                "lease changed by another writer while being acquired; reading it again"
            );
        }
    }

    /// The event of the lease taken at `now` after `previous`, as a
    /// directory root's: `lease acquired` or `lease taken over` (with the
    /// previous holder and why: `expired` or `holder gone`), at info.
    fn trace_acquired(&self, previous: Option<&Lease>, lease: &Lease, now: u64) {
        let root = &self.ledger.conn().address;
        match previous.filter(|p| !p.is_released()) {
            Some(previous) => tracing::info!(
                target: "nenjim_journal_nats",
                root = %root,
                holder = lease.holder(),
                epoch = lease.epoch(),
                previous_holder = previous.holder(),
                previous_epoch = previous.epoch(),
                reason = if previous.is_live(now) { "holder gone" } else { "expired" },
                "lease taken over"
            ),
            None => tracing::info!(
                target: "nenjim_journal_nats",
                root = %root,
                holder = lease.holder(),
                epoch = lease.epoch(),
                "lease acquired"
            ),
        }
    }

    /// Checks the lease is still this holder's and live before a commit,
    /// renewing it for `ttl` once half of it has run out: `LeaseLost`
    /// otherwise.
    pub fn renew(&mut self, ttl: Duration) -> Result<(), JournalError> {
        let Some((lease, revision)) = self.held.clone() else {
            return Err(self.lost("found no lease taken, expected this writer's".to_owned()));
        };
        let now = now_millis();
        if !lease.is_live(now) {
            return Err(self.lost(format!(
                "found this writer's lease (epoch {}) expired, expected a live lease; another writer may have taken the root over",
                lease.epoch()
            )));
        }
        let half = u64::try_from(ttl.as_millis() / 2).unwrap_or(u64::MAX);
        if lease.expires().saturating_sub(now) < half {
            let renewed = lease.until(expiry(now, ttl));
            match self.replace(&renewed, Some(revision))? {
                Some(revision) => {
                    tracing::debug!(
                        target: "nenjim_journal_nats",
                        root = %self.ledger.conn().address,
                        epoch = renewed.epoch(),
                        expires = renewed.expires(),
                        "lease renewed"
                    );
                    self.held = Some((renewed, revision));
                }
                None => {
                    return Err(self.lost(format!(
                        "found the lease changed by another writer, expected this writer's (epoch {})",
                        lease.epoch()
                    )));
                }
            }
        }
        Ok(())
    }

    fn lost(&self, message: String) -> JournalError {
        error::error(ErrorKind::LeaseLost, message).with_path(&self.path)
    }

    /// Gives the lease back if it is still this holder's (another holder's
    /// lease is left as it is).
    pub fn release(&mut self) -> Result<(), JournalError> {
        if let Some((lease, revision)) = self.held.take() {
            let released = lease.until(0);
            // `None`: changed by another writer, whose lease stays.
            if self.replace(&released, Some(revision))?.is_some() {
                tracing::info!(
                    target: "nenjim_journal_nats",
                    root = %self.ledger.conn().address,
                    holder = released.holder(),
                    epoch = released.epoch(),
                    "lease released"
                );
            }
        }
        Ok(())
    }

    /// The record that fences the ledger at its tip after a takeover.
    pub fn fence(&self) -> Record {
        Record::Fence {
            epoch: self.epoch(),
        }
    }

    /// Commits this holder's fence at the ledger's tip, reading the tip
    /// again while other commits land first; the fence entry.
    pub fn fence_ledger(&self) -> Result<Entry, JournalError> {
        loop {
            let tip = self.ledger.tip()?;
            match self.ledger.commit_at(tip, self.fence(), None) {
                Ok(entry) => return Ok(entry),
                Err(CommitError::TipMoved { .. }) => {}
                Err(e) => return Err(e.into_error(&self.ledger, tip + 1, self.epoch())),
            }
        }
    }
}

/// Whether `no_responders` (a probe: `true` for "no responders", `false`
/// for anything else) says so at every call from its first for `grace`,
/// asking every `interval`: `false` at the first other answer.
fn unanswered_for(
    grace: Duration,
    interval: Duration,
    mut no_responders: impl FnMut() -> bool,
) -> bool {
    let mut since: Option<Instant> = None;
    loop {
        if !no_responders() {
            return false;
        }
        if since.get_or_insert_with(Instant::now).elapsed() >= grace {
            return true;
        }
        std::thread::sleep(interval);
    }
}

/// Answers every request on `subscriber` with `holder` (the holder's id),
/// until the subscription ends.
async fn answer(mut subscriber: Subscriber, client: async_nats::Client, holder: Bytes) {
    while let Some(message) = subscriber.next().await {
        if let Some(reply) = message.reply {
            // A lost answer is a probe that times out: a live holder.
            let _ = client.publish(reply, holder.clone()).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A holder said to be gone only when "no responders" lasts the whole
    /// grace: an answer (or a timeout) at any probe keeps it.
    #[test]
    fn a_holder_is_unanswered_only_when_every_probe_of_the_grace_is() {
        let script = |answers: Vec<bool>, grace: Duration| {
            let mut answers = answers.into_iter();
            let mut asked = 0;
            let gone = unanswered_for(grace, Duration::ZERO, || {
                asked += 1;
                answers.next().unwrap_or(true)
            });
            (gone, asked)
        };
        assert_eq!(script(vec![false], Duration::ZERO), (false, 1));
        assert_eq!(script(vec![true], Duration::ZERO), (true, 1));
        // Answering again within the grace (reconnected): live.
        assert_eq!(
            script(vec![true, true, false], Duration::from_secs(3600)),
            (false, 3)
        );
        let started = Instant::now();
        let (gone, asked) = script(vec![], Duration::from_millis(50));
        assert!(gone && asked >= 2 && started.elapsed() >= Duration::from_millis(50));
    }
}
