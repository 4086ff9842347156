//! A large text parses in linear time and without copying lines (a smoke
//! test: 20 000 releases, about 3 MB).

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use std::fmt::Write as _;

#[test]
fn a_large_revision_parses_quickly() {
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
    let start = std::time::Instant::now();
    let revision = nenjim_journal_parser::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let elapsed = start.elapsed();
    assert_eq!(revision.releases().len(), 20_000);
    // Generous even for an unoptimized build on a busy machine.
    assert!(elapsed.as_secs() < 20, "took {elapsed:?}");
}
