//! Fuzz target `chain_ingest`: see `nenjim_journal_fuzz::checks::chain_ingest`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = nenjim_journal_fuzz::checks::chain_ingest(data);
});
