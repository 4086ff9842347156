//! The structural index of a text (sections 1 and 2): one pass over its
//! bytes, 64 at a time, that finds every line terminator and every token
//! boundary, notes whether the text holds any other control byte, and
//! computes the text's SHA-256 over the same bytes while they are in cache.
//!
//! Each 64-byte block is classified by 16-byte vector compares (the `wide`
//! crate's portable `u8x16`: SSE2 on x86-64, NEON on aarch64, a scalar
//! array elsewhere) into bitmasks, bit `i` for byte `i` of the block:
//!
//! - `newlines`: the byte is `\n`;
//! - `stops`: the byte is `\n` or a space, where a token ends.
//!
//! A full block whose only control bytes are newlines (almost every block
//! of a text) makes just those two masks and tests the rest as a whole;
//! a block with any other control byte (a CR, a tab) is classified again
//! with the masks of controls and CRs.
//!
//! Everything after this pass reads the masks, not the bytes, to find a
//! line's end or a token's: the next set bit from a position is one load
//! and a count of trailing zeros. A text with a control byte other than
//! `\n` and the CR of a CRLF terminator (a lone CR, a tab, …) is flagged
//! as a whole ([`Index::controls`]); its lines are then classified byte by
//! byte, as section 1 requires the first offending byte's column.

use nenjim_journal_api::valuetypes::RevisionDigest;
use sha2::{Digest as _, Sha256};
use wide::u8x16;

/// How many bytes are classified before they are hashed: small enough to
/// stay in the first-level cache between the two, large enough that the
/// hasher's per-call cost does not count.
const CHUNK: usize = 4096;

/// The structural index of one text.
#[derive(Clone, Debug)]
pub(crate) struct Index {
    /// Per 64-byte block of the text, the `\n` bytes.
    newlines: Vec<u64>,
    /// Per 64-byte block, the `\n` and space bytes.
    stops: Vec<u64>,
    /// Whether the text holds a control byte (below 0x20, or 0x7f) other
    /// than `\n` and the CR of a CRLF terminator.
    controls: bool,
    /// The SHA-256 of the text.
    digest: RevisionDigest,
}

/// The allocations of an [`Index`]'s masks, reused from text to text.
#[derive(Clone, Debug, Default)]
pub(crate) struct Buffers {
    newlines: Vec<u64>,
    stops: Vec<u64>,
}

/// The masks of one block of at most 64 bytes (a shorter block is padded
/// with a byte that is neither a control, a space nor a newline).
#[inline]
fn classify(block: &[u8]) -> (u64, u64, u64, u64) {
    let mut padded = [b'a'; 64];
    let bytes: &[u8] = if block.len() == 64 {
        block
    } else {
        let n = block.len().min(64);
        padded[..n].copy_from_slice(&block[..n]);
        &padded
    };
    let newline = u8x16::splat(b'\n');
    let space = u8x16::splat(b' ');
    let below = u8x16::splat(0x1f);
    let del = u8x16::splat(0x7f);
    let cr = u8x16::splat(b'\r');
    let (mut nl, mut sp, mut ctl, mut crs) = (0u64, 0u64, 0u64, 0u64);
    for (lane, part) in bytes.chunks_exact(16).enumerate() {
        let mut array = [0u8; 16];
        array.copy_from_slice(part);
        let v = u8x16::new(array);
        let shift = 16 * lane;
        // `move_mask` is 16 bits here: the sign bit of each byte.
        let mask = |m: u8x16| u64::from(m.move_mask() as u16) << shift;
        nl |= mask(v.cmp_eq(newline));
        sp |= mask(v.cmp_eq(space));
        ctl |= mask(v.min(below).cmp_eq(v) | v.cmp_eq(del));
        crs |= mask(v.cmp_eq(cr));
    }
    (nl, sp, ctl, crs)
}

/// The `\n` and stop masks of a block of exactly 64 bytes that holds no
/// control byte other than `\n` (no CR, tab, DEL, …), the usual block:
/// two masks made instead of [`classify`]'s four, and one test of the
/// whole block for the others. `None`: classify the block fully.
#[inline]
fn plain_block(block: &[u8]) -> Option<(u64, u64)> {
    let newline = u8x16::splat(b'\n');
    let space = u8x16::splat(b' ');
    let below = u8x16::splat(0x1f);
    let del = u8x16::splat(0x7f);
    let (mut nl, mut sp) = (0u64, 0u64);
    let mut odd = u8x16::splat(0);
    for (lane, part) in block.chunks_exact(16).enumerate() {
        let mut array = [0u8; 16];
        array.copy_from_slice(part);
        let v = u8x16::new(array);
        let shift = 16 * lane;
        let is_nl = v.cmp_eq(newline);
        // `move_mask` is 16 bits here: the sign bit of each byte.
        nl |= u64::from(is_nl.move_mask() as u16) << shift;
        sp |= u64::from(v.cmp_eq(space).move_mask() as u16) << shift;
        odd |= (v.min(below).cmp_eq(v) & !is_nl) | v.cmp_eq(del);
    }
    (odd.move_mask() == 0).then_some((nl, sp))
}

impl Index {
    /// Indexes `text` and, if `hash`, computes its SHA-256 in the same
    /// pass (otherwise [`digest`](Self::digest) is the digest of nothing).
    pub(crate) fn new(text: &str, hash: bool) -> Index {
        Index::with_buffers(text, hash, Buffers::default())
    }

    /// [`new`](Self::new), its masks in `buffers`' allocations (a worker
    /// parses file after file: [`Interner`](crate::Interner) keeps them).
    pub(crate) fn with_buffers(text: &str, hash: bool, buffers: Buffers) -> Index {
        let bytes = text.as_bytes();
        let blocks = bytes.len().div_ceil(64);
        let Buffers {
            mut newlines,
            mut stops,
        } = buffers;
        newlines.clear();
        stops.clear();
        newlines.reserve(blocks);
        stops.reserve(blocks);
        let mut others = 0u64;
        // A CR in the last byte of the previous block, which is part of a
        // CRLF terminator if this block starts with `\n`.
        let mut pending_cr = false;
        let mut hasher = Sha256::new();
        for chunk in bytes.chunks(CHUNK) {
            for block in chunk.chunks(64) {
                // A plain block's only controls are its newlines, and it
                // holds no CR.
                let plain = if block.len() == 64 {
                    plain_block(block)
                } else {
                    None
                };
                let (nl, sp, ctl, cr) = match plain {
                    Some((nl, sp)) => (nl, sp, nl, 0),
                    None => classify(block),
                };
                newlines.push(nl);
                stops.push(nl | sp);
                if pending_cr && nl & 1 == 0 {
                    others |= 1;
                }
                // The CRs directly followed by `\n` end lines; a CR in the
                // block's last byte is decided by the next block.
                let crlf = cr & (nl >> 1);
                let last = cr & (1 << 63);
                pending_cr = last != 0;
                others |= ctl & !nl & !crlf & !last;
            }
            if hash {
                hasher.update(chunk);
            }
        }
        Index {
            newlines,
            stops,
            // A CR at the very end of the text is a lone CR.
            controls: others != 0 || pending_cr,
            digest: RevisionDigest::from_bytes(hasher.finalize().into()),
        }
    }

    /// The index's allocations, for the next text ([`with_buffers`](Self::with_buffers)).
    pub(crate) fn into_buffers(self) -> Buffers {
        Buffers {
            newlines: self.newlines,
            stops: self.stops,
        }
    }

    /// Whether the text holds a control byte other than `\n` and the CR
    /// of a CRLF terminator.
    pub(crate) fn controls(&self) -> bool {
        self.controls
    }

    /// The SHA-256 of the text.
    pub(crate) fn digest(&self) -> RevisionDigest {
        self.digest
    }

    /// The offset of the first `\n` at or after `from`.
    #[inline]
    pub(crate) fn next_newline(&self, from: usize) -> Option<usize> {
        next(&self.newlines, from)
    }

    /// The offset of the first space or `\n` at or after `from`.
    #[inline]
    pub(crate) fn next_stop(&self, from: usize) -> Option<usize> {
        next(&self.stops, from)
    }
}

/// The first set bit of `masks` at or after bit `from`.
#[inline]
fn next(masks: &[u64], from: usize) -> Option<usize> {
    let mut block = from / 64;
    let mut word = masks.get(block)? & (u64::MAX << (from % 64));
    loop {
        if word != 0 {
            return Some(block * 64 + word.trailing_zeros() as usize);
        }
        block += 1;
        word = *masks.get(block)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The masks against a byte-by-byte reading, for every byte value at
    /// every place of a block and at the edges of blocks and chunks.
    #[test]
    fn the_vector_classifier_agrees_with_the_bytes() {
        for b in 0..=255u8 {
            for at in [0usize, 1, 15, 16, 31, 47, 63] {
                let mut block = [b'x'; 64];
                block[at] = b;
                let (nl, sp, ctl, cr) = classify(&block);
                let bit = 1u64 << at;
                assert_eq!(cr, if b == b'\r' { bit } else { 0 });
                assert_eq!(nl == bit, b == b'\n', "{b} at {at}");
                assert_eq!(nl, if b == b'\n' { bit } else { 0 });
                assert_eq!(sp, if b == b' ' { bit } else { 0 });
                let control = b < 0x20 || b == 0x7f;
                assert_eq!(ctl, if control { bit } else { 0 }, "{b} at {at}");
            }
        }
    }

    /// The plain block's two masks are the classifier's, and a block with
    /// any control byte but `\n` is left to the classifier; in a text, a
    /// control byte in a full block is flagged as in a short one.
    #[test]
    fn a_plain_block_is_read_as_the_classifier_reads_it() {
        for b in 0..=255u8 {
            for at in [0usize, 1, 15, 16, 31, 47, 63] {
                let mut block = [b'x'; 64];
                block[(at + 32) % 64] = b'\n';
                block[at] = b;
                let (nl, sp, _, _) = classify(&block);
                let odd = (b < 0x20 && b != b'\n') || b == 0x7f;
                match plain_block(&block) {
                    Some(masks) => {
                        assert!(!odd, "{b} at {at}");
                        assert_eq!(masks, (nl, sp), "{b} at {at}");
                    }
                    None => assert!(odd, "{b} at {at}"),
                }
                let mut text = "y".repeat(64).into_bytes();
                text.extend_from_slice(&block);
                // Never a `\n` right after `b`: a CR stays a lone CR.
                text.extend_from_slice(b"z\n");
                if let Ok(text) = std::str::from_utf8(&text) {
                    assert_eq!(Index::new(text, false).controls(), odd, "{b} at {at}");
                }
            }
        }
    }

    #[test]
    fn stops_newlines_and_the_digest_cover_the_whole_text() {
        let line = "ab cd\u{e9}  e\n";
        for n in [0usize, 1, 5, 63, 64, 65, 500, 1000] {
            let text: String = line.repeat(n) + "tail x";
            let index = Index::new(&text, true);
            let bytes = text.as_bytes();
            let mut expected_nl = Vec::new();
            let mut expected_stops = Vec::new();
            for (i, &b) in bytes.iter().enumerate() {
                if b == b'\n' {
                    expected_nl.push(i);
                }
                if b == b'\n' || b == b' ' {
                    expected_stops.push(i);
                }
            }
            let walk = |f: &dyn Fn(usize) -> Option<usize>| {
                let mut found = Vec::new();
                let mut at = 0;
                while let Some(i) = f(at) {
                    found.push(i);
                    at = i + 1;
                }
                found
            };
            assert_eq!(walk(&|i| index.next_newline(i)), expected_nl);
            assert_eq!(walk(&|i| index.next_stop(i)), expected_stops);
            assert!(!index.controls());
            assert_eq!(index.digest(), RevisionDigest::of_text(&text));
        }
        assert!(!Index::new("a\r\nb\r\n", false).controls());
        assert!(Index::new("a\rb", false).controls());
        assert!(Index::new("a\r", false).controls());
        assert!(Index::new("a\r\r\n", false).controls());
        // A CR in the last byte of a block, and its `\n` (or not) in the next.
        let at_edge = |after: &str| format!("{}\r{after}", "x".repeat(63));
        assert!(!Index::new(&at_edge("\nb"), false).controls());
        assert!(Index::new(&at_edge("b\n"), false).controls());
        assert!(Index::new(&at_edge(""), false).controls());
        assert!(Index::new(&format!("{}\t", "x".repeat(5000)), false).controls());
        assert_eq!(Index::new("", true).next_newline(0), None);
    }

    #[test]
    fn an_index_on_reused_buffers_is_a_new_index() {
        let long = format!("{}\r\t\n", "a b\n".repeat(500));
        let short = "x y\nz\r\n";
        let reused = Index::with_buffers(short, true, Index::new(&long, true).into_buffers());
        let fresh = Index::new(short, true);
        assert_eq!(
            (reused.controls(), reused.digest()),
            (fresh.controls(), fresh.digest())
        );
        for at in 0..=short.len() + 64 {
            assert_eq!(reused.next_newline(at), fresh.next_newline(at), "{at}");
            assert_eq!(reused.next_stop(at), fresh.next_stop(at), "{at}");
        }
    }
}
