//! Test support: write Journal texts from small descriptions, build the same
//! revision through the API builders, and take comparable pictures of a state.

use std::fmt::Write as _;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::build::{self, ReleaseBuilder, RevisionBuilder};
use nenjim_journal_api::model::{JournalRevision, PolicyStatement};
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, ContentDigest, ContentPointer, Description, JournalVersion, ReleaseVersion,
    RevisionDigest,
};
use nenjim_journal_chain::{ChainState, Ingested};

/// How the tests hand a revision to the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// The text parsed, then `ChainState::ingest_revision`: the parser
    /// computes the digest.
    Text,
    /// `ChainState::ingest_revision(builders)`, digest of the same text.
    Builders,
}

/// The path used by the rule tests.
pub const VIA: Via = Via::Text;

/// A DEPENDS/EXCLUDES/PREFERS line: artifact, requirement, description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub artifact: String,
    pub requirement: Option<String>,
    pub description: Option<String>,
}

impl Line {
    /// The line's description as a value.
    fn description_value(&self) -> Option<Description> {
        self.description
            .as_deref()
            .map(|d| Description::new(d).unwrap())
    }
}

pub fn line(artifact: &str, requirement: Option<&str>, description: Option<&str>) -> Line {
    Line {
        artifact: artifact.to_owned(),
        requirement: requirement.map(str::to_owned),
        description: description.map(str::to_owned),
    }
}

/// One RELEASE block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rel {
    pub version: String,
    pub license: String,
    pub content: u8,
    pub size: u64,
    pub description: Option<String>,
    pub depends: Vec<Line>,
    pub excludes: Vec<Line>,
    pub prefers: Vec<Line>,
}

/// A release with license MIT and content derived from `content`.
pub fn rel(version: &str, content: u8) -> Rel {
    Rel {
        version: version.to_owned(),
        license: "MIT".to_owned(),
        content,
        size: 100 + u64::from(content),
        description: None,
        depends: Vec::new(),
        excludes: Vec::new(),
        prefers: Vec::new(),
    }
}

/// A policy statement, as the test writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pol {
    Yank(String, String),
    Deprecate(String, String),
    Recommend(String),
}

/// One revision text, described.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doc {
    pub artifact: String,
    pub version: String,
    pub predecessor: Option<RevisionDigest>,
    pub description: String,
    /// Comment lines at the top: change the digest, not the worldview.
    pub comment: Option<String>,
    pub releases: Vec<Rel>,
    pub policy: Vec<Pol>,
}

/// The Journal version of day `day` (1-based) of 2026, at 10:15:30.
pub fn jv(day: u32) -> String {
    let (month, day) = ((day - 1) / 28 + 1, (day - 1) % 28 + 1);
    format!("2026{month:02}{day:02}T101530Z")
}

pub fn version(day: u32) -> JournalVersion {
    jv(day).parse().unwrap()
}

pub fn coordinate(s: &str) -> ArtifactCoordinate {
    s.parse().unwrap()
}

impl Doc {
    /// The genesis of `artifact` at `day`, without releases.
    pub fn genesis(artifact: &str, day: u32) -> Doc {
        Doc {
            artifact: artifact.to_owned(),
            version: jv(day),
            predecessor: None,
            description: format!("the {artifact} artifact"),
            comment: None,
            releases: Vec::new(),
            policy: Vec::new(),
        }
    }

    /// The successor of `self` at `day`: same releases, no policy.
    pub fn next(&self, day: u32) -> Doc {
        Doc {
            version: jv(day),
            predecessor: Some(self.digest()),
            comment: None,
            policy: Vec::new(),
            ..self.clone()
        }
    }

    pub fn with(mut self, release: Rel) -> Doc {
        self.releases.push(release);
        self.releases.sort_by(|a, b| {
            let a: ReleaseVersion = a.version.parse().unwrap();
            let b: ReleaseVersion = b.version.parse().unwrap();
            a.cmp(&b)
        });
        self
    }

    pub fn policy(mut self, statement: Pol) -> Doc {
        self.policy.push(statement);
        self
    }

    pub fn comment(mut self, comment: &str) -> Doc {
        self.comment = Some(comment.to_owned());
        self
    }

    pub fn predecessor(mut self, digest: Option<RevisionDigest>) -> Doc {
        self.predecessor = digest;
        self
    }

    /// The Journal text.
    pub fn text(&self) -> String {
        let mut t = String::new();
        if let Some(c) = &self.comment {
            writeln!(t, "# {c}").unwrap();
        }
        writeln!(t, "FORMAT nenjim-journal/1").unwrap();
        writeln!(t, "ARTIFACT {}", self.artifact).unwrap();
        writeln!(t, "JOURNAL_VERSION {}", self.version).unwrap();
        match &self.predecessor {
            None => writeln!(t, "PREDECESSOR GENESIS").unwrap(),
            Some(d) => writeln!(t, "PREDECESSOR {d}").unwrap(),
        }
        writeln!(t, "DESCRIPTION \"{}\"", self.description).unwrap();
        for r in &self.releases {
            writeln!(t).unwrap();
            writeln!(t, "RELEASE {}", r.version).unwrap();
            writeln!(t, "  LICENSE {}", r.license).unwrap();
            writeln!(t, "  CONTENT {} {}", content_digest(r.content), r.size).unwrap();
            if let Some(d) = &r.description {
                writeln!(t, "  DESCRIPTION \"{d}\"").unwrap();
            }
            for (keyword, lines) in [
                ("DEPENDS", &r.depends),
                ("EXCLUDES", &r.excludes),
                ("PREFERS", &r.prefers),
            ] {
                for l in lines {
                    write!(t, "  {keyword} {}", l.artifact).unwrap();
                    if let Some(q) = &l.requirement {
                        write!(t, " {q}").unwrap();
                    }
                    if let Some(d) = &l.description {
                        write!(t, " \"{d}\"").unwrap();
                    }
                    writeln!(t).unwrap();
                }
            }
        }
        if !self.policy.is_empty() {
            writeln!(t).unwrap();
        }
        for p in &self.policy {
            match p {
                Pol::Yank(q, why) => writeln!(t, "YANK {q} \"{why}\"").unwrap(),
                Pol::Deprecate(q, why) => writeln!(t, "DEPRECATE {q} \"{why}\"").unwrap(),
                Pol::Recommend(v) => writeln!(t, "RECOMMEND {v}").unwrap(),
            }
        }
        t
    }

    /// The digest of the text.
    pub fn digest(&self) -> RevisionDigest {
        RevisionDigest::of_text(&self.text())
    }

    /// The same revision built through the API builders (sequence 0).
    pub fn revision(&self) -> JournalRevision {
        let artifact = coordinate(&self.artifact);
        let mut b = RevisionBuilder::new(
            artifact.clone(),
            self.version.parse().unwrap(),
            self.predecessor,
            Description::new(&self.description).unwrap(),
        );
        for r in &self.releases {
            let mut rb = ReleaseBuilder::new(
                artifact.clone(),
                r.version.parse().unwrap(),
                r.license.parse().unwrap(),
                ContentPointer::new(content_digest(r.content), r.size),
            );
            if let Some(d) = &r.description {
                rb.description(Description::new(d).unwrap());
            }
            for l in &r.depends {
                rb.push_dependency(build::dependency(
                    coordinate(&l.artifact),
                    l.requirement.as_deref().unwrap().parse().unwrap(),
                    l.description_value(),
                ))
                .unwrap();
            }
            for l in &r.excludes {
                rb.push_exclusion(build::exclusion(
                    coordinate(&l.artifact),
                    l.requirement.as_deref().map(|q| q.parse().unwrap()),
                    l.description_value(),
                ))
                .unwrap();
            }
            for l in &r.prefers {
                rb.push_preference(build::preference(
                    coordinate(&l.artifact),
                    l.requirement.as_deref().unwrap().parse().unwrap(),
                    l.description_value(),
                ))
                .unwrap();
            }
            b.push_release(rb.build()).unwrap();
        }
        for p in &self.policy {
            let statement = match p {
                Pol::Yank(q, why) => PolicyStatement::Yank {
                    requirement: q.parse().unwrap(),
                    reason: Description::new(why).unwrap(),
                },
                Pol::Deprecate(q, why) => PolicyStatement::Deprecate {
                    requirement: q.parse().unwrap(),
                    reason: Description::new(why).unwrap(),
                },
                Pol::Recommend(v) => PolicyStatement::Recommend {
                    version: v.parse().unwrap(),
                },
            };
            b.push_policy(statement).unwrap();
        }
        b.build(self.digest())
    }
}

/// A content digest derived from one byte.
pub fn content_digest(n: u8) -> ContentDigest {
    ContentDigest::of_bytes(&[n])
}

/// Ingests `doc` the way [`VIA`] says.
pub fn ingest(state: &ChainState, doc: &Doc) -> Result<Ingested, JournalError> {
    ingest_via(VIA, state, doc)
}

pub fn ingest_via(via: Via, state: &ChainState, doc: &Doc) -> Result<Ingested, JournalError> {
    match via {
        Via::Text => {
            nenjim_journal_parser::parse(&doc.text()).and_then(|r| state.ingest_revision(r))
        }
        Via::Builders => state.ingest_revision(doc.revision()),
    }
}

/// Ingests every doc in order, panicking on the first error.
pub fn build(docs: &[&Doc]) -> ChainState {
    let mut state = ChainState::new();
    for doc in docs {
        state = ingest(&state, doc)
            .unwrap_or_else(|e| panic!("cannot ingest {}: {e}", doc.version))
            .into_state();
    }
    state
}

/// Every accepted revision as (digest, sequence), in sequence order.
pub fn picture(state: &ChainState) -> Vec<(RevisionDigest, u64)> {
    let mut cursor = state.replay(0);
    let mut out = Vec::new();
    while let Some(r) = cursor.next().unwrap() {
        out.push((*r.digest(), r.sequence()));
    }
    out
}

/// Every artifact's chain as digests, in chain order, plus the per-artifact
/// (digest, sequence) pairs; equal pictures mean equal states.
pub fn chains(state: &ChainState) -> Vec<(ArtifactCoordinate, Vec<RevisionDigest>)> {
    state
        .coordinates()
        .into_iter()
        .map(|c| {
            let digests = state.revisions(&c).iter().map(|r| *r.digest()).collect();
            (c, digests)
        })
        .collect()
}

/// Asserts that `after` is exactly `before` (all digests and sequences).
pub fn assert_same_state(before: &ChainState, after: &ChainState) {
    assert_eq!(picture(before), picture(after));
    assert_eq!(chains(before), chains(after));
    assert_eq!(before.len(), after.len());
}
