//! Regressions found by the fuzzers (`fuzz/`), one test per finding.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_chain::ChainState;
use nenjim_journal_parser::{is_blank, parse};

/// Found by `parse_bytes` on the one-byte text "\r": a CR that ends the
/// text is not followed by LF, so it is a lone CR (a syntax error), not a
/// line terminator; `is_blank` took it for one and ingestion answered
/// `EmptyInput`, hiding the syntax error the parser reports.
#[test]
fn a_lone_cr_at_the_end_of_the_text_is_not_blank() {
    for text in ["\r", "  \r", "# comment\r", "\n\r", "\r\n\r", "# a\n  \r"] {
        assert!(!is_blank(text), "{text:?}");
        let parsed = nenjim_journal_parser::parse(text).unwrap_err();
        let ingested = parse(text)
            .and_then(|r| ChainState::new().ingest_revision(r))
            .unwrap_err();
        assert_eq!(parsed.kind(), ErrorKind::Syntax, "{text:?}: {parsed}");
        assert_eq!(ingested.kind(), ErrorKind::Syntax, "{text:?}: {ingested}");
        assert_eq!(
            (ingested.line(), ingested.column()),
            (parsed.line(), parsed.column())
        );
    }
    // A CR that is part of a CRLF terminator stays a terminator.
    for text in ["\r\n", "  \r\n# c\r\n", "\n\r\n  "] {
        assert!(is_blank(text), "{text:?}");
        let ingested = parse(text)
            .and_then(|r| ChainState::new().ingest_revision(r))
            .unwrap_err();
        assert_eq!(ingested.kind(), ErrorKind::EmptyInput, "{text:?}");
    }
}
