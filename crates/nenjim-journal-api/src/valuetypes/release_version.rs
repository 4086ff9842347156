use std::fmt;
use std::str::FromStr;

use super::{shown, syntax_at};
use crate::error::JournalError;

/// A release's version: SemVer 2.0.0 without build metadata.
///
/// Ordered by SemVer precedence (pre-releases before their release;
/// numeric pre-release identifiers compare numerically). Numbers have no
/// leading zeros and fit `u64`. Build metadata (`+…`) is refused because it
/// does not take part in precedence and so could not identify a release.
///
/// ```
/// use nenjim_journal_api::valuetypes::ReleaseVersion;
/// let rc: ReleaseVersion = "1.1.0-rc.1".parse().unwrap();
/// let ga: ReleaseVersion = "1.1.0".parse().unwrap();
/// assert!(rc < ga);
/// assert!("1.0.0+build.5".parse::<ReleaseVersion>().is_err());
/// assert!("1.02.0".parse::<ReleaseVersion>().is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReleaseVersion(semver::Version);

impl ReleaseVersion {
    /// Makes a release version from a `semver::Version`, refusing build metadata
    /// and numeric pre-release identifiers that do not fit `u64`.
    pub(crate) fn from_semver(version: semver::Version) -> Result<ReleaseVersion, JournalError> {
        if !version.build.is_empty() {
            return Err(syntax_at(
                1,
                format!(
                    "found build metadata `+{}`, expected a version without build metadata",
                    version.build
                ),
            ));
        }
        for ident in version.pre.as_str().split('.') {
            if !ident.is_empty()
                && ident.bytes().all(|b| b.is_ascii_digit())
                && ident.parse::<u64>().is_err()
            {
                return Err(syntax_at(
                    1,
                    format!(
                        "found pre-release number {}, expected a number that fits 64 bits",
                        shown(ident)
                    ),
                ));
            }
        }
        Ok(ReleaseVersion(version))
    }

    /// The major version number.
    pub fn major(&self) -> u64 {
        self.0.major
    }

    /// The minor version number.
    pub fn minor(&self) -> u64 {
        self.0.minor
    }

    /// The patch version number.
    pub fn patch(&self) -> u64 {
        self.0.patch
    }

    /// Whether this is a pre-release (`1.0.0-rc.1`).
    pub fn is_prerelease(&self) -> bool {
        !self.0.pre.is_empty()
    }
}

/// A plain `N.N.N` version (ASCII digits, no leading zeros, each number at
/// most 19 digits so it fits `u64`), read without the general parser; `None`
/// for anything else, which then goes through `semver::Version::parse` (and
/// its exact error messages).
fn plain_version(s: &str) -> Option<semver::Version> {
    fn number(part: &[u8]) -> Option<u64> {
        if part.is_empty() || part.len() > 19 || (part.len() > 1 && part[0] == b'0') {
            return None;
        }
        let mut value = 0u64;
        for &b in part {
            if !b.is_ascii_digit() {
                return None;
            }
            value = value * 10 + u64::from(b - b'0');
        }
        Some(value)
    }
    let mut parts = s.as_bytes().split(|&b| b == b'.');
    let major = number(parts.next()?)?;
    let minor = number(parts.next()?)?;
    let patch = number(parts.next()?)?;
    if parts.next().is_some() {
        return None;
    }
    Some(semver::Version::new(major, minor, patch))
}

impl FromStr for ReleaseVersion {
    type Err = JournalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(version) = plain_version(s) {
            return Ok(ReleaseVersion(version));
        }
        if let Some(plus) = s.find('+') {
            return Err(syntax_at(
                plus + 1,
                format!(
                    "found build metadata {}, expected a version without build metadata",
                    shown(&s[plus..])
                ),
            ));
        }
        let version = semver::Version::parse(s).map_err(|e| {
            syntax_at(
                1,
                format!("found {}, expected a SemVer version: {e}", shown(s)),
            )
        })?;
        ReleaseVersion::from_semver(version)
    }
}

impl fmt::Display for ReleaseVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for ReleaseVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ReleaseVersion({})", self.0)
    }
}
