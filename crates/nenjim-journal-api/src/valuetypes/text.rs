//! The shared text behind the string value types.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use super::interned::{Lookup, Store};

/// An immutable string, stored once in the process ([`interned`](super::interned)),
/// behind one thin pointer (8 bytes, where a `&str` is 16).
///
/// The value types that wrap it ([`ArtifactCoordinate`](super::ArtifactCoordinate),
/// [`Description`](super::Description), [`LicenseExpression`](super::LicenseExpression),
/// [`InformationUri`](super::InformationUri)) are held by the thousand in
/// dependency lists and release bodies, so 8 bytes saved in each place that
/// refers to one count more than the size of the text itself. The stored
/// value is the text's `Box<str>`, so that [`as_str`](Text::as_str) reads
/// it without checking its UTF-8 again (a short text stored inline had to
/// be checked on every read: a consumer reading every value of the event
/// feed spent a quarter of its time there). Each distinct text is stored
/// once, so the second allocation is paid once per distinct text. Copying
/// one touches no count; equal texts are one stored text.
///
/// Comparison, ordering and hashing are those of the text: equality is the
/// text's (one pointer comparison, since equal texts are stored once),
/// ordering compares the UTF-8 bytes (which orders like `str`), hashing
/// hashes the `str` (so a value type may implement `Borrow<str>`).
#[derive(Clone, Copy)]
pub(crate) struct Text(&'static Repr);

/// A store of texts: [`TEXTS`], or one of a value type whose texts are
/// all valid values of that type (so that a token found there needs no
/// validation).
pub(crate) type Texts = LazyLock<Store<Repr, [u8]>>;

/// Every text made in this process that no typed store holds.
static TEXTS: Texts = LazyLock::new(Store::new);

/// Every artifact coordinate made in this process.
pub(crate) static COORDINATES: Texts = LazyLock::new(Store::new);

/// Every license expression made in this process.
pub(crate) static LICENSES: Texts = LazyLock::new(Store::new);

impl Lookup<[u8]> for Repr {
    fn key(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// A stored text.
pub(crate) struct Repr(Box<str>);

impl Text {
    /// The stored copy of `text` (stored now if it is the first).
    pub(crate) fn new(text: &str) -> Text {
        Text::stored_in(&TEXTS, text)
    }

    /// The copy of `text` in `store`, if it holds one.
    pub(crate) fn found_in(store: &Texts, text: &str) -> Option<Text> {
        store.get(text.as_bytes()).map(Text)
    }

    /// The copy of `text` stored in `store` (stored now if it is the
    /// first). Texts are compared by their stored copy, so a value type
    /// stores all of its texts in one store.
    pub(crate) fn stored_in(store: &Texts, text: &str) -> Text {
        Text(store.get_or_insert(text.as_bytes(), || Repr(Box::from(text))))
    }

    /// The text's bytes (valid UTF-8).
    pub(crate) fn as_bytes(&self) -> &'static [u8] {
        self.0.as_bytes()
    }

    /// The text.
    pub(crate) fn as_str(&self) -> &'static str {
        &self.0.0
    }

    /// Whether both are one stored text (which, texts being stored once,
    /// is whether they are equal).
    pub(crate) fn ptr_eq(&self, other: &Text) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Repr {
    fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl PartialEq for Text {
    /// Texts are stored once, so equal texts are one stored text.
    fn eq(&self, other: &Text) -> bool {
        self.ptr_eq(other)
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
    #![allow(clippy::unwrap_used)] // tests fail loudly

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
            assert_eq!(state.hash_one(ta), state.hash_one(a));
            for b in samples {
                let tb = Text::new(b);
                assert_eq!(ta == tb, a == b, "{a:?} == {b:?}");
                assert_eq!(ta.cmp(&tb), a.cmp(b), "{a:?} cmp {b:?}");
            }
        }
    }

    #[test]
    fn equal_texts_are_one_stored_text() {
        let a = Text::new("left-pad");
        let b = Text::new(&String::from("left-pad"));
        assert!(a.ptr_eq(&b));
        assert!(!a.ptr_eq(&Text::new("right-pad")));
        let long = "a long text, well over the inline limit of the shared representation";
        let copy = String::from(long);
        assert!(Text::new(long).ptr_eq(&Text::new(&copy)));
    }

    #[test]
    fn a_text_stored_for_one_type_is_no_valid_value_of_another() {
        use crate::valuetypes::{ArtifactCoordinate, LicenseExpression};
        // Texts a description or a URI stored: not valid values of the
        // typed stores, which skip validation only for what they hold.
        let _ = Text::new("Not A Coordinate");
        let _ = Text::new("not-a-listed-license");
        assert!("Not A Coordinate".parse::<ArtifactCoordinate>().is_err());
        assert!("not-a-listed-license".parse::<LicenseExpression>().is_err());
        // A valid value, made twice, is one stored value; an invalid one
        // is refused again after it.
        let a: ArtifactCoordinate = "left-pad".parse().unwrap();
        let b: ArtifactCoordinate = "left-pad".parse().unwrap();
        assert!(a.shares_text_with(&b));
        assert!("left pad".parse::<ArtifactCoordinate>().is_err());
        let mit: LicenseExpression = "MIT OR Apache-2.0".parse().unwrap();
        assert_eq!(mit, "MIT OR Apache-2.0".parse().unwrap());
        assert!("MIT OR".parse::<LicenseExpression>().is_err());
    }

    #[test]
    fn a_text_is_one_thin_pointer() {
        assert_eq!(std::mem::size_of::<Text>(), 8);
    }
}
