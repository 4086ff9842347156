//! Fuzz target `lease_records`: see `nenjim_journal_fuzz::store_checks::lease_records`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    nenjim_journal_fuzz::store_checks::lease_records(data);
});
