//! Criterion benches of the Nenjim Journal, each reported as a ratio
//! against a floor measured in the same run (see `benches/RESULTS.md`).
//!
//! # Brief overview
//!
//! [`corpus`] writes deterministic synthetic Journal roots from a seed
//! ([`corpus::CorpusSpec`], [`corpus::write_corpus`]) and the same
//! worldviews as crates.io-index-style JSON lines for the `serde_json` peer.
//! [`floor`] is what every load has to do at least: list the root, read
//! every file and hash it with SHA-256, on both cores. [`setup`] reads the
//! bench sizes from the environment and caches generated roots under the
//! target directory. The benches live in `benches/benches/p*.rs`; the peak
//! RSS measurement (P4) is the `rss` binary, run by the `p4_memory` bench.
//!
//! ```
//! use nenjim_journal_benches::corpus::{coordinates, ArtifactGen};
//! let universe = coordinates(42, 10);
//! let mut chain = ArtifactGen::new(&universe, 0, 42);
//! let genesis = chain.next_revision(3);
//! assert!(genesis.contains("PREDECESSOR GENESIS"));
//! let successor = chain.next_revision(2);
//! assert!(successor.contains("PREDECESSOR sha256:"));
//! assert_eq!(chain.release_count(), 5);
//! ```

#![forbid(unsafe_code)]

pub mod corpus;
pub mod floor;
pub mod prng;
pub mod read;
pub mod setup;
