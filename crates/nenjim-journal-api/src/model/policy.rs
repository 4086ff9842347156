//! Policy (section 5): the statements of a revision and the context they
//! give each release.

use std::fmt;

use crate::valuetypes::{Description, ReleaseVersion, VersionRequirement};

/// A policy statement of a revision (section 5).
///
/// `Display` is the statement's line, as a revision writes it and the
/// `nenjim-journal` command prints it: the keyword, then each token in its
/// own `Display` (a reason quoted and escaped).
///
/// ```
/// use nenjim_journal_api::model::PolicyStatement;
///
/// let yank = PolicyStatement::Yank {
///     requirement: "[1.0.0,2.0.0)".parse()?,
///     reason: r#""broken on 32-bit""#.parse()?,
/// };
/// assert_eq!(yank.to_string(), r#"YANK [1.0.0,2.0.0) "broken on 32-bit""#);
/// let recommend = PolicyStatement::Recommend { version: "1.2.0".parse()? };
/// assert_eq!(recommend.to_string(), "RECOMMEND 1.2.0");
/// # Ok::<(), nenjim_journal_api::error::JournalError>(())
/// ```
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PolicyStatement {
    /// Matching releases stay queryable but must not be chosen by a new resolution.
    Yank {
        /// The releases yanked.
        requirement: VersionRequirement,
        /// Why.
        reason: Description,
    },
    /// Matching releases may be chosen, with a warning.
    Deprecate {
        /// The releases deprecated.
        requirement: VersionRequirement,
        /// Why.
        reason: Description,
    },
    /// The release the publisher recommends by default.
    Recommend {
        /// The recommended release.
        version: ReleaseVersion,
    },
}

impl PolicyStatement {
    /// The reason of a YANK or DEPRECATE.
    pub(crate) fn reason(&self) -> Option<&Description> {
        match self {
            PolicyStatement::Yank { reason, .. } | PolicyStatement::Deprecate { reason, .. } => {
                Some(reason)
            }
            PolicyStatement::Recommend { .. } => None,
        }
    }

    /// The requirement of a YANK or DEPRECATE.
    pub(crate) fn requirement(&self) -> Option<&VersionRequirement> {
        match self {
            PolicyStatement::Yank { requirement, .. }
            | PolicyStatement::Deprecate { requirement, .. } => Some(requirement),
            PolicyStatement::Recommend { .. } => None,
        }
    }
}

impl fmt::Display for PolicyStatement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyStatement::Yank {
                requirement,
                reason,
            } => write!(f, "YANK {requirement} {reason}"),
            PolicyStatement::Deprecate {
                requirement,
                reason,
            } => write!(f, "DEPRECATE {requirement} {reason}"),
            PolicyStatement::Recommend { version } => write!(f, "RECOMMEND {version}"),
        }
    }
}

/// The policy context of a release in one revision: yanked or not,
/// deprecated or not (each with its reason), recommended or not.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReleasePolicy {
    pub(crate) yanked: Option<Description>,
    pub(crate) deprecated: Option<Description>,
    pub(crate) recommended: bool,
}

impl ReleasePolicy {
    /// The yank reason, if the release is yanked.
    pub fn yanked(&self) -> Option<&Description> {
        self.yanked.as_ref()
    }
    /// The deprecation reason, if the release is deprecated.
    pub fn deprecated(&self) -> Option<&Description> {
        self.deprecated.as_ref()
    }
    /// Whether the release is the recommended one.
    pub fn is_recommended(&self) -> bool {
        self.recommended
    }
}

/// The empty policy context, which `ArtifactRelease::policy` returns for a
/// release without one.
pub(crate) static NO_POLICY: ReleasePolicy = ReleasePolicy {
    yanked: None,
    deprecated: None,
    recommended: false,
};
