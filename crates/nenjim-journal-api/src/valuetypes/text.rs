//! The shared text behind the string value types.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The longest text stored inside the `Arc`'s own allocation: with the
/// length byte and the variant's tag the representation is 40 bytes, so
/// the `Arc` (two counts and the representation, 56 bytes) fits a 64-byte
/// malloc chunk. Longer texts take a second allocation.
const INLINE: usize = 38;

/// An immutable, shared string behind one thin pointer (8 bytes, where an
/// `Arc<str>` is a 16-byte fat pointer).
///
/// The value types that wrap it ([`ArtifactCoordinate`](super::ArtifactCoordinate),
/// [`Description`](super::Description), [`LicenseExpression`](super::LicenseExpression),
/// [`InformationUri`](super::InformationUri)) are held by the thousand in
/// dependency lists and release bodies, so 8 bytes saved in each place that
/// refers to one count more than the size of the text itself. A short text
/// (most coordinates, licenses, reasons and descriptions) is stored inside
/// the `Arc`'s allocation (one allocation, as for an `Arc<str>`); a longer
/// one in a second allocation behind it.
///
/// Comparison, ordering and hashing are those of the text: equality and
/// ordering compare the UTF-8 bytes (which orders like `str`), hashing
/// hashes the `str` (so a value type may implement `Borrow<str>`).
#[derive(Clone)]
pub(crate) struct Text(Arc<Repr>);

enum Repr {
    /// The first `len` bytes of `bytes`, a copy of a `str`.
    Inline {
        len: u8,
        bytes: [u8; INLINE],
    },
    Heap(Box<str>),
}

impl Text {
    /// A new shared copy of `text`.
    pub(crate) fn new(text: &str) -> Text {
        let repr = match u8::try_from(text.len()) {
            Ok(len) if text.len() <= INLINE => {
                let mut bytes = [0u8; INLINE];
                bytes[..text.len()].copy_from_slice(text.as_bytes());
                Repr::Inline { len, bytes }
            }
            _ => Repr::Heap(Box::from(text)),
        };
        Text(Arc::new(repr))
    }

    /// The text's bytes (valid UTF-8).
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match &*self.0 {
            // `len <= INLINE` (see `new`).
            Repr::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Repr::Heap(text) => text.as_bytes(),
        }
    }

    /// The text.
    #[allow(clippy::expect_used)] // an invariant of `Text`, not of any input
    pub(crate) fn as_str(&self) -> &str {
        match &*self.0 {
            Repr::Inline { .. } => std::str::from_utf8(self.as_bytes())
                .expect("invariant: an inline text is a copy of a whole `str` (see `new`)"),
            Repr::Heap(text) => text,
        }
    }

    /// Whether both share one allocation.
    pub(crate) fn ptr_eq(&self, other: &Text) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        if self.ptr_eq(other) {
            return true;
        }
        match (&*self.0, &*other.0) {
            // Inline bytes are zero past `len` (see `new`), so two inline
            // texts are equal exactly when their fixed-size parts are: a
            // comparison of constant length the compiler inlines, rather than
            // a `memcmp` call (the release builder's duplicate checks compare
            // every new coordinate with the ones before it).
            (Repr::Inline { len: a, bytes: x }, Repr::Inline { len: b, bytes: y }) => {
                a == b && x == y
            }
            _ => self.as_bytes() == other.as_bytes(),
        }
    }
}

impl Eq for Text {}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    /// Byte order, which is the order of `str`.
    fn cmp(&self, other: &Text) -> Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl Hash for Text {
    /// What `str`'s `Hash` does (`Hasher::write_str`, whose stable form is
    /// these two calls; a hasher can override it only on nightly), without
    /// `as_str`'s UTF-8 check of an inline text: a hashed artifact index
    /// (the chain's) hashes a coordinate on every query, and the check cost
    /// more than the hash.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write(self.as_bytes());
        state.write_u8(0xff);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, RandomState};

    #[test]
    fn short_and_long_texts_read_back_and_compare_like_str() {
        let samples = [
            "",
            "a",
            "caf\u{e9} \u{2713}",
            "exactly thirty-eight bytes long: 1234",
            "exactly thirty-eight bytes long: 12345",
            "thirty-nine bytes long, one over: 123456",
            "a long text, well over the inline limit of the shared representation",
        ];
        let state = RandomState::new();
        for a in samples {
            let ta = Text::new(a);
            assert_eq!(ta.as_str(), a);
            assert_eq!(state.hash_one(&ta), state.hash_one(a));
            for b in samples {
                let tb = Text::new(b);
                assert_eq!(ta == tb, a == b, "{a:?} == {b:?}");
                assert_eq!(ta.cmp(&tb), a.cmp(b), "{a:?} cmp {b:?}");
            }
        }
    }

    #[test]
    fn a_short_text_fits_one_small_allocation() {
        assert_eq!(std::mem::size_of::<Text>(), 8);
        assert!(std::mem::size_of::<Repr>() <= 40);
    }
}
