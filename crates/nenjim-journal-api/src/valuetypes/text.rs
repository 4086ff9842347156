//! The shared text behind the string value types.

use std::sync::Arc;

/// An immutable, shared string behind one thin pointer (8 bytes, where an
/// `Arc<str>` is a 16-byte fat pointer).
///
/// The value types that wrap it ([`ArtifactCoordinate`](super::ArtifactCoordinate),
/// [`Description`](super::Description), [`LicenseExpression`](super::LicenseExpression),
/// [`InformationUri`](super::InformationUri)) are held by the thousand in
/// dependency lists and release bodies, while a loader interns their
/// values, so there are few distinct ones: the second allocation per
/// distinct value (the `Arc` holds a `Box<str>`) costs far less than the 8
/// bytes saved in every place that refers to one. Comparison, ordering and
/// hashing are those of the text (`Arc` compares pointers first).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Text(Arc<Box<str>>);

impl Text {
    /// A new shared copy of `text`.
    pub(crate) fn new(text: &str) -> Text {
        Text(Arc::new(Box::from(text)))
    }

    /// The text.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether both share one allocation.
    pub(crate) fn ptr_eq(&self, other: &Text) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
