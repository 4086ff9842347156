//! Release immutability (section 6): every release of the predecessor
//! appears in the successor with the same values.

use std::cmp::Ordering;
use std::fmt::Display;

use nenjim_journal_api::error::{self, ErrorKind, JournalError};
use nenjim_journal_api::model::build;
use nenjim_journal_api::model::{ArtifactRelease, JournalRevision};
use nenjim_journal_api::valuetypes::ArtifactCoordinate;

/// Refuses `successor` if a release of `head` is missing from it or has other
/// values. Both release lists are ascending, so one merge walk, O(r + r').
pub(crate) fn check(
    head: &JournalRevision,
    successor: &JournalRevision,
) -> Result<(), JournalError> {
    let mut new = successor.releases().iter().peekable();
    for old in head.releases() {
        let mut found = None;
        while let Some(candidate) = new.peek() {
            match candidate.version().cmp(old.version()) {
                Ordering::Less => {
                    new.next();
                }
                Ordering::Equal => {
                    found = new.next();
                    break;
                }
                Ordering::Greater => break,
            }
        }
        let what = match found {
            None => "is missing".to_owned(),
            Some(release) if build::same_values(old, release) => continue,
            Some(release) => difference(old, release),
        };
        return Err(error::error(
            ErrorKind::ReleaseRewritten,
            format!(
                "found release {} of {} rewritten in {} ({}): it {what}; expected it exactly as in its predecessor {} ({}), since a release is withdrawn by YANK, never deleted or changed",
                old.version(),
                head.coordinate(),
                successor.journal_version(),
                successor.digest(),
                head.journal_version(),
                head.digest(),
            ),
        ));
    }
    Ok(())
}

/// What differs between two releases whose values are not the same, e.g.
/// "has LICENSE `MIT`, was `Apache-2.0`".
fn difference(old: &ArtifactRelease, new: &ArtifactRelease) -> String {
    if old.license() != new.license() {
        return format!("has LICENSE `{}`, was `{}`", new.license(), old.license());
    }
    if old.content() != new.content() {
        return format!("has CONTENT `{}`, was `{}`", new.content(), old.content());
    }
    match (old.description(), new.description()) {
        (None, Some(d)) => return format!("adds DESCRIPTION {d}"),
        (Some(d), None) => return format!("drops DESCRIPTION {d}"),
        (Some(a), Some(b)) if a != b => return format!("has DESCRIPTION {b}, was {a}"),
        _ => {}
    }
    let lists = [
        list_difference("DEPENDS", old.dependencies(), new.dependencies(), |d| {
            d.artifact()
        }),
        list_difference("EXCLUDES", old.exclusions(), new.exclusions(), |d| {
            d.artifact()
        }),
        list_difference("PREFERS", old.preferences(), new.preferences(), |d| {
            d.artifact()
        }),
    ];
    lists
        .into_iter()
        .flatten()
        .next()
        .unwrap_or_else(|| "has other values".to_owned())
}

/// The first line of one property list that was added, dropped or changed,
/// comparing the lists as sets keyed by artifact (each artifact is named at
/// most once per list, section 4). Quadratic, but only on the error path.
fn list_difference<T: PartialEq + Display>(
    keyword: &str,
    old: &[T],
    new: &[T],
    key: impl Fn(&T) -> &ArtifactCoordinate,
) -> Option<String> {
    for o in old {
        match new.iter().find(|n| key(n) == key(o)) {
            None => return Some(format!("drops `{keyword} {o}`")),
            Some(n) if n != o => {
                return Some(format!("has `{keyword} {n}`, was `{keyword} {o}`"));
            }
            Some(_) => {}
        }
    }
    new.iter()
        .find(|n| !old.iter().any(|o| key(o) == key(n)))
        .map(|n| format!("adds `{keyword} {n}`"))
}
