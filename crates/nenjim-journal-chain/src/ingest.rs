//! The ingestion rules of section 6, checked in the order the format gives.

use nenjim_journal_api::error::{self, ErrorKind, JournalError};
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::model::build;
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, RevisionDigest};

use crate::chain::Chain;
use crate::{ChainState, Located, Outcome, rewrite};

/// Rule 1 of section 6: a text of `artifact` at `version` with digest
/// `found`, when that revision is stored with digest `stored` (a stored
/// revision never changes). Ingestion and a refresh that only hashes the
/// files it holds both report it so.
pub fn conflict(
    artifact: &ArtifactCoordinate,
    version: JournalVersion,
    found: &RevisionDigest,
    stored: &RevisionDigest,
) -> JournalError {
    error::error(
        ErrorKind::Conflict,
        format!(
            "found revision {artifact} {version} with digest {found}, but {artifact} {version} is already stored with digest {stored}; expected the identical text (a stored revision never changes)"
        ),
    )
}

impl ChainState {
    /// Decides `revision`'s place and, only if every check passes, records
    /// it. On error `self` is unchanged (every check precedes every change).
    pub(crate) fn ingest_in_place(
        &mut self,
        revision: JournalRevision,
        sequence: Option<u64>,
    ) -> Result<(JournalRevision, Outcome), JournalError> {
        let artifact = revision.coordinate();
        let version = revision.journal_version();
        let digest = revision.digest();
        let chain = self.chains.get(artifact);

        // 1. Same artifact and Journal version already stored.
        if let Some(chain) = chain
            && let Some(stored) = chain.exact(version)
        {
            if stored.digest() == digest {
                return Ok((stored.clone(), Outcome::Unchanged));
            }
            return Err(conflict(artifact, version, digest, stored.digest()));
        }

        // The head the revision follows, once rules 2 to 5 hold.
        let head = match (revision.predecessor(), chain) {
            // 2. A genesis for a known artifact.
            (None, Some(chain)) => {
                let g = chain.front();
                let genesis = format!("genesis {} ({})", g.journal_version(), g.digest());
                return Err(error::error(
                    ErrorKind::DuplicateGenesis,
                    format!(
                        "found a second genesis of {artifact} at {version} ({digest}), but {artifact} already has {genesis}; expected PREDECESSOR naming the head's digest"
                    ),
                ));
            }
            (None, None) => None,
            // The common append: the predecessor is the artifact's head.
            // Rules 3 to 5 pass without the digest index (the head is the
            // one stored revision with its digest, and of this artifact).
            (Some(predecessor), Some(chain)) if chain.last().digest() == predecessor => {
                Some(chain.last())
            }
            (Some(predecessor), chain) => {
                // 3. Unknown predecessor.
                let Some(located) = self.digests.get(predecessor, |i| self.log.get(i)) else {
                    return Err(error::error(
                        ErrorKind::UnknownPredecessor,
                        format!(
                            "found PREDECESSOR {predecessor} in {artifact} {version} ({digest}), but no stored revision has that digest; expected the digest of the head of {artifact}{}",
                            head_hint(chain)
                        ),
                    ));
                };
                let owner = self.stored(located);
                // 4. A predecessor of another artifact.
                if owner.coordinate() != artifact {
                    return Err(error::error(
                        ErrorKind::CrossArtifactPredecessor,
                        format!(
                            "found PREDECESSOR {predecessor} in {artifact} {version} ({digest}), which is revision {} {} of another artifact; expected the digest of the head of {artifact}{}",
                            owner.coordinate(),
                            owner.journal_version(),
                            head_hint(chain)
                        ),
                    ));
                }
                #[allow(clippy::expect_used)] // an invariant of the state, not of any input
                let head = chain
                    .map(Chain::last)
                    .expect("invariant: a stored revision's artifact has a chain");
                // 5. A fork from a revision that is not the head.
                if head.digest() != predecessor {
                    return Err(error::error(
                        ErrorKind::StalePredecessor,
                        format!(
                            "found PREDECESSOR {predecessor} in {artifact} {version} ({digest}), which is the stale revision {artifact} {} (position {} of {}); expected the head {} ({})",
                            owner.journal_version(),
                            located.position + 1,
                            chain.map_or(0, |c| c.len()),
                            head.journal_version(),
                            head.digest()
                        ),
                    ));
                }
                Some(head)
            }
        };
        if let Some(head) = head {
            // 6. Journal versions strictly increase along a chain.
            if version <= head.journal_version() {
                return Err(error::error(
                    ErrorKind::NonIncreasingVersion,
                    format!(
                        "found JOURNAL_VERSION {version} in {artifact} ({digest}), not after its predecessor's {} ({}); expected a Journal version greater than the head's",
                        head.journal_version(),
                        head.digest()
                    ),
                ));
            }
            // 7. Every release of the head kept with the same values.
            rewrite::check(head, &revision)?;
        }
        let predecessor = head.cloned();

        // A digest is unique to one text, so a stored digest under another
        // artifact or version can only come from a hand-built revision; refuse
        // it rather than corrupt the index.
        let vacancy = match self.digests.vacancy(digest, |i| self.log.get(i)) {
            Ok(vacancy) => vacancy,
            Err(located) => {
                let other = self.stored(located);
                return Err(error::error(
                    ErrorKind::Conflict,
                    format!(
                        "found digest {digest} for {artifact} {version}, but it is already stored for {} {}; expected a digest of this revision's own text",
                        other.coordinate(),
                        other.journal_version()
                    ),
                ));
            }
        };

        // A ledger's sequences only ever increase (they may leave gaps).
        let last = self.last_sequence();
        let sequence = match sequence {
            None => last + 1,
            Some(sequence) if sequence > last => sequence,
            Some(sequence) => {
                return Err(error::error(
                    ErrorKind::LedgerMismatch,
                    format!(
                        "found sequence {sequence} for {artifact} {version} ({digest}), not after the last recorded sequence {last}; expected strictly increasing ledger sequences"
                    ),
                ));
            }
        };
        // Every check passed: record the revision (infallible from here on).
        let accepted = build::with_sequence(
            match &predecessor {
                Some(head) => build::sharing_releases_with(revision, head),
                None => revision,
            },
            sequence,
        );
        let position = match self.chains.get_mut(accepted.coordinate()) {
            Some(chain) => {
                let position = chain.len();
                chain.push(accepted.clone());
                position
            }
            None => {
                self.chains
                    .insert(accepted.coordinate().clone(), Chain::new(accepted.clone()));
                self.coordinates.insert(accepted.coordinate().clone());
                0
            }
        };
        let index = self.log.len();
        self.digests
            .fill(vacancy, accepted.digest(), Located { index, position });
        self.log.push_back(accepted.clone());
        Ok((accepted, Outcome::Accepted))
    }

    /// The stored revision at `located`.
    #[allow(clippy::expect_used)] // an invariant of the state, not of any input
    fn stored(&self, located: Located) -> &JournalRevision {
        self.log
            .get(located.index)
            .expect("invariant: every digest index entry names a stored log index")
    }
}

/// ` (currently <version> <digest>)` for a known chain, or a note that the
/// artifact has none yet.
fn head_hint(chain: Option<&Chain>) -> String {
    match chain.map(Chain::last) {
        Some(head) => format!(" ({} {})", head.journal_version(), head.digest()),
        None => ", which has no stored revision yet (or PREDECESSOR GENESIS)".to_owned(),
    }
}
