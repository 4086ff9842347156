//! The hint for a requirement written in another tool's syntax (`^1.3`,
//! `~1.2`, `>=1.0.0,<2.0.0`): which three forms exist, and the interval
//! that means the same when there is one.

use super::ReleaseVersion;
use super::shown;

/// The three forms, for messages.
const FORMS: &str = "a requirement is one of three forms: `*`, a version (exactly it, `1.3.0`) or an interval (`[1.3.0,2.0.0)`)";

/// The message for `s` when it looks like a requirement of another syntax
/// (an operator in front, or several comparisons), else `None`.
pub(super) fn foreign_form(s: &str) -> Option<String> {
    let foreign = s.starts_with(['^', '~', '>', '<', '=']) || s.contains(',') || s.contains(' ');
    if !foreign {
        return None;
    }
    let same = match equivalent(s) {
        Some(interval) => format!("; `{s}` means `{interval}`"),
        None => String::new(),
    };
    Some(format!(
        "found {}, expected a requirement: {FORMS}{same}",
        shown(s)
    ))
}

/// The hint after an interval that is not closed: a space inside it.
pub(super) fn unclosed_interval(s: &str) -> &'static str {
    if s.ends_with(',') || !s.contains(',') {
        " (an interval is one token without spaces, as in `[1.0.0,2.0.0)`: is there a space inside it?)"
    } else {
        ""
    }
}

/// A bound: the version's text and whether it is included.
type Bound = Option<(String, bool)>;

/// The interval (or `*`, or an exact version) that `s` means in Cargo's
/// syntax, if every comparison is understood.
fn equivalent(s: &str) -> Option<String> {
    let mut lower: Bound = None;
    let mut upper: Bound = None;
    let mut exact: Option<String> = None;
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (op, rest) = ["^", "~", ">=", "<=", ">", "<", "="]
            .iter()
            .find_map(|op| part.strip_prefix(op).map(|rest| (*op, rest.trim())))
            .unwrap_or(("=", part));
        let parts = Parts::of(rest)?;
        match op {
            "^" | "~" => {
                lower = Some((parts.full(), true));
                upper = Some((parts.next(op == "^"), false));
            }
            ">=" => lower = Some((parts.full(), true)),
            ">" => lower = Some((parts.full(), false)),
            "<=" => upper = Some((parts.full(), true)),
            "<" => upper = Some((parts.full(), false)),
            _ => exact = Some(parts.full()),
        }
    }
    if let Some(exact) = exact {
        return (lower.is_none() && upper.is_none()).then_some(exact);
    }
    let text = match (&lower, &upper) {
        (None, None) => return Some("*".to_owned()),
        (Some((l, li)), Some((u, ui))) => {
            format!(
                "{}{l},{u}{}",
                if *li { '[' } else { '(' },
                if *ui { ']' } else { ')' }
            )
        }
        (Some((l, li)), None) => format!("{}{l},)", if *li { '[' } else { '(' }),
        (None, Some((u, ui))) => format!("(,{u}{}", if *ui { ']' } else { ')' }),
    };
    Some(text)
}

/// A possibly partial version: one to three numbers, and a pre-release or
/// build suffix only after three.
struct Parts {
    numbers: Vec<u64>,
    suffix: String,
}

impl Parts {
    fn of(text: &str) -> Option<Parts> {
        let core_end = text.find(['-', '+']).unwrap_or(text.len());
        let (core, suffix) = text.split_at(core_end);
        let numbers = core
            .split('.')
            .map(|n| n.parse::<u64>().ok())
            .collect::<Option<Vec<u64>>>()?;
        if numbers.is_empty() || numbers.len() > 3 || (numbers.len() < 3 && !suffix.is_empty()) {
            return None;
        }
        let parts = Parts {
            numbers,
            suffix: suffix.to_owned(),
        };
        parts.full().parse::<ReleaseVersion>().ok()?;
        Some(parts)
    }

    fn number(&self, i: usize) -> u64 {
        self.numbers.get(i).copied().unwrap_or(0)
    }

    /// The version with missing numbers as zeros.
    fn full(&self) -> String {
        format!(
            "{}.{}.{}{}",
            self.number(0),
            self.number(1),
            self.number(2),
            self.suffix
        )
    }

    /// The first version a caret (`^`) or tilde (`~`) requirement excludes.
    fn next(&self, caret: bool) -> String {
        let given = self.numbers.len();
        let at = if caret {
            (0..given)
                .find(|&i| self.number(i) != 0)
                .unwrap_or(given.saturating_sub(1))
        } else if given == 1 {
            0
        } else {
            1
        };
        let bumped: Vec<u64> = (0..3)
            .map(|i| match i.cmp(&at) {
                std::cmp::Ordering::Less => self.number(i),
                std::cmp::Ordering::Equal => self.number(i).saturating_add(1),
                std::cmp::Ordering::Greater => 0,
            })
            .collect();
        format!(
            "{}.{}.{}",
            bumped.first().copied().unwrap_or(0),
            bumped.get(1).copied().unwrap_or(0),
            bumped.get(2).copied().unwrap_or(0)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::equivalent;

    #[test]
    fn cargo_forms_become_intervals() {
        for (cargo, ours) in [
            ("^1.3", Some("[1.3.0,2.0.0)")),
            ("^0.3.1", Some("[0.3.1,0.4.0)")),
            ("^0.0.3", Some("[0.0.3,0.0.4)")),
            ("~1.2", Some("[1.2.0,1.3.0)")),
            (">=1.0.0,<2.0.0", Some("[1.0.0,2.0.0)")),
            (">=1.0.0, <2.0.0", Some("[1.0.0,2.0.0)")),
            (">1.0.0", Some("(1.0.0,)")),
            ("<=2.0.0", Some("(,2.0.0]")),
            ("=1.2.3", Some("1.2.3")),
            ("^x", None),
        ] {
            assert_eq!(equivalent(cargo).as_deref(), ours, "{cargo}");
        }
    }
}
