use std::fmt;
use std::ops::Bound;
use std::str::FromStr;
use std::sync::Arc;

use super::{ReleaseVersion, semantic, shown, syntax_at};
use crate::error::JournalError;

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
/// Cheap to clone (shared): a loader interns equal requirements, so a
/// dependency holds one pointer instead of two inline versions.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct VersionRequirement(Arc<Req>);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Req {
    Any,
    Exact(ReleaseVersion),
    Interval {
        lower: Bound<ReleaseVersion>,
        upper: Bound<ReleaseVersion>,
    },
}

impl VersionRequirement {
    /// `*`: every version.
    pub fn any() -> VersionRequirement {
        VersionRequirement(Arc::new(Req::Any))
    }

    /// Exactly `version`.
    pub fn exact(version: ReleaseVersion) -> VersionRequirement {
        VersionRequirement(Arc::new(Req::Exact(version)))
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
        Ok(VersionRequirement(Arc::new(Req::Interval { lower, upper })))
    }

    /// Whether this is `*`.
    pub fn is_any(&self) -> bool {
        matches!(*self.0, Req::Any)
    }

    /// The version, if this is an exact requirement.
    pub fn as_exact(&self) -> Option<&ReleaseVersion> {
        match &*self.0 {
            Req::Exact(v) => Some(v),
            _ => None,
        }
    }

    /// The lower bound (`Included(v)` for an exact `v`, `Unbounded` for `*`).
    pub fn lower(&self) -> Bound<&ReleaseVersion> {
        match &*self.0 {
            Req::Any => Bound::Unbounded,
            Req::Exact(v) => Bound::Included(v),
            Req::Interval { lower, .. } => lower.as_ref(),
        }
    }

    /// The upper bound (`Included(v)` for an exact `v`, `Unbounded` for `*`).
    pub fn upper(&self) -> Bound<&ReleaseVersion> {
        match &*self.0 {
            Req::Any => Bound::Unbounded,
            Req::Exact(v) => Bound::Included(v),
            Req::Interval { upper, .. } => upper.as_ref(),
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
            return s.parse::<ReleaseVersion>().map(VersionRequirement::exact);
        }
        let close = s.as_bytes().last().copied();
        if s.len() < 2 || !matches!(close, Some(b']' | b')')) {
            return Err(syntax_at(
                s.len().max(1),
                format!(
                    "found {}, expected an interval closed by `]` or `)`",
                    shown(s)
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
        match &*self.0 {
            Req::Any => f.write_str("*"),
            Req::Exact(v) => write!(f, "{v}"),
            Req::Interval { lower, upper } => {
                match lower {
                    Bound::Unbounded => f.write_str("(,")?,
                    Bound::Included(v) => write!(f, "[{v},")?,
                    Bound::Excluded(v) => write!(f, "({v},")?,
                }
                match upper {
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
