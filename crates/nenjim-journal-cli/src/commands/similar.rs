//! "Did you mean": the known names closest to one that is not known
//! (`serde-json` → `serde_json`).

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

#[cfg(test)]
mod tests {
    use super::{distance, similar};

    #[test]
    fn separators_and_typos_find_the_name() {
        let known = ["serde", "serde_json", "left-pad", "tokio"];
        assert_eq!(similar("serde-json", known.into_iter()), ["`serde_json`"]);
        assert_eq!(similar("tokoi", known.into_iter()), ["`tokio`"]);
        assert!(similar("zzzzzz", known.into_iter()).is_empty());
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
