//! Fuzz target `parse_mutated`: see `nenjim_journal_fuzz::checks::parse_mutated`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    nenjim_journal_fuzz::checks::parse_mutated(data);
});
