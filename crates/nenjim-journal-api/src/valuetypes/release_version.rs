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
///
/// 32 bytes: the three numbers and the pre-release, without the build
/// metadata field of a `semver::Version` (always empty here), so a release
/// body and a RECOMMEND statement take one allocation size class less.
/// The derived order is SemVer precedence: the numbers, then the
/// pre-release (`semver::Prerelease` orders an empty one, a release, last).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReleaseVersion {
    major: u64,
    minor: u64,
    patch: u64,
    pre: semver::Prerelease,
}

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
        Ok(ReleaseVersion {
            major: version.major,
            minor: version.minor,
            patch: version.patch,
            pre: version.pre,
        })
    }

    /// The `semver::Version` of this version (for its padded `Display`).
    fn to_semver(&self) -> semver::Version {
        semver::Version {
            major: self.major,
            minor: self.minor,
            patch: self.patch,
            pre: self.pre.clone(),
            build: semver::BuildMetadata::EMPTY,
        }
    }

    /// The major version number.
    pub fn major(&self) -> u64 {
        self.major
    }

    /// The minor version number.
    pub fn minor(&self) -> u64 {
        self.minor
    }

    /// The patch version number.
    pub fn patch(&self) -> u64 {
        self.patch
    }

    /// Whether this is a pre-release (`1.0.0-rc.1`).
    pub fn is_prerelease(&self) -> bool {
        !self.pre.is_empty()
    }
}

/// A plain `N.N.N` version (ASCII digits, no leading zeros, each number at
/// most 19 digits so it fits `u64`), read without the general parser; `None`
/// for anything else, which then goes through `semver::Version::parse` (and
/// its exact error messages).
fn plain_version(s: &str) -> Option<ReleaseVersion> {
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
    Some(ReleaseVersion {
        major,
        minor,
        patch,
        pre: semver::Prerelease::EMPTY,
    })
}

impl FromStr for ReleaseVersion {
    type Err = JournalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(version) = plain_version(s) {
            return Ok(version);
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
        // `semver::Version` pads to a width; without one, the same text
        // written directly (no copy of the pre-release).
        if f.width().is_some() {
            return fmt::Display::fmt(&self.to_semver(), f);
        }
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        Ok(())
    }
}

impl fmt::Debug for ReleaseVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ReleaseVersion({self})")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly
    use super::*;

    #[test]
    fn a_version_is_four_words_and_orders_and_shows_like_semver() {
        assert_eq!(std::mem::size_of::<ReleaseVersion>(), 32);
        let samples = [
            "0.0.0",
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta.11",
            "1.0.0-beta.2",
            "1.0.0-rc.1",
            "1.0.0",
            "1.2.3",
            "18446744073709551615.0.0",
        ];
        for a in samples {
            let va: ReleaseVersion = a.parse().unwrap();
            let sa = semver::Version::parse(a).unwrap();
            assert_eq!(va.to_string(), sa.to_string());
            assert_eq!(
                format!("{va:>30}|{va:<30}|{va:^30}"),
                format!("{sa:>30}|{sa:<30}|{sa:^30}")
            );
            for b in samples {
                let vb: ReleaseVersion = b.parse().unwrap();
                let sb = semver::Version::parse(b).unwrap();
                assert_eq!(va.cmp(&vb), sa.cmp(&sb), "{a} cmp {b}");
            }
        }
    }
}
