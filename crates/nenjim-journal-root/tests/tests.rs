//! The integration tests of this crate, as one test binary (one link step;
//! `autotests = false` in `Cargo.toml`): each file of `tests/` a module
//! (`witness_cadence`: witnesses on a root signed at an interval).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// The example service, built and run by `service` and `runtime`.
#[path = "../examples/service.rs"]
mod service_example;

mod cadence;
mod copy;
mod diagnose;
mod roots;
mod runtime;
mod service;
mod signed;
mod witness_cadence;
