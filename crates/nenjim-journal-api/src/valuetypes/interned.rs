//! The process-wide, append-only store behind the shared value types:
//! each distinct validated value is stored once, for the life of the
//! process, and every value type that holds one holds a `&'static`
//! reference to it.
//!
//! Why (issue 32, the model decided by measurement): a value held by a
//! reference is `Copy` inside, so building, cloning and dropping a
//! dependency list, a release or a revision touches no reference count
//! (with `Arc`s every value of every dependency line was counted up when
//! built and down when dropped, which cost about as much as reading the
//! line), and equal values are one stored value, so equality is one
//! pointer comparison. The price: a value, once validated, is kept until
//! the process exits. The store grows with the *distinct* values a
//! process has validated (coordinates, licenses, descriptions,
//! requirements), not with the revisions that repeat them.
//!
//! The store is sharded, a lock per shard chosen by the value's hash, so
//! that the loader's threads rarely wait on one another; the parser's own
//! per-load tables are asked first, so a load reaches the store once per
//! value it has not seen yet.

use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::sync::{PoisonError, RwLock};

use hashbrown::{DefaultHashBuilder, HashTable};

/// How many shards: a power of two, a few times the threads of a load.
const SHARDS: usize = 16;

/// How a stored value is looked up: `Self` seen as `K`.
pub(crate) trait Lookup<K: ?Sized + Hash + Eq>: 'static {
    /// The value as its key.
    fn key(&self) -> &K;
}

type Shard<T> = RwLock<HashTable<&'static T>>;

/// A store of `T`s, looked up by `K`: each distinct key stored once.
///
/// A lookup hashes its key once (foldhash, seeded per process, so that
/// texts chosen to collide on one process's hash cannot be written in
/// advance: a fixed hash would let a hostile author fill one bucket of a
/// store that is never emptied), and that hash picks the shard and is the
/// table's hash.
pub(crate) struct Store<T: 'static, K: ?Sized> {
    shards: [Shard<T>; SHARDS],
    hasher: DefaultHashBuilder,
    _key: std::marker::PhantomData<fn(&K)>,
}

impl<T: Lookup<K>, K: ?Sized + Hash + Eq> Store<T, K> {
    /// An empty store.
    pub(crate) fn new() -> Store<T, K> {
        Store {
            shards: std::array::from_fn(|_| RwLock::new(HashTable::new())),
            hasher: DefaultHashBuilder::default(),
            _key: std::marker::PhantomData,
        }
    }

    /// The stored value whose key is `key`, storing `make()` first if there
    /// is none; `make()` gives a value whose key equals `key`.
    pub(crate) fn get_or_insert(&self, key: &K, make: impl FnOnce() -> T) -> &'static T {
        let hash = self.hasher.hash_one(key);
        let shard = self.shard(hash);
        if let Some(found) = Self::find(shard, hash, key) {
            return found;
        }
        let mut table = shard.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = table.find(hash, |e| e.key() == key) {
            return found;
        }
        let stored: &'static T = Box::leak(Box::new(make()));
        table.insert_unique(hash, stored, |e| self.hasher.hash_one(e.key()));
        stored
    }

    /// The stored value whose key is `key`, if there is one.
    pub(crate) fn get(&self, key: &K) -> Option<&'static T> {
        let hash = self.hasher.hash_one(key);
        Self::find(self.shard(hash), hash, key)
    }

    fn find(shard: &Shard<T>, hash: u64, key: &K) -> Option<&'static T> {
        shard
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .find(hash, |e| e.key() == key)
            .copied()
    }

    /// The shard of a key of hash `hash`: its top bits (the table uses
    /// the low ones and the next seven).
    fn shard(&self, hash: u64) -> &Shard<T> {
        let at = (hash >> 60) as usize % SHARDS;
        // `at < SHARDS`; the fallback is never taken.
        self.shards.get(at).unwrap_or(&self.shards[0])
    }
}

impl<T, K: ?Sized> fmt::Debug for Store<T, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").finish_non_exhaustive()
    }
}
