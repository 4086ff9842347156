//! The parser's interner: validated values by their exact token, shared
//! between the revisions parsed with one [`Interner`] and, through a
//! [`SharedInterner`], between the interners of one load.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, Description, LicenseExpression, VersionRequirement,
};

use crate::tokens::{Cursor, Token};

/// The FxHash function (as in `rustc-hash`, written out here rather than
/// taken as a dependency: it is ten lines) for the interner's short string
/// keys. The interner is probed once per `DEPENDS`/`EXCLUDES`/`PREFERS`/
/// `LICENSE` line, and std's SipHash showed up in profiles of a whole parse;
/// HashDoS resistance does not matter for a map that lives for one parse of
/// one load, whose size is bounded by the distinct tokens of its texts.
#[derive(Debug, Default, Clone, Copy)]
struct FxHasher(u64);

const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in chunks.by_ref() {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Values already validated, by their exact token, shared between the
/// revisions parsed with it ([`parse_with`](crate::parse_with)): the same
/// dependency targets and the same few licenses recur on every release and
/// in every file of a root, so each distinct token is validated and
/// allocated once, and equal values share one allocation (a loader keeps
/// one interner per worker for a whole load). [`parse`](crate::parse) uses
/// a fresh one per text. Only successes are kept: a token that fails is
/// parsed again (and fails the same way) wherever it appears, so results
/// and errors never depend on what was parsed before.
#[derive(Debug, Default)]
pub struct Interner {
    tables: Tables,
    shared: Option<SharedInterner>,
}

/// The interned values, by token.
#[derive(Debug, Default)]
struct Tables {
    coordinates: FxMap<Box<str>, ArtifactCoordinate>,
    licenses: FxMap<Box<str>, LicenseExpression>,
    requirements: FxMap<Box<str>, VersionRequirement>,
    /// Decoded descriptions (as keys only): "optional feature" and the like
    /// recur on many dependency lines.
    descriptions: FxMap<Description, ()>,
    /// Descriptions by their quoted text as written (quotes and escapes
    /// included): a repeated quoted string is neither decoded nor allocated
    /// again.
    quoted: FxMap<Box<str>, Description>,
}

/// Interned values shared by several [`Interner`]s, e.g. one per worker
/// thread of a load ([`Interner::backed_by`]): a value that an interner
/// validates for the first time is replaced by an equal value already
/// stored here, so equal values share one allocation across all of them.
/// Consulted only on an interner's own misses (a lock per distinct token
/// per interner), after the token was validated: results and errors are
/// those of [`parse`](crate::parse). Cloning shares the same store.
#[derive(Debug, Default, Clone)]
pub struct SharedInterner(Arc<Mutex<Tables>>);

impl SharedInterner {
    /// The stored value for `key` in `table`, storing `value` if there is none.
    fn canonical<V: Clone>(
        &self,
        table: impl FnOnce(&mut Tables) -> &mut FxMap<Box<str>, V>,
        key: &str,
        value: V,
    ) -> V {
        let mut tables = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        table(&mut tables)
            .entry(key.into())
            .or_insert(value)
            .clone()
    }

    /// The stored description equal to `description`, storing it if there is none.
    fn canonical_description(&self, description: Description) -> Description {
        let mut tables = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match tables.descriptions.get_key_value(&description) {
            Some((stored, ())) => stored.clone(),
            None => {
                tables.descriptions.insert(description.clone(), ());
                description
            }
        }
    }
}

impl Interner {
    /// An empty interner for one parse of `text` (what [`parse`](crate::parse)
    /// uses): its tables start with room for the distinct tokens a text of
    /// that length usually has, instead of growing (and rehashing) from
    /// empty while the text is read. Only the capacity differs from
    /// `Interner::default()`.
    pub(crate) fn for_text(text: &str) -> Interner {
        // About one distinct requirement per 300 bytes and one distinct
        // coordinate per 1 200 in the synthetic corpus and in crates.io-like
        // texts; a short text gets the default (empty) tables.
        let requirements = text.len() / 300;
        let coordinates = text.len() / 1_200;
        Interner {
            tables: Tables {
                coordinates: FxMap::with_capacity_and_hasher(coordinates, Default::default()),
                licenses: FxMap::default(),
                requirements: FxMap::with_capacity_and_hasher(requirements, Default::default()),
                descriptions: FxMap::default(),
                quoted: FxMap::default(),
            },
            shared: None,
        }
    }

    /// An empty interner whose new values are shared through `shared`.
    pub fn backed_by(shared: &SharedInterner) -> Interner {
        Interner {
            tables: Tables::default(),
            shared: Some(shared.clone()),
        }
    }

    /// `cursor.value::<ArtifactCoordinate>(expected)`, through the cache.
    #[inline]
    pub(crate) fn coordinate<'a>(
        &mut self,
        cursor: &mut Cursor<'a>,
        expected: &str,
    ) -> Result<(ArtifactCoordinate, Token<'a>), JournalError> {
        self.token(|t| &mut t.coordinates, cursor, expected)
    }

    /// `cursor.value::<VersionRequirement>(expected)`, through the cache.
    #[inline]
    pub(crate) fn requirement<'a>(
        &mut self,
        cursor: &mut Cursor<'a>,
        expected: &str,
    ) -> Result<(VersionRequirement, Token<'a>), JournalError> {
        self.token(|t| &mut t.requirements, cursor, expected)
    }

    /// The next token of `cursor` parsed as a `V`, through `table`: the
    /// value and any error are `V::from_str`'s, relocated to the token.
    #[inline]
    fn token<'a, V>(
        &mut self,
        table: fn(&mut Tables) -> &mut FxMap<Box<str>, V>,
        cursor: &mut Cursor<'a>,
        expected: &str,
    ) -> Result<(V, Token<'a>), JournalError>
    where
        V: FromStr<Err = JournalError> + Clone,
    {
        let token = cursor.token(expected)?;
        if let Some(value) = table(&mut self.tables).get(token.text) {
            return Ok((value.clone(), token));
        }
        let mut value = token
            .text
            .parse::<V>()
            .map_err(|e| cursor.line().relocate(e, token.start))?;
        if let Some(shared) = &self.shared {
            value = shared.canonical(table, token.text, value);
        }
        table(&mut self.tables).insert(token.text.into(), value.clone());
        Ok((value, token))
    }

    /// `cursor.quoted(expected)`, through the cache of quoted strings as
    /// written, then [`description`](Self::description): the value and
    /// any error are `cursor.quoted`'s (a quoted string is cached only once
    /// it was read without error, and what follows it is checked either way).
    pub(crate) fn quoted(
        &mut self,
        cursor: &mut Cursor<'_>,
        expected: &str,
    ) -> Result<(Description, usize), JournalError> {
        if let Some((raw, start)) = cursor.peek_quoted()
            && let Some(description) = self.tables.quoted.get(raw)
        {
            let description = description.clone();
            cursor.take_quoted(raw)?;
            return Ok((description, start));
        }
        let (description, start, raw) = cursor.quoted_raw(expected)?;
        let description = self.description(description);
        self.tables.quoted.insert(raw.into(), description.clone());
        Ok((description, start))
    }

    /// One stored copy of each equal description.
    pub(crate) fn description(&mut self, description: Description) -> Description {
        if let Some((stored, ())) = self.tables.descriptions.get_key_value(&description) {
            return stored.clone();
        }
        let description = match &self.shared {
            Some(shared) => shared.canonical_description(description),
            None => description,
        };
        self.tables.descriptions.insert(description.clone(), ());
        description
    }

    /// `text.parse::<LicenseExpression>()`, through the cache.
    pub(crate) fn license(&mut self, text: &str) -> Result<LicenseExpression, JournalError> {
        if let Some(value) = self.tables.licenses.get(text) {
            return Ok(value.clone());
        }
        let mut value = text.parse::<LicenseExpression>()?;
        if let Some(shared) = &self.shared {
            value = shared.canonical(|t| &mut t.licenses, text, value);
        }
        self.tables.licenses.insert(text.into(), value.clone());
        Ok(value)
    }
}
