//! What every fuzz target checks, shared with the stable bounded runs.
//!
//! Each public function takes the fuzzer's raw bytes, decodes them into an
//! input (a text, a mutated journal, a sequence of texts to ingest) and
//! panics if a guarantee of the parser or the chain is broken:
//!
//! - [`parse_bytes`]: the parser on arbitrary bytes never panics, and every
//!   error is `EmptyInput` (exactly for blank texts, without location) or a
//!   `Syntax`/`Semantic` error located at a line and column inside the text;
//!   an accepted text renders to a canonical text with the same worldview.
//! - [`parse_mutated`]: the same checks on valid journals mutated line by
//!   line (deletions, duplications, swaps, byte edits, inserted keyword lines).
//! - [`chain_ingest`]: a random sequence of small valid and invalid texts is
//!   ingested step by step; each outcome matches an independent model of
//!   section 6, and the state's invariants hold after every step.
//!
//! The fuzz targets (`fuzz/`) call these through that package's library,
//! and the chain crate's `tests/hardening_fuzz.rs` runs them as bounded
//! stable tests: both run exactly this logic. The parser's targets are in
//! `checks/parse.rs`, the chain's (with its model) in `checks/chain.rs`.

mod chain;
mod parse;

pub use chain::{chain_ingest, check_state};
pub use parse::{SEEDS, check_after, check_text, mutate, parse_bytes, parse_mutated, pristine};

/// Reads the fuzzer's bytes as a stream of small choices; past the end it
/// yields zeros, so every byte string decodes to some input.
#[derive(Debug)]
pub struct Choices<'a> {
    bytes: &'a [u8],
}

impl<'a> Choices<'a> {
    /// Choices read from `bytes`.
    pub fn new(bytes: &'a [u8]) -> Choices<'a> {
        Choices { bytes }
    }

    /// Whether every byte was used.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The next byte (0 past the end).
    pub fn byte(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((&b, rest)) => {
                self.bytes = rest;
                b
            }
            None => 0,
        }
    }

    /// A number below `n` (`n` > 0), from one byte.
    pub fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n.max(1)
    }
}
