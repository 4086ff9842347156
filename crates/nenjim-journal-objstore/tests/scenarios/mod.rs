//! The cases every store runs: the in-memory one (fast) and the S3
//! protocol server (real HTTP, real conditional puts).
//!
//! This file holds the store makers and `open`, and names every case
//! (`scenarios::<case>`, as `memory.rs` and `s3.rs` call them); the cases
//! are in `appends.rs` (loading, appending, leases, racing writers, hubs,
//! feeds), `content.rs` (blobs streamed, a signed root) and `faults.rs`
//! (a fault on any single call, of a session and of a batch).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

mod appends;
mod content;
mod faults;

// Each test binary runs some of the cases (as `dead_code` above).
#[allow(unused_imports)]
pub use appends::{
    a_lease_taken_over_fences_the_old_writer, a_tree_loads_the_same_from_a_directory_and_a_bucket,
    a_writer_appends_to_a_bucket_under_its_lease, feeds_resume_across_the_gaps_fences_leave,
    hubs_refreshing_while_a_writer_appends_agree_on_every_sequence,
    two_writers_racing_commit_each_sequence_once,
};
#[allow(unused_imports)]
pub use content::{
    a_signed_bucket_root_is_written_verified_and_kept_to_its_key, blobs_are_streamed_into_a_bucket,
};
#[allow(unused_imports)]
pub use faults::{
    a_batch_in_a_bucket_commits_a_prefix_whatever_call_fails,
    a_fault_on_any_single_call_never_leaves_a_root_that_does_not_load,
};

use std::path::Path;
use std::sync::Arc;

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_fs::{FileSystem, LoadOptions, load, load_with, refresh_with};
use nenjim_journal_objstore::ObjectFs;
use nenjim_journal_store::BlobStore as _;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt as _, PutPayload};

use crate::support::{self, Fault, Faulty, genesis, row, successor, texts, worldview};

/// Makes a new, empty store (a new bucket) named after the case.
pub type NewStore<'a> = &'a dyn Fn(&str) -> Arc<ObjectFs>;

/// Makes a new, empty object store (a new bucket, or a new key prefix of
/// one) named after the case, for a wrapper store to sit in front of.
pub type NewObjectStore<'a> = &'a dyn Fn(&str) -> Arc<dyn ObjectStore>;

fn open(fs: &Arc<ObjectFs>, root: &Path) -> FsJournalWriter {
    fs.ensure_dir(root).unwrap();
    FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()).unwrap()
}
