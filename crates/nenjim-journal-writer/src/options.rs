//! How a writer is opened: [`WriterOptions`].

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use nenjim_journal_fs::ledger;
use nenjim_journal_store::{RealFileSystem, Store};

/// How a writer is opened.
#[derive(Clone, Debug)]
pub struct WriterOptions {
    pub(crate) content_store: Option<PathBuf>,
    /// Where the content store lives: the local file system when `None`.
    content_store_on: Option<Arc<dyn Store>>,
    pub(crate) lease_ttl: Duration,
    pub(crate) segment_span: u64,
    pub(crate) signing_key: Option<crate::signing::KeyText>,
    pub(crate) batch_max: usize,
    pub(crate) checkpoint_interval: Duration,
    lease_wait: Option<Duration>,
}

/// The default [`WriterOptions::batch_max`]: as many revisions as a ledger
/// segment holds, so a batch of a large import writes about one segment.
pub const BATCH_MAX: usize = 1000;

impl Default for WriterOptions {
    fn default() -> WriterOptions {
        WriterOptions {
            content_store: None,
            content_store_on: None,
            lease_ttl: Duration::from_secs(30),
            segment_span: ledger::SEGMENT_SPAN,
            signing_key: None,
            batch_max: BATCH_MAX,
            checkpoint_interval: Duration::ZERO,
            lease_wait: None,
        }
    }
}

impl WriterOptions {
    /// No content store, a lease of 30 seconds.
    pub fn new() -> WriterOptions {
        WriterOptions::default()
    }
    /// How long an open waits while another writer holds the root's lease
    /// (default: not at all, `LeaseHeld` at once). Honoured by the opener
    /// that can make a new attempt (`nenjim_journal_root::Root::writer`,
    /// which opens the backend again for each); a `LeaseHeld` after it is
    /// the last attempt's.
    #[must_use]
    pub fn lease_wait(self, wait: Duration) -> WriterOptions {
        WriterOptions {
            lease_wait: Some(wait),
            ..self
        }
    }
    /// The wait of [`lease_wait`](Self::lease_wait), if any.
    pub fn lease_wait_of(&self) -> Option<Duration> {
        self.lease_wait
    }
    /// Requires the blobs of new releases in the content store `dir`
    /// (`<dir>/blobs/sha256/<hex>`), where [`FsJournalWriter::put_blob`](crate::FsJournalWriter::put_blob) puts them.
    #[must_use]
    pub fn content_store(self, dir: impl AsRef<Path>) -> WriterOptions {
        WriterOptions {
            content_store: Some(dir.as_ref().to_path_buf()),
            content_store_on: None,
            ..self
        }
    }
    /// [`content_store`](Self::content_store) at the path `dir` of `store`
    /// (e.g. a bucket of the `nenjim-journal-objstore` crate) instead of
    /// the local file system.
    #[must_use]
    pub fn content_store_in(self, store: Arc<dyn Store>, dir: impl AsRef<Path>) -> WriterOptions {
        WriterOptions {
            content_store: Some(dir.as_ref().to_path_buf()),
            content_store_on: Some(store),
            ..self
        }
    }
    /// How many ledger entries may go without a segment (a checkpoint that
    /// readers open instead of one file per entry) before the writer writes
    /// one (default [`ledger::SEGMENT_SPAN`], at least 1).
    #[must_use]
    pub fn segment_span(self, span: u64) -> WriterOptions {
        WriterOptions {
            segment_span: span.max(1),
            ..self
        }
    }
    /// A note signer key (`PRIVATE+KEY+<name>+<hash>+<base64>`, as Go's
    /// `golang.org/x/mod/sumdb/note` and the command's `keygen` write it,
    /// a final line ending allowed): the writer signs a checkpoint after
    /// every commit, or at its [`checkpoint_interval`](Self::checkpoint_interval)
    /// (format section 10); required on a signed root. A root
    /// becomes signed when a writer first opens it with a key. A malformed
    /// key is refused by the open (`CheckpointInvalid`), before anything
    /// is written.
    #[must_use]
    pub fn signing_key(self, key: &str) -> WriterOptions {
        WriterOptions {
            signing_key: Some(crate::signing::KeyText(key.to_owned())),
            ..self
        }
    }
    /// The least time between two checkpoints this writer publishes
    /// (default zero: one after every commit). Whatever it committed is
    /// covered once the interval has passed, and when it closes (format
    /// section 10, "Writing": the cadence of Tessera and Rekor v2, which
    /// pay the signature and the tiles once per interval, not per entry).
    /// A verifying loader serves the entries a checkpoint covers; the
    /// ones after it wait for the next one
    /// ([`FsJournalWriter::wait_for_checkpoint`](crate::FsJournalWriter::wait_for_checkpoint)
    /// waits for it). Only a signed root has checkpoints.
    #[must_use]
    pub fn checkpoint_interval(self, interval: Duration) -> WriterOptions {
        WriterOptions {
            checkpoint_interval: interval,
            ..self
        }
    }
    /// The interval of [`checkpoint_interval`](Self::checkpoint_interval).
    pub fn checkpoint_interval_of(&self) -> Duration {
        self.checkpoint_interval
    }
    /// The most revisions [`FsJournalWriter::append_batch`](crate::FsJournalWriter::append_batch)
    /// commits with one durability barrier (default [`BATCH_MAX`], at
    /// least 1): a longer batch is committed as several, in order. The
    /// bound keeps what a batch holds in memory, and what a crash in it
    /// leaves uncommitted, that size.
    #[must_use]
    pub fn batch_max(self, max: usize) -> WriterOptions {
        WriterOptions {
            batch_max: max.max(1),
            ..self
        }
    }
    /// How long the lease lasts without an append renewing it (default 30 s).
    #[must_use]
    pub fn lease_ttl(self, ttl: Duration) -> WriterOptions {
        WriterOptions {
            lease_ttl: ttl,
            ..self
        }
    }
}

impl WriterOptions {
    /// The content store's directory, if one is configured
    /// ([`content_store`](Self::content_store),
    /// [`content_store_in`](Self::content_store_in)); without one, a
    /// writer checks no blob (format section 9).
    pub fn content_store_dir(&self) -> Option<&Path> {
        self.content_store.as_deref()
    }

    /// The store the content store lives in when it is not the local file
    /// system ([`content_store_in`](Self::content_store_in)).
    pub fn content_store_on(&self) -> Option<&Arc<dyn Store>> {
        self.content_store_on.as_ref()
    }

    /// Where the content store lives.
    pub(crate) fn content_fs(&self) -> &dyn Store {
        match &self.content_store_on {
            Some(store) => &**store,
            None => &RealFileSystem,
        }
    }
}
