//! Fuzz target `parse_bytes`: see `nenjim_journal_fuzz::checks::parse_bytes`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    nenjim_journal_fuzz::checks::parse_bytes(data);
});
