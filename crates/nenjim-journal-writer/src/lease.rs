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
