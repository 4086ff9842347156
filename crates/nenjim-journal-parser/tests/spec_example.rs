//! The complete example of `docs/format.md` section 8 parses, and says what it says.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // tests fail loudly

use nenjim_journal_api::valuetypes::ReleaseVersion;

const EXAMPLE: &str = include_str!("data/spec_example.journal");

#[test]
fn the_spec_example_parses() -> Result<(), nenjim_journal_api::error::JournalError> {
    let revision = nenjim_journal_parser::parse(EXAMPLE)?;
    assert_eq!(revision.coordinate().as_str(), "com.r35157.nenjim-hubd-api");
    assert_eq!(revision.journal_version().to_string(), "20261129T101530Z");
    assert!(!revision.is_genesis());
    assert_eq!(revision.releases().len(), 2);
    assert_eq!(revision.sequence(), 0);
    assert_eq!(
        revision.digest(),
        &nenjim_journal_api::valuetypes::RevisionDigest::of_text(EXAMPLE)
    );
    let v100: ReleaseVersion = "1.0.0".parse()?;
    let first = revision.release(&v100).ok_or_else(|| {
        nenjim_journal_api::error::error(
            nenjim_journal_api::error::ErrorKind::Semantic,
            "1.0.0 missing",
        )
    })?;
    assert_eq!(first.dependencies().len(), 2);
    assert_eq!(first.exclusions().len(), 1);
    assert!(first.exclusions()[0].requirement().is_none());
    assert!(first.policy().deprecated().is_some());
    assert!(first.policy().is_recommended());
    let second = &revision.releases()[1];
    assert_eq!(second.license().as_str(), "Apache-2.0 OR MIT");
    assert!(second.policy().deprecated().is_none());
    assert_eq!(second.preferences().len(), 1);

    let canonical = nenjim_journal_parser::render(&revision);
    let again = nenjim_journal_parser::parse(&canonical)?;
    assert!(again.same_worldview(&revision));
    assert_eq!(nenjim_journal_parser::render(&again), canonical);
    Ok(())
}
