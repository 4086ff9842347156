//! The event feed: what each accepted revision changed in its artifact's
//! worldview, as typed events.
//!
//! [`JournalService::replay_events`](crate::JournalService::replay_events)
//! returns an [`EventCursor`] over the same snapshot and sequence space as
//! [`replay`](crate::JournalService::replay): for each revision with a
//! sequence above the request's, in ascending sequence order, the
//! [`JournalEvent`]s it made, in this order:
//!
//! 1. [`EventChange::ArtifactCreated`] (a genesis only);
//! 2. [`EventChange::DescriptionChanged`], then
//!    [`EventChange::InformationChanged`] (a successor whose header value
//!    differs from its predecessor's);
//! 3. [`EventChange::ReleasePublished`], one per new release, ascending by
//!    version;
//! 4. [`EventChange::PolicyWithdrawn`], statements of the predecessor absent
//!    from this revision, in the predecessor's order;
//! 5. [`EventChange::PolicyStated`], statements absent from the predecessor,
//!    in text order (a genesis states all of its own).
//!
//! A successor that changes nothing yields no event. Every event names the
//! sequence of the revision that made it, so a consumer resumes from the
//! last sequence it has fully processed.

use std::fmt;

use super::{ArtifactRelease, PolicyStatement};
use crate::error::JournalError;
use crate::valuetypes::{ArtifactCoordinate, Description, InformationUri, JournalVersion};

/// One change an accepted revision made to its artifact's worldview.
///
/// Cheap to clone: the values it carries are shared handles.
///
/// `Display` is the event's line as `nenjim-journal events` prints it: the
/// sequence, the Journal version, the coordinate and the [change](EventChange),
/// two spaces apart (`7  20261129T101530Z  left-pad  + RELEASE 1.1.0`). The
/// command aligns the columns of a listing (the sequence to the right, the
/// coordinate to the left) and may paint the coordinate and the mark; the
/// text is this.
#[derive(Clone, Debug, PartialEq)]
pub struct JournalEvent {
    sequence: u64,
    coordinate: ArtifactCoordinate,
    journal_version: JournalVersion,
    change: EventChange,
}

impl JournalEvent {
    /// An event of the revision with `sequence`, of `coordinate` at
    /// `journal_version` (see [`build::event`](crate::model::build::event)).
    pub(crate) fn new(
        sequence: u64,
        coordinate: ArtifactCoordinate,
        journal_version: JournalVersion,
        change: EventChange,
    ) -> JournalEvent {
        JournalEvent {
            sequence,
            coordinate,
            journal_version,
            change,
        }
    }
    /// The sequence of the revision that made this change.
    pub fn sequence(&self) -> u64 {
        self.sequence
    }
    /// The artifact whose worldview changed.
    pub fn coordinate(&self) -> &ArtifactCoordinate {
        &self.coordinate
    }
    /// The Journal version of the revision that made this change.
    pub fn journal_version(&self) -> JournalVersion {
        self.journal_version
    }
    /// What changed.
    pub fn change(&self) -> &EventChange {
        &self.change
    }
}

impl fmt::Display for JournalEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}  {}  {}  {}",
            self.sequence, self.journal_version, self.coordinate, self.change
        )
    }
}

/// What one event changed.
///
/// The events of one revision come in the order of the variants:
/// `ArtifactCreated` (a genesis only); `DescriptionChanged`, then
/// `InformationChanged` (a successor whose header value differs from its
/// predecessor's); `ReleasePublished`, one per new release, ascending by
/// version; `PolicyWithdrawn`, statements of the predecessor absent from the
/// revision, in the predecessor's order; `PolicyStated`, statements absent
/// from the predecessor, in text order (a genesis states all of its own). A
/// successor that changes nothing yields no event.
///
/// `Display` is the change as the `nenjim-journal` command prints it: its
/// [mark](Self::mark), a space and what changed, in the tokens of the
/// revision text: `* created`, `~ DESCRIPTION "…"`, `~ INFORMATION <uri>`
/// (`~ INFORMATION (none)` when removed), `+ RELEASE 1.1.0`, and a policy
/// statement's line ([`PolicyStatement`]'s `Display`) after `+` when stated
/// or `-` when withdrawn. The alternate form (`{:#}`) leaves the mark out.
///
/// ```
/// use nenjim_journal_api::model::{EventChange, PolicyStatement};
///
/// let stated = EventChange::PolicyStated(PolicyStatement::Recommend { version: "1.1.0".parse()? });
/// assert_eq!(stated.to_string(), "+ RECOMMEND 1.1.0");
/// assert_eq!(format!("{stated:#}"), "RECOMMEND 1.1.0");
/// assert_eq!(stated.mark(), '+');
/// assert_eq!(EventChange::InformationChanged(None).to_string(), "~ INFORMATION (none)");
/// assert_eq!(EventChange::ArtifactCreated.to_string(), "* created");
/// # Ok::<(), nenjim_journal_api::error::JournalError>(())
/// ```
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum EventChange {
    /// The artifact's genesis was accepted: the artifact exists from now on.
    ArtifactCreated,
    /// The successor's `DESCRIPTION` differs from its predecessor's; the new one.
    DescriptionChanged(Description),
    /// The successor's `INFORMATION` differs from its predecessor's; the new
    /// one (`None` when the successor has none).
    InformationChanged(Option<InformationUri>),
    /// A release that the predecessor did not have, with its policy context
    /// in the revision that published it.
    ReleasePublished(ArtifactRelease),
    /// A policy statement of the predecessor that this revision no longer states.
    PolicyWithdrawn(PolicyStatement),
    /// A policy statement that the predecessor did not state (every statement
    /// of a genesis).
    PolicyStated(PolicyStatement),
}

impl EventChange {
    /// The mark of the change, as the command prints it before the change:
    /// `*` created, `~` a header value changed, `+` a release published or
    /// a statement stated, `-` a statement withdrawn.
    pub fn mark(&self) -> char {
        match self {
            EventChange::ArtifactCreated => '*',
            EventChange::DescriptionChanged(_) | EventChange::InformationChanged(_) => '~',
            EventChange::ReleasePublished(_) | EventChange::PolicyStated(_) => '+',
            EventChange::PolicyWithdrawn(_) => '-',
        }
    }
}

impl fmt::Display for EventChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            write!(f, "{} ", self.mark())?;
        }
        match self {
            EventChange::ArtifactCreated => f.write_str("created"),
            EventChange::DescriptionChanged(description) => {
                write!(f, "DESCRIPTION {description}")
            }
            EventChange::InformationChanged(Some(information)) => {
                write!(f, "INFORMATION {information}")
            }
            EventChange::InformationChanged(None) => f.write_str("INFORMATION (none)"),
            EventChange::ReleasePublished(release) => write!(f, "RELEASE {}", release.version()),
            EventChange::PolicyWithdrawn(statement) | EventChange::PolicyStated(statement) => {
                write!(f, "{statement}")
            }
        }
    }
}

/// A cursor over replayed events, in ascending sequence order and, within
/// one revision, in the order of [`EventChange`]'s variants.
///
/// Cold and follow cursors behave as [`RevisionCursor`](super::RevisionCursor)'s do.
pub trait EventCursor: Send {
    /// The next event; `Ok(None)` only when the backlog is drained (a
    /// follow cursor waits for the next one instead).
    fn next(&mut self) -> Result<Option<JournalEvent>, JournalError>;

    /// [`next`](Self::next), waiting at most `timeout` for a follow cursor
    /// (`Ok(None)` when nothing arrived in time; the cursor stays usable).
    /// A cold cursor never waits: this is `next` (the default).
    fn next_timeout(
        &mut self,
        timeout: std::time::Duration,
    ) -> Result<Option<JournalEvent>, JournalError> {
        let _ = timeout;
        self.next()
    }
}

impl fmt::Debug for dyn EventCursor + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EventCursor")
    }
}
