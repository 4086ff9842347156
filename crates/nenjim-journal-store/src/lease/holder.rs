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
//!
//! Apart from the lease's file (`file.rs`): a holder id is written and
//! judged without any store, by every backend's lease.

use std::io;
use std::path::Path;

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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::time::Duration;

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
}
