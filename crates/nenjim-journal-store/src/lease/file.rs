//! [`FileLease`]: the lease as the one file `<root>/.ledger/lease` of a
//! [`BlobStore`], read and replaced only if unchanged (see the
//! [module docs](super)); the rules of taking it are [`LeaseRecord`]'s.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};

use super::{Acquired, LEASE_MAX, Lease, LeaseRecord, expiry, holder_id, now_millis};
use crate::blob::{BlobStore, Version};
use crate::ledger;

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

/// The lease as a file of a [`BlobStore`] (see the [module docs](super)).
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
