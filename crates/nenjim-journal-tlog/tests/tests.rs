//! The integration tests of this crate, as one test binary (one link step
//! instead of one per file; `autotests = false` in `Cargo.toml`): each
//! file of `tests/` is a module.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod formats;
mod go_note_verdicts;
mod hardening_fuzz;
mod interop_go;
mod proofs;
