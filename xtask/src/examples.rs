//! `cargo xtask examples`: verify (and with `--fix-digests`, repair) the
//! shipped example chains under `data/nenjim/journals`.

use std::fs;
use std::path::{Path, PathBuf};

use nenjim_journal_api::model::build;
use nenjim_journal_api::valuetypes::RevisionDigest;

const SUFFIX: &str = ".journal.example";

pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let fix = match args {
        [] => false,
        [flag] if flag == "--fix-digests" => true,
        _ => {
            return Err(format!(
                "usage: cargo xtask examples [--fix-digests], got {args:?}"
            ));
        }
    };
    let journals = root.join("data/nenjim/journals");
    let mut problems = Vec::new();
    let mut files_seen = 0;
    for dir in sorted_entries(&journals)? {
        if !dir.is_dir() {
            continue;
        }
        let mut previous: Option<(
            PathBuf,
            RevisionDigest,
            nenjim_journal_api::model::JournalRevision,
        )> = None;
        for file in sorted_entries(&dir)? {
            let name = file
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_owned();
            if !name.ends_with(SUFFIX) {
                continue;
            }
            files_seen += 1;
            let mut text =
                fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            if fix {
                let wanted = match &previous {
                    None => "PREDECESSOR GENESIS".to_owned(),
                    Some((_, digest, _)) => format!("PREDECESSOR {digest}"),
                };
                let fixed = replace_predecessor(&text, &wanted);
                if fixed != text {
                    fs::write(&file, &fixed).map_err(|e| format!("{}: {e}", file.display()))?;
                    eprintln!("xtask: rewrote the PREDECESSOR line of {}", file.display());
                    text = fixed;
                }
            }
            let revision = match nenjim_journal_parser::parse(&text) {
                Ok(r) => r,
                Err(e) => {
                    problems.push(format!("{}:{e}", file.display()));
                    previous = None;
                    continue;
                }
            };
            let stem = name.trim_end_matches(SUFFIX);
            if revision.journal_version().to_string() != stem {
                problems.push(format!(
                    "{}: JOURNAL_VERSION {} differs from the file name",
                    file.display(),
                    revision.journal_version()
                ));
            }
            let dir_name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if revision.coordinate().as_str() != dir_name {
                problems.push(format!(
                    "{}: ARTIFACT {} differs from the directory",
                    file.display(),
                    revision.coordinate()
                ));
            }
            match (&previous, revision.predecessor()) {
                (None, None) => {}
                (None, Some(p)) => problems.push(format!(
                    "{}: the first revision names PREDECESSOR {p}, expected GENESIS",
                    file.display()
                )),
                (Some((prev, _, _)), None) => problems.push(format!(
                    "{}: GENESIS after {}",
                    file.display(),
                    prev.display()
                )),
                (Some((prev, digest, prev_rev)), Some(p)) => {
                    if p != digest {
                        problems.push(format!(
                            "{}: PREDECESSOR {p}, expected {digest} (the digest of {})",
                            file.display(),
                            prev.display()
                        ));
                    }
                    if revision.journal_version() <= prev_rev.journal_version() {
                        problems.push(format!(
                            "{}: JOURNAL_VERSION not after {}",
                            file.display(),
                            prev.display()
                        ));
                    }
                    for old in prev_rev.releases() {
                        if !revision
                            .release(old.version())
                            .is_some_and(|new| build::same_values(new, old))
                        {
                            problems.push(format!(
                                "{}: release {} of {} is missing or rewritten",
                                file.display(),
                                old.version(),
                                prev.display()
                            ));
                        }
                    }
                }
            }
            previous = Some((file.clone(), RevisionDigest::of_text(&text), revision));
        }
    }
    if problems.is_empty() {
        eprintln!("xtask: {files_seen} example files, every chain link verified");
        Ok(())
    } else {
        Err(format!(
            "example chains are broken:\n  {}",
            problems.join("\n  ")
        ))
    }
}

fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut entries = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    entries.retain(|p| {
        !p.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(".")
            .starts_with('.')
    });
    entries.sort();
    Ok(entries)
}

/// Replaces the first `PREDECESSOR …` line, keeping its line terminator.
fn replace_predecessor(text: &str, wanted: &str) -> String {
    let mut out = String::with_capacity(text.len() + 80);
    let mut done = false;
    for line in text.split_inclusive('\n') {
        if !done && line.starts_with("PREDECESSOR ") {
            let ending = if line.ends_with("\r\n") {
                "\r\n"
            } else if line.ends_with('\n') {
                "\n"
            } else {
                ""
            };
            out.push_str(wanted);
            out.push_str(ending);
            done = true;
        } else {
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::replace_predecessor;

    #[test]
    fn replaces_only_the_predecessor_line_and_keeps_crlf() {
        let text = "# c\r\nFORMAT nenjim-journal/1\r\nPREDECESSOR GENESIS\r\nX\n";
        assert_eq!(
            replace_predecessor(text, "PREDECESSOR sha256:ab"),
            "# c\r\nFORMAT nenjim-journal/1\r\nPREDECESSOR sha256:ab\r\nX\n"
        );
    }
}
