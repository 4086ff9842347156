//! A large text parses (a smoke test: 20 000 releases, about 3 MB). That
//! parsing is linear is checked by the benches, as a ratio of two sizes in
//! one run (`benches/benches/p1_ingest.rs`, the P1 growth row of `cargo
//! xtask bench-report`), never by a clock in a test.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use std::fmt::Write as _;

use sha2::{Digest as _, Sha256};

#[test]
fn a_large_revision_parses() {
    let mut text = String::from(
        "FORMAT nenjim-journal/1\nARTIFACT big\nJOURNAL_VERSION 20261129T101530Z\nPREDECESSOR GENESIS\nDESCRIPTION \"d\"\n",
    );
    for i in 0..20_000u32 {
        let _ = write!(
            text,
            "RELEASE 1.{i}.0\n  LICENSE MIT OR Apache-2.0\n  CONTENT sha256:{:064x} {i}\n  DEPENDS dep-{} [1.0.0,2.0.0) \"why\"\n",
            i,
            i % 7
        );
    }
    text.push_str("YANK (,1.100.0) \"old\"\nRECOMMEND 1.19999.0\n");
    let revision = nenjim_journal_parser::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(revision.releases().len(), 20_000);
    assert_eq!(revision.policy().len(), 2);
    // A text this large is hashed on a thread of its own while it is read:
    // the digest is still the SHA-256 of its exact bytes.
    assert!(text.len() > 256 * 1024);
    let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
    assert_eq!(revision.digest().as_bytes(), &digest);
    // An error in a large text is the same error, the hashing thread joined.
    let broken = text.replace("RELEASE 1.19999.0", "RELEASE 1.19999.0 extra");
    let error = nenjim_journal_parser::parse(&broken).unwrap_err();
    assert_eq!(error.line(), Some(5 + 4 * 19_999 + 1));
}
