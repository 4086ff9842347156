//! Every value type: `Display` then `FromStr` gives the same value back, and
//! `FromStr` then `Display` gives the same token back.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use std::fmt::Display;
use std::str::FromStr;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, ContentDigest, ContentPointer, Description, InformationUri, JournalVersion,
    LicenseExpression, ReleaseVersion, RevisionDigest, VersionRequirement,
};
use nenjim_journal_testkit::texts::requirement_text;
use proptest::prelude::*;

/// `value` survives Display -> FromStr, and its text is a fixed point.
fn round_trips<T>(value: &T) -> Result<(), TestCaseError>
where
    T: Display + FromStr<Err = JournalError> + PartialEq + std::fmt::Debug,
{
    let text = value.to_string();
    let parsed = text.parse::<T>();
    prop_assert!(parsed.is_ok(), "{text}: {:?}", parsed.err());
    let parsed = parsed.map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&parsed, value);
    prop_assert_eq!(parsed.to_string(), text);
    Ok(())
}

fn release_version() -> impl Strategy<Value = ReleaseVersion> {
    (
        any::<u64>(),
        0u64..100,
        0u64..100,
        "(-((0|[1-9][0-9]{0,5}|[a-zA-Z-][a-zA-Z0-9-]{0,5})(\\.(0|[1-9][0-9]{0,5}|[a-zA-Z-][a-zA-Z0-9-]{0,5})){0,2}))?",
    )
        .prop_filter_map("valid", |(a, b, c, pre)| format!("{a}.{b}.{c}{pre}").parse().ok())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn coordinate(s in "[a-z0-9]{1,8}([._-][a-z0-9]{1,8}){0,4}") {
        let c: ArtifactCoordinate = s.parse().map_err(|e: JournalError| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(c.as_str(), s.as_str());
        round_trips(&c)?;
    }

    #[test]
    fn journal_version(y in 1u32..=9999, mo in 1u32..=12, d in 1u32..=31, h in 0u32..24, mi in 0u32..60, s in 0u32..60) {
        let text = format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z");
        // Days 29-31 exist only in some months: those that parse must round-trip.
        if let Ok(v) = text.parse::<JournalVersion>() {
            prop_assert_eq!(v.to_string(), text);
            round_trips(&v)?;
        } else {
            prop_assert!(d >= 29);
        }
    }

    /// The version is its date and time: its strict form is the calendar's,
    /// it orders as the calendar does, and its decimal form is its digits.
    #[test]
    fn journal_version_is_its_datetime(a in 0i64..253_402_300_800 - 62_135_596_800, b in 0i64..253_402_300_800 - 62_135_596_800) {
        let datetime = |seconds: i64| {
            let t = time::OffsetDateTime::from_unix_timestamp(seconds - 62_135_596_800).unwrap();
            time::PrimitiveDateTime::new(t.date(), t.time())
        };
        let (da, db) = (datetime(a), datetime(b));
        let strict = |d: time::PrimitiveDateTime| format!(
            "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
            d.year(), u8::from(d.month()), d.day(), d.hour(), d.minute(), d.second()
        );
        let (va, vb) = (
            strict(da).parse::<JournalVersion>().unwrap(),
            strict(db).parse::<JournalVersion>().unwrap(),
        );
        prop_assert_eq!(va.cmp(&vb), da.cmp(&db));
        prop_assert_eq!(va == vb, a == b);
        prop_assert_eq!(va.to_string(), strict(da));
        // Its decimal form is the text's digits (the chain's index key,
        // tested in nenjim-journal-chain's `key.rs`, counts seconds from it).
        prop_assert_eq!(format!("{:014}", va.to_decimal()), strict(da).replace(['T', 'Z'], ""));
    }

    #[test]
    fn digests(bytes in any::<[u8; 32]>()) {
        round_trips(&RevisionDigest::from_bytes(bytes))?;
        round_trips(&ContentDigest::from_bytes(bytes))?;
    }

    #[test]
    fn content_pointer(bytes in any::<[u8; 32]>(), size in any::<u64>()) {
        let p = ContentPointer::new(ContentDigest::from_bytes(bytes), size);
        round_trips(&p)?;
        prop_assert_eq!(nenjim_journal_api::model::build::content_size(&size.to_string()).ok(), Some(size));
    }

    #[test]
    fn release_version_round_trips(v in release_version()) {
        round_trips(&v)?;
    }

    #[test]
    fn requirement(a in release_version(), b in release_version(), form in 0u8..8) {
        let equal = a == b;
        let text = requirement_text(a, b, form);
        match text.parse::<VersionRequirement>() {
            Ok(r) => {
                prop_assert_eq!(r.to_string(), text);
                round_trips(&r)?;
            }
            // Only an empty interval (equal bounds, not both inclusive) is refused.
            Err(_) => prop_assert!(equal && (3..=5).contains(&form)),
        }
    }

    #[test]
    fn license(text in prop::sample::select(vec![
        "MIT", "Apache-2.0", "Apache-2.0 OR MIT", "(MIT OR Apache-2.0) AND BSD-3-Clause",
        "GPL-2.0-or-later WITH Classpath-exception-2.0", "LGPL-2.1+", "LicenseRef-x",
        "DocumentRef-a:LicenseRef-b", "NONE", "NOASSERTION",
    ])) {
        let l: LicenseExpression = text.parse().map_err(|e: JournalError| TestCaseError::fail(e.to_string()))?;
        round_trips(&l)?;
    }

    /// Absolute URIs built from RFC 3986's own grammar (scheme, a rootless
    /// path of pchars and percent-encodings, an optional query and
    /// fragment): every one must be accepted, so a parser that refused them
    /// all fails here.
    #[test]
    fn information_uri(
        scheme in "[a-zA-Z][a-zA-Z0-9+.-]{0,6}",
        path in "([a-zA-Z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2}){0,30}",
        query in "(\\?([a-zA-Z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-F]{2}){0,12})?",
        fragment in "(#([a-zA-Z0-9._~!$&'()*+,;=:@/?-]|%[0-9a-f]{2}){0,12})?",
    ) {
        let text = format!("{scheme}:{path}{query}{fragment}");
        let parsed = text.parse::<InformationUri>();
        prop_assert!(parsed.is_ok(), "{text}: {:?}", parsed.as_ref().err());
        let u = parsed.map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(u.scheme(), scheme.as_str());
        prop_assert_eq!(u.as_str(), text.as_str());
        round_trips(&u)?;
    }

    /// Arbitrary text after a scheme: whatever is accepted round-trips, and
    /// what is refused is refused with a located syntax error.
    #[test]
    fn information_uri_arbitrary(scheme in "[a-z][a-z0-9+.-]{0,6}", rest in "[a-zA-Z0-9._~/?#@!$&'()*+,;=:\\[\\] %-]{0,30}") {
        let text = format!("{scheme}:{rest}");
        match text.parse::<InformationUri>() {
            Ok(u) => {
                prop_assert_eq!(u.scheme(), scheme.as_str());
                round_trips(&u)?;
            }
            Err(e) => {
                prop_assert_eq!(e.kind(), nenjim_journal_api::error::ErrorKind::Syntax);
                prop_assert!(e.column().is_some(), "{e}");
            }
        }
    }

    #[test]
    fn description(text in "(?s).{1,64}") {
        if let Ok(d) = Description::new(&text) {
            prop_assert_eq!(d.as_str(), text.as_str());
            round_trips(&d)?;
        } else {
            prop_assert!(text.chars().all(char::is_whitespace));
        }
    }
}
