//! The checks behind the fuzz targets of the Nenjim Journal.
//!
//! The checking functions live in [`checks`] (one file, `src/checks.rs`,
//! with no dependency but the project's crates), so that the libFuzzer
//! targets in `fuzz_targets/` and their bounded stable twins in
//! `crates/nenjim-journal-chain/tests/hardening_fuzz.rs` (which include the
//! same file) run exactly the same logic. Each check panics when a
//! guarantee is broken; that panic is the finding.
#![forbid(unsafe_code)]

pub mod checks;
