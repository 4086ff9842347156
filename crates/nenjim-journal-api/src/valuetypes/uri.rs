use super::text::Text;
use super::{shown, syntax_at};
use crate::error::JournalError;
use std::fmt;
use std::str::FromStr;

/// Where to read more about an artifact: an absolute RFC 3986 URI of any
/// scheme (`https:`, `mailto:`, `urn:`, `git+ssh:`, `did:` …), ASCII only
/// (non-ASCII must be percent-encoded), at most 2048 bytes. Relative
/// references are refused.
///
/// ```
/// use nenjim_journal_api::valuetypes::InformationUri;
/// let u: InformationUri = "mailto:owner@example.org".parse().unwrap();
/// assert_eq!(u.scheme(), "mailto");
/// assert!("/relative/path".parse::<InformationUri>().is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InformationUri {
    /// The URI; its scheme is everything before the first `:` (RFC 3986
    /// scheme characters exclude `:`, and every accepted URI has a scheme).
    text: Text,
}

impl InformationUri {
    /// The longest URI, in bytes.
    pub const MAX_LEN: usize = 2048;

    /// The URI exactly as written.
    pub fn as_str(&self) -> &str {
        self.text.as_str()
    }

    /// The scheme, without the `:` (as written; schemes compare case-insensitively).
    pub fn scheme(&self) -> &str {
        let text = self.text.as_str();
        text.split_once(':').map_or(text, |(scheme, _)| scheme)
    }
}

impl FromStr for InformationUri {
    type Err = JournalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some((i, c)) = s.char_indices().find(|(_, c)| !c.is_ascii()) {
            return Err(syntax_at(
                i + 1,
                format!(
                    "found {} in a URI, expected ASCII only (percent-encode other characters)",
                    shown(&c.to_string())
                ),
            ));
        }
        if s.len() > Self::MAX_LEN {
            return Err(syntax_at(
                Self::MAX_LEN + 1,
                format!(
                    "found a URI of {} bytes, expected at most {}",
                    s.len(),
                    Self::MAX_LEN
                ),
            ));
        }
        let uri = fluent_uri::Uri::parse(s).map_err(|e| {
            let at = e.index();
            syntax_at(
                at + 1,
                format!(
                    "found {} in URI {}, expected an absolute RFC 3986 URI `scheme:…` ({:?})",
                    shown(s.get(at..at + 1).unwrap_or("")),
                    shown(s),
                    e.kind()
                ),
            )
        })?;
        debug_assert_eq!(
            uri.scheme().as_str(),
            s.split_once(':').map_or(s, |(scheme, _)| scheme)
        );
        Ok(InformationUri { text: Text::new(s) })
    }
}

impl fmt::Display for InformationUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text.as_str())
    }
}

impl fmt::Debug for InformationUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InformationUri({:?})", self.text.as_str())
    }
}
