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
//! <host>/<pid>/<boot id>/<process start>/<nonce>
//! ```
//!
//! the host name, the process id, the kernel's boot id and the process's
//! start time (in clock ticks since boot, from `/proc/<pid>/stat`), so that
//! a reused pid or a reboot is not mistaken for the holder; `-` for what
//! the platform does not tell. A live lease whose holder is on this same
//! host and provably gone (`holder_is_gone`: another boot, no such pid,
//! or a pid now started at another time) is taken over at once, exactly as
//! an expired one (the new holder fences the ledger).

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
    /// live and its holder is not provably gone ([`holder_is_gone`]). A
    /// lease that is not is taken (over, when it is not released).
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
        if let Some(current) = current
            && current.blocks(now)
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

/// The start time of process `pid` in clock ticks since boot (field 22 of
/// `/proc/<pid>/stat`); `Err(NotFound)` when there is no such process.
fn process_start(pid: &str) -> io::Result<u64> {
    let stat = std::fs::read_to_string(Path::new("/proc").join(pid).join("stat"))?;
    // Field 2 is the command name in parentheses (it may hold spaces): the
    // fields after the last `)` start with field 3.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(19))
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "malformed /proc stat"))
}

/// A holder id for a new lease of this process: host, pid, boot id,
/// process start and a nonce unique in this process (see the module docs).
pub fn holder_id() -> String {
    let pid = std::process::id().to_string();
    let nonce = crate::local::temporary_name();
    let nonce = nonce.trim_start_matches(crate::local::TMP_PREFIX);
    format!(
        "{}/{pid}/{}/{}/{nonce}",
        host_name().unwrap_or_else(|| UNKNOWN.to_owned()),
        boot_id().unwrap_or_else(|| UNKNOWN.to_owned()),
        process_start(&pid).map_or_else(|_| UNKNOWN.to_owned(), |s| s.to_string()),
    )
}

/// Whether the holder `holder` is a process of this host that is provably
/// gone: a holder id of this host (see `holder_id`) whose boot id is not
/// this boot's, whose pid names no process, or whose pid's process started
/// at another time. Anything that cannot be told (another host, an id of
/// another form, no `/proc`) is not gone: its lease runs until it expires.
pub fn holder_is_gone(holder: &str) -> bool {
    let parts: Vec<&str> = holder.split('/').collect();
    let [host, pid, boot, start, _nonce] = parts[..] else {
        return false;
    };
    if host == UNKNOWN || host_name().as_deref() != Some(host) || pid.parse::<u32>().is_err() {
        return false;
    }
    if boot != UNKNOWN && boot_id().is_some_and(|now| now != boot) {
        return true;
    }
    // Without a readable `/proc` of this process nothing can be told.
    if process_start("self").is_err() {
        return false;
    }
    match process_start(pid) {
        Err(e) => e.kind() == io::ErrorKind::NotFound,
        Ok(now) => start != UNKNOWN && start.parse::<u64>().is_ok_and(|then| then != now),
    }
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

/// The lease as a file of a [`BlobStore`] (see the [module docs](self)).
#[derive(Debug)]
pub struct FileLease {
    store: Arc<dyn BlobStore>,
    path: PathBuf,
    /// This holder's lease as last written (`None` before acquiring).
    held: Option<LeaseRecord>,
}

impl FileLease {
    /// The lease of `root` in `store` (`<root>/.ledger/lease`), not yet held.
    pub fn new(store: Arc<dyn BlobStore>, root: &Path) -> FileLease {
        FileLease {
            store,
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
        loop {
            let read = self.read().map_err(self.io("cannot read the lease"))?;
            let (current, version) = read.unzip();
            let (lease, taken_over) = LeaseRecord::take(
                current.as_ref(),
                &holder_id(),
                now_millis(),
                ttl,
                &self.path,
            )?;
            // Another writer changed the lease since it was read: read it
            // again (it is live now, unless that writer released it at once).
            if self
                .replace(&lease, version.as_ref())
                .map_err(self.io("cannot write the lease"))?
            {
                let epoch = lease.epoch;
                self.held = Some(lease);
                return Ok(Acquired { epoch, taken_over });
            }
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

    #[test]
    fn this_process_is_not_gone_and_a_pid_that_cannot_exist_is() {
        let me = holder_id();
        assert!(!holder_is_gone(&me), "{me}");
        let parts: Vec<&str> = me.split('/').collect();
        assert_eq!(parts.len(), 5, "{me}");
        assert_eq!(parts[1], std::process::id().to_string());
        let host = parts[0];
        if host != UNKNOWN && process_start("self").is_ok() {
            // No pid reaches u32::MAX; this pid started at another tick.
            assert!(holder_is_gone(&format!("{host}/4294967295/-/-/x")));
            let pid = std::process::id();
            assert!(holder_is_gone(&format!("{host}/{pid}/-/1/x")) == (parts[3] != "1"));
            assert!(holder_is_gone(&format!("{host}/{pid}/another-boot/-/x")));
        }
        // Another host, an old-style id: never taken for gone.
        assert!(!holder_is_gone("elsewhere.example/4294967295/-/-/x"));
        assert!(!holder_is_gone("123-456-0"));
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
