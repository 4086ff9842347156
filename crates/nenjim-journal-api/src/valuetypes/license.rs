use super::text::{LICENSES, Text};
use super::{semantic, shown, syntax_at};
use crate::error::{ErrorContext as _, JournalError};
use std::fmt;
use std::str::FromStr;

/// The deepest parenthesis nesting accepted, so that hostile input cannot
/// exhaust the stack of any expression walker.
const MAX_NESTING: usize = 64;

/// A release's license: an SPDX 2.3 license expression (Annex D).
///
/// Identifiers must be on the SPDX License List in exact case (deprecated
/// identifiers are on the list and accepted), or be `LicenseRef-…` /
/// `DocumentRef-…:LicenseRef-…`; operators are the upper-case `AND`, `OR`,
/// `WITH`, with parentheses and the `+` suffix. `NONE` and `NOASSERTION`
/// stand only as the whole expression. The text is kept exactly as written.
///
/// ```
/// use nenjim_journal_api::valuetypes::LicenseExpression;
/// let l: LicenseExpression = "Apache-2.0 OR MIT".parse().unwrap();
/// assert_eq!(l.as_str(), "Apache-2.0 OR MIT");
/// assert!("mit".parse::<LicenseExpression>().is_err());
/// assert!("MIT or Apache-2.0".parse::<LicenseExpression>().is_err());
/// assert!("NONE".parse::<LicenseExpression>().is_ok());
/// assert!("MIT AND NONE".parse::<LicenseExpression>().is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LicenseExpression(Text);

impl LicenseExpression {
    /// The expression exactly as written.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

fn mode() -> spdx::ParseMode {
    let mut mode = spdx::ParseMode::STRICT;
    // SPDX 2.3 keeps deprecated identifiers on its list and allows `+` after
    // any license identifier, GPL included.
    mode.allow_deprecated = true;
    mode.allow_postfix_plus_on_gpl = true;
    mode
}

impl FromStr for LicenseExpression {
    type Err = JournalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // Only valid expressions are stored there: one seen before in this
        // process needs no validation (SPDX's parse is the costly part).
        if let Some(text) = Text::found_in(&LICENSES, s) {
            return Ok(LicenseExpression(text));
        }
        if s.is_empty() {
            return Err(syntax_at(
                1,
                "found nothing, expected an SPDX license expression",
            ));
        }
        if s.starts_with(' ') || s.ends_with(' ') {
            return Err(syntax_at(
                1,
                format!("found {}, expected no surrounding spaces", shown(s)),
            ));
        }
        if let Some((i, c)) = s.char_indices().find(|(_, c)| c.is_control()) {
            return Err(syntax_at(
                i + 1,
                format!(
                    "found control character {}, expected a license expression",
                    shown(&c.to_string())
                ),
            ));
        }
        if matches!(s, "NONE" | "NOASSERTION") {
            return Ok(LicenseExpression(Text::stored_in(&LICENSES, s)));
        }
        let mut depth = 0usize;
        for (i, c) in s.char_indices() {
            match c {
                '(' => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return Err(semantic(format!(
                            "found parentheses nested deeper than {MAX_NESTING} at column {}, expected a flatter license expression",
                            i + 1
                        )));
                    }
                }
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        for word in s.split([' ', '(', ')']).filter(|w| !w.is_empty()) {
            match word {
                "NONE" | "NOASSERTION" => {
                    return Err(semantic(format!(
                        "found `{word}` inside a compound expression, expected it only as the whole expression"
                    )));
                }
                w if matches!(w.to_ascii_uppercase().as_str(), "AND" | "OR" | "WITH")
                    && !matches!(w, "AND" | "OR" | "WITH") =>
                {
                    return Err(semantic(format!(
                        "found operator `{w}`, expected `{}` (operators are upper case)",
                        w.to_ascii_uppercase()
                    )));
                }
                _ => {}
            }
        }
        spdx::Expression::parse_mode(s, mode()).map_err(|e| {
            let found = s.get(e.span.clone()).unwrap_or(s);
            // `MIT/Apache-2.0` (Cargo's old form) means `MIT OR Apache-2.0`.
            let hint = super::license_hint::slash_as_or(s)
                .filter(|or| spdx::Expression::parse_mode(or, mode()).is_ok())
                .map_or_else(
                    || super::license_hint::did_you_mean(found),
                    |or| format!("; did you mean `{or}`? (`/` is not an SPDX operator)"),
                );
            semantic(format!(
                "found {} in license expression {}, expected an SPDX expression of listed identifiers: {}{hint}",
                shown(found),
                shown(s),
                e.reason,
            ))
            .at(1, e.span.start + 1)
        })?;
        Ok(LicenseExpression(Text::stored_in(&LICENSES, s)))
    }
}

impl fmt::Display for LicenseExpression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_str())
    }
}

impl fmt::Debug for LicenseExpression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LicenseExpression({:?})", self.0.as_str())
    }
}
