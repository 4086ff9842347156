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

use std::borrow::Borrow;
use std::collections::HashSet;
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher, RandomState};
use std::marker::PhantomData;
use std::sync::{PoisonError, RwLock};

/// How many shards: a power of two, a few times the threads of a load.
const SHARDS: usize = 16;

/// How a stored value is looked up: `Self` seen as `K`.
pub(crate) trait Lookup<K: ?Sized + Hash + Eq>: 'static {
    /// The value as its key.
    fn key(&self) -> &K;
}

/// An entry of a [`Store`]: a stored value, hashed and compared as its key
/// (so that a `HashSet` of entries is looked up with a `&K`).
struct Entry<T: 'static, K: ?Sized>(&'static T, PhantomData<fn(&K)>);

impl<T: Lookup<K>, K: ?Sized + Hash + Eq> Borrow<K> for Entry<T, K> {
    fn borrow(&self) -> &K {
        self.0.key()
    }
}

impl<T: Lookup<K>, K: ?Sized + Hash + Eq> PartialEq for Entry<T, K> {
    fn eq(&self, other: &Self) -> bool {
        self.0.key() == other.0.key()
    }
}

impl<T: Lookup<K>, K: ?Sized + Hash + Eq> Eq for Entry<T, K> {}

impl<T: Lookup<K>, K: ?Sized + Hash + Eq> Hash for Entry<T, K> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.key().hash(state);
    }
}

type Shard<T, K> = RwLock<HashSet<Entry<T, K>>>;

/// A store of `T`s, looked up by `K`: each distinct key stored once.
pub(crate) struct Store<T: 'static, K: ?Sized> {
    shards: [Shard<T, K>; SHARDS],
    hasher: RandomState,
}

impl<T: Lookup<K>, K: ?Sized + Hash + Eq> Store<T, K> {
    /// An empty store.
    pub(crate) fn new() -> Store<T, K> {
        Store {
            shards: std::array::from_fn(|_| RwLock::new(HashSet::new())),
            hasher: RandomState::new(),
        }
    }

    /// The stored value whose key is `key`, storing `make()` first if there
    /// is none; `make()` gives a value whose key equals `key`.
    pub(crate) fn get_or_insert(&self, key: &K, make: impl FnOnce() -> T) -> &'static T {
        if let Some(found) = self.get(key) {
            return found;
        }
        let shard = self.shard(key);
        let mut set = shard.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = set.get(key) {
            return found.0;
        }
        let stored: &'static T = Box::leak(Box::new(make()));
        set.insert(Entry(stored, PhantomData));
        stored
    }

    /// The stored value whose key is `key`, if there is one.
    pub(crate) fn get(&self, key: &K) -> Option<&'static T> {
        self.shard(key)
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .map(|found| found.0)
    }

    /// The shard of `key`.
    fn shard(&self, key: &K) -> &Shard<T, K> {
        let at = (self.hasher.hash_one(key) % SHARDS as u64) as usize;
        // `at < SHARDS`; the fallback is never taken.
        self.shards.get(at).unwrap_or(&self.shards[0])
    }
}

impl<T, K: ?Sized> fmt::Debug for Store<T, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").finish_non_exhaustive()
    }
}
