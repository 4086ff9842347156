//! "Did you mean" for a license identifier that is not on the SPDX list
//! (`Apache2`, `mit`).

/// The listed identifier `found` most likely meant, if any.
pub(super) fn suggestion(found: &str) -> Option<&'static str> {
    let licenses = spdx::identifiers::LICENSES;
    let word = found.trim_end_matches('+');
    if let Some(l) = licenses.iter().find(|l| l.name.eq_ignore_ascii_case(word)) {
        return Some(l.name);
    }
    let key = normalized(word);
    if let Some(l) = licenses.iter().find(|l| normalized(l.name) == key) {
        return Some(l.name);
    }
    spdx::imprecise_license_id(word)
        .filter(|(_, len)| *len == word.len())
        .map(|(id, _)| id.name)
}

/// Lower case, letters and digits only, a trailing `.0` dropped (`Apache-2.0` → `apache2`).
fn normalized(name: &str) -> String {
    let name = name.strip_suffix(".0").unwrap_or(name);
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// `expression` with each `/` read as ` OR ` (`MIT/Apache-2.0` →
/// `MIT OR Apache-2.0`), if it has one; the caller checks that it parses.
pub(super) fn slash_as_or(expression: &str) -> Option<String> {
    expression.contains('/').then(|| {
        expression
            .split('/')
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" OR ")
    })
}

/// The text appended to an unknown identifier's message.
pub(super) fn did_you_mean(found: &str) -> String {
    match suggestion(found) {
        Some(name) => format!("; did you mean `{name}`?"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::{slash_as_or, suggestion};

    #[test]
    fn a_slash_reads_as_or() {
        assert_eq!(
            slash_as_or("MIT/Apache-2.0").as_deref(),
            Some("MIT OR Apache-2.0")
        );
        assert_eq!(slash_as_or("MIT"), None);
        let refused = "MIT/Apache-2.0"
            .parse::<crate::valuetypes::LicenseExpression>()
            .err()
            .map(|e| e.message().to_owned())
            .unwrap_or_default();
        assert!(
            refused.contains("did you mean `MIT OR Apache-2.0`?"),
            "{refused}"
        );
    }

    #[test]
    fn common_misspellings_have_a_suggestion() {
        assert_eq!(suggestion("Apache2"), Some("Apache-2.0"));
        assert_eq!(suggestion("mit"), Some("MIT"));
        assert_eq!(suggestion("apache-2.0"), Some("Apache-2.0"));
        assert_eq!(suggestion("BSD3"), Some("BSD-3-Clause"));
        assert_eq!(suggestion("Frobnicate-9"), None);
    }
}
