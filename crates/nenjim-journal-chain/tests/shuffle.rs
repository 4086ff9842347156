//! Property tests: random valid chains ingest in order, and any other order
//! either ends in the same chains or fails with a typed chain error; it never
//! accepts a different history.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_chain::{ChainState, Outcome};
use nenjim_journal_testkit::docs::{self, *};
use proptest::prelude::*;

/// Per artifact, per revision after the genesis: (yank 1.0.0?, a comment?).
type Plan = Vec<Vec<(bool, bool)>>;

fn plans() -> impl Strategy<Value = Plan> {
    prop::collection::vec(
        prop::collection::vec((any::<bool>(), any::<bool>()), 0..5),
        1..4,
    )
}

/// The chains a plan describes, per artifact, in chain order.
fn chains_of(plan: &Plan) -> Vec<Vec<Doc>> {
    plan.iter()
        .enumerate()
        .map(|(i, steps)| {
            let i_u8 = u8::try_from(i).unwrap();
            let i_u32 = u32::try_from(i).unwrap();
            let mut doc =
                Doc::genesis(&format!("artifact-{i}"), 1 + i_u32).with(rel("1.0.0", i_u8 * 16));
            let mut chain = vec![doc.clone()];
            for (j, &(yank, comment)) in steps.iter().enumerate() {
                let j_u8 = u8::try_from(j + 1).unwrap();
                let day = 1 + i_u32 + 4 * u32::from(j_u8);
                doc = doc
                    .next(day)
                    .with(rel(&format!("1.{j_u8}.0"), i_u8 * 16 + j_u8));
                if yank {
                    doc = doc.policy(Pol::Yank("1.0.0".to_owned(), "withdrawn".to_owned()));
                }
                if comment {
                    doc = doc.comment(&format!("step {j_u8}"));
                }
                chain.push(doc.clone());
            }
            chain
        })
        .collect()
}

/// The plan's revisions interleaved round-robin across artifacts (a valid order).
fn in_order(chains: &[Vec<Doc>]) -> Vec<Doc> {
    let longest = chains.iter().map(Vec::len).max().unwrap_or(0);
    (0..longest)
        .flat_map(|j| chains.iter().filter_map(move |c| c.get(j).cloned()))
        .collect()
}

fn expected_chains(
    chains: &[Vec<Doc>],
) -> Vec<(
    nenjim_journal_api::valuetypes::ArtifactCoordinate,
    Vec<nenjim_journal_api::valuetypes::RevisionDigest>,
)> {
    let mut out: Vec<_> = chains
        .iter()
        .map(|c| {
            (
                coordinate(&c[0].artifact),
                c.iter().map(Doc::digest).collect::<Vec<_>>(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

const CHAIN_KINDS: [ErrorKind; 7] = [
    ErrorKind::Conflict,
    ErrorKind::DuplicateGenesis,
    ErrorKind::UnknownPredecessor,
    ErrorKind::CrossArtifactPredecessor,
    ErrorKind::StalePredecessor,
    ErrorKind::NonIncreasingVersion,
    ErrorKind::ReleaseRewritten,
];

/// Each accepted artifact history is a prefix of that artifact's true chain.
fn assert_prefixes(state: &ChainState, chains: &[Vec<Doc>]) -> Result<(), TestCaseError> {
    for (artifact, digests) in docs::chains(state) {
        let truth = chains
            .iter()
            .find(|c| coordinate(&c[0].artifact) == artifact)
            .unwrap();
        let truth: Vec<_> = truth.iter().map(Doc::digest).collect();
        prop_assert!(digests.len() <= truth.len());
        prop_assert_eq!(&digests[..], &truth[..digests.len()]);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn valid_chains_ingest_in_order(plan in plans()) {
        let chains = chains_of(&plan);
        let docs = in_order(&chains);
        let mut state = ChainState::new();
        for (n, doc) in docs.iter().enumerate() {
            let ingested = ingest(&state, doc).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(ingested.outcome(), Outcome::Accepted);
            prop_assert_eq!(ingested.revision().sequence(), n as u64 + 1);
            state = ingested.into_state();
        }
        prop_assert_eq!(docs::chains(&state), expected_chains(&chains));
        // The same through ingest_all, from parsed texts.
        let parsed: Vec<JournalRevision> = docs
            .iter()
            .map(|d| nenjim_journal_parser::parse(&d.text()).unwrap())
            .collect();
        let all = ChainState::new().ingest_all(parsed).unwrap();
        prop_assert_eq!(picture(&all), picture(&state));
    }

    #[test]
    fn any_order_gives_the_same_chains_or_a_typed_error(
        (plan, order) in plans().prop_flat_map(|plan| {
            let n: usize = plan.iter().map(|steps| steps.len() + 1).sum();
            let order: Vec<usize> = (0..n).collect();
            (Just(plan), Just(order).prop_shuffle())
        }),
    ) {
        let chains = chains_of(&plan);
        let docs = in_order(&chains);
        let shuffled: Vec<&Doc> = order.iter().map(|&i| &docs[i]).collect();
        let reference = build(&docs.iter().collect::<Vec<_>>());

        // All at once: the whole batch, or a typed error and nothing.
        let batch: Vec<JournalRevision> = shuffled.iter().map(|d| d.revision()).collect();
        match ChainState::new().ingest_all(batch) {
            Ok(state) => {
                prop_assert_eq!(docs::chains(&state), docs::chains(&reference));
                prop_assert_eq!(state.len(), reference.len());
            }
            Err(e) => prop_assert!(CHAIN_KINDS.contains(&e.kind()), "{}", e),
        }

        // One at a time, retrying the refused ones until nothing changes:
        // every intermediate history is a prefix of the truth, and the end is
        // the same chains.
        let mut state = ChainState::new();
        let mut pending = shuffled;
        loop {
            let mut refused = Vec::new();
            for doc in &pending {
                let before = picture(&state);
                match ingest(&state, doc) {
                    Ok(next) => state = next.into_state(),
                    Err(e) => {
                        prop_assert!(CHAIN_KINDS.contains(&e.kind()), "{}", e);
                        prop_assert_eq!(picture(&state), before);
                        refused.push(*doc);
                    }
                }
                assert_prefixes(&state, &chains)?;
            }
            if refused.is_empty() || refused.len() == pending.len() {
                pending = refused;
                break;
            }
            pending = refused;
        }
        prop_assert!(pending.is_empty(), "{} never accepted", pending.len());
        prop_assert_eq!(docs::chains(&state), docs::chains(&reference));

        // Repeating everything afterwards changes nothing.
        for doc in &docs {
            let again = ingest(&state, doc).unwrap();
            prop_assert_eq!(again.outcome(), Outcome::Unchanged);
            prop_assert_eq!(picture(again.state()), picture(&state));
        }
    }
}
