//! Fuzz target `nats_records`: see `nenjim_journal_fuzz::nats_checks::nats_records`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    nenjim_journal_fuzz::nats_checks::nats_records(data);
});
