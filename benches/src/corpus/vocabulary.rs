//! What the corpus draws its texts from: licenses, descriptions, reasons,
//! dependency notes, words and top-level domains, and the artifact
//! coordinates of a universe.

use super::*;

// ------------------------------------------------------------ text pools

pub(super) const LICENSES: &[&str] = &[
    "MIT",
    "Apache-2.0",
    "Apache-2.0 OR MIT",
    "MIT AND BSD-3-Clause",
    "(MIT OR Apache-2.0) AND Unicode-DFS-2016",
    "GPL-2.0-or-later WITH Classpath-exception-2.0",
    "BSD-2-Clause",
    "ISC",
    "MPL-2.0",
    "LGPL-2.1-only OR MIT",
    "LicenseRef-Proprietary",
    "Zlib OR Apache-2.0 OR MIT",
];

/// Descriptions in quoted form (escapes as written in the file) and decoded.
pub(super) const DESCRIPTIONS: &[(&str, &str)] = &[
    (r#"Fast \"zero-copy\" parser"#, "Fast \"zero-copy\" parser"),
    (r"First line\nsecond line", "First line\nsecond line"),
    (
        r"Columns\tseparated by tabs and a backslash \\ here",
        "Columns\tseparated by tabs and a backslash \\ here",
    ),
    (
        r"Checked \u{2713} by the caf\u{e9} team",
        "Checked \u{2713} by the caf\u{e9} team",
    ),
    ("Plain old description", "Plain old description"),
    (
        "Bindings for the well known libfoo, with Unicode: \u{00e5}ngstr\u{00f6}m",
        "Bindings for the well known libfoo, with Unicode: \u{00e5}ngstr\u{00f6}m",
    ),
];

pub(super) const REASONS: &[&str] = &[
    r#"security advisory \"RUSTSEC-2024-0001\""#,
    "broken build on some platforms",
    r"superseded\tby the next minor",
    "maintenance only",
    r"published by mistake \u{26a0}",
];

pub(super) const DEP_NOTES: &[&str] = &[
    r#"used by the \"fast\" path"#,
    "logging facade",
    "optional feature",
    r"tested combination \u{2714}",
];

const WORDS: &[&str] = &[
    "core",
    "util",
    "serde",
    "async",
    "net",
    "http",
    "json",
    "log",
    "time",
    "rand",
    "sync",
    "io",
    "fs",
    "db",
    "sql",
    "cli",
    "test",
    "macro",
    "derive",
    "proto",
    "crypto",
    "hash",
    "parse",
    "fmt",
    "api",
    "impl",
    "hubd",
    "valuetypes",
    "codec",
    "tls",
];

const TLDS: &[&str] = &["com", "org", "io", "net", "dev"];

/// `n` distinct, valid, sorted coordinates derived from `seed`.
pub fn coordinates(seed: u64, n: usize) -> Vec<String> {
    let mut rng = SplitMix64::new(seed ^ 0xC00D_1A7E);
    let mut out: Vec<String> = (0..n)
        .map(|i| {
            // The index in base 36 keeps names unique.
            let id = base36(i as u64);
            match rng.below(4) {
                0 => format!("{}.{}{id}", rng.pick(WORDS), rng.pick(WORDS)),
                1 => format!(
                    "{}.{}.{}-{}{id}",
                    rng.pick(TLDS),
                    rng.pick(WORDS),
                    rng.pick(WORDS),
                    rng.pick(WORDS)
                ),
                2 => format!("{}_{}{id}", rng.pick(WORDS), rng.pick(WORDS)),
                _ => format!("{}-{id}", rng.pick(WORDS)),
            }
        })
        .collect();
    out.sort();
    out
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut s = Vec::new();
    loop {
        s.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}
