//! The verifiable ledger of the Nenjim Journal (format section 10): a
//! transparency log over the ledger's records, in the formats that Go's
//! checksum database and the C2SP specifications use, so that existing
//! verifiers and witnesses read it.
//!
//! - [`hash`]: RFC 6962 hashing (leaf `SHA-256(0x00 ‖ record)`, node
//!   `SHA-256(0x01 ‖ left ‖ right)`) and the tree hash of `N` leaves.
//! - [`tree`]: subtree hashes from a [`tree::HashSource`], inclusion and
//!   consistency proofs (RFC 6962 §2.1.1, §2.1.2) and their checks, and the
//!   writer's incremental [`tree::TreeState`] (append a record, the new
//!   root, the tiles that changed).
//! - [`tile`]: C2SP tlog-tiles paths (`tile/<L>/<N>[.p/<W>]`,
//!   `tile/entries/<N>[.p/<W>]`, height 8), the tiles a growth changes,
//!   entry bundles, and [`tile::TileHashes`], the hashes of a tree read
//!   from its tiles alone.
//! - [`note`]: C2SP signed notes and the note key formats of Go's
//!   `golang.org/x/mod/sumdb/note` (signer `PRIVATE+KEY+<name>+<hash>+…`,
//!   verifier `<name>+<hash>+…`), Ed25519, key generation.
//! - [`checkpoint`]: C2SP tlog-checkpoint and tlog-cosignature
//!   `cosignature/v1`.
//!
//! The crate does no I/O but the key generator's randomness: the writer
//! and the loaders store and read the tiles and the checkpoint. Errors are
//! [`JournalError`](nenjim_journal_api::error::JournalError)s:
//! `CheckpointInvalid` for a malformed or wrongly signed key, note,
//! checkpoint or tile path; `CheckpointMismatch` for hashes that do not
//! lead to a root (an inclusion proof, a tile of the wrong size);
//! `Rollback` for a tree that is not proved an extension of another.
//!
//! ```
//! use nenjim_journal_tlog::checkpoint::Checkpoint;
//! use nenjim_journal_tlog::note::{Algorithm, SignerKey, VerifierKey};
//! use nenjim_journal_tlog::tree::{TreeState, verify_inclusion, prove_inclusion, LeafHashes};
//! use nenjim_journal_tlog::hash::leaf_hash;
//!
//! let key = SignerKey::generate("example.org/journal", Algorithm::Ed25519)?;
//! let mut tree = TreeState::new();
//! let records = ["1 FENCE 1", "2 REVISION serde 20261129T101530Z 812 sha256:ab12"];
//! for record in records {
//!     tree.append(record.as_bytes())?;
//! }
//! let signed = Checkpoint::new(key.name(), tree.size(), tree.root())?.sign(&key)?;
//!
//! // A mirror that trusts the verifier key.
//! let vkey = VerifierKey::parse(&key.verifier().to_string())?;
//! let (checkpoint, _) = Checkpoint::open(signed.to_string().as_bytes(), &vkey)?;
//! let mut hashes = LeafHashes(records.iter().map(|r| leaf_hash(r.as_bytes())).collect());
//! let proof = prove_inclusion(&mut hashes, checkpoint.size(), 1)?;
//! verify_inclusion(&leaf_hash(records[1].as_bytes()), 1, checkpoint.size(), checkpoint.root(), &proof)?;
//! # Ok::<(), nenjim_journal_api::error::JournalError>(())
//! ```
#![forbid(unsafe_code)]

pub mod checkpoint;
pub mod hash;
pub mod note;
pub mod tile;
pub mod tree;
