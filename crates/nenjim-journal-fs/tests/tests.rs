//! The integration tests of this crate, as one test binary (one link step
//! instead of one per file; `autotests = false` in `Cargo.toml`): each
//! file of `tests/` is a module.

mod batches;
mod faults;
mod layout;
mod ledger_fuzz;
mod recorded;
mod refresh;
