//! Test support of the Nenjim Journal workspace, in one place (never
//! published; every crate takes it as a dev-dependency, the fuzz package as
//! a dependency):
//!
//! - [`texts`]: revision texts from a few words (`genesis`, `successor`,
//!   timestamps) and temporary roots on the real disk ([`texts::Root`]);
//! - [`docs`]: revisions described field by field ([`docs::Doc`]), written
//!   as text or built through the API builders, and comparable pictures of
//!   a chain state;
//! - [`feeds`]: the two feeds of a served Journal checked against a
//!   root's sequences (gaps at fences), and the lease edit that makes one;
//! - [`go`]: the interop tests' Go programs, built against Debian's x/mod;
//! - [`killed`]: kill rounds of the crash tests (a child test of the
//!   running binary SIGKILLed after a number of reports);
//! - [`memory_fs`]: a directory tree in memory ([`memory_fs::MemoryFs`]);
//! - [`faults`]: a file system that records every call to another one and
//!   fails one of them ([`faults::Recording`]), including swaps done really
//!   on disk between the listing and the read; and a store that fails a
//!   write under a directory and every one after it
//!   ([`faults::FailingWrites`], a crash in a signed root's publication);
//! - [`checks`]: what the fuzz targets check, also run as bounded stable
//!   tests by the chain crate;
//! - `cli` (feature `cli`): running a built command, its exit code, text
//!   and JSON, a root's files and ledger records, a child in the
//!   background (the CLI's tests);
//! - [`moto`]: the S3 protocol server of the bucket tests;
//! - `azurite` (feature `azurite`): Azurite's blob service over HTTPS (Azure
//!   over TLS), on 127.0.0.1, stopped by PID on drop;
//! - `fake_gcs` (feature `fake-gcs`): fake-gcs-server over HTTPS (GCS
//!   reads over TLS), on 127.0.0.1, stopped by PID on drop;
//! - `nats` (feature `nats`): a `nats-server` with JetStream for the NATS
//!   tests, on 127.0.0.1, restartable, stopped by PID on drop;
//! - `tls` (feature `tls`): a test CA and the server and client
//!   certificates it signs, as PEM files (NATS, S3, Azure and GCS over TLS);
//! - [`tlog_checks`]: what the fuzz target of the verifiable ledger's
//!   parsers checks, also run as bounded stable tests by the tlog crate;
//! - `traces` (feature `tracing`): the tracing spans and events a closure
//!   emits on its thread, collected by a subscriber of its own (the tests
//!   of what a hub operator sees: a takeover, a retry, a refresh).
//! - `nats_checks` (feature `nats`): what the fuzz target of a NATS
//!   ledger message's decoding checks, also run as bounded stable tests by
//!   the NATS crate;
//! - [`store_checks`]: what the fuzz targets of the storage seam's parsers
//!   (ledger records and segments, the lease's text) check, also run as
//!   bounded stable tests by the fs crate.
//!
//! Test support fails loudly: a broken setup panics (`unwrap`, `expect` and
//! `panic!` are allowed here, and only here).
#![forbid(unsafe_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[cfg(feature = "azurite")]
pub mod azurite;
pub mod checks;
#[cfg(feature = "cli")]
pub mod cli;
pub mod docs;
#[cfg(feature = "fake-gcs")]
pub mod fake_gcs;
pub mod faults;
pub mod feeds;
pub mod go;
pub mod killed;
pub mod memory;
pub mod memory_fs;
pub mod moto;
#[cfg(feature = "nats")]
pub mod nats;
#[cfg(feature = "nats")]
pub mod nats_checks;
pub mod signed;
pub mod store_checks;
pub mod texts;
pub mod tlog_checks;
#[cfg(feature = "tls")]
pub mod tls;
#[cfg(feature = "tracing")]
pub mod traces;
