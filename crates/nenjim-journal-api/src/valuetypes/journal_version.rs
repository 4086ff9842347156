use std::fmt;
use std::str::FromStr;

use time::{Date, Month, OffsetDateTime, PrimitiveDateTime};

use super::{shown, syntax_at};
use crate::error::JournalError;

/// The instant of a Journal revision: UTC, whole seconds, written in ISO 8601
/// basic format `YYYYMMDDTHHMMSSZ` (e.g. `20261129T101530Z`).
///
/// It is also a revision's file name stem, so it has no `:` and sorts
/// chronologically as text. Only real calendar instants from year 0001 to
/// 9999 exist (no February 30, no hour 24, no leap second).
///
/// ```
/// use nenjim_journal_api::valuetypes::JournalVersion;
/// let v: JournalVersion = "20240229T235959Z".parse().unwrap();
/// assert_eq!(v.to_string(), "20240229T235959Z");
/// assert!("20230229T000000Z".parse::<JournalVersion>().is_err());
/// assert!("20261129T240000Z".parse::<JournalVersion>().is_err());
/// ```
// Stored as the decimal number `YYYYMMDDhhmmss` (the text's digits): its
// integer order is the chronological order, so comparing two versions (what
// a chain's lookups do) is one integer comparison; a `PrimitiveDateTime` is
// compared field by field, which made `revision_as_of` on a long chain
// twice as slow. Every value is a validated calendar instant.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JournalVersion(u64);

/// `YYYYMMDDhhmmss` as one decimal number.
fn pack(year: u32, month: u32, day: u32, hour: u32, minute: u32, second: u32) -> u64 {
    let date = u64::from(year) * 10_000 + u64::from(month) * 100 + u64::from(day);
    let time = u64::from(hour) * 10_000 + u64::from(minute) * 100 + u64::from(second);
    date * 1_000_000 + time
}

impl JournalVersion {
    /// Packs a validated date and time.
    fn of(datetime: PrimitiveDateTime) -> JournalVersion {
        JournalVersion(pack(
            datetime.year().unsigned_abs(),
            u32::from(u8::from(datetime.month())),
            u32::from(datetime.day()),
            u32::from(datetime.hour()),
            u32::from(datetime.minute()),
            u32::from(datetime.second()),
        ))
    }

    /// Year, month, day, hour, minute, second.
    fn fields(self) -> [u32; 6] {
        let n = self.0;
        // Each part is below `modulo` (at most 10 000), so it fits a `u32`.
        let part = |div: u64, modulo: u64| ((n / div) % modulo) as u32;
        [
            part(10_000_000_000, 10_000),
            part(100_000_000, 100),
            part(1_000_000, 100),
            part(10_000, 100),
            part(100, 100),
            part(1, 100),
        ]
    }

    /// The instant as the decimal number `YYYYMMDDhhmmss` (the text's
    /// digits): its order is the versions' order. For an index that
    /// computes its own key from a version's date and time without
    /// formatting and parsing it.
    ///
    /// ```
    /// use nenjim_journal_api::valuetypes::JournalVersion;
    /// let v: JournalVersion = "20261129T101530Z".parse()?;
    /// assert_eq!(v.to_decimal(), 20_261_129_101_530);
    /// # Ok::<(), nenjim_journal_api::error::JournalError>(())
    /// ```
    pub fn to_decimal(self) -> u64 {
        self.0
    }

    /// The instant one second later, the earliest Journal version a
    /// successor of this one may have; `None` after 9999-12-31T23:59:59Z.
    ///
    /// ```
    /// use nenjim_journal_api::valuetypes::JournalVersion;
    /// let v: JournalVersion = "20261231T235959Z".parse()?;
    /// assert_eq!(v.next_second().map(|n| n.to_string()).as_deref(), Some("20270101T000000Z"));
    /// # Ok::<(), nenjim_journal_api::error::JournalError>(())
    /// ```
    pub fn next_second(self) -> Option<JournalVersion> {
        let [year, month, day, hour, minute, second] = self.fields();
        let date = time::Date::from_calendar_date(
            i32::try_from(year).ok()?,
            time::Month::try_from(u8::try_from(month).ok()?).ok()?,
            u8::try_from(day).ok()?,
        )
        .ok()?;
        let time = time::Time::from_hms(
            u8::try_from(hour).ok()?,
            u8::try_from(minute).ok()?,
            u8::try_from(second).ok()?,
        )
        .ok()?;
        let next = PrimitiveDateTime::new(date, time).checked_add(time::Duration::SECOND)?;
        (next.year() <= 9999).then(|| JournalVersion::of(next))
    }

    /// The current instant, in UTC, truncated to whole seconds.
    pub fn now_utc() -> JournalVersion {
        // `of` keeps whole seconds only.
        let now = OffsetDateTime::now_utc();
        JournalVersion::of(PrimitiveDateTime::new(now.date(), now.time()))
    }
}

fn digits(s: &str, from: usize, len: usize) -> Result<u32, JournalError> {
    let bytes = s.as_bytes();
    let mut value = 0u32;
    for i in from..from + len {
        match bytes.get(i) {
            Some(b @ b'0'..=b'9') => value = value * 10 + u32::from(b - b'0'),
            _ => {
                return Err(syntax_at(
                    i + 1,
                    format!(
                        "found {} in a Journal version, expected a digit (format YYYYMMDDTHHMMSSZ)",
                        shown(
                            s.get(i..)
                                .and_then(|r| r.chars().next().map(|c| c.to_string()))
                                .as_deref()
                                .unwrap_or("")
                        )
                    ),
                ));
            }
        }
    }
    Ok(value)
}

fn literal(s: &str, at: usize, expected: u8) -> Result<(), JournalError> {
    if s.as_bytes().get(at) == Some(&expected) {
        Ok(())
    } else {
        Err(syntax_at(
            at + 1,
            format!(
                "found {} in a Journal version, expected `{}` (format YYYYMMDDTHHMMSSZ)",
                shown(
                    s.get(at..)
                        .and_then(|r| r.chars().next().map(|c| c.to_string()))
                        .as_deref()
                        .unwrap_or("")
                ),
                expected as char
            ),
        ))
    }
}

impl FromStr for JournalVersion {
    type Err = JournalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let year = digits(s, 0, 4)?;
        let month = digits(s, 4, 2)?;
        let day = digits(s, 6, 2)?;
        literal(s, 8, b'T')?;
        let hour = digits(s, 9, 2)?;
        let minute = digits(s, 11, 2)?;
        let second = digits(s, 13, 2)?;
        literal(s, 15, b'Z')?;
        if s.len() != 16 {
            return Err(syntax_at(
                17,
                format!(
                    "found {} after a Journal version, expected its end (format YYYYMMDDTHHMMSSZ)",
                    shown(s.get(16..).unwrap_or(""))
                ),
            ));
        }
        if year == 0 {
            return Err(syntax_at(1, "found year 0000, expected a year from 0001"));
        }
        let month_value = u8::try_from(month)
            .ok()
            .and_then(|m| Month::try_from(m).ok());
        let Some(month_value) = month_value else {
            return Err(syntax_at(
                5,
                format!("found month {month:02}, expected 01 to 12"),
            ));
        };
        Date::from_calendar_date(year as i32, month_value, day as u8).map_err(|_| {
            syntax_at(
                7,
                format!("found day {day:02} of {year:04}-{month:02}, which is not a calendar day; expected a day of that month"),
            )
        })?;
        if hour > 23 {
            return Err(syntax_at(
                10,
                format!("found hour {hour:02}, expected 00 to 23"),
            ));
        }
        if minute > 59 {
            return Err(syntax_at(
                12,
                format!("found minute {minute:02}, expected 00 to 59"),
            ));
        }
        if second > 59 {
            return Err(syntax_at(
                14,
                format!("found second {second:02}, expected 00 to 59 (no leap seconds)"),
            ));
        }
        Ok(JournalVersion(pack(year, month, day, hour, minute, second)))
    }
}

impl fmt::Display for JournalVersion {
    /// The token, `YYYYMMDDTHHMMSSZ`, its digits written directly: every
    /// revision file's name is one (a start from a ledger names 100 000 of
    /// them), and six padded integers through `write!` cost several times
    /// the rest of building the path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [year, month, day, hour, minute, second] = self.fields();
        let mut token = *b"00000000T000000Z";
        let mut put = |at: usize, value: u32, width: usize| {
            let mut value = value;
            for i in (at..at + width).rev() {
                if let Some(b) = token.get_mut(i) {
                    // `value % 10 < 10`: a digit.
                    *b = b'0' + (value % 10) as u8;
                }
                value /= 10;
            }
        };
        put(0, year, 4);
        put(4, month, 2);
        put(6, day, 2);
        put(9, hour, 2);
        put(11, minute, 2);
        put(13, second, 2);
        f.write_str(std::str::from_utf8(&token).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for JournalVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JournalVersion({self})")
    }
}
