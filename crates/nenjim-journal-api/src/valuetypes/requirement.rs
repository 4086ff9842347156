use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Bound;
use std::str::FromStr;
use std::sync::LazyLock;

use super::interned::{Lookup, Store};
use super::{ReleaseVersion, semantic, shown, syntax_at};
use crate::error::{ErrorContext as _, JournalError};

/// Which versions of an artifact a statement is about: `*` (all), one exact
/// version (`1.4.0`), or an interval in Maven notation (`[1.2.0,2.0.0)`).
///
/// An omitted interval bound is unbounded and written with `(` or `)`;
/// `(,)` is refused (write `*`), and so is an empty interval. Membership is
/// by SemVer precedence, so a pre-release lies in an interval exactly when
/// its precedence does.
///
/// ```
/// use nenjim_journal_api::valuetypes::{ReleaseVersion, VersionRequirement};
/// let v = |s: &str| s.parse::<ReleaseVersion>().unwrap();
/// let r: VersionRequirement = "(,2.0.0]".parse().unwrap();
/// assert!(r.matches(&v("0.1.0")) && r.matches(&v("2.0.0")) && !r.matches(&v("2.0.1")));
/// assert!("(,)".parse::<VersionRequirement>().is_err());
/// assert!("[2.0.0,1.0.0]".parse::<VersionRequirement>().is_err());
/// ```
///
/// Cheap to clone: equal requirements are stored once in the process
/// (`interned.rs`), with their text, so a dependency holds one pointer
/// instead of two inline versions, copying one touches no count, equality
/// is one pointer comparison, and a token already seen is not read again.
#[derive(Clone)]
pub struct VersionRequirement(&'static Stored);

/// A stored requirement: its canonical text (its `Display`, which is its
/// token: `FromStr` and `Display` round-trip) and its versions.
struct Stored {
    text: Box<str>,
    req: Req,
}

/// Every requirement made in this process, by its canonical text.
static REQUIREMENTS: LazyLock<Store<Stored, str>> = LazyLock::new(Store::new);

impl Lookup<str> for Stored {
    fn key(&self) -> &str {
        &self.text
    }
}

impl PartialEq for VersionRequirement {
    /// Requirements are stored once, so equal ones are one stored value.
    fn eq(&self, other: &VersionRequirement) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for VersionRequirement {}

impl Hash for VersionRequirement {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.text.hash(state);
    }
}

impl VersionRequirement {
    /// The stored requirement equal to `req`.
    fn stored(req: Req) -> VersionRequirement {
        let text = Canonical(&req).to_string();
        VersionRequirement(REQUIREMENTS.get_or_insert(&text, || Stored {
            text: text.as_str().into(),
            req,
        }))
    }

    /// The stored requirement whose canonical text is `text`, if one was made.
    fn seen(text: &str) -> Option<VersionRequirement> {
        REQUIREMENTS.get(text).map(VersionRequirement)
    }
}

/// A requirement's versions: both bounds as optional versions side by side
/// (72 bytes behind the `Arc`, less than an enum of two
/// `Bound<ReleaseVersion>`, so one allocation size class less). Canonical: an exact
/// requirement keeps its version in `lower` only, an unbounded side is
/// `None` with its flag `false`, so the derived comparisons are those of
/// the requirement.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Req {
    lower: Option<ReleaseVersion>,
    upper: Option<ReleaseVersion>,
    shape: Shape,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Shape {
    Any,
    Exact,
    Interval {
        lower_inclusive: bool,
        upper_inclusive: bool,
    },
}

/// A bound's version and whether it is inclusive (`None`: unbounded).
fn split(bound: Bound<ReleaseVersion>) -> (Option<ReleaseVersion>, bool) {
    match bound {
        Bound::Unbounded => (None, false),
        Bound::Included(v) => (Some(v), true),
        Bound::Excluded(v) => (Some(v), false),
    }
}

/// The bound of `version`, inclusive or not.
fn bound(version: Option<&ReleaseVersion>, inclusive: bool) -> Bound<&ReleaseVersion> {
    match version {
        None => Bound::Unbounded,
        Some(v) if inclusive => Bound::Included(v),
        Some(v) => Bound::Excluded(v),
    }
}

impl VersionRequirement {
    /// `*`: every version.
    pub fn any() -> VersionRequirement {
        VersionRequirement::stored(Req {
            lower: None,
            upper: None,
            shape: Shape::Any,
        })
    }

    /// Exactly `version`.
    pub fn exact(version: ReleaseVersion) -> VersionRequirement {
        VersionRequirement::stored(Req {
            lower: Some(version),
            upper: None,
            shape: Shape::Exact,
        })
    }

    /// An interval; refuses `(,)` (use [`any`](Self::any)) and empty intervals.
    pub fn interval(
        lower: Bound<ReleaseVersion>,
        upper: Bound<ReleaseVersion>,
    ) -> Result<VersionRequirement, JournalError> {
        if matches!((&lower, &upper), (Bound::Unbounded, Bound::Unbounded)) {
            return Err(syntax_at(
                1,
                "found `(,)`, expected at least one bound (write `*` for every version)",
            ));
        }
        if let (Bound::Included(l) | Bound::Excluded(l), Bound::Included(u) | Bound::Excluded(u)) =
            (&lower, &upper)
        {
            let both_inclusive =
                matches!((&lower, &upper), (Bound::Included(_), Bound::Included(_)));
            if l > u || (l == u && !both_inclusive) {
                return Err(semantic(format!(
                    "found an empty range from {l} to {u}, expected a lower bound below the upper \
                     bound (or equal bounds, both inclusive)"
                )));
            }
        }
        let (lower, lower_inclusive) = split(lower);
        let (upper, upper_inclusive) = split(upper);
        Ok(VersionRequirement::stored(Req {
            lower,
            upper,
            shape: Shape::Interval {
                lower_inclusive,
                upper_inclusive,
            },
        }))
    }

    /// Whether this is `*`.
    pub fn is_any(&self) -> bool {
        self.0.req.shape == Shape::Any
    }

    /// The version, if this is an exact requirement.
    pub fn as_exact(&self) -> Option<&ReleaseVersion> {
        match self.0.req.shape {
            Shape::Exact => self.0.req.lower.as_ref(),
            _ => None,
        }
    }

    /// The lower bound (`Included(v)` for an exact `v`, `Unbounded` for `*`).
    pub fn lower(&self) -> Bound<&ReleaseVersion> {
        match self.0.req.shape {
            Shape::Any => Bound::Unbounded,
            Shape::Exact => bound(self.0.req.lower.as_ref(), true),
            Shape::Interval {
                lower_inclusive, ..
            } => bound(self.0.req.lower.as_ref(), lower_inclusive),
        }
    }

    /// The upper bound (`Included(v)` for an exact `v`, `Unbounded` for `*`).
    pub fn upper(&self) -> Bound<&ReleaseVersion> {
        match self.0.req.shape {
            Shape::Any => Bound::Unbounded,
            Shape::Exact => bound(self.0.req.lower.as_ref(), true),
            Shape::Interval {
                upper_inclusive, ..
            } => bound(self.0.req.upper.as_ref(), upper_inclusive),
        }
    }

    /// Whether `version` satisfies this requirement, by SemVer precedence.
    pub fn matches(&self, version: &ReleaseVersion) -> bool {
        let above = match self.lower() {
            Bound::Unbounded => true,
            Bound::Included(l) => version >= l,
            Bound::Excluded(l) => version > l,
        };
        let below = match self.upper() {
            Bound::Unbounded => true,
            Bound::Included(u) => version <= u,
            Bound::Excluded(u) => version < u,
        };
        above && below
    }
}

fn bound_version(text: &str, column: usize) -> Result<Option<ReleaseVersion>, JournalError> {
    if text.is_empty() {
        return Ok(None);
    }
    text.parse::<ReleaseVersion>()
        .map(Some)
        .map_err(|e| e.relocated(1, column))
}

impl FromStr for VersionRequirement {
    type Err = JournalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // Only canonical texts are stored, and each token has one value
        // whose canonical text is the token itself: a token seen before
        // needs no reading.
        if let Some(seen) = VersionRequirement::seen(s) {
            return Ok(seen);
        }
        if s == "*" {
            return Ok(VersionRequirement::any());
        }
        let open = s.as_bytes().first().copied();
        if !matches!(open, Some(b'[' | b'(')) {
            if s.is_empty() {
                return Err(syntax_at(
                    1,
                    "found nothing, expected a requirement (`*`, a version or an interval)",
                ));
            }
            return s
                .parse::<ReleaseVersion>()
                .map(VersionRequirement::exact)
                .map_err(|e| match super::requirement_hint::foreign_form(s) {
                    Some(message) => syntax_at(1, message),
                    None => e,
                });
        }
        let close = s.as_bytes().last().copied();
        if s.len() < 2 || !matches!(close, Some(b']' | b')')) {
            return Err(syntax_at(
                s.len().max(1),
                format!(
                    "found {}, expected an interval closed by `]` or `)`{}",
                    shown(s),
                    super::requirement_hint::unclosed_interval(s)
                ),
            ));
        }
        let body = &s[1..s.len() - 1];
        let Some((low, high)) = body.split_once(',') else {
            return Err(syntax_at(
                2,
                format!(
                    "found {}, expected an interval `<lower>,<upper>` with a comma",
                    shown(s)
                ),
            ));
        };
        let lower = bound_version(low, 2)?;
        let upper = bound_version(high, 2 + low.len() + 1)?;
        let lower_inclusive = open == Some(b'[');
        let upper_inclusive = close == Some(b']');
        if lower.is_none() && lower_inclusive {
            return Err(syntax_at(
                1,
                "found `[` before an omitted lower bound, expected `(`",
            ));
        }
        if upper.is_none() && upper_inclusive {
            return Err(syntax_at(
                s.len(),
                "found `]` after an omitted upper bound, expected `)`",
            ));
        }
        let lower = match lower {
            None => Bound::Unbounded,
            Some(v) if lower_inclusive => Bound::Included(v),
            Some(v) => Bound::Excluded(v),
        };
        let upper = match upper {
            None => Bound::Unbounded,
            Some(v) if upper_inclusive => Bound::Included(v),
            Some(v) => Bound::Excluded(v),
        };
        VersionRequirement::interval(lower, upper)
    }
}

impl fmt::Display for VersionRequirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.text)
    }
}

/// The canonical text of a requirement's versions (what `Display` writes).
struct Canonical<'r>(&'r Req);

impl fmt::Display for Canonical<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let req = self.0;
        match req.shape {
            Shape::Any => f.write_str("*"),
            Shape::Exact => match &req.lower {
                Some(v) => write!(f, "{v}"),
                None => f.write_str("*"),
            },
            Shape::Interval {
                lower_inclusive,
                upper_inclusive,
            } => {
                match bound(req.lower.as_ref(), lower_inclusive) {
                    Bound::Unbounded => f.write_str("(,")?,
                    Bound::Included(v) => write!(f, "[{v},")?,
                    Bound::Excluded(v) => write!(f, "({v},")?,
                }
                match bound(req.upper.as_ref(), upper_inclusive) {
                    Bound::Unbounded => f.write_str(")"),
                    Bound::Included(v) => write!(f, "{v}]"),
                    Bound::Excluded(v) => write!(f, "{v})"),
                }
            }
        }
    }
}

impl fmt::Debug for VersionRequirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VersionRequirement({self})")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly

    use super::*;

    fn req(s: &str) -> VersionRequirement {
        s.parse().unwrap()
    }

    #[test]
    fn the_stored_form_fits_one_allocation_class_less() {
        assert!(std::mem::size_of::<Req>() <= 88);
    }

    #[test]
    fn bounds_and_equality_survive_the_compact_form() {
        let v = |s: &str| s.parse::<ReleaseVersion>().unwrap();
        let exact = req("1.0.0");
        assert_eq!(exact.as_exact(), Some(&v("1.0.0")));
        assert_eq!(exact.lower(), Bound::Included(&v("1.0.0")));
        assert_eq!(exact.upper(), Bound::Included(&v("1.0.0")));
        // An exact requirement and the equal-bounds interval match the same
        // versions but are different requirements, written differently.
        let closed = req("[1.0.0,1.0.0]");
        assert_ne!(exact, closed);
        assert_eq!(closed.as_exact(), None);
        assert_eq!(closed.to_string(), "[1.0.0,1.0.0]");
        let half = req("(1.0.0,)");
        assert_eq!(half.lower(), Bound::Excluded(&v("1.0.0")));
        assert_eq!(half.upper(), Bound::Unbounded);
        assert_eq!(req("(,2.0.0]").lower(), Bound::Unbounded);
        assert!(req("*").is_any() && !exact.is_any());
        assert_eq!(req("*").lower(), Bound::Unbounded);
        assert_eq!(
            VersionRequirement::interval(Bound::Unbounded, Bound::Excluded(v("2.0.0"))).unwrap(),
            req("(,2.0.0)")
        );
    }
}
