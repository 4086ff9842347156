//! Sharing values between revisions, and setting a revision's sequence:
//! what ingestion does to a revision it accepts.

use std::sync::Arc;

use crate::model::policy::{PolicyStatement, ReleasePolicy};
use crate::model::release::ReleaseBody;
use crate::model::revision::{JournalRevision, RevisionInner, SharedWithPredecessor};
use crate::valuetypes::Description;

/// `revision` with its ingestion sequence number set. Changed in place when
/// this is the only handle to it, copied otherwise.
#[must_use]
pub fn with_sequence(revision: JournalRevision, sequence: u64) -> JournalRevision {
    changed(revision, |inner| inner.sequence = sequence)
}

/// `revision` with every release whose values equal a release of `older`
/// sharing `older`'s stored values, so that a chain stores each release's
/// values once.
///
/// The header values (coordinate, description, information), the policy
/// statements' requirements and reasons, and the releases' policy
/// contexts that equal one of `older`'s share `older`'s copy too, and the
/// releases new in this revision refer to the shared coordinate, so that
/// a successor that restates its predecessor adds little more than its
/// new releases. Sharing never changes a value: the result is equal to
/// `revision`. Changed in place when this is the only handle to it, copied
/// otherwise.
#[must_use]
pub fn sharing_releases_with(
    revision: JournalRevision,
    older: &JournalRevision,
) -> JournalRevision {
    let with_predecessor = revision.0.predecessor.as_ref() == Some(&older.0.digest);
    if with_predecessor && revision.0.shared.0 {
        // Shared with (a revision of) this digest already: the same again.
        return revision;
    }
    changed(revision, |inner| {
        share_with(inner, &older.0);
        inner.shared = SharedWithPredecessor(with_predecessor);
    })
}

/// `change` applied in place if this is the only handle, else to a copy.
fn changed(
    mut revision: JournalRevision,
    change: impl FnOnce(&mut RevisionInner),
) -> JournalRevision {
    match Arc::get_mut(&mut revision.0) {
        Some(inner) => {
            change(inner);
            revision
        }
        None => {
            let mut inner = RevisionInner::clone(&revision.0);
            change(&mut inner);
            JournalRevision(Arc::new(inner))
        }
    }
}

fn share_with(this: &mut RevisionInner, older: &RevisionInner) {
    share(&mut this.coordinate, Some(&older.coordinate));
    share(&mut this.description, Some(&older.description));
    if let Some(information) = &mut this.information {
        share(information, older.information.as_ref());
    }

    // Policy statements: an equal statement of `older` (a restated one)
    // is taken whole, otherwise an equal requirement or reason.
    let reasons: Vec<&Description> = older
        .policy
        .iter()
        .filter_map(PolicyStatement::reason)
        .collect();
    for statement in this.policy.iter_mut() {
        if let Some(same) = older.policy.iter().find(|s| *s == statement) {
            *statement = same.clone();
            continue;
        }
        if let PolicyStatement::Yank {
            requirement,
            reason,
        }
        | PolicyStatement::Deprecate {
            requirement,
            reason,
        } = statement
        {
            let requirements = older.policy.iter().filter_map(PolicyStatement::requirement);
            share_from(requirement, requirements);
            share_from(reason, reasons.iter().copied());
        }
    }

    // The releases' policy contexts: an equal context of `older`, or one
    // rebuilt on the (now shared) reasons of this revision's statements.
    let reasons: Vec<&Description> = this
        .policy
        .iter()
        .filter_map(PolicyStatement::reason)
        .collect();
    let mut contexts: Vec<&Arc<ReleasePolicy>> = Vec::new();
    for release in older.releases.iter() {
        if let Some(p) = &release.policy
            && !contexts.iter().any(|c| Arc::ptr_eq(c, p))
        {
            contexts.push(p);
        }
    }
    let mut rebuilt: Vec<(Arc<ReleasePolicy>, Arc<ReleasePolicy>)> = Vec::new();
    for release in this.releases.iter_mut() {
        let Some(policy) = &mut release.policy else {
            continue;
        };
        if let Some(same) = contexts.iter().find(|c| ***c == *policy) {
            *policy = Arc::clone(same);
        } else if let Some((_, new)) = rebuilt.iter().find(|(old, _)| Arc::ptr_eq(old, policy)) {
            *policy = Arc::clone(new);
        } else {
            let mut context = ReleasePolicy::clone(policy);
            for reason in [&mut context.yanked, &mut context.deprecated]
                .into_iter()
                .flatten()
            {
                share_from(reason, reasons.iter().copied());
            }
            let new = Arc::new(context);
            rebuilt.push((Arc::clone(policy), Arc::clone(&new)));
            *policy = new;
        }
    }

    // The release bodies: an equal body of `older`, or this revision's
    // own body on the shared coordinate. Both lists ascend by version, so
    // one forward walk over `older` finds each release's counterpart; a
    // body already shared (a restated block reused by the parser) is
    // recognized by its pointer, before any version is compared.
    let mut next = 0;
    for release in this.releases.iter_mut() {
        if let Some(old) = older.releases.get(next)
            && Arc::ptr_eq(&old.body, &release.body)
        {
            next += 1;
            continue;
        }
        while older
            .releases
            .get(next)
            .is_some_and(|r| r.version() < release.version())
        {
            next += 1;
        }
        match older
            .releases
            .get(next)
            .filter(|r| r.version() == release.version())
        {
            Some(old) if Arc::ptr_eq(&old.body, &release.body) => {}
            Some(old) if *old.body == *release.body => {
                release.body = Arc::clone(&old.body);
            }
            _ if !release.body.coordinate.shares_text_with(&this.coordinate)
                && release.body.coordinate == this.coordinate =>
            {
                let mut body = ReleaseBody::clone(&release.body);
                body.coordinate = this.coordinate.clone();
                release.body = Arc::new(body);
            }
            _ => {}
        }
    }
}

/// Replaces `value` by `shared` when they are equal (a reference count
/// instead of a second copy).
fn share<T: PartialEq + Clone>(value: &mut T, shared: Option<&T>) {
    if let Some(shared) = shared
        && *shared == *value
    {
        *value = shared.clone();
    }
}

/// Replaces `value` by the first equal item of `pool`.
fn share_from<'a, T: PartialEq + Clone + 'a>(value: &mut T, pool: impl IntoIterator<Item = &'a T>) {
    if let Some(shared) = pool.into_iter().find(|s| **s == *value) {
        *value = shared.clone();
    }
}
