//! The chain's target ([`chain_ingest`]): random sequences of small valid and
//! invalid texts, each outcome against an independent model of section 6,
//! and the state's invariants ([`check_state`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::model::ArtifactRelease;
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, RevisionDigest};
use nenjim_journal_chain::{ChainState, Outcome};
use nenjim_journal_parser::is_blank;

use super::Choices;
use super::parse::{SEEDS, text_of};

/// The small world of the chain target: two artifacts, eight timestamps,
/// three releases each in two variants of content.
const ARTIFACTS: [&str; 2] = ["aaa", "bbb"];
const RELEASES: [&str; 3] = ["1.0.0", "1.1.0", "2.0.0"];

/// One generated text and what the model knows of it.
#[derive(Clone, Debug)]
struct Generated {
    text: String,
    /// `None` for a text that is not a valid revision.
    shape: Option<Shape>,
}

#[derive(Clone, Debug)]
struct Shape {
    artifact: usize,
    version: u32,
    predecessor: Option<RevisionDigest>,
    /// (release index, content variant), ascending by release.
    releases: Vec<(usize, u8)>,
}

fn timestamp(k: u32) -> JournalVersion {
    format!("20260101T0000{k:02}Z")
        .parse()
        .expect("a valid timestamp")
}

fn content_hex(release: usize, variant: u8) -> String {
    format!("{:x}", release * 2 + usize::from(variant)).repeat(64)
}

/// The release keys of a generated revision (see [`release_key`]).
fn shape_keys(shape: &Shape) -> Vec<String> {
    shape
        .releases
        .iter()
        .map(|&(release, variant)| {
            format!(
                "{} MIT sha256:{} {variant} None 0",
                RELEASES[release],
                content_hex(release, variant)
            )
        })
        .collect()
}

/// A key equal for two releases exactly when their values are (for the
/// generated releases, which have no dependency lines, and for others).
fn release_key(release: &ArtifactRelease) -> String {
    format!(
        "{} {} {} {} {:?} {}",
        release.version(),
        release.license(),
        release.content().digest(),
        release.content().size(),
        release.description().map(|d| d.as_str()),
        release.dependencies().len() + release.exclusions().len() + release.preferences().len()
    )
}

fn render_shape(shape: &Shape, comment: bool) -> String {
    let mut text = String::new();
    if comment {
        text.push_str("# a comment makes another digest\n");
    }
    let _ = writeln!(text, "FORMAT nenjim-journal/1");
    let _ = writeln!(text, "ARTIFACT {}", ARTIFACTS[shape.artifact]);
    let _ = writeln!(text, "JOURNAL_VERSION {}", timestamp(shape.version));
    match &shape.predecessor {
        None => text.push_str("PREDECESSOR GENESIS\n"),
        Some(digest) => {
            let _ = writeln!(text, "PREDECESSOR {digest}");
        }
    }
    text.push_str("DESCRIPTION \"generated\"\n");
    for &(release, variant) in &shape.releases {
        let _ = writeln!(text, "RELEASE {}", RELEASES[release]);
        text.push_str("  LICENSE MIT\n");
        let _ = writeln!(
            text,
            "  CONTENT sha256:{} {variant}",
            content_hex(release, variant)
        );
    }
    text
}

/// The next text of a sequence: a valid revision whose predecessor is
/// genesis, an earlier text or a made-up digest, or an invalid text.
fn generate(choices: &mut Choices<'_>, earlier: &[Generated]) -> Generated {
    let kind = choices.byte();
    match kind % 16 {
        0 => Generated {
            text: ["", "\n", "# nothing\n", "  \r\n"][choices.below(4)].to_owned(),
            shape: None,
        },
        1 => {
            // A valid text mutated a little: usually invalid.
            let base = earlier
                .get(choices.below(earlier.len().max(1)))
                .map_or_else(|| SEEDS[0].to_owned(), |g| g.text.clone());
            let mut bytes = base.into_bytes();
            if !bytes.is_empty() {
                let at = choices.below(bytes.len());
                bytes[at] = choices.byte();
            }
            Generated {
                text: text_of(&bytes),
                shape: None,
            }
        }
        _ => {
            let artifact = choices.below(ARTIFACTS.len());
            let version = 1 + u32::try_from(choices.below(8)).unwrap_or(0);
            let how = choices.byte() % 8;
            let predecessor = match how {
                0 | 1 => None,
                2 => Some(RevisionDigest::of_text(&format!(
                    "unknown {}",
                    choices.byte()
                ))),
                _ => {
                    // An earlier valid text, preferably of the same artifact.
                    let candidates: Vec<&Generated> =
                        earlier.iter().filter(|g| g.shape.is_some()).collect();
                    if candidates.is_empty() {
                        None
                    } else {
                        let g = candidates[choices.below(candidates.len())];
                        Some(RevisionDigest::of_text(&g.text))
                    }
                }
            };
            let mask = choices.byte();
            let releases = (0..RELEASES.len())
                .filter(|r| mask & (1 << r) != 0)
                .map(|r| (r, u8::from(mask & (1 << (r + 4)) != 0)))
                .collect();
            let shape = Shape {
                artifact,
                version,
                predecessor,
                releases,
            };
            Generated {
                text: render_shape(&shape, kind & 0x80 != 0),
                shape: Some(shape),
            }
        }
    }
}

/// A stored revision, as the model keeps it.
#[derive(Clone, Debug)]
struct Stored {
    version: JournalVersion,
    digest: RevisionDigest,
    /// One key per release, equal exactly when the release values are.
    releases: Vec<String>,
    sequence: u64,
}

/// An independent model of section 6: each artifact's chain.
#[derive(Debug, Default)]
struct Model {
    chains: BTreeMap<String, Vec<Stored>>,
    len: u64,
}

/// What the model expects of one ingestion.
#[derive(Debug, PartialEq, Eq)]
enum Expected {
    Accepted,
    Unchanged(u64),
    Refused(ErrorKind),
}

impl Model {
    fn owner(&self, digest: &RevisionDigest) -> Option<(&str, usize)> {
        self.chains.iter().find_map(|(artifact, chain)| {
            chain
                .iter()
                .position(|s| s.digest == *digest)
                .map(|i| (artifact.as_str(), i))
        })
    }

    fn expect(&self, shape: &Shape, digest: &RevisionDigest) -> Expected {
        let artifact = ARTIFACTS[shape.artifact];
        let version = timestamp(shape.version);
        let chain = self.chains.get(artifact);
        if let Some(same) = chain.and_then(|c| c.iter().find(|s| s.version == version)) {
            return if same.digest == *digest {
                Expected::Unchanged(same.sequence)
            } else {
                Expected::Refused(ErrorKind::Conflict)
            };
        }
        let Some(predecessor) = &shape.predecessor else {
            return if chain.is_some() {
                Expected::Refused(ErrorKind::DuplicateGenesis)
            } else {
                Expected::Accepted
            };
        };
        let Some((owner, index)) = self.owner(predecessor) else {
            return Expected::Refused(ErrorKind::UnknownPredecessor);
        };
        if owner != artifact {
            return Expected::Refused(ErrorKind::CrossArtifactPredecessor);
        }
        let chain = chain.map(Vec::as_slice).unwrap_or_default();
        if index + 1 != chain.len() {
            return Expected::Refused(ErrorKind::StalePredecessor);
        }
        let head = &chain[index];
        if version <= head.version {
            return Expected::Refused(ErrorKind::NonIncreasingVersion);
        }
        let releases = shape_keys(shape);
        if !head.releases.iter().all(|r| releases.contains(r)) {
            return Expected::Refused(ErrorKind::ReleaseRewritten);
        }
        Expected::Accepted
    }

    fn accept(&mut self, shape: &Shape, digest: RevisionDigest) {
        self.len += 1;
        let artifact = ARTIFACTS[shape.artifact].to_owned();
        self.chains.entry(artifact).or_default().push(Stored {
            version: timestamp(shape.version),
            digest,
            releases: shape_keys(shape),
            sequence: self.len,
        });
    }
}

/// Target 3: chain ingestion of a random sequence of small texts. Returns
/// the number of revisions the final state holds (for coverage checks).
pub fn chain_ingest(data: &[u8]) -> u64 {
    let mut choices = Choices::new(data);
    let mut state = ChainState::new();
    let mut model = Model::default();
    let mut earlier: Vec<Generated> = Vec::new();
    let mut steps = 0;
    while !choices.is_empty() && steps < 48 {
        steps += 1;
        let generated = generate(&mut choices, &earlier);
        let digest = RevisionDigest::of_text(&generated.text);
        let before = state.clone();
        let result =
            nenjim_journal_parser::parse(&generated.text).and_then(|r| state.ingest_revision(r));
        match (&generated.shape, result) {
            (None, Ok(ingested)) => {
                // A mutation may still be a valid revision: then it is
                // judged by the rules like any other, with no model.
                if ingested.outcome() == Outcome::Accepted {
                    assert_eq!(ingested.state().len(), before.len() + 1);
                }
                state = ingested.into_state();
                model = model_of(&state);
            }
            (None, Err(error)) => {
                assert!(
                    matches!(
                        error.kind(),
                        ErrorKind::EmptyInput
                            | ErrorKind::Syntax
                            | ErrorKind::Semantic
                            | ErrorKind::Conflict
                            | ErrorKind::DuplicateGenesis
                            | ErrorKind::UnknownPredecessor
                            | ErrorKind::CrossArtifactPredecessor
                            | ErrorKind::StalePredecessor
                            | ErrorKind::NonIncreasingVersion
                            | ErrorKind::ReleaseRewritten
                    ),
                    "unexpected {error:?}"
                );
                if is_blank(&generated.text) {
                    assert_eq!(error.kind(), ErrorKind::EmptyInput, "{error}");
                }
            }
            (Some(shape), result) => {
                let expected = model.expect(shape, &digest);
                match (expected, result) {
                    (Expected::Accepted, Ok(ingested)) => {
                        assert_eq!(ingested.outcome(), Outcome::Accepted);
                        assert_eq!(ingested.revision().sequence(), before.len() + 1);
                        assert_eq!(*ingested.revision().digest(), digest);
                        model.accept(shape, digest);
                        state = ingested.into_state();
                    }
                    (Expected::Unchanged(sequence), Ok(ingested)) => {
                        assert_eq!(ingested.outcome(), Outcome::Unchanged);
                        assert_eq!(ingested.revision().sequence(), sequence);
                        assert_eq!(ingested.state().len(), before.len());
                        state = ingested.into_state();
                    }
                    (Expected::Refused(kind), Err(error)) => {
                        assert_eq!(error.kind(), kind, "{error}\n{}", generated.text);
                    }
                    (expected, Ok(ingested)) => panic!(
                        "expected {expected:?}, got {:?}\n{}",
                        ingested.outcome(),
                        generated.text
                    ),
                    (expected, Err(error)) => {
                        panic!("expected {expected:?}, got {error}\n{}", generated.text)
                    }
                }
            }
        }
        assert_eq!(state.len(), model.len, "the model and the state disagree");
        check_state(&state);
        earlier.push(generated);
    }
    state.len()
}

/// Rebuilds the model from a state (after a text the model could not predict).
fn model_of(state: &ChainState) -> Model {
    let mut model = Model::default();
    for coordinate in state.coordinates() {
        model.chains.insert(
            coordinate.as_str().to_owned(),
            stored_chain(state, &coordinate),
        );
    }
    model.len = state.len();
    model
}

fn stored_chain(state: &ChainState, coordinate: &ArtifactCoordinate) -> Vec<Stored> {
    state
        .revisions(coordinate)
        .iter()
        .map(|r| Stored {
            version: r.journal_version(),
            digest: *r.digest(),
            releases: r.releases().iter().map(release_key).collect(),
            sequence: r.sequence(),
        })
        .collect()
}

/// The invariants of a state, through its public queries only: one genesis
/// per artifact, linear chains, strictly increasing versions and
/// sequences, a consistent digest index, and a replay of everything.
pub fn check_state(state: &ChainState) {
    let mut total = 0u64;
    for coordinate in state.coordinates() {
        let chain = state.revisions(&coordinate);
        assert!(!chain.is_empty(), "{coordinate} is listed with no revision");
        total += chain.len() as u64;
        for (i, revision) in chain.iter().enumerate() {
            assert_eq!(*revision.coordinate(), coordinate);
            match (i, revision.predecessor()) {
                (0, None) => {}
                (0, Some(p)) => panic!("{coordinate} starts with a successor of {p}"),
                (_, None) => panic!("{coordinate} has a second genesis at {i}"),
                (_, Some(p)) => {
                    let previous = &chain[i - 1];
                    assert_eq!(p, previous.digest(), "{coordinate} is not linear at {i}");
                    assert!(revision.journal_version() > previous.journal_version());
                    assert!(revision.sequence() > previous.sequence());
                }
            }
            let digest = revision.digest();
            assert_eq!(
                state.find_digest(digest),
                Some((coordinate.clone(), revision.journal_version())),
                "the digest index lost {digest}"
            );
            let by_digest = state.revision_by_digest(digest).expect("indexed");
            assert_eq!(by_digest.sequence(), revision.sequence());
            let by_sequence = state.by_sequence(revision.sequence()).expect("logged");
            assert_eq!(by_sequence.digest(), digest);
            let exact = state
                .revision(&coordinate, revision.journal_version())
                .expect("found by version");
            assert_eq!(exact.digest(), digest);
        }
        let latest = state.latest(&coordinate).expect("a head");
        assert_eq!(latest.digest(), chain[chain.len() - 1].digest());
    }
    assert_eq!(total, state.len(), "chains and log disagree");
    let mut cursor = state.replay(0);
    let mut expected = 1;
    while let Some(revision) = cursor.next().expect("a replay never fails") {
        assert_eq!(
            revision.sequence(),
            expected,
            "replay is not in sequence order"
        );
        expected += 1;
    }
    assert_eq!(expected - 1, state.len(), "replay missed revisions");
}
