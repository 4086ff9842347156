//! Inclusion and consistency proofs for random tree sizes and indexes:
//! they verify, fail for any altered hash, and are the same whether
//! computed from the leaves in memory or from the tiles a writer's
//! `TreeState` produced; the writer's roots and tiles match the tree hash
//! of the leaves, whether grown in one go, in batches, replayed or resumed.

use std::collections::BTreeMap;

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_tlog::hash::{Hash, leaf_hash, tree_hash};
use nenjim_journal_tlog::tile::{Tile, TileHashes, unbundle};
use nenjim_journal_tlog::tree::{
    LeafHashes, TreeState, prove_consistency, prove_inclusion, tree_root, verify_consistency,
    verify_inclusion,
};
use proptest::prelude::*;

fn record(i: u64) -> Vec<u8> {
    format!("{} REVISION a/b {i} 10 sha256:{i:064x}", i + 1).into_bytes()
}

fn leaves(n: u64) -> Vec<Hash> {
    (0..n).map(|i| leaf_hash(&record(i))).collect()
}

/// Every tile of a tree grown to `sizes` one after the other, as a writer
/// stores them: full tiles once, partial ones replaced.
fn grow(sizes: &[u64]) -> (TreeState, BTreeMap<String, Vec<u8>>) {
    let mut state = TreeState::new();
    let mut store = BTreeMap::new();
    for &size in sizes {
        while state.size() < size {
            state.append(&record(state.size())).unwrap();
        }
        let taken = state.take_tiles();
        for t in &taken {
            if t.tile.is_full() {
                assert!(
                    !store.contains_key(&t.tile.path()),
                    "{} written twice",
                    t.tile
                );
            }
            store.insert(t.tile.path(), t.data.clone());
        }
    }
    (state, store)
}

fn reader(
    store: &BTreeMap<String, Vec<u8>>,
) -> impl FnMut(&Tile) -> Result<Vec<u8>, JournalError> + '_ {
    |tile: &Tile| {
        store.get(&tile.path()).cloned().ok_or_else(|| {
            nenjim_journal_api::error::error(ErrorKind::Io, format!("no tile {tile}"))
        })
    }
}

/// One altered copy of `proof` per position (one bit flipped there).
fn altered(proof: &[Hash]) -> Vec<Vec<Hash>> {
    (0..proof.len())
        .map(|i| {
            let mut p = proof.to_vec();
            p[i].0[i % 32] ^= 1 << (i % 8);
            p
        })
        .collect()
}

fn sizes() -> impl Strategy<Value = u64> {
    prop_oneof![
        1u64..40,
        1u64..700,
        Just(256),
        Just(257),
        Just(512),
        Just(65)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn inclusion_proofs_verify_and_fail_when_altered(size in sizes(), pick in any::<u64>()) {
        let index = pick % size;
        let hashes = leaves(size);
        let root = tree_hash(&hashes);
        let mut memory = LeafHashes(hashes.clone());
        let proof = prove_inclusion(&mut memory, size, index).unwrap();
        prop_assert!(verify_inclusion(&hashes[index as usize], index, size, &root, &proof).is_ok());
        for bad in altered(&proof) {
            let e = verify_inclusion(&hashes[index as usize], index, size, &root, &bad).unwrap_err();
            prop_assert_eq!(e.kind(), ErrorKind::CheckpointMismatch);
        }
        // Another leaf, another index, another root, a proof
        // one hash short or long: all refused.
        let other = leaf_hash(b"other");
        prop_assert!(verify_inclusion(&other, index, size, &root, &proof).is_err());
        if size > 1 {
            prop_assert!(verify_inclusion(&hashes[index as usize], (index + 1) % size, size, &root, &proof).is_err());
        }
        prop_assert!(verify_inclusion(&hashes[index as usize], index, size, &other, &proof).is_err());
        if let Some((_, short)) = proof.split_last() {
            prop_assert!(verify_inclusion(&hashes[index as usize], index, size, &root, short).is_err());
        }
        let mut long = proof.clone();
        long.push(other);
        prop_assert!(verify_inclusion(&hashes[index as usize], index, size, &root, &long).is_err());
        prop_assert!(verify_inclusion(&hashes[index as usize], size, size, &root, &proof).is_err());
    }

    #[test]
    fn consistency_proofs_verify_and_fail_when_altered(new in sizes(), pick in any::<u64>()) {
        let old = pick % (new + 1);
        let hashes = leaves(new);
        let (old_root, new_root) = (tree_hash(&hashes[..old as usize]), tree_hash(&hashes));
        let mut memory = LeafHashes(hashes.clone());
        let proof = prove_consistency(&mut memory, old, new).unwrap();
        prop_assert!(verify_consistency(old, new, &old_root, &new_root, &proof).is_ok());
        for bad in altered(&proof) {
            let e = verify_consistency(old, new, &old_root, &new_root, &bad).unwrap_err();
            prop_assert_eq!(e.kind(), ErrorKind::Rollback);
        }
        let other = leaf_hash(b"other");
        prop_assert!(verify_consistency(old, new, &other, &new_root, &proof).is_err());
        if old > 0 {
            // (Every tree extends the empty one, whatever its root.)
            prop_assert!(verify_consistency(old, new, &old_root, &other, &proof).is_err());
        }
        if old > 0 && old < new {
            // A fork: the same size, one leaf changed after the old tree.
            let mut forked = hashes.clone();
            forked[old as usize] = other;
            prop_assert!(verify_consistency(old, new, &old_root, &tree_hash(&forked), &proof).is_err());
        }
        if old < new {
            // The other way round is a rollback.
            prop_assert!(verify_consistency(new, old, &new_root, &old_root, &proof).is_err());
            prop_assert_eq!(prove_consistency(&mut memory, new, old).unwrap_err().kind(), ErrorKind::Rollback);
        }
        if old > 0 && old < new {
            prop_assert!(verify_consistency(old - 1, new, &old_root, &new_root, &proof).is_err());
            let mut long = proof.clone();
            long.push(other);
            prop_assert!(verify_consistency(old, new, &old_root, &new_root, &long).is_err());
            let short = &proof[..proof.len() - 1];
            prop_assert!(verify_consistency(old, new, &old_root, &new_root, short).is_err());
        }
    }

    #[test]
    fn tiles_give_the_same_roots_and_proofs(
        steps in prop::collection::vec(1u64..300, 1..6),
        pick in any::<u64>(),
        pick_old in any::<u64>(),
    ) {
        // The writer grows the tree in batches; every checkpoint size's
        // root is the tree hash, and the tiles of the last size give the
        // same proofs as the leaves.
        let sizes: Vec<u64> = steps.iter().scan(0, |s, d| { *s += d; Some(*s) }).collect();
        let (state, store) = grow(&sizes);
        let size = state.size();
        let hashes = leaves(size);
        prop_assert_eq!(state.root(), tree_hash(&hashes));
        let mut from_tiles = TileHashes::new(size, reader(&store));
        prop_assert_eq!(tree_root(&mut from_tiles, size).unwrap(), state.root());
        let index = pick % size;
        let mut memory = LeafHashes(hashes.clone());
        prop_assert_eq!(
            prove_inclusion(&mut from_tiles, size, index).unwrap(),
            prove_inclusion(&mut memory, size, index).unwrap()
        );
        // A consistency proof to an earlier checkpoint size, from the
        // tiles of the later one only.
        let old = sizes[(pick_old % sizes.len() as u64) as usize];
        prop_assert_eq!(
            prove_consistency(&mut from_tiles, old, size).unwrap(),
            prove_consistency(&mut memory, old, size).unwrap()
        );
        // The entry bundles hold the records, in order.
        let mut records = Vec::new();
        for index in 0..size.div_ceil(256) {
            let tile = Tile::entries(index, size).unwrap();
            records.extend(unbundle(&store[&tile.path()]).unwrap().into_iter().map(<[u8]>::to_vec));
        }
        prop_assert_eq!(records, (0..size).map(record).collect::<Vec<_>>());
        // Tiles of the wrong length are refused.
        let mut damaged = store.clone();
        for data in damaged.values_mut() {
            data.pop();
        }
        let mut bad = TileHashes::new(size, reader(&damaged));
        let e = tree_root(&mut bad, size).unwrap_err();
        prop_assert_eq!(e.kind(), ErrorKind::CheckpointMismatch);
    }

    #[test]
    fn replayed_and_resumed_states_continue_alike(before in 0u64..700, after in 1u64..300) {
        // Grown, replayed from the records (tiles published up to
        // `before`), or resumed from the partial tiles: the same root and
        // the same tiles for the next growth.
        let (mut grown, store) = grow(&[before]);
        let mut replayed = TreeState::replay((0..before).map(record), before).unwrap();
        let partial = Tile::partials(before);
        let mut levels = Vec::new();
        let mut bundle = Vec::new();
        for tile in &partial {
            let data = &store[&tile.path()];
            match tile.kind {
                nenjim_journal_tlog::tile::TileKind::Hashes { .. } => levels.push(
                    data.chunks_exact(32).map(|c| Hash(c.try_into().unwrap())).collect::<Vec<_>>()),
                nenjim_journal_tlog::tile::TileKind::Entries => bundle = unbundle(data).unwrap()
                    .into_iter().map(<[u8]>::to_vec).collect(),
            }
        }
        // Levels with a full last tile have no partial tile: empty hashes.
        let mut by_level = Vec::new();
        let mut level = 0u8;
        let mut iter = partial.iter().filter(|t| t.kind != nenjim_journal_tlog::tile::TileKind::Entries).zip(levels);
        let mut next = iter.next();
        while nenjim_journal_tlog::tile::level_count(before, level) > 0 {
            match &next {
                Some((t, hashes)) if t.level() == level => { by_level.push(hashes.clone()); next = iter.next(); }
                _ => by_level.push(Vec::new()),
            }
            level += 1;
        }
        let mut resumed = TreeState::resume(before, by_level, bundle).unwrap();
        prop_assert_eq!(resumed.root(), grown.root());
        prop_assert_eq!(replayed.root(), grown.root());
        prop_assert!(replayed.take_tiles().is_empty());
        for state in [&mut grown, &mut replayed, &mut resumed] {
            for i in before..before + after {
                state.append(&record(i)).unwrap();
            }
        }
        let expected = grown.take_tiles();
        let paths: Vec<Tile> = expected.iter().map(|t| t.tile).collect();
        prop_assert_eq!(paths, Tile::changed(before, before + after));
        prop_assert_eq!(&replayed.take_tiles(), &expected);
        prop_assert_eq!(&resumed.take_tiles(), &expected);
        prop_assert_eq!(resumed.root(), tree_hash(&leaves(before + after)));
    }
}

#[test]
fn a_replay_keeps_the_tiles_after_the_published_size() {
    // A writer that crashed after its records but before its tiles: the
    // next one replays with the checkpoint's size and writes what is missing.
    let mut state = TreeState::replay((0..600).map(record), 250).unwrap();
    let tiles: Vec<String> = state.take_tiles().iter().map(|t| t.tile.path()).collect();
    let expected: Vec<String> = Tile::changed(250, 600).iter().map(Tile::path).collect();
    assert_eq!(tiles, expected);
    assert!(TreeState::replay((0..3).map(record), 4).is_err());
}

#[test]
fn a_resume_refuses_tiles_that_do_not_fit() {
    let (_, store) = grow(&[300]);
    let level0: Vec<Hash> = store["tile/0/001.p/44"]
        .chunks_exact(32)
        .map(|c| Hash(c.try_into().unwrap()))
        .collect();
    let level1: Vec<Hash> = store["tile/1/000.p/1"]
        .chunks_exact(32)
        .map(|c| Hash(c.try_into().unwrap()))
        .collect();
    let records: Vec<Vec<u8>> = (256..300).map(record).collect();
    assert!(TreeState::resume(300, vec![level0.clone(), level1.clone()], records.clone()).is_ok());
    let kinds = [
        TreeState::resume(301, vec![level0.clone(), level1.clone()], records.clone()),
        TreeState::resume(300, vec![level0.clone()], records.clone()),
        TreeState::resume(
            300,
            vec![level0.clone(), level1.clone()],
            records[1..].to_vec(),
        ),
        TreeState::resume(
            300,
            vec![level0.clone(), level1.clone()],
            (257..301).map(record).collect(),
        ),
    ];
    for result in kinds {
        assert_eq!(result.unwrap_err().kind(), ErrorKind::CheckpointMismatch);
    }
}

#[test]
fn proofs_of_leaves_past_the_tree_are_refused() {
    let mut memory = LeafHashes(leaves(5));
    assert_eq!(
        prove_inclusion(&mut memory, 5, 5).unwrap_err().kind(),
        ErrorKind::CheckpointMismatch
    );
    // Leaf 5 of a tree of 7 needs leaf 6, which these hashes lack.
    assert_eq!(
        prove_inclusion(&mut memory, 7, 5).unwrap_err().kind(),
        ErrorKind::CheckpointMismatch
    );
    assert!(prove_consistency(&mut memory, 0, 5).unwrap().is_empty());
    assert!(prove_consistency(&mut memory, 5, 5).unwrap().is_empty());
    let root = tree_hash(&leaves(5));
    assert!(verify_consistency(5, 5, &root, &root, &[]).is_ok());
    assert!(verify_consistency(5, 5, &root, &root, &[root]).is_err());
    assert!(verify_consistency(0, 5, &tree_hash(&[]), &root, &[]).is_ok());
    assert!(verify_consistency(0, 5, &root, &root, &[]).is_err());
}

#[test]
fn an_older_tree_is_proved_from_the_tiles_of_a_later_one() {
    // The partial level-0 tile of the older size is gone once its full
    // tile exists (as C2SP allows): its root and proofs come from the full
    // tile (and the level-1 partial of width 1, kept: its full tile is not
    // there yet).
    let (_, mut store) = grow(&[300, 700]);
    assert!(store.remove("tile/0/001.p/44").is_some());
    assert!(store.contains_key("tile/0/001") && store.contains_key("tile/1/000.p/1"));
    let mut from_tiles = TileHashes::new(300, reader(&store));
    assert_eq!(
        tree_root(&mut from_tiles, 300).unwrap(),
        tree_hash(&leaves(300))
    );
    let mut memory = LeafHashes(leaves(300));
    assert_eq!(
        prove_inclusion(&mut from_tiles, 300, 299).unwrap(),
        prove_inclusion(&mut memory, 300, 299).unwrap()
    );
    // A subtree past the tree is refused, not read.
    let mut hashes = TileHashes::new(300, reader(&store));
    assert_eq!(
        prove_inclusion(&mut hashes, 300, 300).unwrap_err().kind(),
        ErrorKind::CheckpointMismatch
    );
    // Without the tile at all: the reader's error, with the tile's path.
    let empty = BTreeMap::new();
    let mut none = TileHashes::new(300, reader(&empty));
    let e = tree_root(&mut none, 300).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.to_string().starts_with("tile/"), "{e}");
}
