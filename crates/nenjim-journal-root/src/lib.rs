//! A Nenjim Journal root from a path or a URL: what a program (a hub
//! service, a mirror, the `nenjim-journal` command) does with a root,
//! whichever backend keeps it.
//!
//! ```no_run
//! use nenjim_journal_root::{LoadOptions, Root, WriterOptions};
//! # fn main() -> Result<(), nenjim_journal_api::error::JournalError> {
//! let root = Root::open("s3://hub/journals/main")?; // or a path, nats://…
//! let assembly = root.assembly(LoadOptions::new());
//! let mut writer = root.writer(WriterOptions::new().lease_wait(std::time::Duration::from_secs(30)))?;
//! # Ok(()) }
//! ```
//!
//! - [`Root::open`] resolves an address to its backend: a path or
//!   `file://` (a directory), `s3://`, `gs://`, `az://`, `memory://` (a
//!   bucket, feature `objstore`), `nats://` (NATS JetStream, feature
//!   `nats`). Opening contacts nothing; [`Root::exists`] says whether a root
//!   is there, and nothing ever creates one by accident: only
//!   [`Root::create`] does.
//! - [`Root::assembly`] is the reference Journal over it (queries,
//!   `start`/`refresh`, follow cursors where the backend can notify);
//!   [`Root::writer`] its one writer, waiting for the lease as
//!   [`WriterOptions::lease_wait`] allows; [`publish`] what the publishing
//!   commands do (`create`, `release`, `yank`, `deprecate`, `recommend`) as
//!   calls; [`Root::content_store`] the store the root records.
//! - [`diagnose`] is what the command's `check` reports: every
//!   independent error of a root that does not load ([`diagnose::diagnose`]),
//!   the warnings of one that does ([`diagnose::warnings`]).
//! - [`verify`] verifies a signed root (format section 10) with the log's
//!   key: the checkpoint's signature, the tree over every record, every
//!   revision file against its record, consistency with an older
//!   checkpoint, a witnesses' quorum; [`witness`] checks and cosigns a
//!   checkpoint as a witness.
//! - [`copy`] copies a root into another, on any backends, keeping its
//!   sequences (and its blobs, between content stores).
//!
//! # Backends
//!
//! Each backend is a crate implementing the storage seam's
//! `Backend` and `BackendKind` (`nenjim_journal_store::backend`), and one
//! line of [`kinds`]. Which exist is a matter of cargo features (default:
//! all); without them this crate compiles no network, TLS or async crate.
//!
//! # From async code
//!
//! Every call blocks (a network backend runs its own runtime on its own
//! threads). From a tokio runtime, call them inside
//! `tokio::task::spawn_blocking` (tested in `tests/runtime.rs`); a call made
//! on a runtime's thread directly is refused with an error, never a panic,
//! where a backend can tell.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod copy;
pub mod diagnose;
pub mod publish;
mod record;
mod resolve;
mod root;
pub mod verify;
pub mod witness;

pub use nenjim_journal_ref::{JournalAssembly, LoadOptions};
pub use nenjim_journal_store::backend::{Backend, BackendKind, Creating, Opening};
pub use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
pub use record::{RecordedStore, STORE_RECORD_HEADER};
pub use resolve::{kinds, schemes};
pub use root::Root;
