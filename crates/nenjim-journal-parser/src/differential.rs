//! The quick reading (lines read on the structural index, `tokens::Quick`)
//! against the reference reading (every line through a `Cursor`): on every
//! text, the same revision or the same located error. The texts are seeds
//! that use every kind of line the quick reading takes, and every edit of
//! one byte of them (and, from a fixed-seed generator, of several bytes):
//! spaces, quotes, backslashes, separators and letters inserted, removed
//! or overwritten anywhere.

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::JournalRevision;

use crate::document::parse_lines;
use crate::interner::Interner;

const SEED: &str = "\
FORMAT nenjim-journal/1
ARTIFACT left-pad
JOURNAL_VERSION 20261129T101530Z
PREDECESSOR GENESIS
DESCRIPTION \"pads \\\"strings\\\" on the left\"

RELEASE 1.0.0
  LICENSE MIT OR Apache-2.0
  CONTENT sha256:1e0a5b9c3d2f4a6b8c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d 4821
  DESCRIPTION \"caf\\u{e9} \\\\ x\"
  DEPENDS serde [1.0.0,2.0.0) \"the \\\"fast\\\" path\"
  DEPENDS log-99 *
  EXCLUDES openssl
  EXCLUDES ring \"why\"
  EXCLUDES zlib 1.2.3
  PREFERS serde (,1.5.0]
# a comment
RELEASE 1.1.0-rc.1
  LICENSE MIT
  CONTENT sha256:2e0a5b9c3d2f4a6b8c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d 0
  DEPENDS a.b_c-d 1.0.0 \"x\"
  PREFERS a.b_c-d [1.0.0,1.0.0]

YANK 1.0.0 \"broken\"
RECOMMEND 1.1.0-rc.1
";

/// What a result says: the revision, or the error by kind, place and message.
fn outcome(result: Result<JournalRevision, JournalError>) -> Result<JournalRevision, String> {
    result.map_err(|e| format!("{:?} {:?}:{:?} {e}", e.kind(), e.line(), e.column()))
}

fn read(text: &str, quick: bool, interner: &mut Interner) -> Result<JournalRevision, String> {
    outcome(parse_lines(text, interner, None, quick).map(|(revision, _)| revision))
}

/// Both readings of `text`, with fresh interners and with interners that
/// already read the seed (so that the quick reading's cache hits are
/// checked too).
fn assert_same(text: &str, warm: &mut (Interner, Interner)) {
    let reference = read(text, false, &mut Interner::default());
    assert_eq!(
        read(text, true, &mut Interner::default()),
        reference,
        "text:\n{text}"
    );
    assert_eq!(read(text, false, &mut warm.0), reference, "text:\n{text}");
    assert_eq!(read(text, true, &mut warm.1), reference, "text:\n{text}");
}

const BYTES: &[u8] = b" \"\\xA0.-_,()[]*#\n\r";

#[test]
fn the_seed_reads_the_same_both_ways() {
    let mut warm = (Interner::default(), Interner::default());
    assert!(read(SEED, true, &mut warm.1).is_ok());
    assert_same(SEED, &mut warm);
    assert_same(&SEED.replace('\n', "\r\n"), &mut warm);
}

#[test]
fn every_one_byte_edit_reads_the_same_both_ways() {
    one_byte_edits(SEED);
}

#[test]
fn every_one_byte_edit_of_the_crlf_seed_reads_the_same_both_ways() {
    one_byte_edits(&SEED.replace('\n', "\r\n"));
}

fn one_byte_edits(seed: &str) {
    let mut warm = (Interner::default(), Interner::default());
    let _ = read(seed, false, &mut warm.0);
    let _ = read(seed, true, &mut warm.1);
    // From the first release on: the header is read by the reference
    // either way.
    let from = seed.find("RELEASE").unwrap_or(0);
    let seed = seed.as_bytes();
    for at in from..seed.len() {
        let mut edits: Vec<Vec<u8>> = Vec::new();
        let mut removed = seed.to_vec();
        removed.remove(at);
        edits.push(removed);
        for &b in BYTES {
            let mut inserted = seed.to_vec();
            inserted.insert(at, b);
            edits.push(inserted);
            let mut overwritten = seed.to_vec();
            overwritten[at] = b;
            edits.push(overwritten);
        }
        for edit in edits {
            if let Ok(text) = String::from_utf8(edit) {
                assert_same(&text, &mut warm);
            }
        }
    }
}

#[test]
fn many_byte_edits_read_the_same_both_ways() {
    // xorshift64*: a fixed sequence, so a failure repeats.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |n: usize| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    };
    let mut warm = (Interner::default(), Interner::default());
    for _ in 0..3_000 {
        let mut text = SEED.as_bytes().to_vec();
        for _ in 0..1 + next(4) {
            let at = next(text.len());
            match next(3) {
                0 => {
                    text.remove(at);
                }
                1 => text.insert(at, BYTES[next(BYTES.len())]),
                _ => text[at] = BYTES[next(BYTES.len())],
            }
        }
        if let Ok(text) = String::from_utf8(text) {
            assert_same(&text, &mut warm);
        }
    }
}
