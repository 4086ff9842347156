//! The integration tests of this crate, as one test binary (one link step
//! instead of one per file; `autotests = false` in `Cargo.toml`): each
//! file of `tests/` is a module.

mod cases;
mod examples;
mod hardening_hostile;
mod large;
mod parse_after;
mod roundtrip;
mod spec_example;
