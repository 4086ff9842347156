//! The versions and requirements the corpus draws: [`Ver`] (SemVer with
//! optional pre-release, ordered by precedence) and the requirements of
//! DEPENDS, EXCLUDES and PREFERS lines.

use super::*;

// ---------------------------------------------------------------- versions

/// A SemVer version without build metadata; pre-releases are `label.N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ver {
    pub(super) major: u64,
    pub(super) minor: u64,
    pub(super) patch: u64,
    pub(super) pre: Option<(&'static str, u64)>,
}

impl Ver {
    pub(super) const fn new(major: u64, minor: u64, patch: u64) -> Ver {
        Ver {
            major,
            minor,
            patch,
            pre: None,
        }
    }
    pub(super) fn triple(self) -> (u64, u64, u64) {
        (self.major, self.minor, self.patch)
    }
}

impl Ord for Ver {
    fn cmp(&self, other: &Ver) -> Ordering {
        self.triple()
            .cmp(&other.triple())
            .then_with(|| match (self.pre, other.pre) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
                // Alphanumeric labels compare as ASCII, numbers numerically.
                (Some(a), Some(b)) => a.0.cmp(b.0).then(a.1.cmp(&b.1)),
            })
    }
}

impl PartialOrd for Ver {
    fn partial_cmp(&self, other: &Ver) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Ver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if let Some((label, n)) = self.pre {
            write!(f, "-{label}.{n}")?;
        }
        Ok(())
    }
}

// ------------------------------------------------------------ requirements

/// A requirement as generated: rendered both as a Journal token and as a
/// Cargo requirement for the JSON peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Req {
    Any,
    Exact(Ver),
    /// `(bound, inclusive)`; at least one bound, never empty.
    Interval {
        lower: Option<(Ver, bool)>,
        upper: Option<(Ver, bool)>,
    },
}

impl Req {
    pub(super) fn journal(self) -> String {
        match self {
            Req::Any => "*".to_owned(),
            Req::Exact(v) => v.to_string(),
            Req::Interval { lower, upper } => {
                let mut s = String::new();
                match lower {
                    None => s.push_str("(,"),
                    Some((v, true)) => {
                        let _ = write!(s, "[{v},");
                    }
                    Some((v, false)) => {
                        let _ = write!(s, "({v},");
                    }
                }
                match upper {
                    None => s.push(')'),
                    Some((v, true)) => {
                        let _ = write!(s, "{v}]");
                    }
                    Some((v, false)) => {
                        let _ = write!(s, "{v})");
                    }
                }
                s
            }
        }
    }

    pub(super) fn cargo(self) -> String {
        match self {
            Req::Any => "*".to_owned(),
            Req::Exact(v) => format!("={v}"),
            Req::Interval { lower, upper } => {
                let mut parts = Vec::new();
                match lower {
                    Some((v, true)) => parts.push(format!(">={v}")),
                    Some((v, false)) => parts.push(format!(">{v}")),
                    None => {}
                }
                match upper {
                    Some((v, true)) => parts.push(format!("<={v}")),
                    Some((v, false)) => parts.push(format!("<{v}")),
                    None => {}
                }
                parts.join(", ")
            }
        }
    }

    pub(super) fn random(rng: &mut SplitMix64) -> Req {
        let a = rng.below(4) as u64;
        let b = rng.below(12) as u64;
        let c = rng.below(20) as u64;
        match rng.below(100) {
            0..=29 => Req::Interval {
                // caret-like
                lower: Some((Ver::new(a.max(1), b, 0), true)),
                upper: Some((Ver::new(a.max(1) + 1, 0, 0), false)),
            },
            30..=44 => Req::Interval {
                // tilde-like
                lower: Some((Ver::new(a, b, c), true)),
                upper: Some((Ver::new(a, b + 1, 0), false)),
            },
            45..=64 => Req::Exact(Ver::new(a, b, c)),
            65..=74 => Req::Interval {
                lower: None,
                upper: Some((Ver::new(a + 1, 0, 0), false)),
            },
            75..=84 => Req::Interval {
                lower: Some((Ver::new(a, b, 0), true)),
                upper: None,
            },
            85..=89 => Req::Any,
            90..=94 => Req::Interval {
                lower: Some((Ver::new(a, b, c), true)),
                upper: Some((Ver::new(a, b, c), true)),
            },
            _ => Req::Interval {
                lower: Some((Ver::new(a, b, c), false)),
                upper: Some((Ver::new(a, b + 2, 0), true)),
            },
        }
    }
}
