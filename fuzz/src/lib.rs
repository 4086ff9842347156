//! The checks behind the fuzz targets of the Nenjim Journal.
//!
//! The checking functions live in the workspace's test-support crate
//! (`nenjim_journal_testkit::checks`, re-exported here as [`checks`]), so
//! that the libFuzzer targets in `fuzz_targets/` and their bounded stable
//! twins in `crates/nenjim-journal-chain/tests/hardening_fuzz.rs` (and
//! the tlog, fs and NATS crates' `tests/`) run exactly the same logic.
//! Each check panics when a guarantee is broken; that panic is the
//! finding.
#![forbid(unsafe_code)]

pub use nenjim_journal_testkit::checks;
pub use nenjim_journal_testkit::nats_checks;
pub use nenjim_journal_testkit::store_checks;
pub use nenjim_journal_testkit::tlog_checks;
