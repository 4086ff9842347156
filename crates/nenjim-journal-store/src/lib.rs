//! The storage seam of a Journal root: the one place a backend plugs in.
//!
//! Three traits say everything the loader and the writer need of a root's
//! storage, and nothing about how a backend keeps it:
//!
//! - a **ledger** ([`ledger::LedgerReader`], [`ledger::Ledger`]): its
//!   records after a sequence, in batches, with the bytes of the revisions
//!   they record, and the next record committed at an expected tip with
//!   its revision's bytes ([`ledger::Commit`];
//!   [`ledger::CommitError::TipMoved`] carries what was found there): a
//!   revision goes through the ledger both ways, kept where the backend
//!   keeps it (a file put before its record, or inside its entry);
//! - a **lease** ([`lease::Lease`]): acquire, renew, release, and the fence
//!   a takeover commits;
//! - a **blob store** ([`BlobStore`]): get with a limit that every backend
//!   honours, list, put-if-absent, replace-if-unchanged returning the new
//!   version (and, beside it, the read-only [`FileSystem`] the loader walks
//!   a tree through).
//!
//! A backend that can notify (NATS) also implements
//! [`ledger::LedgerFollow`]: live followers of what is committed, which the
//! reference Journal's follow cursors read.
//!
//! The implementations here are the storage ones: the local file system
//! ([`RealFileSystem`], whose durable writes live in `local.rs`, the only
//! code that knows temporary files, directory syncs and lock files), the
//! ledger as `log/` entries and `segments/` checkpoints over any [`Store`]
//! ([`ledger::SegmentedLedger`]), and the lease as one file replaced only
//! if unchanged ([`lease::FileLease`]). The `nenjim-journal-objstore` crate
//! makes a bucket a [`Store`]; a backend with its own commit primitive (a
//! NATS JetStream stream) implements the ledger and lease traits directly,
//! its revisions inside its entries (no file of one is faked).
//! The loader (`nenjim-journal-fs`) and the writer (`nenjim-journal-writer`)
//! take these traits, never a backend.
//!
//! A backend translates its client's errors once, into a [`BackendError`]
//! (a kind, the service's code and message, the bucket it named) carried
//! inside the io error it returns; a caller finds it again in any error's
//! source chain with [`BackendError::find`] instead of reading text.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod backend;
mod backend_error;
mod blob;
#[cfg(feature = "tokio")]
pub mod blocking;
pub mod content;
mod file_system;
pub mod lease;
pub mod ledger;
mod local;

pub use backend_error::{BackendError, BackendErrorKind};
pub use blob::{BUFFER_BYTES, BlobStore, Created, Store, Version, measure};
pub use file_system::{Directory, EntryKind, EntryMetadata, FileSystem, RealFileSystem};
pub use local::{LOCK_SUFFIX, TMP_PREFIX};

/// The largest file a reader takes (64 MiB): a revision, a record, a tile;
/// a larger one is `TooLarge`, on every backend.
pub const MAX_FILE_LEN: u64 = 64 * 1024 * 1024;
