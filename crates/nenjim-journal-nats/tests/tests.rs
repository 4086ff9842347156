//! The integration tests of the NATS crate, one binary: every other file of
//! `tests/` is a module of it. They run against a real `nats-server -js`,
//! started by the testkit on 127.0.0.1 and stopped by its PID; a test fails
//! (never skips) when it cannot be had. (`records_fuzz`, the fuzz check of
//! a message's decoding, needs no server.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod assembly;
mod backend;
mod cluster;
mod credentials;
mod holders;
mod jetstream;
mod processes;
mod records_fuzz;
mod resend_follow_and_host_spelling;
mod seam;
mod writer;
mod writer_processes;
mod writer_signed;
