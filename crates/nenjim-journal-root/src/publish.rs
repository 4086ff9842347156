//! Publishing as calls: what the command's `create`, `release`, `yank`,
//! `deprecate` and `recommend` do, over a root's writer.
//!
//! Each builds the successor of the artifact's head with one change (the
//! genesis for `create`), in canonical form (`nenjim_journal_parser::render`),
//! stamped now, or one second after the head when the clock is at or
//! behind it ([`stamp`]); validates it against the writer's state exactly
//! as ingestion does, writing nothing on a refusal; puts the new releases'
//! blobs ("blobs before pointers"), then appends it. A head that already
//! says it writes nothing ([`Published::is_new`] is false). A tip moved by
//! another writer (`TipMoved`) is handled by planning again on the new head.
//!
//! ```no_run
//! # use nenjim_journal_root::{Root, WriterOptions, publish};
//! # fn main() -> Result<(), nenjim_journal_api::error::JournalError> {
//! let root = Root::open("/srv/journal")?;
//! let options = root.as_content_store_of(WriterOptions::new())?; // or the recorded store
//! let mut writer = root.writer(options)?;
//! let coordinate = "left-pad".parse()?;
//! let release = publish::NewRelease::new("1.0.0".parse()?, "MIT".parse()?, b"bytes".to_vec());
//! let published = publish::release(&mut writer, &coordinate, vec![release])?;
//! println!("sequence {}", published.revision().sequence());
//! writer.close()?;
//! # Ok(()) }
//! ```
//!
//! The steps are also given apart ([`prepare`], [`commit`]) for a caller
//! that checks a successor before it is written (the command's `--strict`).

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::error::{self, ErrorKind, JournalError};
use nenjim_journal_api::model::build::{self, ReleaseBuilder, RevisionBuilder};
use nenjim_journal_api::model::{
    ArtifactRelease, Dependency, Exclusion, JournalRevision, PolicyStatement, Preference,
};
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, ContentDigest, ContentPointer, Description, InformationUri, JournalVersion,
    LicenseExpression, ReleaseVersion, RevisionDigest, VersionRequirement,
};
use nenjim_journal_writer::FsJournalWriter;

/// How many times a moved tip is planned on again before its error is
/// returned.
const TIP_MOVED_RETRIES: usize = 3;

/// The `JOURNAL_VERSION` of a successor of `head`: now, or one second after
/// the head when the clock is at or behind it.
pub fn stamp(head: Option<&JournalRevision>) -> Result<JournalVersion, JournalError> {
    let now = JournalVersion::now_utc();
    match head {
        Some(head) if now <= head.journal_version() => {
            head.journal_version().next_second().ok_or_else(|| {
                error::error(
                    ErrorKind::NonIncreasingVersion,
                    format!(
                        "found the head at {}, the last instant a Journal version can name; expected a later one to be possible",
                        head.journal_version()
                    ),
                )
            })
        }
        _ => Ok(now),
    }
}

/// The canonical text of the successor of `head` at `at` holding exactly
/// `releases` and `policy` (refused as sections 4 and 5 refuse, e.g. a
/// YANK overlapping another).
pub fn successor_text(
    head: &JournalRevision,
    at: JournalVersion,
    releases: &[ArtifactRelease],
    policy: &[PolicyStatement],
) -> Result<String, JournalError> {
    let mut builder = RevisionBuilder::new(
        head.coordinate().clone(),
        at,
        Some(*head.digest()),
        head.description().clone(),
    );
    if let Some(uri) = head.information() {
        builder.information(uri.clone());
    }
    for release in releases {
        builder.push_release(release.clone())?;
    }
    for statement in policy {
        builder.push_policy(statement.clone())?;
    }
    // The digest is the text's, computed again when the text is parsed.
    Ok(nenjim_journal_parser::render(
        &builder.build(*head.digest()),
    ))
}

/// What a change decided, given the head.
#[derive(Debug)]
pub enum Plan {
    /// The head already says it: write nothing.
    Unchanged,
    /// Append this text, after putting `blobs` (the new releases' content).
    Append {
        /// The successor's text.
        text: String,
        /// The blobs to put first.
        blobs: Vec<Vec<u8>>,
    },
}

/// A successor ready to be written, or nothing to write.
#[derive(Debug)]
pub enum Prepared {
    /// Nothing to write: the head (if the artifact has one) already says it.
    Unchanged(Option<JournalRevision>),
    /// A validated successor: its text, parsed revision and blobs.
    Append {
        /// The head it follows (`None` for a genesis).
        head: Option<JournalRevision>,
        /// Its text.
        text: String,
        /// It, parsed and accepted by the writer's state.
        revision: JournalRevision,
        /// The blobs to put before it.
        blobs: Vec<Vec<u8>>,
    },
}

/// What a publishing call wrote, or found already said.
#[derive(Clone, Debug)]
pub struct Published {
    revision: JournalRevision,
    new: bool,
}

impl Published {
    /// The new revision (with its ledger sequence), or the head that
    /// already said it.
    pub fn revision(&self) -> &JournalRevision {
        &self.revision
    }

    /// False when the head already said it and nothing was written.
    pub fn is_new(&self) -> bool {
        self.new
    }
}

/// Plans against the writer's head of `coordinate` and validates the
/// successor exactly as ingestion would (nothing is written).
pub fn prepare(
    writer: &FsJournalWriter,
    coordinate: &ArtifactCoordinate,
    plan: impl FnOnce(Option<&JournalRevision>, JournalVersion) -> Result<Plan, JournalError>,
) -> Result<Prepared, JournalError> {
    let head = writer.state().latest(coordinate);
    let at = stamp(head.as_ref())?;
    match plan(head.as_ref(), at)? {
        Plan::Unchanged => Ok(Prepared::Unchanged(head)),
        Plan::Append { text, blobs } => {
            let revision = nenjim_journal_parser::parse(&text)?;
            writer.state().ingest_revision(revision.clone())?;
            Ok(Prepared::Append {
                head,
                text,
                revision,
                blobs,
            })
        }
    }
}

/// Writes what [`prepare`] decided: the blobs, then the successor.
/// `Ok(None)` for an artifact without a head and nothing to write.
pub fn commit(
    writer: &mut FsJournalWriter,
    prepared: Prepared,
) -> Result<Option<Published>, JournalError> {
    match prepared {
        Prepared::Unchanged(head) => Ok(head.map(|revision| Published {
            revision,
            new: false,
        })),
        Prepared::Append { text, blobs, .. } => {
            for bytes in blobs {
                writer.put_blob(&bytes)?;
            }
            let appended = writer.append(&text)?;
            Ok(Some(Published {
                revision: appended.revision().clone(),
                new: appended.is_new(),
            }))
        }
    }
}

/// [`prepare`] then [`commit`], planning again on the new head when the
/// tip moved. An artifact without a head, for a change that needs one, is
/// `UnknownPredecessor`.
pub fn apply(
    writer: &mut FsJournalWriter,
    coordinate: &ArtifactCoordinate,
    mut plan: impl FnMut(Option<&JournalRevision>, JournalVersion) -> Result<Plan, JournalError>,
) -> Result<Published, JournalError> {
    let mut tries = 0;
    loop {
        let prepared = prepare(writer, coordinate, &mut plan)?;
        match commit(writer, prepared) {
            Ok(Some(published)) => return Ok(published),
            Ok(None) => return Err(unknown(coordinate)),
            Err(e) if e.kind() == ErrorKind::TipMoved && tries < TIP_MOVED_RETRIES => {
                tries += 1;
                tracing::info!(target: "nenjim_journal_root", %coordinate, tries, "tip moved: planning again on the new head");
            }
            Err(e) => return Err(e),
        }
    }
}

fn unknown(coordinate: &ArtifactCoordinate) -> JournalError {
    error::error(
        ErrorKind::UnknownPredecessor,
        format!("found no artifact `{coordinate}`, expected one created first"),
    )
}

/// Plans the genesis of a new artifact (refused if it has a head).
pub fn plan_create(
    head: Option<&JournalRevision>,
    at: JournalVersion,
    coordinate: &ArtifactCoordinate,
    description: &Description,
    information: Option<&InformationUri>,
) -> Result<Plan, JournalError> {
    if let Some(head) = head {
        return Err(error::error(
            ErrorKind::DuplicateGenesis,
            format!(
                "found artifact {} already created (head {}, {}), expected a new artifact; publish to it with release, yank, deprecate or recommend",
                head.coordinate(),
                head.journal_version(),
                head.digest()
            ),
        ));
    }
    let mut builder = RevisionBuilder::new(coordinate.clone(), at, None, description.clone());
    if let Some(uri) = information {
        builder.information(uri.clone());
    }
    // The digest is the text's, computed again when the text is parsed.
    let genesis = builder.build(RevisionDigest::of_text(""));
    Ok(Plan::Append {
        text: nenjim_journal_parser::render(&genesis),
        blobs: Vec::new(),
    })
}

/// Plans the successor holding `wanted` releases (each with its blob), each
/// in its place by precedence, the head's policy kept. Releases the head
/// holds with the same values write nothing; one with other values is the
/// chain's `ReleaseRewritten` when validated.
pub fn plan_release(
    head: Option<&JournalRevision>,
    at: JournalVersion,
    wanted: &[(ArtifactRelease, Vec<u8>)],
) -> Result<Plan, JournalError> {
    let Some(head) = head else {
        return Ok(Plan::Unchanged);
    };
    let held = |release: &ArtifactRelease| {
        head.release(release.version())
            .is_some_and(|h| build::same_values(h, release))
    };
    if wanted.iter().all(|(r, _)| held(r)) {
        return Ok(Plan::Unchanged);
    }
    let mut releases: Vec<ArtifactRelease> = head
        .releases()
        .iter()
        .filter(|r| !wanted.iter().any(|(w, _)| w.version() == r.version()))
        .cloned()
        .collect();
    let mut put = Vec::new();
    for (release, bytes) in wanted {
        if !held(release) {
            put.push(bytes.clone());
        }
        releases.push(release.clone());
    }
    releases.sort_by(|a, b| a.version().cmp(b.version()));
    Ok(Plan::Append {
        text: successor_text(head, at, &releases, head.policy())?,
        blobs: put,
    })
}

/// Plans the successor with one more policy statement: a `RECOMMEND`
/// replaces the head's (at most one), a YANK or DEPRECATE is added after
/// the head's policy. A head that holds it already writes nothing.
pub fn plan_policy(
    head: Option<&JournalRevision>,
    at: JournalVersion,
    statement: &PolicyStatement,
) -> Result<Plan, JournalError> {
    let Some(head) = head else {
        return Ok(Plan::Unchanged);
    };
    if head.policy().contains(statement) {
        return Ok(Plan::Unchanged);
    }
    let recommend = matches!(statement, PolicyStatement::Recommend { .. });
    let mut policy: Vec<PolicyStatement> = head
        .policy()
        .iter()
        .filter(|s| !(recommend && matches!(s, PolicyStatement::Recommend { .. })))
        .cloned()
        .collect();
    policy.push(statement.clone());
    Ok(Plan::Append {
        text: successor_text(head, at, head.releases(), &policy)?,
        blobs: Vec::new(),
    })
}

/// A release to publish: its version, license and content, and what else
/// its `RELEASE` block says. The content's pointer (SHA-256 and size) is
/// computed from the bytes.
#[derive(Clone, Debug)]
pub struct NewRelease {
    version: ReleaseVersion,
    license: LicenseExpression,
    content: Vec<u8>,
    description: Option<Description>,
    depends: Vec<Dependency>,
    excludes: Vec<Exclusion>,
    prefers: Vec<Preference>,
}

impl NewRelease {
    /// A release of `version` under `license` whose content is `content`.
    pub fn new(version: ReleaseVersion, license: LicenseExpression, content: Vec<u8>) -> Self {
        NewRelease {
            version,
            license,
            content,
            description: None,
            depends: Vec::new(),
            excludes: Vec::new(),
            prefers: Vec::new(),
        }
    }

    /// Its description.
    #[must_use]
    pub fn description(mut self, description: Description) -> Self {
        self.description = Some(description);
        self
    }

    /// One more `DEPENDS`.
    #[must_use]
    pub fn depends(mut self, dependency: Dependency) -> Self {
        self.depends.push(dependency);
        self
    }

    /// One more `EXCLUDES`.
    #[must_use]
    pub fn excludes(mut self, exclusion: Exclusion) -> Self {
        self.excludes.push(exclusion);
        self
    }

    /// One more `PREFERS`.
    #[must_use]
    pub fn prefers(mut self, preference: Preference) -> Self {
        self.prefers.push(preference);
        self
    }

    /// The content's pointer.
    pub fn pointer(&self) -> ContentPointer {
        ContentPointer::new(
            ContentDigest::of_bytes(&self.content),
            self.content.len() as u64,
        )
    }

    /// The release of `coordinate` it describes, and its blob: refused as
    /// section 4 refuses (an artifact named twice, a dependency on itself …),
    /// the error naming the statement (`DEPENDS`, `EXCLUDES`, `PREFERS`).
    pub fn into_release(
        self,
        coordinate: &ArtifactCoordinate,
    ) -> Result<(ArtifactRelease, Vec<u8>), JournalError> {
        use nenjim_journal_api::error::ErrorContext as _;
        let mut builder = ReleaseBuilder::new(
            coordinate.clone(),
            self.version.clone(),
            self.license.clone(),
            self.pointer(),
        );
        if let Some(description) = &self.description {
            builder.description(description.clone());
        }
        for d in self.depends {
            builder
                .push_dependency(d)
                .map_err(|e| e.context("DEPENDS"))?;
        }
        for x in self.excludes {
            builder
                .push_exclusion(x)
                .map_err(|e| e.context("EXCLUDES"))?;
        }
        for p in self.prefers {
            builder
                .push_preference(p)
                .map_err(|e| e.context("PREFERS"))?;
        }
        Ok((builder.build(), self.content))
    }
}

/// `create`: the genesis of `coordinate`.
pub fn create(
    writer: &mut FsJournalWriter,
    coordinate: &ArtifactCoordinate,
    description: &Description,
    information: Option<&InformationUri>,
) -> Result<Published, JournalError> {
    apply(writer, coordinate, |head, at| {
        plan_create(head, at, coordinate, description, information)
    })
}

/// `release`: the successor holding `releases` (their blobs put first, in
/// the writer's content store).
pub fn release(
    writer: &mut FsJournalWriter,
    coordinate: &ArtifactCoordinate,
    releases: Vec<NewRelease>,
) -> Result<Published, JournalError> {
    let wanted = releases
        .into_iter()
        .map(|r| r.into_release(coordinate))
        .collect::<Result<Vec<_>, _>>()?;
    apply(writer, coordinate, |head, at| {
        plan_release(head, at, &wanted)
    })
}

/// `yank`: releases matching `requirement` must not be chosen any more.
pub fn yank(
    writer: &mut FsJournalWriter,
    coordinate: &ArtifactCoordinate,
    requirement: VersionRequirement,
    reason: Description,
) -> Result<Published, JournalError> {
    let statement = PolicyStatement::Yank {
        requirement,
        reason,
    };
    apply(writer, coordinate, |head, at| {
        plan_policy(head, at, &statement)
    })
}

/// `deprecate`: releases matching `requirement` may be chosen, with a warning.
pub fn deprecate(
    writer: &mut FsJournalWriter,
    coordinate: &ArtifactCoordinate,
    requirement: VersionRequirement,
    reason: Description,
) -> Result<Published, JournalError> {
    let statement = PolicyStatement::Deprecate {
        requirement,
        reason,
    };
    apply(writer, coordinate, |head, at| {
        plan_policy(head, at, &statement)
    })
}

/// `recommend`: the release recommended by default (replacing the head's).
pub fn recommend(
    writer: &mut FsJournalWriter,
    coordinate: &ArtifactCoordinate,
    version: ReleaseVersion,
) -> Result<Published, JournalError> {
    let statement = PolicyStatement::Recommend { version };
    apply(writer, coordinate, |head, at| {
        plan_policy(head, at, &statement)
    })
}
