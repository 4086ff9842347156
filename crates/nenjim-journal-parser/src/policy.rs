//! Section 5 of the format: policy statements.
//!
//! `YANK <requirement> <quoted reason>`, `DEPRECATE <requirement> <quoted
//! reason>` and `RECOMMEND <version>`, top-level lines after the last
//! release. The rules between them (match at least one release, no overlap
//! of two YANKs or two DEPRECATEs, one RECOMMEND of a release that is not
//! yanked) are the `RevisionBuilder`'s; see `semantic.rs`.

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::PolicyStatement;
use nenjim_journal_api::model::build::RevisionBuilder;
use nenjim_journal_api::valuetypes::ReleaseVersion;

use crate::interner::Interner;
use crate::semantic::located;
use crate::tokens::Cursor;

/// Whether `keyword` starts a policy statement.
pub(crate) fn is_policy_keyword(keyword: &str) -> bool {
    matches!(keyword, "YANK" | "DEPRECATE" | "RECOMMEND")
}

/// Reads one policy statement (its keyword already read) and adds it to
/// `revision`. Requirements and reasons go through `interner`: successors
/// restate most of their predecessor's policy, and a load keeps one copy.
pub(crate) fn statement(
    keyword: &str,
    mut cursor: Cursor<'_>,
    revision: &mut RevisionBuilder,
    interner: &mut Interner,
) -> Result<(), JournalError> {
    let line = cursor.line();
    let (statement, at) = match keyword {
        "RECOMMEND" => {
            let (version, token) = cursor.value::<ReleaseVersion>("a release version")?;
            (PolicyStatement::Recommend { version }, token.start)
        }
        _ => {
            let (requirement, token) = interner
                .requirement(&mut cursor, "a requirement (`*`, a version or an interval)")?;
            let (reason, _) = interner.quoted(&mut cursor, "a quoted reason")?;
            let statement = if keyword == "YANK" {
                PolicyStatement::Yank {
                    requirement,
                    reason,
                }
            } else {
                PolicyStatement::Deprecate {
                    requirement,
                    reason,
                }
            };
            (statement, token.start)
        }
    };
    cursor.finish()?;
    located(revision.push_policy(statement), &line, at)
}
