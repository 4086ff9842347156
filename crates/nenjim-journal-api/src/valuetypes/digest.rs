use std::fmt;
use std::str::FromStr;

use sha2::{Digest as _, Sha256};

use super::{shown, syntax_at};
use crate::error::{ErrorContext as _, JournalError};

const PREFIX: &str = "sha256:";
const HEX: &[u8; 16] = b"0123456789abcdef";

/// The value of each lower-case hex digit; 0xff for every other byte.
const HEX_VALUE: [u8; 256] = {
    let mut table = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

/// Parses `sha256:` + 64 lower-case hex digits.
fn parse_sha256(s: &str, what: &str) -> Result<[u8; 32], JournalError> {
    let Some(hex) = s.strip_prefix(PREFIX) else {
        let shown_prefix: String = s.chars().take(PREFIX.len()).collect();
        return Err(syntax_at(
            1,
            format!(
                "found {}, expected a {what} `sha256:<64 lower-case hex digits>`",
                shown(&shown_prefix)
            ),
        ));
    };
    let mut out = [0u8; 32];
    let bytes = hex.as_bytes();
    if let Ok(digits) = <&[u8; 64]>::try_from(bytes) {
        // Fast path: 64 digits, decoded through a table; any byte that is not
        // a lower-case hex digit maps to 0xff and sends the text to the
        // checking loop below, which locates it.
        let mut bad = 0u8;
        for (byte, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
            let (high, low) = (
                HEX_VALUE[usize::from(pair[0])],
                HEX_VALUE[usize::from(pair[1])],
            );
            bad |= high | low;
            *byte = (high << 4) | low;
        }
        if bad < 16 {
            return Ok(out);
        }
        out = [0u8; 32];
    }
    for (i, &b) in bytes.iter().enumerate() {
        let nibble = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => {
                let found = hex
                    .get(i..)
                    .and_then(|r| r.chars().next())
                    .map(String::from);
                return Err(syntax_at(
                    PREFIX.len() + i + 1,
                    format!(
                        "found {} in a {what}, expected a lower-case hex digit (0-9, a-f)",
                        shown(found.as_deref().unwrap_or("a non-ASCII byte"))
                    ),
                ));
            }
        };
        if i >= 64 {
            return Err(syntax_at(
                PREFIX.len() + 65,
                format!("found more than 64 hex digits in a {what}, expected exactly 64"),
            ));
        }
        out[i / 2] |= if i % 2 == 0 { nibble << 4 } else { nibble };
    }
    if bytes.len() != 64 {
        return Err(syntax_at(
            PREFIX.len() + bytes.len() + 1,
            format!(
                "found {} hex digits in a {what}, expected exactly 64",
                bytes.len()
            ),
        ));
    }
    Ok(out)
}

fn write_sha256(f: &mut fmt::Formatter<'_>, bytes: &[u8; 32]) -> fmt::Result {
    let mut buf = [0u8; 71];
    buf[..7].copy_from_slice(PREFIX.as_bytes());
    for (i, b) in bytes.iter().enumerate() {
        buf[7 + 2 * i] = HEX[usize::from(b >> 4)];
        buf[8 + 2 * i] = HEX[usize::from(b & 0x0f)];
    }
    // Every byte written above is ASCII.
    f.write_str(std::str::from_utf8(&buf).map_err(|_| fmt::Error)?)
}

macro_rules! sha256_type {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name([u8; 32]);

        impl $name {
            /// The digest of `bytes`.
            pub fn of_bytes(bytes: &[u8]) -> $name {
                $name(Sha256::digest(bytes).into())
            }

            /// A digest from its 32 raw bytes (e.g. a streaming hasher's output).
            pub fn from_bytes(bytes: [u8; 32]) -> $name {
                $name(bytes)
            }

            /// The 32 raw bytes.
            pub fn as_bytes(&self) -> &[u8; 32] {
                &self.0
            }

            /// The 64 lower-case hex digits, without the `sha256:` prefix.
            pub fn to_hex(&self) -> String {
                let mut s = String::with_capacity(64);
                for b in self.0 {
                    s.push(char::from(HEX[usize::from(b >> 4)]));
                    s.push(char::from(HEX[usize::from(b & 0x0f)]));
                }
                s
            }
        }

        impl FromStr for $name {
            type Err = JournalError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                parse_sha256(s, $what).map($name)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write_sha256(f, &self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({})"), self)
            }
        }
    };
}

sha256_type!(
    /// The identity of a Journal revision: SHA-256 over the exact bytes of its
    /// text as supplied (whitespace, comments and line endings included).
    ///
    /// ```
    /// use nenjim_journal_api::valuetypes::RevisionDigest;
    /// let d = RevisionDigest::of_text("");
    /// assert_eq!(
    ///     d.to_string(),
    ///     "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// );
    /// assert_eq!(d.to_string().parse::<RevisionDigest>().unwrap(), d);
    /// ```
    RevisionDigest,
    "revision digest"
);

sha256_type!(
    /// The SHA-256 of a release's artifact blob: its key in a content store
    /// (`blobs/sha256/<hex>`).
    ContentDigest,
    "content digest"
);

impl RevisionDigest {
    /// The digest of a revision's exact text.
    pub fn of_text(text: &str) -> RevisionDigest {
        RevisionDigest::of_bytes(text.as_bytes())
    }
}

/// A content pointer: the SHA-256 and exact byte size of a release's blob.
///
/// Written `sha256:<hex> <size>` (one space), as on a `CONTENT` line.
///
/// ```
/// use nenjim_journal_api::valuetypes::{ContentDigest, ContentPointer};
/// let p = ContentPointer::new(ContentDigest::of_bytes(b"abc"), 3);
/// assert_eq!(p.to_string().parse::<ContentPointer>().unwrap(), p);
/// assert_eq!(p.size(), 3);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ContentPointer {
    digest: ContentDigest,
    size: u64,
}

impl ContentPointer {
    /// A pointer to the blob with `digest` and `size` bytes.
    pub fn new(digest: ContentDigest, size: u64) -> ContentPointer {
        ContentPointer { digest, size }
    }

    /// The blob's SHA-256.
    pub fn digest(&self) -> &ContentDigest {
        &self.digest
    }

    /// The blob's exact size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Parses a `size` token: `0` or a decimal without leading zeros that fits `u64`.
    pub(crate) fn parse_size(s: &str) -> Result<u64, JournalError> {
        let bytes = s.as_bytes();
        if bytes.is_empty() {
            return Err(syntax_at(1, "found nothing, expected a size in bytes"));
        }
        if let Some(i) = bytes.iter().position(|b| !b.is_ascii_digit()) {
            let found = s.get(i..).and_then(|r| r.chars().next()).map(String::from);
            return Err(syntax_at(
                i + 1,
                format!(
                    "found {} in a size, expected a decimal digit",
                    shown(found.as_deref().unwrap_or("a non-ASCII byte"))
                ),
            ));
        }
        if bytes.len() > 1 && bytes[0] == b'0' {
            return Err(syntax_at(
                1,
                format!("found {}, expected a size without leading zeros", shown(s)),
            ));
        }
        s.parse::<u64>().map_err(|_| {
            syntax_at(
                1,
                format!("found size {}, expected at most {}", shown(s), u64::MAX),
            )
        })
    }
}

impl FromStr for ContentPointer {
    type Err = JournalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let Some((digest, size)) = s.split_once(' ') else {
            return Err(syntax_at(
                s.len() + 1,
                "found the end of the content pointer, expected ` <size>` after the digest",
            ));
        };
        let digest = digest.parse::<ContentDigest>()?;
        let size = ContentPointer::parse_size(size).map_err(|e| e.relocated(1, 73))?;
        Ok(ContentPointer { digest, size })
    }
}

impl fmt::Display for ContentPointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.digest, self.size)
    }
}
