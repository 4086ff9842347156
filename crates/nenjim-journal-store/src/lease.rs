//! The writer's lease: the [`Lease`] trait (acquire, renew, release,
//! fence), and [`FileLease`], the lease as one file replaced only if
//! unchanged, `<root>/.ledger/lease`:
//!
//! ```text
//! nenjim-lease/1
//! holder <id>
//! epoch <n>
//! expires <milliseconds since the Unix epoch; 0 = released>
//! ```
//!
//! Every change is a read and a replacement of the whole file only if it
//! is unchanged since that read ([`BlobStore::replace_if_unchanged`]: on the
//! local file system a comparison and a rename under an exclusive lock on
//! `<root>/.ledger/lease.lock`; on an object store a conditional put on the
//! object's version). The epoch grows by one at each change of holder: a
//! writer that takes an unreleased lease over fences the ledger's tip with
//! its epoch ([`Lease::fence`]), so the previous holder's next commit,
//! which must create that same entry, fails.
//!
//! # The holder
//!
//! A holder id names the writer's process (see `holder_id`):
//!
//! ```text
//! <host>/<pid>/<boot id>/<process start>/<nonce>/<pid namespace>/<answers>
//! ```
//!
//! the host name, the process id, the kernel's boot id, the process's
//! start time (in clock ticks since boot, from `/proc/self/stat`), a nonce
//! unique to the lease, the number of the process's PID namespace (of
//! `/proc/self/ns/pid`) and how the holder answers a liveness probe (`-`:
//! it does not; `nats`: a NATS root's holder answers requests on its
//! root's subject `nenjim.<name>.lease.<nonce>` while it is connected); `-`
//! for what the platform does not tell.
//!
//! A live lease whose holder is provably gone (`holder_liveness`) is taken
//! over at once, exactly as an expired one (the new holder fences the
//! ledger). By `/proc` a holder is judged only when its PID means the same
//! process to the judge: the same host name, the same kernel (boot id), the
//! same PID namespace, and a `/proc` of that namespace (`NSpid` of
//! `/proc/self/status` is the judge's own pid alone). It is then gone when
//! its pid names no process, a process started at another tick, or a zombie
//! (killed, not yet reaped by its parent). Anything else cannot be told by
//! `/proc`: a holder of another host, of another boot (a rebooted host, or
//! another machine of the same name), of another PID namespace (a
//! container that shares the host's name), and an id of the older
//! five-field form `<host>/<pid>/<boot id>/<process start>/<nonce>`, which
//! does not say its namespace; its lease runs until it expires, unless the
//! backend can ask the holder itself (a NATS root's lease does).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};

use crate::blob::{BlobStore, Version};
use crate::ledger::{self, Record};

const HEADER: &str = "nenjim-lease/1";

/// The largest lease file read.
const LEASE_MAX: u64 = 4096;

/// What [`Lease::acquire`] took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acquired {
    /// The lease's epoch, now this holder's.
    pub epoch: u64,
    /// Whether an expired, unreleased lease was taken over: the caller
    /// then fences the ledger ([`Lease::fence`]).
    pub taken_over: bool,
}

/// One writer at a time: the lease of a root.
pub trait Lease: Send + fmt::Debug {
    /// Takes the lease for `ttl`: `LeaseHeld` while another holder's is live.
    fn acquire(&mut self, ttl: Duration) -> Result<Acquired, JournalError>;

    /// Checks the lease is still this holder's and live before a commit,
    /// renewing it for `ttl` once half of it has run out: `LeaseLost`
    /// otherwise (then every later commit must be refused).
    fn renew(&mut self, ttl: Duration) -> Result<(), JournalError>;

    /// Gives the lease back if it is still this holder's (another holder's
    /// lease is left as it is).
    fn release(&mut self) -> Result<(), JournalError>;

    /// This holder's epoch (0 before [`acquire`](Self::acquire)).
    fn epoch(&self) -> u64;

    /// Where the lease lives, for messages.
    fn path(&self) -> &Path;

    /// The record that fences the ledger at its tip after a takeover
    /// (committed by the writer through its [`Ledger`](crate::ledger::Ledger)).
    fn fence(&self) -> Record {
        Record::Fence {
            epoch: self.epoch(),
        }
    }
}

/// One state of a lease: its text is the lease file's (see the
/// [module docs](self)), and a NATS root's lease value is the same text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseRecord {
    holder: String,
    epoch: u64,
    /// Milliseconds since the Unix epoch; 0 for a released lease.
    expires: u64,
}

impl LeaseRecord {
    /// A lease of `holder` at `epoch` until `expires` (milliseconds since
    /// the Unix epoch; 0 for a released lease).
    pub fn new(holder: &str, epoch: u64, expires: u64) -> LeaseRecord {
        LeaseRecord {
            holder: holder.to_owned(),
            epoch,
            expires,
        }
    }

    /// Who holds it (see [`holder_id`]).
    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// Its epoch: one more at each change of holder.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// When it expires (milliseconds since the Unix epoch; 0 = released).
    pub fn expires(&self) -> u64 {
        self.expires
    }

    /// This lease held until `expires` (0: released).
    pub fn until(&self, expires: u64) -> LeaseRecord {
        LeaseRecord {
            expires,
            ..self.clone()
        }
    }

    /// The lease's text.
    pub fn render(&self) -> String {
        format!(
            "{HEADER}\nholder {}\nepoch {}\nexpires {}\n",
            self.holder, self.epoch, self.expires
        )
    }

    /// Reads a lease's text: `None` unless it is exactly the four lines
    /// [`render`](Self::render) writes, with a holder.
    pub fn parse(text: &str) -> Option<LeaseRecord> {
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let mut value = |key: &str| {
            lines
                .next()?
                .strip_prefix(key)?
                .strip_prefix(' ')
                .map(str::to_owned)
        };
        let holder = value("holder")?;
        let epoch = value("epoch")?.parse().ok()?;
        let expires = value("expires")?.parse().ok()?;
        if lines.next().is_some() || holder.is_empty() {
            return None;
        }
        let lease = LeaseRecord {
            holder,
            epoch,
            expires,
        };
        // Exactly: `lines` also takes CRLF and a last line without its
        // LF, and `u64::from_str` a `+` and leading zeros.
        (lease.render() == text).then_some(lease)
    }

    /// Whether the lease is held by someone at `now` (neither released nor expired).
    pub fn is_live(&self, now: u64) -> bool {
        self.expires != 0 && now < self.expires
    }

    /// Whether the lease was given back by its holder.
    pub fn is_released(&self) -> bool {
        self.expires == 0
    }

    /// Whether another writer must wait for this lease at `now`: it is
    /// live and its holder is not provably gone by `/proc`
    /// ([`holder_is_gone`]). A lease that is not is taken (over, when it is
    /// not released).
    pub fn blocks(&self, now: u64) -> bool {
        self.is_live(now) && !holder_is_gone(&self.holder)
    }

    /// The lease `holder` takes at `now` for `ttl` after `current` (the
    /// lease read; `None`: never taken), and whether that takes an
    /// unreleased lease over (the new holder then fences the ledger): the
    /// epoch one more. `LeaseHeld`, located at `path`, while `current`
    /// [`blocks`](Self::blocks): a live lease of a process of this host
    /// that is gone (killed, crashed) is taken over at once, as an expired
    /// one. The rule of every backend's lease.
    pub fn take(
        current: Option<&LeaseRecord>,
        holder: &str,
        now: u64,
        ttl: Duration,
        path: &Path,
    ) -> Result<(LeaseRecord, bool), JournalError> {
        Self::take_unless(current, holder, now, ttl, path, |c| {
            holder_is_gone(&c.holder)
        })
    }

    /// [`take`](Self::take) with the backend's own judgement of whether a
    /// live lease's holder is gone (`is_gone`, asked only of a live lease):
    /// a NATS root's lease also asks its server whether the holder is
    /// still connected.
    pub fn take_unless(
        current: Option<&LeaseRecord>,
        holder: &str,
        now: u64,
        ttl: Duration,
        path: &Path,
        is_gone: impl FnOnce(&LeaseRecord) -> bool,
    ) -> Result<(LeaseRecord, bool), JournalError> {
        if let Some(current) = current
            && current.is_live(now)
            && !is_gone(current)
        {
            return Err(error::error(
                ErrorKind::LeaseHeld,
                format!(
                    "found the root's lease held by writer {} (epoch {}) for {} ms more, expected no live lease; wait for it to close or expire",
                    current.holder,
                    current.epoch,
                    current.expires.saturating_sub(now)
                ),
            )
            .with_path(path));
        }
        let taken_over = current.is_some_and(|c| !c.is_released());
        let epoch = match current {
            None => 1,
            Some(c) => c.epoch.checked_add(1).ok_or_else(|| {
                error::error(
                    ErrorKind::Io,
                    format!(
                        "found the root's lease at epoch {}, expected an epoch that can grow (the lease file is damaged)",
                        c.epoch
                    ),
                )
                .with_path(path)
            })?,
        };
        Ok((
            LeaseRecord::new(holder, epoch, expiry(now, ttl)),
            taken_over,
        ))
    }
}

/// What the platform does not tell, in a holder id.
const UNKNOWN: &str = "-";

/// The `<answers>` field of a holder that answers a liveness probe on its
/// NATS root's subject `nenjim.<name>.lease.<nonce>` while it is connected.
pub const ANSWERS_NATS: &str = "nats";

/// This host's name (`/proc/sys/kernel/hostname`, else `/etc/hostname`).
fn host_name() -> Option<String> {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .map(|t| t.trim().to_owned())
        .find(|t| !t.is_empty() && !t.contains(['/', ' ', '\n']))
}

/// The kernel's boot id: different after every reboot.
fn boot_id() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty() && !t.contains(['/', ' ']))
}

/// The number of this process's PID namespace (`/proc/self/ns/pid` reads
/// `pid:[<number>]`).
fn pid_namespace() -> Option<String> {
    let link = std::fs::read_link("/proc/self/ns/pid").ok()?;
    let number = link.to_str()?.strip_prefix("pid:[")?.strip_suffix(']')?;
    number.parse::<u64>().ok().map(|n| n.to_string())
}

/// Whether this process's `/proc` shows the pids of its own PID namespace:
/// `NSpid` of `/proc/self/status` (its pid in the namespace of the `/proc`
/// mount, then in each nested one) is its own pid alone. A `/proc` of an
/// ancestor namespace (a container started without its own) names other
/// processes by the pids holders record.
fn proc_shows_this_namespace() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    let pids: Option<Vec<&str>> = status
        .lines()
        .find_map(|l| l.strip_prefix("NSpid:"))
        .map(|rest| rest.split_whitespace().collect());
    pids.is_some_and(|pids| pids == [std::process::id().to_string().as_str()])
}

/// The state (field 3) and start time in clock ticks since boot (field 22)
/// of `/proc/<pid>/stat`; `Err(NotFound)` when there is no such process.
fn process_stat(pid: &str) -> io::Result<(char, u64)> {
    let stat = std::fs::read_to_string(Path::new("/proc").join(pid).join("stat"))?;
    // Field 2 is the command name in parentheses (it may hold spaces): the
    // fields after the last `)` start with field 3.
    let fields: Option<Vec<&str>> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect());
    let state = fields.as_ref().and_then(|f| f.first()?.chars().next());
    let start = fields.as_ref().and_then(|f| f.get(19)?.parse().ok());
    state
        .zip(start)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "malformed /proc stat"))
}

/// Whether process `pid` (found in state `Z` or `X`) is a zombie that no
/// thread of runs any more: `Threads: 1` in its status (a leader thread that
/// exited while others run is `Z` too, with more threads).
fn is_dead_zombie(pid: &str) -> bool {
    std::fs::read_to_string(Path::new("/proc").join(pid).join("status")).is_ok_and(|status| {
        status
            .lines()
            .find_map(|l| l.strip_prefix("Threads:"))
            .is_some_and(|n| n.trim() == "1")
    })
}

/// A holder id for a new lease of this process: host, pid, boot id,
/// process start, a nonce unique in this process, PID namespace and `-`
/// (it answers no probe; see the module docs).
pub fn holder_id() -> String {
    let pid = std::process::id().to_string();
    let nonce = crate::local::temporary_name();
    let nonce = nonce.trim_start_matches(crate::local::TMP_PREFIX);
    let known = |v: Option<String>| v.unwrap_or_else(|| UNKNOWN.to_owned());
    format!(
        "{}/{pid}/{}/{}/{nonce}/{}/{UNKNOWN}",
        known(host_name()),
        known(boot_id()),
        known(
            process_stat("self")
                .ok()
                .map(|(_, start)| start.to_string())
        ),
        known(pid_namespace()),
    )
}

/// The fields of a holder id of the current form (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HolderId<'a> {
    /// The host name (`-`: unknown).
    pub host: &'a str,
    /// The process id, in the holder's PID namespace.
    pub pid: &'a str,
    /// The kernel's boot id (`-`: unknown).
    pub boot: &'a str,
    /// The process's start, in clock ticks since boot (`-`: unknown).
    pub start: &'a str,
    /// Unique to the lease.
    pub nonce: &'a str,
    /// The number of the holder's PID namespace (`-`: unknown).
    pub pid_namespace: &'a str,
    /// How the holder answers a liveness probe: `-` (it does not) or
    /// [`ANSWERS_NATS`].
    pub answers: &'a str,
}

impl<'a> HolderId<'a> {
    /// The fields of `holder`: `None` for an id of another form (the older
    /// five fields among them) or with an empty field.
    pub fn parse(holder: &'a str) -> Option<HolderId<'a>> {
        let parts: Vec<&str> = holder.split('/').collect();
        let [host, pid, boot, start, nonce, pid_namespace, answers] = parts[..] else {
            return None;
        };
        if parts.iter().any(|p| p.is_empty()) {
            return None;
        }
        Some(HolderId {
            host,
            pid,
            boot,
            start,
            nonce,
            pid_namespace,
            answers,
        })
    }

    /// This id with `answers` as its last field.
    pub fn answering(&self, answers: &str) -> String {
        format!(
            "{}/{}/{}/{}/{}/{}/{answers}",
            self.host, self.pid, self.boot, self.start, self.nonce, self.pid_namespace
        )
    }
}

/// What this process can tell of a lease's holder by its host's `/proc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Liveness {
    /// Provably gone: killed, crashed or exited (its pid names no process,
    /// a process started at another tick, or a zombie).
    Gone,
    /// Its process runs.
    Alive,
    /// Cannot be told by `/proc` (see the module docs): another host, boot
    /// or PID namespace, an id of another form, no `/proc`.
    Unknown,
}

/// What this process can tell of the holder `holder` by `/proc`: a holder
/// id of the current form, of this host, boot and PID namespace, judged by
/// a `/proc` of that namespace, is [`Gone`](Liveness::Gone) when its pid
/// names no process, one started at another tick or a zombie, and
/// [`Alive`](Liveness::Alive) when it names the process that started at
/// its tick; anything else is [`Unknown`](Liveness::Unknown).
pub fn holder_liveness(holder: &str) -> Liveness {
    let Some(id) = HolderId::parse(holder) else {
        return Liveness::Unknown;
    };
    let known =
        |field: &str, here: Option<String>| field != UNKNOWN && here.as_deref() == Some(field);
    if !known(id.host, host_name())
        || !known(id.boot, boot_id())
        || !known(id.pid_namespace, pid_namespace())
        || id.pid.parse::<u32>().is_err()
        || !proc_shows_this_namespace()
    {
        return Liveness::Unknown;
    }
    match process_stat(id.pid) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Liveness::Gone,
        Err(_) => Liveness::Unknown,
        Ok((_, now))
            if id.start != UNKNOWN && id.start.parse::<u64>().is_ok_and(|then| then != now) =>
        {
            Liveness::Gone
        }
        Ok((state, _)) if matches!(state, 'Z' | 'X') && is_dead_zombie(id.pid) => Liveness::Gone,
        Ok(_) if id.start == UNKNOWN => Liveness::Unknown,
        Ok(_) => Liveness::Alive,
    }
}

/// Whether the holder `holder` is provably gone by `/proc`
/// ([`holder_liveness`] is [`Gone`](Liveness::Gone)). Anything that cannot
/// be told (another host, boot or PID namespace, an id of another form, no
/// `/proc`) is not gone: its lease runs until it expires.
pub fn holder_is_gone(holder: &str) -> bool {
    holder_liveness(holder) == Liveness::Gone
}

/// Milliseconds since the Unix epoch, now (a lease's clock).
pub fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `now` plus `ttl`, in milliseconds (at least 1: 0 means released).
pub fn expiry(now: u64, ttl: Duration) -> u64 {
    now.saturating_add(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX))
        .max(1)
}

/// The event of a lease taken at `now` (`lease`, after `previous`):
/// `lease acquired` (a first or released lease) or `lease taken over`,
/// with why (`expired`, or `holder gone`: a live lease of a process that
/// is gone), both at info, with the fields `root`, `holder`, `epoch` and,
/// for a takeover, `previous_holder`, `previous_epoch` and `reason`.
fn trace_acquired(root: &Path, previous: Option<&LeaseRecord>, lease: &LeaseRecord, now: u64) {
    match previous.filter(|p| !p.is_released()) {
        Some(previous) => tracing::info!(
            target: "nenjim_journal_store",
            root = %root.display(),
            holder = %lease.holder,
            epoch = lease.epoch,
            previous_holder = %previous.holder,
            previous_epoch = previous.epoch,
            reason = if previous.is_live(now) { "holder gone" } else { "expired" },
            "lease taken over"
        ),
        None => tracing::info!(
            target: "nenjim_journal_store",
            root = %root.display(),
            holder = %lease.holder,
            epoch = lease.epoch,
            "lease acquired"
        ),
    }
}

/// The lease as a file of a [`BlobStore`] (see the [module docs](self)).
#[derive(Debug)]
pub struct FileLease {
    store: Arc<dyn BlobStore>,
    /// The root, for the events (`root` field).
    root: PathBuf,
    path: PathBuf,
    /// This holder's lease as last written (`None` before acquiring).
    held: Option<LeaseRecord>,
}

impl FileLease {
    /// The lease of `root` in `store` (`<root>/.ledger/lease`), not yet held.
    pub fn new(store: Arc<dyn BlobStore>, root: &Path) -> FileLease {
        FileLease {
            store,
            root: root.to_path_buf(),
            path: ledger::lease_path(root),
            held: None,
        }
    }

    fn io(&self, what: &str) -> impl FnOnce(io::Error) -> JournalError {
        let path = self.path.clone();
        let what = what.to_owned();
        move |e| error::io_error(path, &what, e)
    }

    /// The current lease and its version (`None` when there has never been
    /// one). A lease file that does not parse is refused.
    fn read(&self) -> io::Result<Option<(LeaseRecord, Version)>> {
        let Some((bytes, version)) = self.store.get(&self.path, LEASE_MAX)? else {
            return Ok(None);
        };
        let text = String::from_utf8(bytes).ok();
        match text.as_deref().and_then(LeaseRecord::parse) {
            Some(lease) => Ok(Some((lease, version))),
            None => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the lease file is malformed (expected `nenjim-lease/1` with holder, epoch and expires)",
            )),
        }
    }

    /// Replaces the lease with `lease` if it is still at `expected`
    /// (`None`: still absent); `Ok(false)` if another writer changed it.
    fn replace(&self, lease: &LeaseRecord, expected: Option<&Version>) -> io::Result<bool> {
        self.store
            .replace_if_unchanged(&self.path, lease.render().as_bytes(), expected)
            .map(|version| version.is_some())
    }

    fn lost(&self, message: String) -> JournalError {
        error::error(ErrorKind::LeaseLost, message).with_path(&self.path)
    }
}

impl Lease for FileLease {
    fn acquire(&mut self, ttl: Duration) -> Result<Acquired, JournalError> {
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let read = self.read().map_err(self.io("cannot read the lease"))?;
            let (current, version) = read.unzip();
            let now = now_millis();
            let (lease, taken_over) =
                LeaseRecord::take(current.as_ref(), &holder_id(), now, ttl, &self.path)?;
            // Another writer changed the lease since it was read: read it
            // again (it is live now, unless that writer released it at once).
            if self
                .replace(&lease, version.as_ref())
                .map_err(self.io("cannot write the lease"))?
            {
                trace_acquired(&self.root, current.as_ref(), &lease, now);
                let epoch = lease.epoch;
                self.held = Some(lease);
                return Ok(Acquired { epoch, taken_over });
            }
            tracing::warn!(
                target: "nenjim_journal_store",
                root = %self.root.display(),
                attempt,
                "lease changed by another writer while being acquired; reading it again"
            );
        }
    }

    fn renew(&mut self, ttl: Duration) -> Result<(), JournalError> {
        let now = now_millis();
        let Some(held) = self.held.clone() else {
            return Err(self.lost("found no lease held, expected this writer's".to_owned()));
        };
        if !held.is_live(now) {
            return Err(self.lost(format!(
                "found this writer's lease (epoch {}) expired, expected a live lease; another writer may have taken the root over",
                held.epoch
            )));
        }
        let half = u64::try_from(ttl.as_millis() / 2).unwrap_or(u64::MAX);
        if held.expires.saturating_sub(now) >= half {
            return Ok(());
        }
        let read = self.read().map_err(self.io("cannot read the lease"))?;
        let (current, version) = read.unzip();
        if current.as_ref() != Some(&held) {
            return Err(self.lost(format!(
                "found the lease changed by another writer (now {}), expected this writer's (epoch {})",
                current.map_or_else(
                    || "none".to_owned(),
                    |l| format!("epoch {} of {}", l.epoch, l.holder)
                ),
                held.epoch
            )));
        }
        let renewed = held.until(expiry(now, ttl));
        if !self
            .replace(&renewed, version.as_ref())
            .map_err(self.io("cannot renew the lease"))?
        {
            return Err(self.lost(format!(
                "found the lease changed by another writer while renewing it, expected this writer's (epoch {})",
                held.epoch
            )));
        }
        tracing::debug!(
            target: "nenjim_journal_store",
            root = %self.root.display(),
            epoch = renewed.epoch,
            expires = renewed.expires,
            "lease renewed"
        );
        self.held = Some(renewed);
        Ok(())
    }

    fn release(&mut self) -> Result<(), JournalError> {
        let Some(held) = self.held.clone() else {
            return Ok(());
        };
        let read = self.read().map_err(self.io("cannot read the lease"))?;
        let (current, version) = read.unzip();
        if current.as_ref() == Some(&held) {
            let released = held.until(0);
            // A lease changed in between is another writer's: left as it is.
            if self
                .replace(&released, version.as_ref())
                .map_err(self.io("cannot release the lease"))?
            {
                tracing::info!(
                    target: "nenjim_journal_store",
                    root = %self.root.display(),
                    holder = %released.holder,
                    epoch = released.epoch,
                    "lease released"
                );
                self.held = Some(released);
            }
        }
        Ok(())
    }

    fn epoch(&self) -> u64 {
        self.held.as_ref().map_or(0, |h| h.epoch)
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_lease_round_trips_and_a_bad_one_is_refused() {
        let lease = LeaseRecord {
            holder: "123-456-0".to_owned(),
            epoch: 3,
            expires: 99,
        };
        assert_eq!(LeaseRecord::parse(&lease.render()), Some(lease.clone()));
        assert_eq!(
            LeaseRecord::parse("nenjim-lease/1\nholder x\nepoch x\nexpires 1\n"),
            None
        );
        assert_eq!(
            LeaseRecord::parse("nenjim-lease/2\nholder x\nepoch 1\nexpires 1\n"),
            None
        );
        // Exactly the four lines, with a holder.
        assert_eq!(
            LeaseRecord::parse("nenjim-lease/1\nholder x\nepoch 1\nexpires 1\nmore\n"),
            None
        );
        assert_eq!(
            LeaseRecord::parse("nenjim-lease/1\nholder \nepoch 1\nexpires 1\n"),
            None
        );
        // Nothing but the text `render` writes (found by the fuzz target
        // `lease_records`: an accepted lease writes back as read).
        for near in [
            "nenjim-lease/1\r\nholder x\r\nepoch 1\r\nexpires 1\r\n",
            "nenjim-lease/1\nholder x\nepoch 1\nexpires 1",
            "nenjim-lease/1\nholder x\nepoch +1\nexpires 1\n",
            "nenjim-lease/1\nholder x\nepoch 1\nexpires 01\n",
        ] {
            assert_eq!(LeaseRecord::parse(near), None, "{near:?}");
        }
        assert_eq!(
            lease.until(0).render(),
            "nenjim-lease/1\nholder 123-456-0\nepoch 3\nexpires 0\n"
        );
        assert!(lease.until(0).is_released() && !lease.until(0).blocks(0));
    }

    /// This process's holder id, split, with `/proc` required (these tests
    /// run on Linux, in a `/proc` of their own PID namespace).
    fn my_id() -> (String, Vec<String>) {
        let me = holder_id();
        let parts: Vec<String> = me.split('/').map(str::to_owned).collect();
        assert_eq!(parts.len(), 7, "{me}");
        assert!(
            proc_shows_this_namespace() && parts[..6].iter().all(|p| p != UNKNOWN),
            "these tests need /proc of their own PID namespace: {me}"
        );
        (me, parts)
    }

    #[test]
    fn this_process_is_alive_and_a_pid_that_cannot_exist_is_gone() {
        let (me, p) = my_id();
        assert_eq!(holder_liveness(&me), Liveness::Alive, "{me}");
        assert!(!holder_is_gone(&me));
        assert_eq!(p[1], std::process::id().to_string());
        assert_eq!(p[6], "-", "answers no probe");
        let id = HolderId::parse(&me).unwrap();
        assert_eq!(
            id.answering(ANSWERS_NATS),
            format!("{}/nats", &me[..me.len() - 2])
        );
        let with = |pid: &str, boot: &str, start: &str, ns: &str| {
            format!("{}/{pid}/{boot}/{start}/x/{ns}/-", p[0])
        };
        // No pid reaches u32::MAX; this pid started at another tick.
        assert!(holder_is_gone(&with("4294967295", &p[2], &p[3], &p[5])));
        let other_start = (p[3].parse::<u64>().unwrap() + 1).to_string();
        assert!(holder_is_gone(&with(&p[1], &p[2], &other_start, &p[5])));
        // Unknown start: the pid runs, whoever it is.
        assert_eq!(
            holder_liveness(&with(&p[1], &p[2], "-", &p[5])),
            Liveness::Unknown
        );
        // Another boot (a rebooted host or another machine of this name),
        // another PID namespace (a container with this host's name), an
        // unknown namespace: nothing is told by this /proc.
        for id in [
            with("4294967295", "another-boot", &p[3], &p[5]),
            with("4294967295", &p[2], &p[3], "1"),
            with("4294967295", &p[2], &p[3], "-"),
            with("4294967295", "-", &p[3], &p[5]),
        ] {
            assert_eq!(holder_liveness(&id), Liveness::Unknown, "{id}");
        }
        // Another host; the older five-field form, even of this host and a
        // pid that cannot exist (its namespace is not said); other forms.
        for id in [
            format!(
                "elsewhere.example/4294967295/{}/{}/x/{}/-",
                p[2], p[3], p[5]
            ),
            format!("{}/4294967295/{}/-/x", p[0], p[2]),
            format!("{}/4294967295/-/-/x", p[0]),
            "123-456-0".to_owned(),
            format!("{}/4294967295/{}/{}//{}/-", p[0], p[2], p[3], p[5]),
        ] {
            assert_eq!(holder_liveness(&id), Liveness::Unknown, "{id}");
        }
    }

    #[test]
    fn a_killed_holder_not_yet_reaped_is_gone() {
        let (_, p) = my_id();
        let mut child = std::process::Command::new("sleep")
            .arg("600")
            .spawn()
            .unwrap();
        let pid = child.id().to_string();
        let (_, start) = process_stat(&pid).unwrap();
        let holder = format!("{}/{pid}/{}/{start}/x/{}/-", p[0], p[2], p[5]);
        assert_eq!(holder_liveness(&holder), Liveness::Alive);
        child.kill().unwrap();
        // A zombie until reaped: gone (bounded wait for the kernel to make it one).
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while process_stat(&pid).unwrap().0 != 'Z' {
            assert!(std::time::Instant::now() < deadline, "never a zombie");
            std::thread::yield_now();
        }
        assert_eq!(holder_liveness(&holder), Liveness::Gone);
        child.wait().unwrap();
        assert_eq!(holder_liveness(&holder), Liveness::Gone);
    }

    #[test]
    fn liveness_follows_the_expiry() {
        let lease = LeaseRecord {
            holder: "h".to_owned(),
            epoch: 1,
            expires: 100,
        };
        assert!(lease.is_live(99));
        assert!(!lease.is_live(100));
        let released = LeaseRecord {
            expires: 0,
            ..lease
        };
        assert!(!released.is_live(0) && released.is_released());
    }
}
