//! One artifact's chain: a persistent, append-only B-tree keyed by Journal
//! version.
//!
//! A chain only ever grows at its end (section 6: a successor's Journal
//! version is greater than the head's), so the tree never splits in the
//! middle: every node but those on the right edge is full. Each node keeps
//! the Journal versions of its entries (a leaf) or the first version of each
//! child (a branch) in one contiguous slice, so an exact or an as-of lookup
//! is one descent from the root with a search (interpolation, then a gallop
//! and a binary search) of at most [`WIDTH`] versions per level, reading no
//! revision until the one it returns: O(log n) at worst, a few keys per
//! level for a chain of regular pace, and no allocation.
//!
//! Appending path-copies the right edge (O(log n) nodes of at most
//! [`WIDTH`] entries, through `Arc::make_mut`), so an older snapshot that
//! shares the chain is never changed and a next state copies no more.

use std::sync::Arc;

use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::valuetypes::JournalVersion;

/// Entries per node.
///
/// 512: a chain of 100 000 revisions is two levels, not three (bench P5,
/// `revision_as_of`; figures in `benches/RESULTS.md`).
/// Leaves grow on demand, so a short chain does not pay for the width; a
/// path copy (an append to a chain a snapshot still shares) copies at most
/// one 512-entry leaf. The unit tests use 16, to build deep trees quickly.
const WIDTH: usize = if cfg!(test) { 16 } else { 512 };

/// A node's key: the Journal version in seconds ([`ordinal_seconds`](crate::key::ordinal_seconds)),
/// which a lookup can interpolate.
type Key = u64;

fn key(version: JournalVersion) -> Key {
    crate::key::ordinal_seconds(version)
}

#[derive(Clone, Debug)]
struct Leaf {
    versions: Vec<Key>,
    revisions: Vec<JournalRevision>,
}

#[derive(Clone, Debug)]
struct Branch {
    /// The first Journal version under each child.
    firsts: Vec<Key>,
    children: Vec<Node>,
}

#[derive(Clone, Debug)]
enum Node {
    Leaf(Arc<Leaf>),
    Branch(Arc<Branch>),
}

/// The revisions of one artifact, ascending by Journal version.
#[derive(Clone, Debug)]
pub(crate) struct Chain {
    root: Node,
    len: usize,
    first: JournalRevision,
    head: JournalRevision,
}

impl Node {
    fn leaf(version: Key, revision: JournalRevision) -> Node {
        // Grown on demand, not reserved at `WIDTH`: most chains are short
        // (a bench root of 2 000 artifacts with 5 revisions each spent 5 MB,
        // a fifth of its state, on empty leaf slots).
        let versions = vec![version];
        let revisions = vec![revision];
        Node::Leaf(Arc::new(Leaf {
            versions,
            revisions,
        }))
    }

    /// Appends at the right edge; returns a new right sibling of the same
    /// height (holding only the new revision) when this node is full.
    fn push(&mut self, version: Key, revision: JournalRevision) -> Option<Node> {
        match self {
            Node::Leaf(leaf) => {
                if leaf.versions.len() < WIDTH {
                    let leaf = Arc::make_mut(leaf);
                    leaf.versions.push(version);
                    leaf.revisions.push(revision);
                    None
                } else {
                    Some(Node::leaf(version, revision))
                }
            }
            Node::Branch(branch) => {
                let full = branch.children.len() >= WIDTH;
                let branch_mut = Arc::make_mut(branch);
                let last = branch_mut.children.last_mut()?;
                let sibling = last.push(version, revision)?;
                if full {
                    Some(Node::Branch(Arc::new(Branch {
                        firsts: vec![version],
                        children: vec![sibling],
                    })))
                } else {
                    branch_mut.firsts.push(version);
                    branch_mut.children.push(sibling);
                    None
                }
            }
        }
    }

    fn first_version(&self) -> Option<Key> {
        match self {
            Node::Leaf(leaf) => leaf.versions.first().copied(),
            Node::Branch(branch) => branch.firsts.first().copied(),
        }
    }

    fn for_each<'a>(&'a self, f: &mut impl FnMut(&'a JournalRevision)) {
        match self {
            Node::Leaf(leaf) => leaf.revisions.iter().for_each(f),
            Node::Branch(branch) => branch.children.iter().for_each(|c| c.for_each(f)),
        }
    }
}

/// How many of the strictly ascending `keys` are at or before `version`
/// (where `partition_point` would stop), by interpolation, then a gallop
/// and a binary search between the keys the gallop found.
///
/// A key counts seconds ([`ordinal_seconds`](crate::key::ordinal_seconds)), so in a chain whose
/// revisions come at a regular pace (a release a day, say) the first guess
/// is the answer or next to it, and the search reads two or three keys of
/// a 512-key node instead of the nine of a binary search. An irregular
/// chain costs at most a gallop: O(log d) for a guess d keys off. (Bench
/// P5, `revision_as_of` in the middle of 100 000 revisions: figures in
/// `benches/report-notes.md`; interpolating the decimal `YYYYMMDDhhmmss`
/// instead was slower than a binary search, its jumps at month and year
/// ends put the guess far off.)
fn count_at_or_before(keys: &[Key], version: Key) -> usize {
    let (Some(&first), Some(&last)) = (keys.first(), keys.last()) else {
        return 0;
    };
    if version < first {
        return 0;
    }
    if version >= last {
        return keys.len();
    }
    // Here first <= version < last: at least two keys, and the answer is
    // in 1..len. `at_or_before(i)`: whether key i is at or before version
    // (false past the end, which cannot be reached: the last key is after).
    let at_or_before = |i: usize| keys.get(i).is_some_and(|k| *k <= version);
    let span = last - first;
    let steps = (keys.len() - 1) as u64;
    // (version - first) * steps < span * steps, which fits: a key is below
    // 3.2e11 and a node holds at most `WIDTH` keys.
    let guess = (version - first)
        .checked_mul(steps)
        .map_or(keys.len() / 2, |product| (product / span) as usize);
    // Bracket the answer: key `low` is at or before, key `high` after.
    let (mut low, mut high);
    if at_or_before(guess) {
        low = guess;
        let mut step = 1;
        loop {
            let next = (low + step).min(keys.len() - 1);
            if at_or_before(next) {
                low = next;
                step *= 2;
            } else {
                high = next;
                break;
            }
        }
    } else {
        high = guess;
        let mut step = 1;
        loop {
            let next = high.saturating_sub(step);
            if at_or_before(next) {
                low = next;
                break;
            }
            high = next;
            step *= 2;
        }
    }
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        if at_or_before(middle) {
            low = middle;
        } else {
            high = middle;
        }
    }
    high
}

impl Chain {
    /// A chain of one revision.
    pub(crate) fn new(revision: JournalRevision) -> Chain {
        Chain {
            root: Node::leaf(key(revision.journal_version()), revision.clone()),
            len: 1,
            first: revision.clone(),
            head: revision,
        }
    }

    /// Appends a revision whose Journal version is greater than the head's.
    pub(crate) fn push(&mut self, revision: JournalRevision) {
        let version = key(revision.journal_version());
        if let Some(sibling) = self.root.push(version, revision.clone()) {
            let old = self.root.clone();
            let firsts = [old.first_version(), sibling.first_version()]
                .into_iter()
                .flatten()
                .collect();
            self.root = Node::Branch(Arc::new(Branch {
                firsts,
                children: vec![old, sibling],
            }));
        }
        self.len += 1;
        self.head = revision;
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The oldest revision (the genesis).
    pub(crate) fn front(&self) -> &JournalRevision {
        &self.first
    }

    /// The newest revision (the head).
    pub(crate) fn last(&self) -> &JournalRevision {
        &self.head
    }

    /// The newest revision at or before `version`.
    pub(crate) fn at_or_before(&self, version: JournalVersion) -> Option<&JournalRevision> {
        let version = key(version);
        let mut node = &self.root;
        loop {
            match node {
                Node::Branch(branch) => {
                    let i = count_at_or_before(&branch.firsts, version);
                    node = branch.children.get(i.checked_sub(1)?)?;
                }
                Node::Leaf(leaf) => {
                    let i = count_at_or_before(&leaf.versions, version);
                    return leaf.revisions.get(i.checked_sub(1)?);
                }
            }
        }
    }

    /// The revision at exactly `version`.
    pub(crate) fn exact(&self, version: JournalVersion) -> Option<&JournalRevision> {
        self.at_or_before(version)
            .filter(|r| r.journal_version() == version)
    }

    /// Every revision, ascending.
    pub(crate) fn to_vec(&self) -> Vec<JournalRevision> {
        let mut all = Vec::with_capacity(self.len);
        self.root.for_each(&mut |r| all.push(r.clone()));
        all
    }

    /// Whether both chains are the very same value (shared, not copied).
    #[cfg(test)]
    pub(crate) fn ptr_eq(&self, other: &Chain) -> bool {
        let root = match (&self.root, &other.root) {
            (Node::Leaf(a), Node::Leaf(b)) => Arc::ptr_eq(a, b),
            (Node::Branch(a), Node::Branch(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        root && self.len == other.len
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use nenjim_journal_api::model::build::RevisionBuilder;
    use nenjim_journal_api::valuetypes::{Description, RevisionDigest};

    fn version(day: u32) -> JournalVersion {
        let year = 2000 + day / 300;
        let month = (day % 300) / 28 + 1;
        let d = (day % 300) % 28 + 1;
        format!("{year:04}{month:02}{d:02}T120000Z")
            .parse()
            .unwrap()
    }

    fn revision(day: u32) -> JournalRevision {
        RevisionBuilder::new(
            "a".parse().unwrap(),
            version(day),
            None,
            Description::new("x").unwrap(),
        )
        .build(RevisionDigest::of_text(&day.to_string()))
    }

    proptest::proptest! {
        #[test]
        fn the_count_is_partition_point(
            mut days in proptest::collection::btree_set(0u32..5_000, 0..300),
            probe in 0u32..5_100,
        ) {
            days.insert(0);
            let keys: Vec<Key> = days.iter().map(|&d| key(version(d))).collect();
            let probe = key(version(probe));
            proptest::prop_assert_eq!(
                count_at_or_before(&keys, probe),
                keys.partition_point(|k| *k <= probe)
            );
        }

        /// Any ascending keys, clustered or spread over the whole range a
        /// key can take, and a probe at each key, next to it, and anywhere.
        #[test]
        fn the_count_is_partition_point_for_any_keys(
            keys in proptest::collection::btree_set(
                proptest::prop_oneof![0u64..1_000, 0u64..320_000_000_000],
                0..WIDTH + 1,
            ),
            probe in 0u64..320_000_000_001,
        ) {
            let keys: Vec<Key> = keys.into_iter().collect();
            let probes = keys
                .iter()
                .flat_map(|&k| [k.saturating_sub(1), k, k + 1])
                .chain([probe, 0, u64::MAX]);
            for probe in probes {
                proptest::prop_assert_eq!(
                    count_at_or_before(&keys, probe),
                    keys.partition_point(|k| *k <= probe),
                    "probe {}", probe
                );
            }
        }
    }

    #[test]
    fn lookups_agree_with_a_sorted_vector_at_every_size() {
        for n in [1u32, 2, 31, 32, 33, 1023, 1024, 1025, 1100] {
            let mut chain = Chain::new(revision(0));
            let mut snapshots = vec![chain.clone()];
            for day in 1..n {
                chain.push(revision(day * 2));
                if day % 97 == 0 {
                    snapshots.push(chain.clone());
                }
            }
            assert_eq!(chain.len(), n as usize);
            let all = chain.to_vec();
            assert_eq!(all.len(), n as usize);
            assert!(
                all.windows(2)
                    .all(|w| w[0].journal_version() < w[1].journal_version())
            );
            assert_eq!(chain.front().journal_version(), version(0));
            assert_eq!(chain.last().journal_version(), version((n - 1) * 2));
            for probe in 0..(n * 2 + 1) {
                let expected = all
                    .iter()
                    .rev()
                    .find(|r| r.journal_version() <= version(probe))
                    .map(|r| r.journal_version());
                assert_eq!(
                    chain
                        .at_or_before(version(probe))
                        .map(|r| r.journal_version()),
                    expected
                );
                assert_eq!(
                    chain.exact(version(probe)).is_some(),
                    probe % 2 == 0 && probe < n * 2
                );
            }
            // Earlier snapshots were not changed by later appends.
            for (i, snapshot) in snapshots.iter().enumerate() {
                let len = if i == 0 { 1 } else { i * 97 + 1 };
                assert_eq!(snapshot.len(), len);
                assert_eq!(snapshot.to_vec().len(), len);
            }
        }
    }

    #[test]
    fn a_three_level_tree_finds_every_revision_and_keeps_old_snapshots() {
        // WIDTH * WIDTH entries fill two levels; one more needs a third.
        let n = (WIDTH * WIDTH + WIDTH + 1) as u32;
        let mut chain = Chain::new(revision(0));
        let mut two_levels = None;
        for day in 1..n {
            chain.push(revision(day * 2));
            if day as usize == WIDTH * WIDTH - 1 {
                two_levels = Some(chain.clone());
            }
        }
        assert_eq!(chain.len(), n as usize);
        for day in 0..n {
            let exact = chain.exact(version(day * 2)).map(|r| r.journal_version());
            assert_eq!(exact, Some(version(day * 2)));
            let before = chain
                .at_or_before(version(day * 2 + 1))
                .map(|r| r.journal_version());
            assert_eq!(before, Some(version(day * 2)));
            assert!(chain.exact(version(day * 2 + 1)).is_none());
        }
        let two_levels = two_levels.expect("the snapshot at two full levels was taken");
        assert_eq!(two_levels.len(), WIDTH * WIDTH);
        assert_eq!(
            two_levels.last().journal_version(),
            version(((WIDTH * WIDTH - 1) * 2) as u32)
        );
        assert!(
            two_levels
                .exact(version((WIDTH * WIDTH * 2) as u32))
                .is_none()
        );
        assert_eq!(chain.to_vec().len(), n as usize);
    }
}
