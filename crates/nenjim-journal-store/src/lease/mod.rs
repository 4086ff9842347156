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
//! Three files, by responsibility: this one holds the trait and the lease's
//! text ([`LeaseRecord`], with `take` and `take_unless`, the one rule of
//! taking a lease, shared by every backend); `holder.rs` who holds a lease
//! and whether that process is gone (`/proc`, no store); `file.rs` the
//! lease of a [`BlobStore`] ([`FileLease`]), the only part with I/O on
//! the root.
//!
//! [`BlobStore`]: crate::blob::BlobStore
//! [`BlobStore::replace_if_unchanged`]: crate::blob::BlobStore::replace_if_unchanged

mod file;
mod holder;

pub use file::FileLease;
pub use holder::{ANSWERS_NATS, HolderId, Liveness, holder_id, holder_is_gone, holder_liveness};

use std::fmt;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};

use crate::ledger::Record;

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
