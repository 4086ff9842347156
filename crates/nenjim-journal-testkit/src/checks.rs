//! What every fuzz target checks, shared with the stable bounded runs.
//!
//! Each public function takes the fuzzer's raw bytes, decodes them into an
//! input (a text, a mutated journal, a sequence of texts to ingest) and
//! panics if a guarantee of the parser or the chain is broken:
//!
//! - [`parse_bytes`]: the parser on arbitrary bytes never panics, and every
//!   error is `EmptyInput` (exactly for blank texts, without location) or a
//!   `Syntax`/`Semantic` error located at a line and column inside the text;
//!   an accepted text renders to a canonical text with the same worldview.
//! - [`parse_mutated`]: the same checks on valid journals mutated line by
//!   line (deletions, duplications, swaps, byte edits, inserted keyword lines).
//! - [`chain_ingest`]: a random sequence of small valid and invalid texts is
//!   ingested step by step; each outcome matches an independent model of
//!   section 6, and the state's invariants hold after every step.
//!
//! The fuzz targets (`fuzz/`) call these through that package's library,
//! and the chain crate's `tests/hardening_fuzz.rs` runs them as bounded
//! stable tests: both run exactly this logic.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::ArtifactRelease;
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, RevisionDigest};
use nenjim_journal_chain::{ChainState, Outcome};
use nenjim_journal_parser::is_blank;

/// Reads the fuzzer's bytes as a stream of small choices; past the end it
/// yields zeros, so every byte string decodes to some input.
#[derive(Debug)]
pub struct Choices<'a> {
    bytes: &'a [u8],
}

impl<'a> Choices<'a> {
    /// Choices read from `bytes`.
    pub fn new(bytes: &'a [u8]) -> Choices<'a> {
        Choices { bytes }
    }

    /// Whether every byte was used.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The next byte (0 past the end).
    pub fn byte(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((&b, rest)) => {
                self.bytes = rest;
                b
            }
            None => 0,
        }
    }

    /// A number below `n` (`n` > 0), from one byte.
    pub fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n.max(1)
    }
}

/// Decodes bytes the way the loader does (UTF-8 or nothing); invalid UTF-8
/// is replaced so that the parser still sees every other byte.
fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Target 1: the parser on arbitrary bytes.
pub fn parse_bytes(data: &[u8]) {
    check_text(&text_of(data));
}

/// The parser's guarantees on one text.
pub fn check_text(text: &str) {
    match nenjim_journal_parser::parse(text) {
        Ok(revision) => check_accepted(text, &revision),
        Err(error) => check_refused(text, &error),
    }
}

fn check_accepted(text: &str, revision: &JournalRevision) {
    assert!(!is_blank(text), "a blank text was accepted: {text:?}");
    assert_eq!(
        *revision.digest(),
        RevisionDigest::of_text(text),
        "the digest is not that of the exact text"
    );
    let canonical = nenjim_journal_parser::render(revision);
    let again = nenjim_journal_parser::parse(&canonical).unwrap_or_else(|e| {
        panic!("the canonical text of an accepted text is refused: {e}\n{canonical}")
    });
    assert!(
        again.same_worldview(revision),
        "the canonical text means something else:\n{text}\n---\n{canonical}"
    );
    assert_eq!(
        nenjim_journal_parser::render(&again),
        canonical,
        "rendering is not idempotent"
    );
}

fn check_refused(text: &str, error: &JournalError) {
    assert!(!error.message().is_empty(), "an error without message");
    assert_eq!(error.path(), None, "the parser names no path: {error}");
    match error.kind() {
        ErrorKind::EmptyInput => {
            assert!(is_blank(text), "EmptyInput for a non-blank text: {text:?}");
            assert_eq!((error.line(), error.column()), (None, None), "{error}");
        }
        ErrorKind::Syntax | ErrorKind::Semantic => {
            assert!(
                !is_blank(text),
                "a blank text gave {error} instead of EmptyInput"
            );
            let (Some(line), Some(column)) = (error.line(), error.column()) else {
                panic!("an unlocated {:?} error: {error}", error.kind());
            };
            // The lines of the text; the end of a text that ends with a
            // terminator is the (empty) line after it.
            let lines: Vec<&str> = text.split('\n').collect();
            assert!(
                (1..=lines.len()).contains(&line),
                "line {line} outside a text of {} lines: {error}\n{text:?}",
                lines.len()
            );
            let width = lines[line - 1].chars().count();
            assert!(
                (1..=width + 1).contains(&column),
                "column {column} outside line {line} of {width} characters: {error}\n{text:?}"
            );
            let display = error.to_string();
            assert!(
                display.starts_with(&format!("{line}:{column}: ")),
                "Display does not start with the location: {display}"
            );
        }
        other => panic!("the parser returned a {other:?} error: {error}"),
    }
}

/// Valid journals the structure-aware target starts from.
pub const SEEDS: [&str; 3] = [
    "\
FORMAT nenjim-journal/1
ARTIFACT left-pad
JOURNAL_VERSION 20261129T101530Z
PREDECESSOR GENESIS
DESCRIPTION \"pads strings on the left\"
",
    "\
# The Nenjim hub API, second revision
FORMAT nenjim-journal/1
ARTIFACT com.r35157.nenjim-hubd-api
JOURNAL_VERSION 20261129T101530Z
PREDECESSOR sha256:9f2c0d4e5a3b7c1d8e6f00112233445566778899aabbccddeeff001122334455
DESCRIPTION \"Public API of the Nenjim hub daemon\"
INFORMATION https://example.org/nenjim/hubd-api

RELEASE 1.0.0
  LICENSE Apache-2.0
  CONTENT sha256:1e0a5b9c3d2f4a6b8c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d 48213
  DEPENDS com.r35157.libs-valuetypes [1.2.0,2.0.0)
  DEPENDS org.slf4j.slf4j-api 2.0.9 \"logging facade\"
  EXCLUDES commons-logging.commons-logging
RELEASE 1.1.0-rc.1
  LICENSE Apache-2.0 OR MIT
  CONTENT sha256:2b1c6d0e4f3a5b7c9d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c 50117
  DESCRIPTION \"Release candidate with the refresh report\"
  DEPENDS com.r35157.libs-valuetypes [1.3.0,2.0.0)
  PREFERS com.r35157.libs-valuetypes [1.4.0,1.5.0) \"tested combination\"

DEPRECATE [1.0.0,1.1.0-rc.1) \"1.0 line is in maintenance only\"
RECOMMEND 1.0.0
",
    "\
FORMAT nenjim-journal/1
ARTIFACT serde
JOURNAL_VERSION 20260101T000000Z
PREDECESSOR GENESIS
DESCRIPTION \"tab\\there, \\u{1F600} and \\\"quotes\\\"\"
RELEASE 0.9.0
  LICENSE (MIT OR Apache-2.0) AND LicenseRef-custom
  CONTENT sha256:0000000000000000000000000000000000000000000000000000000000000000 0
  EXCLUDES log (,1.0.0)
RELEASE 1.0.0-alpha.1
  LICENSE GPL-2.0-or-later WITH Classpath-exception-2.0
  CONTENT sha256:1111111111111111111111111111111111111111111111111111111111111111 18446744073709551615
  DEPENDS log *
RELEASE 1.0.0
  LICENSE NOASSERTION
  CONTENT sha256:2222222222222222222222222222222222222222222222222222222222222222 7
YANK [0.9.0,1.0.0-alpha.1] \"broken\"
DEPRECATE 1.0.0-alpha.1 \"pre-release\"
RECOMMEND 1.0.0
",
];

/// Lines the structure-aware target may insert: every keyword, right and wrong.
const INSERTS: [&str; 24] = [
    "FORMAT nenjim-journal/1",
    "ARTIFACT left-pad",
    "JOURNAL_VERSION 20261129T101530Z",
    "PREDECESSOR GENESIS",
    "DESCRIPTION \"x\"",
    "INFORMATION urn:x",
    "RELEASE 1.0.0",
    "RELEASE 0.1.0",
    "RELEASE 9.9.9-rc.1",
    "  LICENSE MIT",
    "  CONTENT sha256:3333333333333333333333333333333333333333333333333333333333333333 1",
    "  DESCRIPTION \"d\"",
    "  DEPENDS log [1.0.0,2.0.0)",
    "  EXCLUDES log",
    "  PREFERS log 1.0.0",
    "YANK * \"r\"",
    "DEPRECATE [1.0.0,1.0.0] \"r\"",
    "RECOMMEND 1.0.0",
    "# comment",
    "",
    "   ",
    "\u{feff}",
    "  LICENSE ((MIT)",
    "\"unterminated",
];

/// Target 2: a valid journal mutated line by line, then checked like
/// [`parse_bytes`], and parsed once more after the unmutated journal with
/// `parse_after`, which must say exactly what `parse` says (most of its
/// release blocks are still the seed's, byte for byte, so they are reused).
pub fn parse_mutated(data: &[u8]) {
    let text = text_of(&mutate(data));
    check_text(&text);
    check_after(&pristine(data), &text);
}

/// The seed [`mutate`] starts from, with its line terminators, unmutated.
pub fn pristine(data: &[u8]) -> String {
    let first = data.first().copied().unwrap_or(0);
    let seed = SEEDS[usize::from(first) % SEEDS.len()];
    let terminator = if first & 0x80 != 0 { "\r\n" } else { "\n" };
    seed.lines().map(|l| format!("{l}{terminator}")).collect()
}

/// `parse_after(text, previous)` against `parse(text)`: the same revision,
/// or the same error at the same place. Both parses after `previous` share
/// one interner, as a load's do.
pub fn check_after(previous: &str, text: &str) {
    let mut interner = nenjim_journal_parser::Interner::default();
    let Ok(previous) = nenjim_journal_parser::parse_after(previous.to_owned(), &mut interner, None)
    else {
        return;
    };
    let after = nenjim_journal_parser::parse_after(text.to_owned(), &mut interner, Some(&previous))
        .map(nenjim_journal_parser::ParsedText::into_revision);
    match (after, nenjim_journal_parser::parse(text)) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "parse_after and parse differ on:\n{text}"),
        (Err(a), Err(b)) => assert_eq!(
            (a.kind(), a.line(), a.column(), a.message()),
            (b.kind(), b.line(), b.column(), b.message()),
            "parse_after and parse refuse differently:\n{text}"
        ),
        (a, b) => panic!("parse_after gave {a:?}, parse gave {b:?}, on:\n{text}"),
    }
}

/// The mutated journal the bytes describe: the first byte picks a seed and
/// the line terminator; then each group of bytes is one edit.
pub fn mutate(data: &[u8]) -> Vec<u8> {
    let mut choices = Choices::new(data);
    let first = choices.byte();
    let seed = SEEDS[usize::from(first) % SEEDS.len()];
    let crlf = first & 0x80 != 0;
    let mut lines: Vec<Vec<u8>> = seed.lines().map(|l| l.as_bytes().to_vec()).collect();
    let mut edits = 0;
    while !choices.is_empty() && edits < 64 {
        edits += 1;
        let op = choices.byte() % 8;
        if lines.is_empty() {
            lines.push(Vec::new());
        }
        let i = choices.below(lines.len());
        match op {
            0 => {
                lines.remove(i);
            }
            1 => {
                let copy = lines[i].clone();
                lines.insert(i, copy);
            }
            2 => {
                let j = choices.below(lines.len());
                lines.swap(i, j);
            }
            3 => {
                // Overwrite one byte (possibly past the end: append it).
                let at = choices.below(lines[i].len() + 1);
                let value = choices.byte();
                match lines[i].get_mut(at) {
                    Some(b) => *b = value,
                    None => lines[i].push(value),
                }
            }
            4 => {
                let at = choices.below(lines[i].len() + 1);
                lines[i].truncate(at);
            }
            5 => {
                let insert = INSERTS[choices.below(INSERTS.len())];
                lines.insert(i, insert.as_bytes().to_vec());
            }
            6 => {
                // Insert a byte inside the line.
                let at = choices.below(lines[i].len() + 1);
                let value = choices.byte();
                lines[i].insert(at, value);
            }
            _ => {
                // Remove a byte of the line.
                if !lines[i].is_empty() {
                    let at = choices.below(lines[i].len());
                    lines[i].remove(at);
                }
            }
        }
    }
    let terminator: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let mut text = lines.join(terminator);
    if choices.byte() & 1 == 0 {
        text.extend_from_slice(terminator);
    }
    text
}

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
