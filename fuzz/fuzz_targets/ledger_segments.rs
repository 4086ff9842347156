//! Fuzz target `ledger_segments`: see `nenjim_journal_fuzz::store_checks::ledger_segments`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    nenjim_journal_fuzz::store_checks::ledger_segments(data);
});
