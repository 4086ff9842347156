//! The integration tests of this crate, as one test binary (one link step
//! instead of one per file; `autotests = false` in `Cargo.toml`): each
//! file of `tests/` is a module.

mod events;
mod follow;
mod hardening_faults;
mod hardening_hostile;
mod hardening_stress;
mod scenarios;
mod signed;
mod stop_ends_follow_cursors;
