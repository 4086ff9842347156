//! Hostile texts: very long lines and deep nesting get a clear, located
//! error (or a correct parse) without a stack overflow or a quadratic blow-up.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_parser::parse;

const TEN_MIB: usize = 10 * 1024 * 1024;

const HEADER: &str = "\
FORMAT nenjim-journal/1
ARTIFACT left-pad
JOURNAL_VERSION 20261129T101530Z
PREDECESSOR GENESIS
DESCRIPTION \"pads strings on the left\"
";

fn release_with_license(license: &str) -> String {
    format!(
        "{HEADER}RELEASE 1.0.0\n  LICENSE {license}\n  CONTENT sha256:{} 1\n",
        "0".repeat(64)
    )
}

#[test]
fn a_ten_mib_comment_line_is_ignored() {
    let text = format!("# {}\n{HEADER}", "x".repeat(TEN_MIB));
    let revision = parse(&text).unwrap();
    assert_eq!(revision.coordinate().as_str(), "left-pad");
}

#[test]
fn a_ten_mib_description_is_a_located_semantic_error() {
    let text = HEADER.replace(
        "DESCRIPTION \"pads strings on the left\"",
        &format!("DESCRIPTION \"{}\"", "d".repeat(TEN_MIB)),
    );
    let error = parse(&text).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Semantic, "{error}");
    assert_eq!(error.line(), Some(5));
    assert!(error.message().contains("4096"), "{}", error.message());
    assert!(
        error.to_string().len() < 1024,
        "the message quotes the whole line"
    );
}

#[test]
fn a_ten_mib_token_is_a_located_syntax_error() {
    let text = HEADER.replace(
        "ARTIFACT left-pad",
        &format!("ARTIFACT {}", "a".repeat(TEN_MIB)),
    );
    let error = parse(&text).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Syntax, "{error}");
    assert_eq!(error.line(), Some(2));
    assert!(
        error.to_string().len() < 1024,
        "the message quotes the whole token"
    );
}

#[test]
fn ten_mib_of_trailing_spaces_are_allowed() {
    let text = HEADER.replace(
        "ARTIFACT left-pad",
        &format!("ARTIFACT left-pad{}", " ".repeat(TEN_MIB)),
    );
    assert_eq!(parse(&text).unwrap().coordinate().as_str(), "left-pad");
}

#[test]
fn a_ten_mib_line_of_unknown_text_is_a_syntax_error() {
    let text = format!("{HEADER}{}\n", "Z".repeat(TEN_MIB));
    let error = parse(&text).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Syntax, "{error}");
    assert_eq!((error.line(), error.column()), (Some(6), Some(1)));
    assert!(error.to_string().len() < 1024);
}

#[test]
fn ten_thousand_nested_parentheses_in_a_license_are_a_semantic_error() {
    let depth = 10_000;
    for license in [
        format!("{}MIT{}", "(".repeat(depth), ")".repeat(depth)),
        "(".repeat(depth),
        format!("{}MIT", "(MIT AND ".repeat(depth)),
    ] {
        let error = parse(&release_with_license(&license)).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Semantic, "{error}");
        assert_eq!(error.line(), Some(7));
        assert!(error.message().contains("nested"), "{}", error.message());
        assert!(error.to_string().len() < 1024);
    }
}

#[test]
fn ten_thousand_operators_in_a_flat_license_expression_do_not_overflow() {
    // No parentheses, but as deep a tree as an expression walker could build.
    for operator in ["AND", "OR"] {
        let license = vec!["MIT"; 10_000].join(&format!(" {operator} "));
        match parse(&release_with_license(&license)) {
            Ok(revision) => assert_eq!(revision.releases()[0].license().as_str(), license),
            Err(error) => assert_eq!(error.kind(), ErrorKind::Semantic, "{error}"),
        }
    }
}

#[test]
fn nesting_just_inside_the_limit_is_accepted() {
    let license = format!("{}MIT{}", "(".repeat(64), ")".repeat(64));
    assert!(parse(&release_with_license(&license)).is_ok());
}
