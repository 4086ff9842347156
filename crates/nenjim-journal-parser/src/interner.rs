//! The parser's interner: validated values by their exact token, shared
//! between the revisions parsed with one [`Interner`]: a token met again
//! is one table look-up, no process-wide store asked (the api's store of
//! values, where equal values are one stored value across every
//! interner).

use std::str::FromStr;

use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, Description, LicenseExpression, VersionRequirement,
};

use crate::tokens::{Cursor, Token};

/// The hash of a token's bytes: eight bytes at a time (the last, partial
/// word zero-padded, the length mixed in first so that padding cannot
/// collide), each word folded in with a multiply (as FxHash does), and a
/// final widening multiply so that the low bits (the table's index) and the
/// high bits (the slot's tag) depend on every byte. One pass over the token,
/// no allocation; HashDoS resistance does not matter for tables bounded by
/// the distinct tokens of a load.
#[inline]
fn hash_bytes(bytes: &[u8]) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        let word = match bytes.len().checked_sub(8).and_then(|at| bytes.get(at..)) {
            // The last eight bytes, overlapping the words before (the
            // length, mixed in first, keeps texts of other lengths apart):
            // one load, where shifting the tail in took a step per byte.
            Some(last) => {
                let mut word = [0u8; 8];
                word.copy_from_slice(last);
                u64::from_le_bytes(word)
            }
            // A token shorter than a word: shifted in byte by byte (a copy
            // into a zeroed word of a length known only at run time is a
            // `memcpy` call, which cost more than the hash).
            None => tail
                .iter()
                .rev()
                .fold(0u64, |w, &b| (w << 8) | u64::from(b)),
        };
        h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let wide = u128::from(h) * u128::from(0x9e37_79b9_7f4a_7c15_u64);
    (wide as u64) ^ ((wide >> 64) as u64)
}

/// One slot of a [`TokenMap`]: the high half of the key's hash (compared
/// before the key's bytes) and the index of its entry plus one (0: empty).
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    tag: u32,
    entry: u32,
}

/// Values by the exact bytes of their token: an open-addressing table
/// (linear probing, at most half full) over a list of entries. A lookup is
/// one [`hash_bytes`] of the token and, on a hit, one comparison of its
/// bytes with the stored key (slots whose tag differs are passed over
/// without touching their entry); no allocation. A miss stores the key once.
#[derive(Debug)]
struct TokenMap<V: Keyed> {
    slots: Box<[Slot]>,
    entries: Vec<V::Entry>,
}

/// A value a [`TokenMap`] holds, and what its entries keep to compare a
/// token with: the token itself beside the value, or nothing more for a
/// coordinate, whose text is its token, which saves a copy of every
/// distinct coordinate in each worker's table.
trait Keyed: Sized {
    /// An entry of a table of `Self`.
    type Entry;
    /// The entry of `value`, read from `key`.
    fn entry(key: &str, value: Self) -> Self::Entry;
    /// The bytes of the token `entry` was stored for.
    fn key(entry: &Self::Entry) -> &[u8];
    /// The value of `entry`.
    fn value(entry: &Self::Entry) -> &Self;
}

/// A token kept as a table's key: up to [`Key::INLINE`] bytes inside the
/// entry itself, so that comparing a looked-up token with it reads the
/// entry and no other allocation (a requirement's token is a dozen bytes;
/// its value, read next, is another allocation), a longer one boxed.
#[derive(Debug)]
enum Key {
    Short { len: u8, bytes: [u8; Key::INLINE] },
    Long(Box<str>),
}

impl Key {
    /// The longest key stored inline: the enum is then 32 bytes, as a
    /// boxed key's pointer and length plus its allocation's header are.
    const INLINE: usize = 30;

    fn new(key: &str) -> Key {
        match u8::try_from(key.len()) {
            Ok(len) if key.len() <= Key::INLINE => {
                let mut bytes = [0u8; Key::INLINE];
                bytes[..key.len()].copy_from_slice(key.as_bytes());
                Key::Short { len, bytes }
            }
            _ => Key::Long(key.into()),
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Key::Short { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or_default(),
            Key::Long(key) => key.as_bytes(),
        }
    }
}

/// Values stored with their token.
macro_rules! keyed_by_token {
    ($($t:ty),*) => {$(
        impl Keyed for $t {
            type Entry = (Key, $t);
            fn entry(key: &str, value: Self) -> Self::Entry {
                (Key::new(key), value)
            }
            fn key(entry: &Self::Entry) -> &[u8] {
                entry.0.bytes()
            }
            fn value(entry: &Self::Entry) -> &Self {
                &entry.1
            }
        }
    )*};
}

keyed_by_token!(VersionRequirement, Description, LicenseExpression);

/// A coordinate's text is exactly the token it was read from (its
/// `FromStr` keeps it whole, and an equal coordinate has the same text), so
/// an entry is the coordinate alone.
impl Keyed for ArtifactCoordinate {
    type Entry = ArtifactCoordinate;
    fn entry(_key: &str, value: Self) -> Self::Entry {
        value
    }
    fn key(entry: &Self::Entry) -> &[u8] {
        entry.as_bytes()
    }
    fn value(entry: &Self::Entry) -> &Self {
        entry
    }
}

impl<V: Keyed> Default for TokenMap<V> {
    fn default() -> Self {
        TokenMap {
            slots: Box::default(),
            entries: Vec::new(),
        }
    }
}

impl<V: Keyed> TokenMap<V> {
    /// A table with room for `n` keys before it grows.
    fn with_capacity(n: usize) -> TokenMap<V> {
        let slots = if n == 0 {
            0
        } else {
            (2 * n).next_power_of_two()
        };
        TokenMap {
            slots: vec![Slot::default(); slots].into_boxed_slice(),
            entries: Vec::with_capacity(n),
        }
    }

    /// The value stored for `key`, whose hash is `hash`.
    #[inline]
    fn get(&self, hash: u64, key: &str) -> Option<&V> {
        let mask = self.slots.len().checked_sub(1)?;
        let tag = (hash >> 32) as u32;
        let mut i = hash as usize & mask;
        loop {
            let slot = *self.slots.get(i)?;
            if slot.entry == 0 {
                return None;
            }
            if slot.tag == tag
                && let Some(stored) = self.entries.get(slot.entry as usize - 1)
                && V::key(stored) == key.as_bytes()
            {
                return Some(V::value(stored));
            }
            i = (i + 1) & mask;
        }
    }

    /// Stores `value` for `key` (whose hash is `hash`), known to be absent.
    /// A table that cannot number another entry keeps what it has (it is a
    /// cache: the value is still returned to the caller, just not kept).
    fn insert(&mut self, hash: u64, key: &str, value: V) {
        let Ok(entry) = u32::try_from(self.entries.len() + 1) else {
            return;
        };
        if 2 * (self.entries.len() + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        while let Some(slot) = self.slots.get_mut(i) {
            if slot.entry == 0 {
                *slot = Slot {
                    tag: (hash >> 32) as u32,
                    entry,
                };
                self.entries.push(V::entry(key, value));
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Doubles the slots (at least 16) and places every entry again.
    fn grow(&mut self) {
        let len = (2 * self.slots.len()).max(16);
        let mut slots = vec![Slot::default(); len].into_boxed_slice();
        let mask = len - 1;
        for (n, entry) in self.entries.iter().enumerate() {
            let hash = hash_bytes(V::key(entry));
            let mut i = hash as usize & mask;
            while let Some(slot) = slots.get_mut(i) {
                if slot.entry == 0 {
                    *slot = Slot {
                        tag: (hash >> 32) as u32,
                        // `n + 1` fits: `insert` numbers entries as `u32`.
                        entry: u32::try_from(n + 1).unwrap_or(u32::MAX),
                    };
                    break;
                }
                i = (i + 1) & mask;
            }
        }
        self.slots = slots;
    }
}

/// Values already validated, by their exact token, shared between the
/// revisions parsed with it ([`parse_with`](crate::parse_with)): the same
/// dependency targets and the same few licenses recur on every release and
/// in every file of a root, so each distinct token is looked up once (a
/// loader keeps one interner per worker for a whole load; equal values
/// are one stored value in the process whatever the interner). [`parse`](crate::parse) uses
/// a fresh one per text. Only successes are kept: a token that fails is
/// parsed again (and fails the same way) wherever it appears, so results
/// and errors never depend on what was parsed before.
#[derive(Debug, Default)]
pub struct Interner {
    tables: Tables,
}

/// The interned values, by token.
#[derive(Debug, Default)]
struct Tables {
    coordinates: TokenMap<ArtifactCoordinate>,
    licenses: TokenMap<LicenseExpression>,
    requirements: TokenMap<VersionRequirement>,
    /// Descriptions by their quoted text as written (quotes and escapes
    /// included): a repeated quoted string is neither decoded nor allocated
    /// again.
    quoted: TokenMap<Description>,
}

impl Interner {
    /// An empty interner for one parse of `text` (what [`parse`](crate::parse)
    /// uses): its tables start with room for the distinct tokens a text of
    /// that length usually has, instead of growing (and rehashing) from
    /// empty while the text is read. Only the capacity differs from
    /// `Interner::default()`.
    pub fn for_text(text: &str) -> Interner {
        // About one distinct requirement per 300 bytes, one distinct
        // coordinate per 1 200, one quoted text per 1 000 and a license per
        // 4 000 in the synthetic corpus and in crates.io-like texts (a text
        // of typical size, 15 kB, holds a few dozen of each: growing every
        // table from empty cost a tenth of its parse).
        let requirements = text.len() / 300;
        let coordinates = text.len() / 1_200;
        let quoted = text.len() / 1_000;
        let licenses = text.len() / 4_000;
        Interner {
            tables: Tables {
                coordinates: TokenMap::with_capacity(coordinates),
                licenses: TokenMap::with_capacity(licenses),
                requirements: TokenMap::with_capacity(requirements),
                quoted: TokenMap::with_capacity(quoted),
            },
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
        table: fn(&mut Tables) -> &mut TokenMap<V>,
        cursor: &mut Cursor<'a>,
        expected: &str,
    ) -> Result<(V, Token<'a>), JournalError>
    where
        V: FromStr<Err = JournalError> + Clone + Keyed,
    {
        let token = cursor.token(expected)?;
        let hash = hash_bytes(token.text.as_bytes());
        if let Some(value) = table(&mut self.tables).get(hash, token.text) {
            return Ok((value.clone(), token));
        }
        let value = token
            .text
            .parse::<V>()
            .map_err(|e| cursor.line().relocate(e, token.start))?;
        table(&mut self.tables).insert(hash, token.text, value.clone());
        Ok((value, token))
    }

    /// The coordinate `token` is, through the cache; `None` if it is not
    /// one (the caller then reads it again with a `Cursor`, for the error).
    #[inline]
    pub(crate) fn coordinate_of(&mut self, token: &str) -> Option<ArtifactCoordinate> {
        self.value_of(|t| &mut t.coordinates, token)
    }

    /// The requirement `token` is, through the cache; `None` if it is not one.
    #[inline]
    pub(crate) fn requirement_of(&mut self, token: &str) -> Option<VersionRequirement> {
        self.value_of(|t| &mut t.requirements, token)
    }

    /// `token` parsed as a `V`, through `table`: the value `V::from_str`
    /// gives, or `None` where it gives an error.
    #[inline]
    fn value_of<V>(&mut self, table: fn(&mut Tables) -> &mut TokenMap<V>, token: &str) -> Option<V>
    where
        V: FromStr<Err = JournalError> + Clone + Keyed,
    {
        let hash = hash_bytes(token.as_bytes());
        if let Some(value) = table(&mut self.tables).get(hash, token) {
            return Some(value.clone());
        }
        let value = token.parse::<V>().ok()?;
        table(&mut self.tables).insert(hash, token, value.clone());
        Some(value)
    }

    /// The description the quoted string `raw` (as written, quotes
    /// included, as [`Quick::quoted`](crate::tokens::Quick::quoted) finds
    /// it) decodes to, through the cache; `None` if it is not a valid one
    /// ending at its last quote.
    #[inline]
    pub(crate) fn quoted_of(&mut self, raw: &str) -> Option<Description> {
        let hash = hash_bytes(raw.as_bytes());
        if let Some(description) = self.tables.quoted.get(hash, raw) {
            return Some(description.clone());
        }
        let (description, used) = nenjim_journal_api::model::build::quoted_prefix(raw).ok()?;
        if used != raw.len() {
            return None;
        }
        let description = self.description(description);
        self.tables.quoted.insert(hash, raw, description.clone());
        Some(description)
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
            && let Some(description) = self.tables.quoted.get(hash_bytes(raw.as_bytes()), raw)
        {
            let description = description.clone();
            cursor.take_quoted(raw)?;
            return Ok((description, start));
        }
        let (description, start, raw) = cursor.quoted_raw(expected)?;
        let description = self.description(description);
        let hash = hash_bytes(raw.as_bytes());
        if self.tables.quoted.get(hash, raw).is_none() {
            self.tables.quoted.insert(hash, raw, description.clone());
        }
        Ok((description, start))
    }

    /// The description (equal descriptions are already one stored value:
    /// the api's store, `valuetypes/interned.rs`).
    pub(crate) fn description(&mut self, description: Description) -> Description {
        description
    }

    /// `text.parse::<LicenseExpression>()`, through the cache.
    pub(crate) fn license(&mut self, text: &str) -> Result<LicenseExpression, JournalError> {
        let hash = hash_bytes(text.as_bytes());
        if let Some(value) = self.tables.licenses.get(hash, text) {
            return Ok(value.clone());
        }
        let value = text.parse::<LicenseExpression>()?;
        self.tables.licenses.insert(hash, text, value.clone());
        Ok(value)
    }
}
