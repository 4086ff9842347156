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
//! - [`memory_fs`]: a directory tree in memory ([`memory_fs::MemoryFs`]);
//! - [`faults`]: a file system that records every call to another one and
//!   fails one of them ([`faults::Recording`]), including swaps done really
//!   on disk between the listing and the read;
//! - [`checks`]: what the fuzz targets check, also run as bounded stable
//!   tests by the chain crate;
//! - `moto` and `nats` (feature `nats`): the S3 and NATS JetStream servers
//!   the backend tests run against, on 127.0.0.1, stopped by PID on drop.
//!
//! Test support fails loudly: a broken setup panics (`unwrap`, `expect` and
//! `panic!` are allowed here, and only here).
#![forbid(unsafe_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod checks;
pub mod docs;
pub mod faults;
pub mod feeds;
pub mod memory_fs;
pub mod moto;
#[cfg(feature = "nats")]
pub mod nats;
pub mod texts;
