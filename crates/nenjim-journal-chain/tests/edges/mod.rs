//! The chain at its edges (this was `audit.rs`, the chain audit of s28):
//! the rules of sections 4 to 6 and the queries and event feed of
//! `docs/api.md` at their edges (pre-releases in intervals, `*`, releases
//! added below the newest one, DEPENDS reordered, policy that moves,
//! boundaries of `revision_as_of`, resumed event feeds, idempotent repeats
//! with another sequence), every revision built from a text by the parser.
//!
//! This file holds the text builder and ingest helpers both halves use;
//! `rules.rs` the revisions accepted or refused, `queries.rs` what the
//! queries and the event feed answer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod queries;
mod rules;

use std::fmt::Write as _;

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::{EventChange, EventCursor, JournalRevision, PolicyStatement};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, ContentDigest, ReleaseVersion};
use nenjim_journal_chain::{ChainState, Outcome, events};
use nenjim_journal_testkit::docs::assert_same_state;

/// One release block: its version, its content seed (a release keeps its
/// values while the seed stays) and its property lines after CONTENT.
struct Block<'a> {
    version: &'a str,
    seed: &'a str,
    lines: &'a [&'a str],
}

fn block<'a>(version: &'a str) -> Block<'a> {
    Block {
        version,
        seed: version,
        lines: &[],
    }
}

/// A text of `artifact` at `version`, after `predecessor` (or a genesis).
fn text(
    artifact: &str,
    version: &str,
    predecessor: Option<&JournalRevision>,
    blocks: &[Block<'_>],
    policy: &[&str],
) -> String {
    let mut t = String::new();
    writeln!(t, "FORMAT nenjim-journal/1").unwrap();
    writeln!(t, "ARTIFACT {artifact}").unwrap();
    writeln!(t, "JOURNAL_VERSION {version}").unwrap();
    match predecessor {
        None => writeln!(t, "PREDECESSOR GENESIS").unwrap(),
        Some(p) => writeln!(t, "PREDECESSOR {}", p.digest()).unwrap(),
    }
    writeln!(t, "DESCRIPTION \"audit\"").unwrap();
    for b in blocks {
        let content = ContentDigest::of_bytes(format!("{artifact}@{}", b.seed).as_bytes());
        write!(
            t,
            "\nRELEASE {}\n  LICENSE MIT\n  CONTENT {content} 1\n",
            b.version
        )
        .unwrap();
        for l in b.lines {
            writeln!(t, "  {l}").unwrap();
        }
    }
    if !policy.is_empty() {
        t.push('\n');
    }
    for p in policy {
        writeln!(t, "{p}").unwrap();
    }
    t
}

fn ingest(state: &ChainState, text: &str) -> Result<(ChainState, JournalRevision), JournalError> {
    let parsed = nenjim_journal_parser::parse(text)?;
    let ingested = state.ingest_revision(parsed.clone())?;
    // Sharing values with the predecessor never changes one.
    assert!(ingested.revision().same_worldview(&parsed), "{text}");
    Ok((ingested.state().clone(), ingested.revision().clone()))
}

fn accepted(state: &ChainState, text: &str) -> (ChainState, JournalRevision) {
    ingest(state, text).unwrap_or_else(|e| panic!("refused: {e}\n{text}"))
}

fn refused(state: &ChainState, text: &str, kind: ErrorKind) {
    let error = ingest(state, text).expect_err("the revision must be refused");
    assert_eq!(error.kind(), kind, "{error}");
}

fn v(s: &str) -> ReleaseVersion {
    s.parse().unwrap()
}

fn c(s: &str) -> ArtifactCoordinate {
    s.parse().unwrap()
}

const T1: &str = "20261101T000000Z";

const T2: &str = "20261102T000000Z";

const T3: &str = "20261103T000000Z";
