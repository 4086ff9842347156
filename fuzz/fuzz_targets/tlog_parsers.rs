//! Fuzz target `tlog_parsers`: see `nenjim_journal_fuzz::tlog_checks::tlog_parsers`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    nenjim_journal_fuzz::tlog_checks::tlog_parsers(data);
});
