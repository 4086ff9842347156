//! Warnings: what is valid but should change, one rule each, shared by
//! `check` (over each artifact's latest revision) and the publishing
//! commands (over each new release, before it is written:
//! `commands/publish_checks.rs`). Today: deprecated SPDX license
//! identifiers (`GPL-3.0`), which the format accepts (they stay on the SPDX
//! list) but which have precise replacements, and empty (0-byte) content.

use nenjim_journal_api::model::{ArtifactRelease, JournalRevision};
use nenjim_journal_api::valuetypes::ContentPointer;

/// One line per deprecated identifier or empty blob among the releases of
/// `revision`: `<coordinate> <version>: …`.
pub fn release_warnings(revision: &JournalRevision) -> Vec<String> {
    revision
        .releases()
        .iter()
        .flat_map(|release| {
            deprecated_licenses(release)
                .into_iter()
                .chain(empty_content(release))
        })
        .collect()
}

/// One line per deprecated identifier in the license of `release`:
/// `<coordinate> <version>: LICENSE … ; use …`.
pub fn deprecated_licenses(release: &ArtifactRelease) -> Vec<String> {
    let mut warnings = Vec::new();
    let license = release.license().as_str();
    for word in license
        .split([' ', '(', ')'])
        .filter(|w| !w.is_empty() && !matches!(*w, "AND" | "OR" | "WITH"))
    {
        let Some(id) = spdx::license_id(word) else {
            continue;
        };
        if !id.is_deprecated() {
            continue;
        }
        warnings.push(format!(
            "{} {}: LICENSE {license}: `{word}` is a deprecated SPDX identifier; {}",
            release.coordinate(),
            release.version(),
            replacement(word)
        ));
    }
    warnings
}

/// A warning if the content of `release` is an empty (0-byte) blob, which
/// is almost always the wrong file (a failed build, a truncated download).
pub fn empty_content(release: &ArtifactRelease) -> Option<String> {
    empty_blob(
        &format!("{} {}", release.coordinate(), release.version()),
        release.content(),
    )
}

/// A warning about `subject` (a release, a file put into a store) if its
/// blob `pointer` is empty (0 bytes).
pub fn empty_blob(subject: &str, pointer: &ContentPointer) -> Option<String> {
    (pointer.size() == 0).then(|| {
        format!(
            "{subject}: CONTENT {pointer} is an empty (0-byte) blob; expected the release's bytes"
        )
    })
}

/// What to write instead of a deprecated identifier.
fn replacement(word: &str) -> String {
    let base = word.trim_end_matches('+');
    let only = spdx::gnu_license_id(base, false).filter(|id| !id.is_deprecated());
    let later = spdx::gnu_license_id(base, true).filter(|id| !id.is_deprecated());
    match (only, later) {
        (Some(only), Some(later)) if word.ends_with('+') => {
            format!("use `{}` (or `{}`)", later.name, only.name)
        }
        (Some(only), Some(later)) => format!("use `{}` or `{}`", only.name, later.name),
        _ => "see the SPDX License List for its replacement".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::replacement;

    #[test]
    fn gnu_identifiers_name_both_replacements() {
        assert_eq!(
            replacement("GPL-3.0"),
            "use `GPL-3.0-only` or `GPL-3.0-or-later`"
        );
        assert_eq!(
            replacement("GPL-2.0+"),
            "use `GPL-2.0-or-later` (or `GPL-2.0-only`)"
        );
    }
}
