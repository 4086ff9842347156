//! The shared pieces of the `--json` documents, built with serde derive.
//!
//! Every document is an object with `command` (the subcommand's name) and
//! `ok` (whether the exit code is 0); a command that stopped on an error
//! prints [`FailureDocument`] (`ok: false` and an [`ErrorJson`]). The shapes
//! are documented in the crate's README; fields are only ever added.

use std::path::Path;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::{
    ArtifactRelease, EventChange, JournalEvent, JournalRevision, PolicyStatement,
};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, Description};
use serde::Serialize;

use crate::failure::CliError;

/// A path as shown to people and in JSON (lossy for non-UTF-8 names).
pub fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// An error: its kind, message and location, and the whole diagnostic line.
#[derive(Debug, Serialize)]
pub struct ErrorJson {
    /// `Syntax`, `StalePredecessor`, `RootMissing` … or a CLI kind such as `UnknownArtifact`.
    pub kind: String,
    /// What is wrong, without the location prefix.
    pub message: String,
    /// The file or directory concerned, if any.
    pub path: Option<String>,
    /// 1-based line, for text errors.
    pub line: Option<usize>,
    /// 1-based column, for text errors.
    pub column: Option<usize>,
    /// The compiler-style line `path:line:column: message`.
    pub diagnostic: String,
}

impl ErrorJson {
    /// The JSON form of a Journal error.
    pub fn of_journal(error: &JournalError) -> ErrorJson {
        ErrorJson {
            kind: error.kind().as_str().to_owned(),
            message: error.message().to_owned(),
            path: error.path().map(path_text),
            line: error.line(),
            column: error.column(),
            diagnostic: error.to_string(),
        }
    }

    /// The JSON form of any command error.
    pub fn of(error: &CliError) -> ErrorJson {
        match error.journal() {
            Some(e) => ErrorJson::of_journal(e),
            None => ErrorJson {
                kind: error.kind_name().to_owned(),
                message: error.to_string(),
                path: None,
                line: None,
                column: None,
                diagnostic: error.to_string(),
            },
        }
    }
}

/// The document of a command that stopped on an error.
#[derive(Debug, Serialize)]
pub struct FailureDocument<'a> {
    /// The subcommand.
    pub command: &'a str,
    /// Always false.
    pub ok: bool,
    /// Why it stopped.
    pub error: ErrorJson,
}

/// A whole revision: header, releases and policy.
#[derive(Debug, Serialize)]
pub struct RevisionJson {
    pub coordinate: String,
    pub journal_version: String,
    pub digest: String,
    /// `null` for the genesis.
    pub predecessor: Option<String>,
    pub sequence: u64,
    pub description: String,
    pub information: Option<String>,
    pub releases: Vec<ReleaseJson>,
    pub policy: Vec<PolicyJson>,
}

impl RevisionJson {
    pub fn of(revision: &JournalRevision) -> RevisionJson {
        RevisionJson {
            coordinate: revision.coordinate().to_string(),
            journal_version: revision.journal_version().to_string(),
            digest: revision.digest().to_string(),
            predecessor: revision.predecessor().map(ToString::to_string),
            sequence: revision.sequence(),
            description: revision.description().as_str().to_owned(),
            information: revision.information().map(|u| u.as_str().to_owned()),
            releases: revision.releases().iter().map(ReleaseJson::of).collect(),
            policy: revision.policy().iter().map(PolicyJson::of).collect(),
        }
    }
}

/// The identity of a revision, without its content.
#[derive(Debug, Serialize)]
pub struct RevisionRefJson {
    pub coordinate: String,
    pub journal_version: String,
    pub digest: String,
    pub sequence: u64,
}

impl RevisionRefJson {
    pub fn of(revision: &JournalRevision) -> RevisionRefJson {
        RevisionRefJson {
            coordinate: revision.coordinate().to_string(),
            journal_version: revision.journal_version().to_string(),
            digest: revision.digest().to_string(),
            sequence: revision.sequence(),
        }
    }
}

/// One release with everything it says and its policy context.
#[derive(Debug, Serialize)]
pub struct ReleaseJson {
    pub version: String,
    pub license: String,
    pub content: ContentJson,
    pub description: Option<String>,
    pub dependencies: Vec<LineJson<String>>,
    pub exclusions: Vec<LineJson<Option<String>>>,
    pub preferences: Vec<LineJson<String>>,
    pub policy: ReleasePolicyJson,
}

impl ReleaseJson {
    pub fn of(release: &ArtifactRelease) -> ReleaseJson {
        let policy = release.policy();
        ReleaseJson {
            version: release.version().to_string(),
            license: release.license().as_str().to_owned(),
            content: ContentJson {
                digest: release.content().digest().to_string(),
                size: release.content().size(),
            },
            description: release.description().map(|d| d.as_str().to_owned()),
            dependencies: release
                .dependencies()
                .iter()
                .map(|d| LineJson::of(d.artifact(), d.requirement().to_string(), d.description()))
                .collect(),
            exclusions: release
                .exclusions()
                .iter()
                .map(|e| {
                    let requirement = e.requirement().map(ToString::to_string);
                    LineJson::of(e.artifact(), requirement, e.description())
                })
                .collect(),
            preferences: release
                .preferences()
                .iter()
                .map(|p| LineJson::of(p.artifact(), p.requirement().to_string(), p.description()))
                .collect(),
            policy: ReleasePolicyJson {
                yanked: policy.yanked().map(|d| d.as_str().to_owned()),
                deprecated: policy.deprecated().map(|d| d.as_str().to_owned()),
                recommended: policy.is_recommended(),
            },
        }
    }
}

/// A content pointer.
#[derive(Debug, Serialize)]
pub struct ContentJson {
    /// `sha256:<hex>`.
    pub digest: String,
    /// Bytes.
    pub size: u64,
}

/// A `DEPENDS`, `EXCLUDES` or `PREFERS` line: the requirement is a string,
/// or for an exclusion `null` when every version is excluded.
#[derive(Debug, Serialize)]
pub struct LineJson<R> {
    pub artifact: String,
    pub requirement: R,
    pub description: Option<String>,
}

impl<R> LineJson<R> {
    fn of(
        artifact: &ArtifactCoordinate,
        requirement: R,
        description: Option<&Description>,
    ) -> LineJson<R> {
        LineJson {
            artifact: artifact.to_string(),
            requirement,
            description: description.map(|t| t.as_str().to_owned()),
        }
    }
}

/// The policy context of a release in one revision.
#[derive(Debug, Serialize)]
pub struct ReleasePolicyJson {
    /// The yank reason, `null` when not yanked.
    pub yanked: Option<String>,
    /// The deprecation reason, `null` when not deprecated.
    pub deprecated: Option<String>,
    pub recommended: bool,
}

/// A policy statement, tagged by `kind`.
#[derive(Debug, Serialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum PolicyJson {
    Yank {
        requirement: String,
        reason: String,
    },
    Deprecate {
        requirement: String,
        reason: String,
    },
    Recommend {
        version: String,
    },
    /// A statement kind this command does not know yet, as text.
    Other {
        text: String,
    },
}

impl PolicyJson {
    pub fn of(statement: &PolicyStatement) -> PolicyJson {
        match statement {
            PolicyStatement::Yank {
                requirement,
                reason,
            } => PolicyJson::Yank {
                requirement: requirement.to_string(),
                reason: reason.as_str().to_owned(),
            },
            PolicyStatement::Deprecate {
                requirement,
                reason,
            } => PolicyJson::Deprecate {
                requirement: requirement.to_string(),
                reason: reason.as_str().to_owned(),
            },
            PolicyStatement::Recommend { version } => PolicyJson::Recommend {
                version: version.to_string(),
            },
            other => PolicyJson::Other {
                text: other.to_string(),
            },
        }
    }
}

/// One event of the feed (`events --json` prints one per line; `history`
/// lists each revision's).
#[derive(Debug, Serialize)]
pub struct EventJson {
    /// The sequence of the revision that made the change.
    pub sequence: u64,
    pub coordinate: String,
    pub journal_version: String,
    /// `artifact_created`, `description_changed`, `information_changed`,
    /// `release_published`, `policy_withdrawn`, `policy_stated` (or `other`).
    pub kind: &'static str,
    pub change: ChangeJson,
}

/// What an event changed; its fields depend on the event's kind.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ChangeJson {
    /// `artifact_created`: `{}`.
    Created {},
    /// `description_changed`: the new description.
    Description { description: String },
    /// `information_changed`: the new URI, `null` when removed.
    Information { information: Option<String> },
    /// `release_published`: the release, with its policy context in the revision.
    Release { release: ReleaseJson },
    /// `policy_withdrawn`, `policy_stated`: the statement.
    Statement { statement: PolicyJson },
    /// An event kind this command does not know yet, as text.
    Other { text: String },
}

impl EventJson {
    pub fn of(event: &JournalEvent) -> EventJson {
        let (kind, change) = match event.change() {
            EventChange::ArtifactCreated => ("artifact_created", ChangeJson::Created {}),
            EventChange::DescriptionChanged(d) => (
                "description_changed",
                ChangeJson::Description {
                    description: d.as_str().to_owned(),
                },
            ),
            EventChange::InformationChanged(i) => (
                "information_changed",
                ChangeJson::Information {
                    information: i.as_ref().map(|u| u.as_str().to_owned()),
                },
            ),
            EventChange::ReleasePublished(r) => (
                "release_published",
                ChangeJson::Release {
                    release: ReleaseJson::of(r),
                },
            ),
            EventChange::PolicyWithdrawn(p) => (
                "policy_withdrawn",
                ChangeJson::Statement {
                    statement: PolicyJson::of(p),
                },
            ),
            EventChange::PolicyStated(p) => (
                "policy_stated",
                ChangeJson::Statement {
                    statement: PolicyJson::of(p),
                },
            ),
            other => (
                "other",
                ChangeJson::Other {
                    text: format!("{other:#}"),
                },
            ),
        };
        EventJson {
            sequence: event.sequence(),
            coordinate: event.coordinate().to_string(),
            journal_version: event.journal_version().to_string(),
            kind,
            change,
        }
    }
}

/// `n` and the noun, in the singular for one (`1 release`, `2 releases`).
pub fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
