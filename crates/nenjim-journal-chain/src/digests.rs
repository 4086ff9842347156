//! The digest index: where the revision with a digest is stored.
//!
//! Keyed by the digest's first eight bytes in an ordered map (`imbl`'s
//! B-tree, whose leaves hold 16 entries of 16 bytes each), the rest of the
//! digest being checked against the stored revision itself. A
//! `HashMap<RevisionDigest, Located>` (a HAMT) spent ~250 bytes an entry at
//! 100 000 revisions, the largest single item of a loaded state: 56-byte
//! slots in leaves a quarter full. A SHA-256 prefix of 64 bits is unique in
//! practice but can be forged with ~2^32 work, so a digest whose prefix is
//! already taken goes to a second, full-key map (empty in practice), and so
//! does an entry whose numbers do not fit 32 bits each.

use imbl::{HashMap, OrdMap};
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::valuetypes::RevisionDigest;

use crate::Located;

/// Every stored revision's [`Located`] by its digest (see the module docs).
#[derive(Clone, Default)]
pub(crate) struct DigestIndex {
    /// By the digest's first eight bytes: the log index in the low half,
    /// the chain position in the high half.
    by_prefix: OrdMap<u64, u64>,
    /// The entries `by_prefix` cannot hold.
    overflow: HashMap<RevisionDigest, Located>,
}

/// The digest's first eight bytes, its key in `by_prefix`.
fn prefix(digest: &RevisionDigest) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&digest.as_bytes()[..8]);
    u64::from_le_bytes(word)
}

/// Where a new digest goes in a [`DigestIndex`] ([`DigestIndex::vacancy`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Vacancy {
    /// Under this prefix, not yet taken.
    Prefix(u64),
    /// In the full-key map: its prefix is taken.
    Overflow,
}

/// A `by_prefix` value: the log index in the low half, the chain position
/// in the high half.
fn unpack(packed: u64) -> Located {
    Located {
        index: (packed & u64::from(u32::MAX)) as usize,
        position: (packed >> 32) as usize,
    }
}

impl DigestIndex {
    /// Where the revision with `digest` is; `stored` reads the revision at a
    /// log index (to tell a revision from another one with the same prefix).
    pub(crate) fn get<'a>(
        &self,
        digest: &RevisionDigest,
        stored: impl FnOnce(usize) -> Option<&'a JournalRevision>,
    ) -> Option<Located> {
        if let Some(&packed) = self.by_prefix.get(&prefix(digest)) {
            let located = unpack(packed);
            if stored(located.index).is_some_and(|r| r.digest() == digest) {
                return Some(located);
            }
        }
        self.overflow.get(digest).copied()
    }

    /// Where `digest` would be recorded ([`fill`](Self::fill)), or where
    /// the revision with `digest` already is: [`get`](Self::get) and the
    /// choice of [`insert`](Self::insert) in one look-up of the prefix (an
    /// ingestion checks the digest is new, then records it: the B-tree
    /// walked once less, each level a likely cache miss at 100 000 digests).
    pub(crate) fn vacancy<'a>(
        &self,
        digest: &RevisionDigest,
        stored: impl FnOnce(usize) -> Option<&'a JournalRevision>,
    ) -> Result<Vacancy, Located> {
        let key = prefix(digest);
        let taken = match self.by_prefix.get(&key) {
            Some(&packed) => {
                let located = unpack(packed);
                if stored(located.index).is_some_and(|r| r.digest() == digest) {
                    return Err(located);
                }
                true
            }
            None => false,
        };
        if let Some(located) = self.overflow.get(digest) {
            return Err(*located);
        }
        Ok(if taken {
            Vacancy::Overflow
        } else {
            Vacancy::Prefix(key)
        })
    }

    /// Records `located` for `digest` at `vacancy`, which
    /// [`vacancy`](Self::vacancy) just gave for it.
    pub(crate) fn fill(&mut self, vacancy: Vacancy, digest: &RevisionDigest, located: Located) {
        match (
            vacancy,
            u32::try_from(located.index),
            u32::try_from(located.position),
        ) {
            (Vacancy::Prefix(key), Ok(index), Ok(position)) => {
                self.by_prefix
                    .insert(key, u64::from(index) | (u64::from(position) << 32));
            }
            _ => {
                self.overflow.insert(*digest, located);
            }
        }
    }

    /// Records `located` for `digest`, which is not yet recorded.
    #[cfg(test)]
    pub(crate) fn insert(&mut self, digest: &RevisionDigest, located: Located) {
        let vacancy = if self.by_prefix.contains_key(&prefix(digest)) {
            Vacancy::Overflow
        } else {
            Vacancy::Prefix(prefix(digest))
        };
        self.fill(vacancy, digest, located);
    }

    /// The number of recorded digests.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.by_prefix.len() + self.overflow.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A digest of zeros but its first and last bytes.
    fn digest(first: u8, last: u8) -> RevisionDigest {
        let mut bytes = [0u8; 32];
        bytes[0] = first;
        bytes[31] = last;
        RevisionDigest::from_bytes(bytes)
    }

    #[test]
    fn a_taken_prefix_or_a_large_number_goes_to_the_full_key_map() {
        let mut index = DigestIndex::default();
        let at = |index, position| Located { index, position };
        index.insert(&digest(1, 0), at(0, 0));
        index.insert(&digest(1, 1), at(1, 1)); // same prefix
        index.insert(&digest(2, 0), at(usize::MAX, 2));
        assert_eq!(index.len(), 3);
        assert_eq!(index.by_prefix.len(), 1);
        // Without a stored revision to confirm the prefix entry, a lookup
        // falls through to the full-key map.
        assert_eq!(index.get(&digest(1, 0), |_| None), None);
        assert_eq!(index.get(&digest(1, 1), |_| None), Some(at(1, 1)));
        assert_eq!(index.get(&digest(2, 0), |_| None), Some(at(usize::MAX, 2)));
        assert_eq!(index.get(&digest(3, 0), |_| None), None);
    }

    #[test]
    fn a_vacancy_is_the_place_insert_chooses_and_a_stored_digest_is_none() {
        let at = |index, position| Located { index, position };
        // The revisions the index confirms its prefix entries with.
        let stored: Vec<JournalRevision> = (0..2u8)
            .map(|n| {
                nenjim_journal_api::model::build::RevisionBuilder::new(
                    "left-pad".parse().unwrap_or_else(|_| unreachable!()),
                    format!("2026010{}T000000Z", n + 1)
                        .parse()
                        .unwrap_or_else(|_| unreachable!()),
                    None,
                    nenjim_journal_api::valuetypes::Description::new("d")
                        .unwrap_or_else(|_| unreachable!()),
                )
                .build(digest(1, n))
            })
            .collect();
        let mut index = DigestIndex::default();
        let first = digest(1, 0);
        let Ok(vacancy) = index.vacancy(&first, |i| stored.get(i)) else {
            unreachable!("a new digest has a vacancy")
        };
        assert!(matches!(vacancy, Vacancy::Prefix(_)));
        index.fill(vacancy, &first, at(0, 0));
        assert_eq!(
            index.vacancy(&first, |i| stored.get(i)).err(),
            Some(at(0, 0))
        );
        // Same prefix, another digest: the full-key map.
        let second = digest(1, 1);
        let Ok(vacancy) = index.vacancy(&second, |i| stored.get(i)) else {
            unreachable!("a new digest has a vacancy")
        };
        assert!(matches!(vacancy, Vacancy::Overflow));
        index.fill(vacancy, &second, at(1, 1));
        assert_eq!(
            index.vacancy(&second, |i| stored.get(i)).err(),
            Some(at(1, 1))
        );
        assert_eq!(index.get(&second, |i| stored.get(i)), Some(at(1, 1)));
        assert_eq!((index.len(), index.by_prefix.len()), (2, 1));
    }
}
