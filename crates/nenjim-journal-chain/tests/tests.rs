//! The integration tests of this crate, as one test binary (one link step
//! instead of one per file; `autotests = false` in `Cargo.toml`): each
//! file of `tests/` is a module.

mod edges;
mod events;
mod hardening_fuzz;
mod hardening_regressions;
mod queries;
mod rules;
mod shuffle;
