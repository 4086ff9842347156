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

/// Values by the exact bytes of their token: an open-addressing table
/// (linear probing, at most four fifths full) whose slots hold the key
/// and the value themselves. A look-up is one [`hash_bytes`] of the token
/// and, on a hit, a comparison with the key in its slot (a key of up to
/// [`Key::INLINE`] bytes is in the slot itself); no allocation. A miss
/// stores the key once.
///
/// Why the slots hold their entries: a start looks up the coordinates its
/// dependency lines name, at random among thousands, and a table of slots
/// that pointed into a list of entries missed the cache twice a look-up,
/// once for the slot, once for its entry (perf, the 100 000-file bench
/// root: the two loads were a tenth of the start's samples). One slot of
/// 40 bytes is one miss. The table may fill to four fifths (the 200 000
/// coordinates of P7's million files fit 2^18 slots, 10.5 MB a worker;
/// at three quarters they took twice that, and P7's peak memory went over
/// its target): no larger than the slots and the list were.
#[derive(Debug)]
struct TokenMap<V> {
    slots: Box<[Option<Entry<V>>]>,
    len: usize,
}

/// A token and its value, in a [`TokenMap`]'s slot.
#[derive(Debug)]
struct Entry<V> {
    key: Key,
    value: V,
}

/// A token kept as a table's key: up to [`Key::INLINE`] bytes inside the
/// slot itself, so that comparing a looked-up token with it reads the slot
/// and no other allocation, a longer one boxed (its length, beside the
/// pointer, is compared before its bytes are read).
#[derive(Debug)]
enum Key {
    Short { len: u8, bytes: [u8; Key::INLINE] },
    Long(Box<str>),
}

impl Key {
    /// The longest key stored inline: the enum is then 32 bytes, as a
    /// boxed key's pointer and length plus its allocation's header are
    /// (nearly every coordinate and requirement fits).
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

impl<V> Default for TokenMap<V> {
    fn default() -> Self {
        TokenMap {
            slots: Box::default(),
            len: 0,
        }
    }
}

impl<V> TokenMap<V> {
    /// A table with room for `n` keys before it grows.
    fn with_capacity(n: usize) -> TokenMap<V> {
        let slots = if n == 0 {
            0
        } else {
            (n + n / 4 + 1).next_power_of_two()
        };
        TokenMap {
            slots: empty_slots(slots),
            len: 0,
        }
    }

    /// The value stored for `key`, whose hash is `hash`.
    #[inline]
    fn get(&self, hash: u64, key: &str) -> Option<&V> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut i = hash as usize & mask;
        loop {
            let entry = self.slots.get(i)?.as_ref()?;
            if same_bytes(entry.key.bytes(), key.as_bytes()) {
                return Some(&entry.value);
            }
            i = (i + 1) & mask;
        }
    }

    /// Whether the first slot for `hash` is taken (1) or not (0): a read
    /// of that slot, for [`Interner::warm`].
    #[inline]
    fn occupied(&self, hash: u64) -> usize {
        let mask = self.slots.len().wrapping_sub(1);
        self.slots
            .get(hash as usize & mask)
            .map_or(0, |slot| usize::from(slot.is_some()))
    }

    /// Stores `value` for `key` (whose hash is `hash`), known to be absent.
    fn insert(&mut self, hash: u64, key: &str, value: V) {
        if 5 * (self.len + 1) > 4 * self.slots.len() {
            self.grow();
        }
        let entry = Entry {
            key: Key::new(key),
            value,
        };
        if place(&mut self.slots, hash, entry) {
            self.len += 1;
        }
    }

    /// Doubles the slots (at least 16) and places every entry again.
    fn grow(&mut self) {
        let len = (2 * self.slots.len()).max(16);
        let mut slots = empty_slots(len);
        for entry in std::mem::take(&mut self.slots).into_iter().flatten() {
            place(&mut slots, hash_bytes(entry.key.bytes()), entry);
        }
        self.slots = slots;
    }
}

/// `a == b`, inline: a key is a few dozen bytes at most, compared a word
/// at a time (the last word overlapping the one before), where `==` called
/// `memcmp`, whose call and setup cost more than the comparison (perf: 2 %
/// of a start in `memcmp` from the interner).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| {
        s.get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map(u64::from_le_bytes)
    };
    if n < 8 {
        let half = |s: &[u8], at: usize| {
            s.get(at..at + 4)
                .and_then(|w| <[u8; 4]>::try_from(w).ok())
                .map(u32::from_le_bytes)
        };
        return if n >= 4 {
            half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4)
        } else {
            a.iter().zip(b).all(|(x, y)| x == y)
        };
    }
    let mut at = 0;
    while at + 8 < n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

/// `n` empty slots.
fn empty_slots<V>(n: usize) -> Box<[Option<Entry<V>>]> {
    std::iter::repeat_with(|| None).take(n).collect()
}

/// Puts `entry` in the first free slot from its hash's; `false` (and the
/// entry dropped) if there is none, which a table less than full never has.
fn place<V>(slots: &mut [Option<Entry<V>>], hash: u64, entry: Entry<V>) -> bool {
    let Some(mask) = slots.len().checked_sub(1) else {
        return false;
    };
    let mut i = hash as usize & mask;
    for _ in 0..slots.len() {
        if let Some(slot @ None) = slots.get_mut(i) {
            *slot = Some(entry);
            return true;
        }
        i = (i + 1) & mask;
    }
    false
}

/// The coordinates and requirements a release's list lines will look up,
/// with their hashes, gathered before the first of them is read
/// ([`Interner::warm`]); each look-up then finds its token's hash here
/// instead of hashing it again.
#[derive(Debug, Default)]
pub(crate) struct Warm {
    lines: [(Warmed, Option<Warmed>); Warm::LINES],
    len: usize,
    /// The line whose coordinate is looked up next.
    next: usize,
}

/// A token of the text (where it starts, its length) and its hash.
#[derive(Clone, Copy, Debug, Default)]
struct Warmed {
    at: usize,
    len: usize,
    hash: u64,
}

impl Warmed {
    fn of(token: &str) -> Warmed {
        Warmed {
            at: token.as_ptr() as usize,
            len: token.len(),
            hash: hash_bytes(token.as_bytes()),
        }
    }

    /// The hash, if `token` is this very token (the same bytes of the
    /// same text: a guess that was right).
    fn hash_of(&self, token: &str) -> Option<u64> {
        (self.at == token.as_ptr() as usize && self.len == token.len()).then_some(self.hash)
    }
}

impl Warm {
    /// The lines warmed at most: a release's lists are rarely longer, and
    /// more would not stay in the cache until they are read.
    const LINES: usize = 16;

    /// The tokens of one more line: its coordinate, its requirement if any.
    #[inline]
    pub(crate) fn add(&mut self, coordinate: &str, requirement: Option<&str>) {
        if let Some(line) = self.lines.get_mut(self.len) {
            *line = (Warmed::of(coordinate), requirement.map(Warmed::of));
            self.len += 1;
        }
    }

    /// The hash of `token`, a coordinate: the next line's, if it is that
    /// line's token (then the line is passed), else computed.
    #[inline]
    fn coordinate(&mut self, token: &str) -> u64 {
        let warmed = self
            .lines
            .get(self.next..self.len)
            .and_then(|rest| rest.first())
            .and_then(|(c, _)| c.hash_of(token));
        match warmed {
            Some(hash) => {
                self.next += 1;
                hash
            }
            None => hash_bytes(token.as_bytes()),
        }
    }

    /// The hash of `token`, a requirement: the requirement of the line
    /// whose coordinate was looked up last, if it is that token, else
    /// computed.
    #[inline]
    fn requirement(&self, token: &str) -> u64 {
        self.next
            .checked_sub(1)
            .and_then(|last| self.lines.get(last))
            .and_then(|(_, r)| r.as_ref())
            .and_then(|r| r.hash_of(token))
            .unwrap_or_else(|| hash_bytes(token.as_bytes()))
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
    /// The structural index's allocations, from the last text to the next.
    pub(crate) buffers: crate::index::Buffers,
    /// The open release's list lines, warmed ([`warm`](Self::warm)).
    warm: Warm,
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
        // table from empty cost a tenth of its parse). A short text holds
        // more distinct tokens a byte than that, and a table's slots hold
        // their entries, so growing one moves 40-byte entries: P1r's
        // revision (15 kB) parsed 16 % slower with these densities alone
        // than with the old tables. A few dozen more of each keep a text of
        // that size from growing its tables; a long one (P1's 1.2 MB) is
        // sized as before (four times the density slowed it by a tenth:
        // larger tables, less of them in the cache).
        let requirements = 128 + text.len() / 300;
        let coordinates = 32 + text.len() / 1_200;
        let quoted = 32 + text.len() / 1_000;
        let licenses = text.len() / 4_000;
        Interner {
            buffers: crate::index::Buffers::default(),
            warm: Warm::default(),
            tables: Tables {
                coordinates: TokenMap::with_capacity(coordinates),
                licenses: TokenMap::with_capacity(licenses),
                requirements: TokenMap::with_capacity(requirements),
                quoted: TokenMap::with_capacity(quoted),
            },
        }
    }

    /// The list lines of a release about to be read, emptied, for
    /// [`Warm::add`] to fill before [`warm`](Self::warm); `None` while the
    /// coordinates' table is small enough to stay in the cache (as in the
    /// one parse of a text: warming its slots would only cost).
    pub(crate) fn warming(&mut self) -> Option<&mut Warm> {
        self.forget_warmed();
        (self.tables.coordinates.slots.len() >= Self::WARM_FROM).then_some(&mut self.warm)
    }

    /// The coordinates' slots from which a table is warmed: 2^12 slots
    /// of 40 bytes, 160 KiB, a few times the L1 cache and a good part of
    /// L2.
    const WARM_FROM: usize = 1 << 12;

    /// Forgets the lines warmed (a new text: its tokens are elsewhere).
    pub(crate) fn forget_warmed(&mut self) {
        self.warm.len = 0;
        self.warm.next = 0;
    }

    /// Reads the first slot of each token warmed (what a look-up reads
    /// first) and nothing else: a release's dependency lines name
    /// coordinates at random among thousands, whose slots are seldom in
    /// the cache, and read one a line, each look-up waited for its own
    /// miss. Read together, with nothing between the loads, their misses
    /// overlap. Decides nothing: the look-ups that follow are the same.
    pub(crate) fn warm(&self) {
        let mut seen = 0usize;
        for (coordinate, requirement) in self.warm.lines.get(..self.warm.len).unwrap_or_default() {
            seen += self.tables.coordinates.occupied(coordinate.hash);
            if let Some(requirement) = requirement {
                seen += self.tables.requirements.occupied(requirement.hash);
            }
        }
        // The loads must happen though nothing uses their values.
        std::hint::black_box(seen);
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
        V: FromStr<Err = JournalError> + Clone,
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
        let hash = self.warm.coordinate(token);
        self.value_of(|t| &mut t.coordinates, token, hash)
    }

    /// The requirement `token` is, through the cache; `None` if it is not one.
    #[inline]
    pub(crate) fn requirement_of(&mut self, token: &str) -> Option<VersionRequirement> {
        let hash = self.warm.requirement(token);
        self.value_of(|t| &mut t.requirements, token, hash)
    }

    /// `token` (whose hash is `hash`) parsed as a `V`, through `table`: the
    /// value `V::from_str` gives, or `None` where it gives an error.
    #[inline]
    fn value_of<V>(
        &mut self,
        table: fn(&mut Tables) -> &mut TokenMap<V>,
        token: &str,
        hash: u64,
    ) -> Option<V>
    where
        V: FromStr<Err = JournalError> + Clone,
    {
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

#[cfg(test)]
mod tests {
    use super::{TokenMap, hash_bytes};

    /// Keys of every length around the inline limit, some longer than it.
    fn keys() -> Vec<String> {
        (0..2_000)
            .map(|n| format!("{}{n}", "k".repeat(n % 40)))
            .collect()
    }

    #[test]
    fn a_table_finds_every_key_it_stored_through_its_growth() {
        let mut table = TokenMap::default();
        let keys = keys();
        for (n, key) in keys.iter().enumerate() {
            assert_eq!(table.get(hash_bytes(key.as_bytes()), key), None);
            table.insert(hash_bytes(key.as_bytes()), key, n);
        }
        assert_eq!(table.len, keys.len());
        assert!(5 * table.len <= 4 * table.slots.len(), "at most 4/5 full");
        // 1 600 keys fit 2 048 slots (at most 1 638 of them); the next
        // power of two only from 1 639 on.
        let mut small = TokenMap::default();
        for (n, key) in keys.iter().take(1600).enumerate() {
            small.insert(hash_bytes(key.as_bytes()), key, n);
        }
        assert_eq!(small.slots.len(), 2048);
        small.insert(hash_bytes(b"more"), "more", 0);
        let more: Vec<String> = (0..38).map(|n| format!("more-{n}")).collect();
        for key in &more {
            small.insert(hash_bytes(key.as_bytes()), key, 0);
        }
        assert_eq!((small.len, small.slots.len()), (1639, 4096));
        for (n, key) in keys.iter().enumerate() {
            assert_eq!(
                table.get(hash_bytes(key.as_bytes()), key),
                Some(&n),
                "{key}"
            );
        }
        assert_eq!(table.get(hash_bytes(b"absent"), "absent"), None);
    }

    #[test]
    fn keys_with_one_hash_are_told_apart_by_their_bytes() {
        // Every key in the same slot chain (the hash is the caller's), short
        // and long keys, and keys that are prefixes of each other (six keys
        // in eight slots: no growth, which would place them by their own hash).
        let mut table = TokenMap::with_capacity(4);
        let keys = [
            "a",
            "ab",
            "abc",
            &"x".repeat(30),
            &"x".repeat(31),
            &"x".repeat(64),
        ];
        for (n, key) in keys.iter().enumerate() {
            assert_eq!(table.get(7, key), None);
            table.insert(7, key, n);
        }
        for (n, key) in keys.iter().enumerate() {
            assert_eq!(table.get(7, key), Some(&n), "{key}");
        }
        assert_eq!(table.get(7, ""), None);
        assert_eq!(table.get(7, &"x".repeat(29)), None);
        assert_eq!(table.get(7, &"x".repeat(32)), None);
    }

    #[test]
    fn same_bytes_is_equality() {
        let texts: Vec<Vec<u8>> = (0..40)
            .flat_map(|n| {
                let base: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
                // The same length, one byte changed at each place.
                let changed = (0..n).map(move |at| {
                    let mut v: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
                    v[at] ^= 1;
                    v
                });
                std::iter::once(base).chain(changed)
            })
            .collect();
        for a in &texts {
            for b in &texts {
                assert_eq!(super::same_bytes(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn a_warmed_token_gives_its_hash_and_only_that_token_passes_its_line() {
        use super::Warm;
        let text = "  DEPENDS a.b 1.0.0\n  DEPENDS c *\n  EXCLUDES a.b\n";
        let (a, one, c, star) = (&text[10..13], &text[14..19], &text[30..31], &text[32..33]);
        let mut warm = Warm::default();
        warm.add(a, Some(one));
        warm.add(c, Some(star));
        // The same bytes elsewhere: hashed, the line not passed.
        let elsewhere = &text[45..48];
        assert_eq!(elsewhere, a);
        assert_eq!(warm.coordinate(elsewhere), hash_bytes(b"a.b"));
        assert_eq!(warm.next, 0);
        assert_eq!(warm.coordinate(a), hash_bytes(b"a.b"));
        assert_eq!(warm.requirement(one), hash_bytes(b"1.0.0"));
        assert_eq!(warm.requirement(star), hash_bytes(b"*"));
        assert_eq!(warm.next, 1);
        assert_eq!(warm.coordinate(c), hash_bytes(b"c"));
        assert_eq!(warm.requirement(star), hash_bytes(b"*"));
        assert_eq!(warm.next, 2);
        // Past the lines warmed: hashed.
        assert_eq!(warm.coordinate(elsewhere), hash_bytes(b"a.b"));
        assert_eq!(warm.next, 2);
    }

    #[test]
    fn a_table_is_warmed_only_once_it_outgrows_the_cache() {
        let mut interner = super::Interner::default();
        assert!(interner.warming().is_none());
        let tokens: Vec<String> = (0..4000).map(|n| format!("artifact-{n:04}")).collect();
        for token in &tokens {
            assert!(interner.coordinate_of(token).is_some(), "{token}");
        }
        assert!(interner.tables.coordinates.slots.len() >= super::Interner::WARM_FROM);
        assert!(interner.warming().is_some());
    }
}
