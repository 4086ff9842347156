//! Tests as data: every rule of `docs/format.md` sections 1–5, each with
//! a minimal valid text and a minimal invalid one, and the expected outcome
//! (error kind, line and, where meaningful, column).
//!
//! The texts are built from a five-line header (`t!`), so line 6 is the
//! first line after it; `rel!` is a three-line release block.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use nenjim_journal_api::error::ErrorKind;
use rstest::rstest;

/// 64 lower-case hex digits.
macro_rules! hex64 {
    () => {
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    };
}

/// The header (lines 1–5) followed by the given lines.
macro_rules! t {
    ($($s:expr),* $(,)?) => {
        concat!(
            "FORMAT nenjim-journal/1\n",
            "ARTIFACT a\n",
            "JOURNAL_VERSION 20261129T101530Z\n",
            "PREDECESSOR GENESIS\n",
            "DESCRIPTION \"d\"\n",
            $($s),*
        )
    };
}

/// A three-line release block of `$v`.
macro_rules! rel {
    ($v:literal) => {
        concat!(
            "RELEASE ",
            $v,
            "\n  LICENSE MIT\n  CONTENT sha256:",
            hex64!(),
            " 1\n"
        )
    };
}

/// The header with line `$n` (2, 3 or 4) replaced.
macro_rules! hdr {
    (artifact $s:expr) => {
        concat!(
            "FORMAT nenjim-journal/1\nARTIFACT ",
            $s,
            "\nJOURNAL_VERSION 20261129T101530Z\nPREDECESSOR GENESIS\nDESCRIPTION \"d\"\n"
        )
    };
    (version $s:expr) => {
        concat!(
            "FORMAT nenjim-journal/1\nARTIFACT a\nJOURNAL_VERSION ",
            $s,
            "\nPREDECESSOR GENESIS\nDESCRIPTION \"d\"\n"
        )
    };
    (predecessor $s:expr) => {
        concat!(
            "FORMAT nenjim-journal/1\nARTIFACT a\nJOURNAL_VERSION 20261129T101530Z\nPREDECESSOR ",
            $s,
            "\nDESCRIPTION \"d\"\n"
        )
    };
    (description $s:expr) => {
        concat!(
            "FORMAT nenjim-journal/1\nARTIFACT a\nJOURNAL_VERSION 20261129T101530Z\nPREDECESSOR GENESIS\nDESCRIPTION ",
            $s,
            "\n"
        )
    };
}

/// A release 1.0.0 (line 6) with the given LICENSE expression (line 7).
macro_rules! lic {
    ($s:expr) => {
        t!(
            "RELEASE 1.0.0\n  LICENSE ",
            $s,
            "\n  CONTENT sha256:",
            hex64!(),
            " 1\n"
        )
    };
}

/// A release 1.0.0 whose CONTENT (line 8) has the given size (column 83).
macro_rules! size {
    ($s:expr) => {
        t!(
            "RELEASE 1.0.0\n  LICENSE MIT\n  CONTENT sha256:",
            hex64!(),
            " ",
            $s,
            "\n"
        )
    };
}

/// A release 1.0.0 (lines 6–8) with `DEPENDS b <req>` on line 9 (requirement at column 13).
macro_rules! dep {
    ($s:expr) => {
        t!(rel!("1.0.0"), "  DEPENDS b ", $s, "\n")
    };
}

/// What a case expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Ok,
    Empty,
    /// Kind, line, and column (0: not checked).
    Err(ErrorKind, usize, usize),
}

const fn syn(line: usize, column: usize) -> Expect {
    Expect::Err(ErrorKind::Syntax, line, column)
}

const fn sem(line: usize, column: usize) -> Expect {
    Expect::Err(ErrorKind::Semantic, line, column)
}

const OK: Expect = Expect::Ok;

fn check(text: &str, expected: Expect) {
    let result = nenjim_journal_parser::parse(text);
    match (expected, result) {
        (Expect::Ok, Ok(revision)) => {
            // Every valid text also survives the canonical round trip.
            let canonical = nenjim_journal_parser::render(&revision);
            let again = nenjim_journal_parser::parse(&canonical);
            assert!(
                again.as_ref().is_ok_and(|a| a.same_worldview(&revision)),
                "canonical text did not parse back the same:\n{canonical}\n{again:?}"
            );
        }
        (Expect::Ok, Err(e)) => panic!("expected success, got {e} ({:?})\n{text}", e.kind()),
        (Expect::Empty, r) => {
            assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::EmptyInput));
        }
        (Expect::Err(kind, line, column), Ok(_)) => {
            panic!("expected {kind:?} at {line}:{column}, got success\n{text}")
        }
        (Expect::Err(kind, line, column), Err(e)) => {
            let found = (
                e.kind(),
                e.line(),
                if column == 0 { None } else { e.column() },
            );
            let wanted = (
                kind,
                Some(line),
                if column == 0 { None } else { Some(column) },
            );
            assert_eq!(found, wanted, "error: {e}\ntext:\n{text}");
            assert!(e.message().contains("found"), "message lacks `found`: {e}");
            assert!(
                e.message().contains("expected"),
                "message lacks `expected`: {e}"
            );
        }
    }
}

#[rstest]
// ---- Section 1: lines ----
#[case::header_only(t!(), OK)]
#[case::no_final_newline(
    "FORMAT nenjim-journal/1\nARTIFACT a\nJOURNAL_VERSION 20261129T101530Z\nPREDECESSOR GENESIS\nDESCRIPTION \"d\"",
    OK
)]
#[case::crlf(
    "FORMAT nenjim-journal/1\r\nARTIFACT a\r\nJOURNAL_VERSION 20261129T101530Z\r\nPREDECESSOR GENESIS\r\nDESCRIPTION \"d\"\r\n",
    OK
)]
#[case::mixed_terminators(
    "FORMAT nenjim-journal/1\r\nARTIFACT a\nJOURNAL_VERSION 20261129T101530Z\r\nPREDECESSOR GENESIS\nDESCRIPTION \"d\"\r\n",
    OK
)]
#[case::lone_cr("FORMAT nenjim-journal/1\rARTIFACT a\n", syn(1, 24))]
#[case::lone_cr_at_end(t!("\r"), syn(6, 1))]
#[case::lone_cr_in_comment(t!("# a\rb\n"), syn(6, 4))]
#[case::bom("\u{feff}FORMAT nenjim-journal/1\n", syn(1, 1))]
#[case::bom_alone("\u{feff}", syn(1, 1))]
#[case::empty("", Expect::Empty)]
#[case::blank_and_comments("  \n# x\n   # y\n\n", Expect::Empty)]
#[case::crlf_blank("\r\n\r\n", Expect::Empty)]
#[case::comments_anywhere(concat!("# top\n\n", t!("  # in header? no, after\n", "RELEASE 1.0.0\n  # inside a block\n\n  LICENSE MIT\n # odd comment\n  CONTENT sha256:", hex64!(), " 1\n#\n")), OK)]
#[case::comment_with_tab("#\tx\u{1}\n", Expect::Empty)]
#[case::tab_separator("FORMAT\tnenjim-journal/1\n", syn(1, 7))]
#[case::tab_only_line("\t\n", syn(1, 1))]
#[case::control_in_quoted(hdr!(description "\"a\u{1}\""), syn(5, 15))]
#[case::del_in_token(hdr!(artifact "a\u{7f}"), syn(2, 11))]
#[case::nul(t!("\0\n"), syn(6, 1))]
#[case::trailing_spaces(t!("RELEASE 1.0.0   \n  LICENSE MIT  \n  CONTENT sha256:", hex64!(), " 1   \n   \n"), OK)]
#[case::many_spaces_between_tokens(t!("RELEASE    1.0.0\n  LICENSE MIT\n  CONTENT    sha256:", hex64!(), "    1\n"), OK)]
#[case::indent_one(t!("RELEASE 1.0.0\n LICENSE MIT\n"), syn(7, 1))]
#[case::indent_three(t!("RELEASE 1.0.0\n   LICENSE MIT\n"), syn(7, 1))]
#[case::indent_tab(t!("RELEASE 1.0.0\n\tLICENSE MIT\n"), syn(7, 1))]
#[case::indented_header("  FORMAT nenjim-journal/1\n", syn(1, 1))]
#[case::indented_top_level(t!("  RELEASE 1.0.0\n"), syn(6, 3))]
#[case::lower_case_keyword("format nenjim-journal/1\n", syn(1, 1))]
#[case::hash_after_token(hdr!(artifact "a #comment"), syn(2, 12))]
#[case::hash_glued_to_token(hdr!(artifact "a#b"), syn(2, 11))]
// ---- Section 2: coordinates ----
#[case::coordinate_separators(hdr!(artifact "a.b_c-d9"), OK)]
#[case::coordinate_double_separator(hdr!(artifact "a..b"), syn(2, 12))]
#[case::coordinate_leading_separator(hdr!(artifact "-a"), syn(2, 10))]
#[case::coordinate_trailing_separator(hdr!(artifact "a-"), syn(2, 11))]
#[case::coordinate_upper_case(hdr!(artifact "Abc"), syn(2, 10))]
#[case::coordinate_slash(hdr!(artifact "a/b"), syn(2, 11))]
#[case::coordinate_non_ascii(hdr!(artifact "é"), syn(2, 10))]
#[case::coordinate_missing("FORMAT nenjim-journal/1\nARTIFACT\n", syn(2, 9))]
#[case::coordinate_extra_token(hdr!(artifact "a b"), syn(2, 12))]
// ---- Section 2: timestamps ----
#[case::timestamp_leap_day(hdr!(version "20240229T235959Z"), OK)]
#[case::timestamp_non_leap_day(hdr!(version "20230229T000000Z"), syn(3, 23))]
#[case::timestamp_2000_leap(hdr!(version "20000229T000000Z"), OK)]
#[case::timestamp_1900_not_leap(hdr!(version "19000229T000000Z"), syn(3, 23))]
#[case::timestamp_hour_24(hdr!(version "20261129T240000Z"), syn(3, 26))]
#[case::timestamp_minute_60(hdr!(version "20261129T106000Z"), syn(3, 28))]
#[case::timestamp_second_60(hdr!(version "20261129T101560Z"), syn(3, 30))]
#[case::timestamp_year_0000(hdr!(version "00000101T000000Z"), syn(3, 17))]
#[case::timestamp_year_0001(hdr!(version "00010101T000000Z"), OK)]
#[case::timestamp_month_13(hdr!(version "20261329T000000Z"), syn(3, 21))]
#[case::timestamp_month_00(hdr!(version "20260029T000000Z"), syn(3, 21))]
#[case::timestamp_too_short(hdr!(version "2026112T101530Z"), syn(3, 24))]
#[case::timestamp_too_long(hdr!(version "20261129T101530ZZ"), syn(3, 33))]
#[case::timestamp_extended_format(hdr!(version "2026-11-29T10:15:30Z"), syn(3, 21))]
#[case::timestamp_lower_z(hdr!(version "20261129T101530z"), syn(3, 32))]
// ---- Section 2: digests ----
#[case::digest(hdr!(predecessor concat!("sha256:", hex64!())), OK)]
#[case::digest_upper_case(hdr!(predecessor "sha256:ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef01234567"), syn(4, 20))]
#[case::digest_short(hdr!(predecessor "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"), syn(4, 83))]
#[case::digest_long(hdr!(predecessor concat!("sha256:", hex64!(), "0")), syn(4, 84))]
#[case::digest_other_algorithm(hdr!(predecessor concat!("sha512:", hex64!())), syn(4, 13))]
#[case::genesis_lower_case(hdr!(predecessor "genesis"), syn(4, 13))]
#[case::genesis_extra_token(hdr!(predecessor "GENESIS x"), syn(4, 21))]
#[case::predecessor_missing(
    "FORMAT nenjim-journal/1\nARTIFACT a\nJOURNAL_VERSION 20261129T101530Z\nPREDECESSOR\n",
    syn(4, 12)
)]
// ---- Section 2: sizes ----
#[case::size_zero(size!("0"), OK)]
#[case::size_leading_zero(size!("01"), syn(8, 83))]
#[case::size_max(size!("18446744073709551615"), OK)]
#[case::size_overflow(size!("18446744073709551616"), syn(8, 83))]
#[case::size_negative(size!("-1"), syn(8, 83))]
#[case::size_missing(t!("RELEASE 1.0.0\n  LICENSE MIT\n  CONTENT sha256:", hex64!(), "\n"), syn(8, 82))]
#[case::size_extra_token(size!("1 x"), syn(8, 85))]
#[case::content_digest_upper(t!("RELEASE 1.0.0\n  LICENSE MIT\n  CONTENT sha256:A123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef 1\n"), syn(8, 18))]
// ---- Section 2: versions and their order ----
#[case::version_leading_zero(t!(rel!("01.0.0")), syn(6, 9))]
#[case::version_build_metadata(t!(rel!("1.0.0+build")), syn(6, 14))]
#[case::version_two_parts(t!(rel!("1.0")), syn(6, 9))]
#[case::version_prerelease_leading_zero(t!(rel!("1.0.0-alpha.01")), syn(6, 9))]
#[case::version_u64_max(t!(rel!("18446744073709551615.0.0")), OK)]
#[case::version_overflow(t!(rel!("18446744073709551616.0.0")), syn(6, 9))]
#[case::version_prerelease_order(t!(rel!("1.0.0-alpha"), rel!("1.0.0-alpha.1"), rel!("1.0.0-beta"), rel!("1.0.0")), OK)]
#[case::version_release_before_prerelease(t!(rel!("1.0.0"), rel!("1.0.0-beta")), sem(9, 9))]
#[case::version_alpha1_before_alpha(t!(rel!("1.0.0-alpha.1"), rel!("1.0.0-alpha")), sem(9, 9))]
#[case::version_beta_before_alpha1(t!(rel!("1.0.0-beta"), rel!("1.0.0-alpha.1")), sem(9, 9))]
#[case::version_duplicate(t!(rel!("1.0.0"), rel!("1.0.0")), sem(9, 9))]
#[case::version_numeric_order(t!(rel!("2.0.0"), rel!("10.0.0")), OK)]
#[case::version_descending_first_error_wins(t!(rel!("2.0.0"), "RELEASE 1.0.0\n  BOGUS\n"), sem(9, 9))]
// ---- Section 2: requirements and intervals ----
#[case::interval_closed(dep!("[1.0.0,2.0.0]"), OK)]
#[case::interval_half_open(dep!("[1.0.0,2.0.0)"), OK)]
#[case::interval_open_closed(dep!("(1.0.0,2.0.0]"), OK)]
#[case::interval_open(dep!("(1.0.0,2.0.0)"), OK)]
#[case::interval_no_lower(dep!("(,2.0.0)"), OK)]
#[case::interval_no_upper(dep!("[1.0.0,)"), OK)]
#[case::interval_unbounded(dep!("(,)"), syn(9, 13))]
#[case::interval_inclusive_missing_lower(dep!("[,2.0.0)"), syn(9, 13))]
#[case::interval_inclusive_missing_upper(dep!("[1.0.0,]"), syn(9, 20))]
#[case::interval_reversed(dep!("[2.0.0,1.0.0]"), sem(9, 13))]
#[case::interval_equal_inclusive(dep!("[1.0.0,1.0.0]"), OK)]
#[case::interval_equal_half_open(dep!("[1.0.0,1.0.0)"), sem(9, 13))]
#[case::interval_equal_open_closed(dep!("(1.0.0,1.0.0]"), sem(9, 13))]
#[case::interval_bad_bound(dep!("[1.0,2.0.0)"), syn(9, 14))]
#[case::interval_no_comma(dep!("[1.0.0;2.0.0]"), syn(9, 14))]
#[case::interval_space_inside(dep!("[1.0.0, 2.0.0]"), syn(9, 0))]
#[case::requirement_any(dep!("*"), OK)]
#[case::requirement_exact(dep!("1.2.3-rc.1"), OK)]
#[case::requirement_braces(dep!("{1.0.0,2.0.0}"), syn(9, 13))]
#[case::requirement_build_metadata(dep!("1.0.0+x"), syn(9, 18))]
// ---- Section 2: quoted strings ----
#[case::quoted_escapes(hdr!(description r#""a\\b \"q\" \n \t \u{41}""#), OK)]
#[case::quoted_u_zero(hdr!(description r#""a\u{0}""#), OK)]
#[case::quoted_u_max(hdr!(description r#""\u{10FFFF}""#), OK)]
#[case::quoted_u_too_big(hdr!(description r#""\u{110000}""#), syn(5, 17))]
#[case::quoted_u_surrogate(hdr!(description r#""\u{D800}""#), syn(5, 17))]
#[case::quoted_u_seven_digits(hdr!(description r#""\u{0000041}""#), syn(5, 17))]
#[case::quoted_u_empty(hdr!(description r#""\u{}""#), syn(5, 17))]
#[case::quoted_u_no_brace(hdr!(description r#""\u41""#), syn(5, 16))]
#[case::quoted_unknown_escape(hdr!(description r#""\x""#), syn(5, 14))]
#[case::quoted_unterminated(hdr!(description "\"abc"), syn(5, 17))]
#[case::quoted_blank(hdr!(description "\"   \""), sem(5, 13))]
#[case::quoted_empty(hdr!(description "\"\""), sem(5, 13))]
#[case::quoted_blank_after_decoding(hdr!(description r#""\u{20}\t\n""#), sem(5, 13))]
#[case::quoted_missing_quotes(hdr!(description "abc"), syn(5, 13))]
#[case::quoted_extra_token(hdr!(description "\"a\" b"), syn(5, 17))]
#[case::quoted_glued_token(hdr!(description "\"a\"b"), syn(5, 16))]
#[case::quoted_non_ascii_before_error(hdr!(description r#""éé\q""#), syn(5, 16))]
#[case::quoted_unicode(hdr!(description "\"ünïcødé ✓\""), OK)]
// ---- Section 2: URIs ----
#[case::uri_https(t!("INFORMATION https://example.org/x?y=1#z\n"), OK)]
#[case::uri_mailto(t!("INFORMATION mailto:owner@example.org\n"), OK)]
#[case::uri_urn(t!("INFORMATION urn:isbn:0451450523\n"), OK)]
#[case::uri_git_ssh(t!("INFORMATION git+ssh://git@example.org/x.git\n"), OK)]
#[case::uri_relative(t!("INFORMATION /relative/path\n"), syn(6, 0))]
#[case::uri_non_ascii(t!("INFORMATION https://example.org/é\n"), syn(6, 33))]
#[case::uri_percent_encoded(t!("INFORMATION https://example.org/%C3%A9\n"), OK)]
#[case::uri_missing(t!("INFORMATION\n"), syn(6, 12))]
// ---- Section 2: licenses ----
#[case::license_simple(lic!("MIT"), OK)]
#[case::license_compound(lic!("(MIT OR Apache-2.0) AND BSD-3-Clause"), OK)]
#[case::license_with(lic!("GPL-2.0-or-later WITH Classpath-exception-2.0"), OK)]
#[case::license_plus(lic!("LGPL-2.1+"), OK)]
#[case::license_ref(lic!("LicenseRef-my-own"), OK)]
#[case::license_document_ref(lic!("DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2"), OK)]
#[case::license_none(lic!("NONE"), OK)]
#[case::license_noassertion(lic!("NOASSERTION"), OK)]
#[case::license_trailing_spaces(lic!("MIT OR Apache-2.0   "), OK)]
#[case::license_lower_case_id(lic!("mit"), sem(7, 11))]
#[case::license_lower_case_operator(lic!("MIT or Apache-2.0"), sem(7, 0))]
#[case::license_none_in_compound(lic!("MIT AND NONE"), sem(7, 0))]
#[case::license_noassertion_in_compound(lic!("NOASSERTION OR MIT"), sem(7, 0))]
#[case::license_unknown(lic!("Foo-1.0"), sem(7, 11))]
#[case::license_dangling_operator(lic!("MIT OR"), sem(7, 0))]
#[case::license_missing(t!("RELEASE 1.0.0\n  LICENSE\n"), syn(7, 10))]
// ---- Section 3: header ----
#[case::header_starts_with_artifact("ARTIFACT a\n", syn(1, 1))]
#[case::header_unknown_format("FORMAT nenjim-journal/2\n", syn(1, 8))]
#[case::header_format_extra_token("FORMAT nenjim-journal/1 x\n", syn(1, 25))]
#[case::header_format_missing_value("FORMAT\n", syn(1, 7))]
#[case::header_format_repeated("FORMAT nenjim-journal/1\nFORMAT nenjim-journal/1\n", syn(2, 1))]
#[case::header_out_of_order(
    "FORMAT nenjim-journal/1\nJOURNAL_VERSION 20261129T101530Z\nARTIFACT a\n",
    syn(2, 1)
)]
#[case::header_missing_description_at_end(
    "FORMAT nenjim-journal/1\nARTIFACT a\nJOURNAL_VERSION 20261129T101530Z\nPREDECESSOR GENESIS\n",
    syn(5, 1)
)]
#[case::header_missing_description_before_release(concat!("FORMAT nenjim-journal/1\nARTIFACT a\nJOURNAL_VERSION 20261129T101530Z\nPREDECESSOR GENESIS\n", rel!("1.0.0")), syn(5, 1))]
#[case::header_end_without_newline("FORMAT nenjim-journal/1", syn(1, 24))]
#[case::header_information_before_description(
    "FORMAT nenjim-journal/1\nARTIFACT a\nJOURNAL_VERSION 20261129T101530Z\nPREDECESSOR GENESIS\nINFORMATION https://x.org\n",
    syn(5, 1)
)]
#[case::header_keyword_after_header(t!("ARTIFACT b\n"), syn(6, 1))]
#[case::header_description_repeated(t!("DESCRIPTION \"e\"\n"), syn(6, 1))]
#[case::header_format_after_release(t!(rel!("1.0.0"), "FORMAT nenjim-journal/1\n"), syn(9, 1))]
#[case::header_information_repeated(t!("INFORMATION https://a.org\nINFORMATION https://b.org\n"), syn(7, 1))]
#[case::header_information_after_release(t!(rel!("1.0.0"), "INFORMATION https://a.org\n"), syn(9, 1))]
#[case::header_information_extra_token(t!("INFORMATION https://a.org x\n"), syn(6, 27))]
// ---- Section 4: releases ----
#[case::release_full(t!(rel!("1.0.0"), "  DESCRIPTION \"first\"\n  DEPENDS b [1.0.0,2.0.0)\n  DEPENDS c 1.2.3 \"logging\"\n  EXCLUDES d\n  EXCLUDES e * \"never\"\n  EXCLUDES f [1.0.0,2.0.0) \"old\"\n  EXCLUDES g \"why\"\n  PREFERS b [1.4.0,1.5.0) \"tested\"\n  PREFERS h *\n"), OK)]
#[case::release_missing_license(t!("RELEASE 1.0.0\n  CONTENT sha256:", hex64!(), " 1\n"), syn(7, 3))]
#[case::release_missing_content(t!("RELEASE 1.0.0\n  LICENSE MIT\nRELEASE 2.0.0\n"), syn(8, 1))]
#[case::release_missing_content_at_end(t!("RELEASE 1.0.0\n  LICENSE MIT\n"), syn(8, 1))]
#[case::release_missing_content_no_newline(t!("RELEASE 1.0.0\n  LICENSE MIT"), syn(7, 14))]
#[case::release_missing_everything(t!("RELEASE 1.0.0\n"), syn(7, 1))]
#[case::release_license_repeated(t!("RELEASE 1.0.0\n  LICENSE MIT\n  LICENSE MIT\n"), syn(8, 3))]
#[case::release_content_repeated(t!(rel!("1.0.0"), "  CONTENT sha256:", hex64!(), " 1\n"), syn(9, 3))]
#[case::release_description_repeated(t!(rel!("1.0.0"), "  DESCRIPTION \"a\"\n  DESCRIPTION \"b\"\n"), syn(10, 3))]
#[case::release_description_after_depends(t!(rel!("1.0.0"), "  DEPENDS b *\n  DESCRIPTION \"a\"\n"), syn(10, 3))]
#[case::release_depends_after_excludes(t!(rel!("1.0.0"), "  EXCLUDES b\n  DEPENDS c *\n"), syn(10, 3))]
#[case::release_excludes_after_prefers(t!(rel!("1.0.0"), "  PREFERS b *\n  EXCLUDES c\n"), syn(10, 3))]
#[case::release_content_before_license(t!("RELEASE 1.0.0\n  CONTENT sha256:", hex64!(), " 1\n  LICENSE MIT\n"), syn(7, 3))]
#[case::release_unknown_property(t!(rel!("1.0.0"), "  REQUIRES b *\n"), syn(9, 3))]
#[case::release_property_at_column_1(t!("RELEASE 1.0.0\nLICENSE MIT\n"), syn(7, 1))]
#[case::release_property_outside_block(t!("  LICENSE MIT\n"), syn(6, 3))]
#[case::release_extra_token(t!("RELEASE 1.0.0 x\n"), syn(6, 15))]
#[case::release_missing_version(t!("RELEASE\n"), syn(6, 8))]
#[case::depends_missing_requirement(t!(rel!("1.0.0"), "  DEPENDS b\n"), syn(9, 12))]
#[case::depends_unquoted_description(t!(rel!("1.0.0"), "  DEPENDS b * why\n"), syn(9, 15))]
#[case::depends_extra_after_description(t!(rel!("1.0.0"), "  DEPENDS b * \"why\" x\n"), syn(9, 21))]
#[case::depends_duplicate(t!(rel!("1.0.0"), "  DEPENDS b *\n  DEPENDS b 1.0.0\n"), sem(10, 11))]
#[case::excludes_duplicate(t!(rel!("1.0.0"), "  EXCLUDES b\n  EXCLUDES b *\n"), sem(10, 12))]
#[case::prefers_duplicate(t!(rel!("1.0.0"), "  PREFERS b *\n  PREFERS b 1.0.0\n"), sem(10, 11))]
#[case::depends_and_excludes(t!(rel!("1.0.0"), "  DEPENDS b *\n  EXCLUDES b [2.0.0,)\n"), sem(10, 12))]
#[case::depends_and_prefers(t!(rel!("1.0.0"), "  DEPENDS b *\n  PREFERS b 1.0.0\n"), OK)]
#[case::same_artifact_in_two_releases(t!(rel!("1.0.0"), "  DEPENDS b *\n", rel!("2.0.0"), "  DEPENDS b *\n"), OK)]
#[case::self_dependency(t!(rel!("1.0.0"), "  DEPENDS a *\n"), sem(9, 11))]
#[case::self_exclusion(t!(rel!("1.0.0"), "  EXCLUDES a\n"), sem(9, 12))]
#[case::self_preference(t!(rel!("1.0.0"), "  PREFERS a *\n"), OK)]
#[case::excludes_bad_requirement(t!(rel!("1.0.0"), "  EXCLUDES b [1.0.0\n"), syn(9, 0))]
// ---- Section 5: policy ----
#[case::policy_all(t!(rel!("1.0.0"), rel!("1.1.0"), rel!("2.0.0"), "YANK 1.0.0 \"broken\"\nDEPRECATE [1.0.0,2.0.0) \"old\"\nRECOMMEND 2.0.0\n"), OK)]
#[case::policy_yank_any(t!(rel!("1.0.0"), "YANK * \"all\"\n"), OK)]
#[case::policy_yank_matches_none(t!(rel!("1.0.0"), "YANK 2.0.0 \"x\"\n"), sem(9, 6))]
#[case::policy_yank_without_releases(t!("YANK * \"x\"\n"), sem(6, 6))]
#[case::policy_yanks_overlap(t!(rel!("1.0.0"), rel!("2.0.0"), "YANK [1.0.0,2.0.0] \"x\"\nYANK 2.0.0 \"y\"\n"), sem(13, 6))]
#[case::policy_deprecates_overlap(t!(rel!("1.0.0"), "DEPRECATE * \"x\"\nDEPRECATE 1.0.0 \"y\"\n"), sem(10, 11))]
#[case::policy_deprecate_matches_none(t!(rel!("1.0.0"), "DEPRECATE (1.0.0,) \"x\"\n"), sem(9, 11))]
#[case::policy_yank_and_deprecate(t!(rel!("1.0.0"), "YANK 1.0.0 \"x\"\nDEPRECATE 1.0.0 \"y\"\n"), OK)]
#[case::policy_recommend_twice(t!(rel!("1.0.0"), rel!("2.0.0"), "RECOMMEND 1.0.0\nRECOMMEND 2.0.0\n"), sem(13, 11))]
#[case::policy_recommend_missing(t!(rel!("1.0.0"), "RECOMMEND 2.0.0\n"), sem(9, 11))]
#[case::policy_recommend_yanked(t!(rel!("1.0.0"), "YANK 1.0.0 \"x\"\nRECOMMEND 1.0.0\n"), sem(10, 11))]
#[case::policy_yank_recommended(t!(rel!("1.0.0"), "RECOMMEND 1.0.0\nYANK * \"x\"\n"), sem(10, 6))]
#[case::policy_recommend_deprecated(t!(rel!("1.0.0"), "DEPRECATE 1.0.0 \"x\"\nRECOMMEND 1.0.0\n"), OK)]
#[case::policy_recommend_interval(t!(rel!("1.0.0"), "RECOMMEND [1.0.0,2.0.0)\n"), syn(9, 11))]
#[case::policy_recommend_extra(t!(rel!("1.0.0"), "RECOMMEND 1.0.0 \"x\"\n"), syn(9, 17))]
#[case::policy_yank_without_reason(t!(rel!("1.0.0"), "YANK 1.0.0\n"), syn(9, 11))]
#[case::policy_yank_unquoted_reason(t!(rel!("1.0.0"), "YANK 1.0.0 broken\n"), syn(9, 12))]
#[case::policy_yank_blank_reason(t!(rel!("1.0.0"), "YANK 1.0.0 \" \"\n"), sem(9, 12))]
#[case::policy_release_after_policy(t!(rel!("1.0.0"), "RECOMMEND 1.0.0\n", rel!("2.0.0")), syn(10, 1))]
#[case::policy_property_after_policy(t!(rel!("1.0.0"), "RECOMMEND 1.0.0\n  DEPENDS b *\n"), syn(10, 3))]
#[case::policy_lower_case(t!(rel!("1.0.0"), "yank 1.0.0 \"x\"\n"), syn(9, 1))]
#[case::unknown_keyword(t!("FOO bar\n"), syn(6, 1))]
#[case::unknown_keyword_after_policy(t!(rel!("1.0.0"), "RECOMMEND 1.0.0\nFOO\n"), syn(10, 1))]
fn cases(#[case] text: &str, #[case] expected: Expect) {
    check(text, expected);
}

/// Cases whose texts are too long to write out.
#[rstest]
#[case::coordinate_128(hdr_artifact(&"a".repeat(128)), OK)]
#[case::coordinate_129(hdr_artifact(&"a".repeat(129)), syn(2, 138))]
#[case::quoted_4096(hdr_description(&"x".repeat(4096)), OK)]
#[case::quoted_4097(hdr_description(&"x".repeat(4097)), sem(5, 13))]
#[case::quoted_4096_multibyte(hdr_description(&"é".repeat(2048)), OK)]
#[case::quoted_4097_multibyte(hdr_description(&format!("{}x", "é".repeat(2048))), sem(5, 13))]
#[case::quoted_4096_escaped(hdr_description(&"\\u{41}".repeat(4096)), OK)]
#[case::uri_2048(information(2048), OK)]
#[case::uri_2049(information(2049), syn(6, 2061))]
#[case::many_releases(many_releases(300), OK)]
fn long_cases(#[case] text: String, #[case] expected: Expect) {
    check(&text, expected);
}

fn hdr_artifact(coordinate: &str) -> String {
    format!(
        "FORMAT nenjim-journal/1\nARTIFACT {coordinate}\nJOURNAL_VERSION 20261129T101530Z\nPREDECESSOR GENESIS\nDESCRIPTION \"d\"\n"
    )
}

fn hdr_description(inner: &str) -> String {
    format!(
        "FORMAT nenjim-journal/1\nARTIFACT a\nJOURNAL_VERSION 20261129T101530Z\nPREDECESSOR GENESIS\nDESCRIPTION \"{inner}\"\n"
    )
}

/// An `INFORMATION` URI of exactly `len` bytes.
fn information(len: usize) -> String {
    let prefix = "https://example.org/";
    let uri = format!("{prefix}{}", "p".repeat(len - prefix.len()));
    format!("{}INFORMATION {uri}\n", t!())
}

fn many_releases(n: usize) -> String {
    let mut text = String::from(t!());
    for i in 0..n {
        text.push_str(&format!(
            "RELEASE {i}.0.0\n  LICENSE MIT\n  CONTENT sha256:{} {i}\n",
            hex64!()
        ));
    }
    text.push_str("YANK [0.0.0,10.0.0) \"old\"\nRECOMMEND 299.0.0\n");
    text
}

#[test]
fn the_digest_is_of_the_exact_bytes() {
    let lf = t!();
    let crlf = lf.replace('\n', "\r\n");
    let (Ok(a), Ok(b)) = (
        nenjim_journal_parser::parse(lf),
        nenjim_journal_parser::parse(&crlf),
    ) else {
        panic!("both parse");
    };
    assert!(a.same_worldview(&b));
    assert_ne!(a.digest(), b.digest());
    assert_eq!(
        a.digest(),
        &nenjim_journal_api::valuetypes::RevisionDigest::of_text(lf)
    );
    assert_eq!(a.sequence(), 0);
}

#[test]
fn messages_name_what_was_found_and_expected() {
    let e = nenjim_journal_parser::parse(t!("RELEASE 1.0.0\n  CONTENT x 1\n")).err();
    assert_eq!(
        e.map(|e| e.to_string()),
        Some(
            "7:3: found `CONTENT` in release 1.0.0, expected `LICENSE <license>` first".to_owned()
        )
    );
    let e = nenjim_journal_parser::parse("FORMAT nenjim-journal/1\nRELEASE 1.0.0\n").err();
    assert_eq!(
        e.map(|e| e.to_string()),
        Some("2:1: found `RELEASE`, expected `ARTIFACT <coordinate>`".to_owned())
    );
}

#[test]
fn policy_context_is_applied() -> Result<(), nenjim_journal_api::error::JournalError> {
    let r = nenjim_journal_parser::parse(t!(
        rel!("1.0.0"),
        rel!("1.1.0"),
        rel!("2.0.0"),
        "YANK 1.0.0 \"broken\"\nDEPRECATE [1.0.0,2.0.0) \"old\"\nRECOMMEND 2.0.0\n"
    ))?;
    let p: Vec<_> = r
        .releases()
        .iter()
        .map(|r| {
            (
                r.policy().yanked().map(|d| d.as_str().to_owned()),
                r.policy().deprecated().is_some(),
                r.policy().is_recommended(),
            )
        })
        .collect();
    assert_eq!(
        p,
        vec![
            (Some("broken".to_owned()), true, false),
            (None, true, false),
            (None, false, true)
        ]
    );
    Ok(())
}
