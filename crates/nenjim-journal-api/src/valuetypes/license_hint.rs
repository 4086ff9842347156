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

/// The text appended to an unknown identifier's message.
pub(super) fn did_you_mean(found: &str) -> String {
    match suggestion(found) {
        Some(name) => format!("; did you mean `{name}`?"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::suggestion;

    #[test]
    fn common_misspellings_have_a_suggestion() {
        assert_eq!(suggestion("Apache2"), Some("Apache-2.0"));
        assert_eq!(suggestion("mit"), Some("MIT"));
        assert_eq!(suggestion("apache-2.0"), Some("Apache-2.0"));
        assert_eq!(suggestion("BSD3"), Some("BSD-3-Clause"));
        assert_eq!(suggestion("Frobnicate-9"), None);
    }
}
