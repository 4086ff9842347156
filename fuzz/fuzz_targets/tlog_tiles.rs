//! Fuzz target `tlog_tiles`: see `nenjim_journal_fuzz::tlog_checks::tlog_tiles`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    nenjim_journal_fuzz::tlog_checks::tlog_tiles(data);
});
