//! A chain's index key: a Journal version in seconds, which a lookup can
//! interpolate (see `chain.rs`).

use nenjim_journal_api::valuetypes::JournalVersion;

/// Seconds since 0000-03-01T00:00:00Z of the proleptic Gregorian calendar:
/// a key that grows by exactly one a second, so an index can interpolate
/// between versions (the decimal `YYYYMMDDhhmmss` jumps at every minute,
/// hour, day, month and year end); a regular chain (one revision a day,
/// say) then puts a lookup's first guess at or next to its answer. The
/// order is the versions' order.
pub(crate) fn ordinal_seconds(version: JournalVersion) -> u64 {
    let decimal = version.to_decimal();
    // The fields, split with 32-bit arithmetic once the date and the time
    // are apart (a query converts its version on every lookup).
    let (date, time) = (decimal / 1_000_000, decimal % 1_000_000);
    // A valid version's date is at most 99 991 231 and its time below
    // 240 000: both fit a `u32`.
    let (date, time) = (date as u32, time as u32);
    let (year, month_day) = (date / 10_000, date % 10_000);
    let (month, day) = (month_day / 100, month_day % 100);
    let (hour, minute_second) = (time / 10_000, time % 10_000);
    let (minute, second) = (minute_second / 100, minute_second % 100);
    // Howard Hinnant's `days_from_civil`, with years starting in March (so
    // the leap day is the last of its year); year >= 1, so the shifted year
    // is never negative.
    let year = if month <= 2 { year - 1 } else { year };
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let days = year * 365 + year / 4 - year / 100 + year / 400 + day_of_year;
    u64::from(days) * 86_400 + u64::from(hour * 3_600 + minute * 60 + second)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly

    use super::ordinal_seconds;
    use nenjim_journal_api::error::JournalError;
    use nenjim_journal_api::valuetypes::JournalVersion;
    use proptest::prelude::*;

    #[test]
    fn the_key_counts_seconds_across_leap_days_and_years() -> Result<(), JournalError> {
        let key = |s: &str| s.parse::<JournalVersion>().map(ordinal_seconds);
        assert_eq!(key("20240301T000000Z")? - key("20240228T235959Z")?, 86_401);
        assert_eq!(key("20250101T000000Z")? - key("20241231T235959Z")?, 1);
        assert_eq!(key("00010101T000000Z")?, 306 * 86_400);
        Ok(())
    }

    proptest! {
        /// The key is the count of seconds since 0000-03-01 of the
        /// version's date and time (year 1 starts 306 days after it), so
        /// it orders as the versions do.
        #[test]
        fn the_key_is_the_count_of_seconds(a in 0i64..253_402_300_800 - 62_135_596_800) {
            let t = time::OffsetDateTime::from_unix_timestamp(a - 62_135_596_800).unwrap();
            let text = format!(
                "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
                t.year(), u8::from(t.month()), t.day(), t.hour(), t.minute(), t.second()
            );
            let version: JournalVersion = text.parse().unwrap();
            prop_assert_eq!(ordinal_seconds(version), u64::try_from(a).unwrap() + 306 * 86_400);
        }
    }
}
