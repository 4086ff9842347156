//! The writer's lease: `<root>/.ledger/lease`, replaced only if unchanged.
//!
//! ```text
//! nenjim-lease/1
//! holder <id>
//! epoch <n>
//! expires <milliseconds since the Unix epoch; 0 = released>
//! ```
//!
//! Every change is a read and a replacement of the whole file only if it
//! is unchanged since that read ([`Store::replace_if_unchanged`]: on the
//! local file system a comparison and a rename under an exclusive lock on
//! `<root>/.ledger/lease.lock`; on an object store a conditional put on the
//! object's version). The epoch grows by one at
//! each change of holder: a writer that takes an unreleased lease over
//! fences the ledger's tip with its epoch (see the crate docs).
//!
//! # The holder
//!
//! A holder id names the writer's process (see [`holder_id`]):
//!
//! ```text
//! <host>/<pid>/<boot id>/<process start>/<nonce>
//! ```
//!
//! the host name, the process id, the kernel's boot id and the process's
//! start time (in clock ticks since boot, from `/proc/<pid>/stat`), so that
//! a reused pid or a reboot is not mistaken for the holder; `-` for what
//! the platform does not tell. A live lease whose holder is on this same
//! host and provably gone ([`holder_is_gone`]: another boot, no such pid,
//! or a pid now started at another time) is taken over at once, exactly as
//! an expired one (the new holder fences the ledger).

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use nenjim_journal_fs::{Store, Version};

const HEADER: &str = "nenjim-lease/1";

/// One state of the lease file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Lease {
    pub(crate) holder: String,
    pub(crate) epoch: u64,
    /// Milliseconds since the Unix epoch; 0 for a released lease.
    pub(crate) expires: u64,
}

impl Lease {
    fn render(&self) -> String {
        format!(
            "{HEADER}\nholder {}\nepoch {}\nexpires {}\n",
            self.holder, self.epoch, self.expires
        )
    }

    fn parse(text: &str) -> Option<Lease> {
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
        Some(Lease {
            holder,
            epoch,
            expires,
        })
    }

    /// Whether the lease is held by someone at `now` (neither released nor expired).
    pub(crate) fn is_live(&self, now: u64) -> bool {
        self.expires != 0 && now < self.expires
    }

    /// Whether the lease was given back by its holder.
    pub(crate) fn is_released(&self) -> bool {
        self.expires == 0
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
pub(crate) fn holder_id() -> String {
    let pid = std::process::id().to_string();
    let nonce = nenjim_journal_fs::temporary_name();
    let nonce = nonce.trim_start_matches(nenjim_journal_fs::TMP_PREFIX);
    format!(
        "{}/{pid}/{}/{}/{nonce}",
        host_name().unwrap_or_else(|| UNKNOWN.to_owned()),
        boot_id().unwrap_or_else(|| UNKNOWN.to_owned()),
        process_start(&pid).map_or_else(|_| UNKNOWN.to_owned(), |s| s.to_string()),
    )
}

/// Whether the holder `holder` is a process of this host that is provably
/// gone: a holder id of this host (see [`holder_id`]) whose boot id is not
/// this boot's, whose pid names no process, or whose pid's process started
/// at another time. Anything that cannot be told (another host, an id of
/// another form, no `/proc`) is not gone: its lease runs until it expires.
pub(crate) fn holder_is_gone(holder: &str) -> bool {
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

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `now` plus `ttl`, in milliseconds.
pub(crate) fn expiry(now: u64, ttl: Duration) -> u64 {
    now.saturating_add(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX))
        .max(1)
}

/// The lease file of a ledger directory.
#[derive(Debug)]
pub(crate) struct LeaseFile {
    path: PathBuf,
    tmp_dir: PathBuf,
}

impl LeaseFile {
    pub(crate) fn new(ledger_dir: &Path, tmp_dir: &Path) -> LeaseFile {
        LeaseFile {
            path: ledger_dir.join("lease"),
            tmp_dir: tmp_dir.to_path_buf(),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The current lease and its version (`None` when there has never been
    /// one). A lease file that does not parse is refused.
    pub(crate) fn read(&self, store: &dyn Store) -> io::Result<Option<(Lease, Version)>> {
        let Some((bytes, version)) = store.read_versioned(&self.path)? else {
            return Ok(None);
        };
        let text = String::from_utf8(bytes).ok();
        match text.as_deref().and_then(Lease::parse) {
            Some(lease) => Ok(Some((lease, version))),
            None => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the lease file is malformed (expected `nenjim-lease/1` with holder, epoch and expires)",
            )),
        }
    }

    /// Replaces the lease with `lease` if it is still at `expected`
    /// (`None`: still absent); `Ok(false)` if another writer changed it.
    pub(crate) fn replace(
        &self,
        store: &dyn Store,
        lease: &Lease,
        expected: Option<&Version>,
    ) -> io::Result<bool> {
        store.replace_if_unchanged(
            &self.path,
            lease.render().as_bytes(),
            expected,
            &self.tmp_dir,
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_lease_round_trips_and_a_bad_one_is_refused() {
        let lease = Lease {
            holder: "123-456-0".to_owned(),
            epoch: 3,
            expires: 99,
        };
        assert_eq!(Lease::parse(&lease.render()), Some(lease));
        assert_eq!(
            Lease::parse("nenjim-lease/1\nholder x\nepoch x\nexpires 1\n"),
            None
        );
        assert_eq!(
            Lease::parse("nenjim-lease/2\nholder x\nepoch 1\nexpires 1\n"),
            None
        );
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
        let lease = Lease {
            holder: "h".to_owned(),
            epoch: 1,
            expires: 100,
        };
        assert!(lease.is_live(99));
        assert!(!lease.is_live(100));
        let released = Lease {
            expires: 0,
            ..lease
        };
        assert!(!released.is_live(0) && released.is_released());
    }
}
