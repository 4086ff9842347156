//! "Did you mean": the known names closest to one that is not known
//! (`serde-json` → `serde_json`), and, for a pattern that matches nothing,
//! the names holding something close to it (`acmee` → `acme-logger`).

/// How many suggestions are shown at most.
const SHOWN: usize = 3;

/// Up to three of `known` close to `wanted`, closest first: equal but for
/// case and the separators `-`, `_`, `.` first, then within a small edit
/// distance.
pub fn similar<'a>(wanted: &str, known: impl Iterator<Item = &'a str>) -> Vec<String> {
    let key = normalized(wanted);
    let limit = (wanted.chars().count() / 3).clamp(2, 3);
    let mut scored: Vec<(usize, &str)> = known
        .filter_map(|name| {
            if normalized(name) == key {
                return Some((0, name));
            }
            let d = distance(&normalized(name), &key);
            (d <= limit).then_some((d + 1, name))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(SHOWN)
        .map(|(_, name)| format!("`{name}`"))
        .collect()
}

/// Up to three of `known` that hold a part close to `pattern` (a
/// substring of `list`'s pattern, globs' `*` and `?` dropped): within an
/// edit distance of a third of its length (at least one), closest first.
pub fn similar_part<'a>(pattern: &str, known: impl Iterator<Item = &'a str>) -> Vec<String> {
    let key = normalized(&pattern.replace(['*', '?'], ""));
    if key.is_empty() {
        return Vec::new();
    }
    let limit = (key.chars().count() / 3).clamp(1, 3);
    let mut scored: Vec<(usize, &str)> = known
        .filter_map(|name| {
            let d = part_distance(&key, &normalized(name));
            (d <= limit).then_some((d, name))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(SHOWN)
        .map(|(_, name)| format!("`{name}`"))
        .collect()
}

fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Levenshtein distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(0);
            let left = row.get(j).copied().unwrap_or(0);
            let cost = usize::from(ca != *cb);
            let value = (previous + cost).min(above + 1).min(left + 1);
            previous = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = value;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

/// The smallest edit distance between `part` and any substring of `text`
/// (Sellers' variant of Levenshtein: the match may start and end anywhere).
fn part_distance(part: &str, text: &str) -> usize {
    let part: Vec<char> = part.chars().collect();
    // column[i]: the distance of part[..i] to the best substring ending here.
    let mut column: Vec<usize> = (0..=part.len()).collect();
    let mut best = column.last().copied().unwrap_or(0);
    for ct in text.chars() {
        let mut diagonal = column.first().copied().unwrap_or(0);
        // A match may start at any character of `text`: row 0 stays 0.
        for (i, cp) in part.iter().enumerate() {
            let up = column.get(i).copied().unwrap_or(0);
            let left = column.get(i + 1).copied().unwrap_or(0);
            let value = (diagonal + usize::from(ct != *cp))
                .min(up + 1)
                .min(left + 1);
            diagonal = left;
            if let Some(cell) = column.get_mut(i + 1) {
                *cell = value;
            }
        }
        best = best.min(column.last().copied().unwrap_or(0));
    }
    best
}

#[cfg(test)]
mod tests {
    use super::{distance, part_distance, similar, similar_part};

    #[test]
    fn a_pattern_finds_names_holding_something_close_to_it() {
        let known = ["acme-logger", "acme-lib", "left-pad", "tokio"];
        assert_eq!(part_distance("acmee", "acmelogger"), 1);
        assert_eq!(part_distance("logger", "acmelogger"), 0);
        assert_eq!(
            similar_part("acmee", known.into_iter()),
            ["`acme-lib`", "`acme-logger`"]
        );
        assert_eq!(similar_part("lefpad", known.into_iter()), ["`left-pad`"]);
        assert!(similar_part("zzzzzz", known.into_iter()).is_empty());
        assert!(similar_part("*", known.into_iter()).is_empty());
    }

    #[test]
    fn separators_and_typos_find_the_name() {
        let known = ["serde", "serde_json", "left-pad", "tokio"];
        assert_eq!(similar("serde-json", known.into_iter()), ["`serde_json`"]);
        assert_eq!(similar("tokoi", known.into_iter()), ["`tokio`"]);
        assert!(similar("zzzzzz", known.into_iter()).is_empty());
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
