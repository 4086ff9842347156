//! `cargo xtask corpus`: the same spec writes the same bytes, the root loads
//! clean (`--check`), and it has the shape the performance issue asks for.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use nenjim_journal_benches::corpus::index_dir;
use nenjim_journal_fs::{LoadOptions, load};

fn corpus(out: &Path, seed: &str) {
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args([
            "corpus",
            "--artifacts",
            "30",
            "--revisions",
            "4",
            "--releases-per-revision",
            "3",
            "--seed",
            seed,
            "--check",
            "--out",
        ])
        .arg(out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("loaded clean: 120 revisions"), "{stderr}");
}

/// Every file below `dir`, by relative path, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                all.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    all
}

#[test]
fn the_same_seed_writes_the_same_bytes_and_another_seed_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
    );
    corpus(&a, "7");
    corpus(&b, "7");
    corpus(&c, "8");
    // The journal files, and the JSON lines written beside the root.
    let both = |root: &Path| (files(root), files(&index_dir(root)));
    let (fa, fb, fc) = (both(&a), both(&b), both(&c));
    assert_eq!((fa.0.len(), fa.1.len()), (120, 30));
    assert_eq!(fa, fb);
    assert_ne!(fa.0, fc.0);
    assert_ne!(fa.1, fc.1);
}

#[test]
fn the_corpus_has_the_shape_the_benches_need() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    corpus(&root, "3");
    let state = load(&root, LoadOptions::new()).unwrap();
    let (mut no_deps, mut max_deps, mut exact, mut interval, mut any) = (0, 0, 0, 0, 0);
    let (mut exclusions, mut preferences, mut descriptions, mut compound) = (0, 0, 0, 0);
    let (mut policy_changes, mut successors) = (0, 0);
    for coordinate in state.coordinates() {
        let revisions = state.revisions(&coordinate);
        for pair in revisions.windows(2) {
            successors += 1;
            assert!(pair[1].releases().len() > pair[0].releases().len());
            if pair[1].policy() != pair[0].policy() {
                policy_changes += 1;
            }
        }
        let latest = state.latest(&coordinate).unwrap();
        for release in latest.releases() {
            let deps = release.dependencies();
            no_deps += usize::from(deps.is_empty());
            max_deps = max_deps.max(deps.len());
            for d in deps {
                match d.requirement().to_string() {
                    s if s == "*" => any += 1,
                    s if s.starts_with(['[', '(']) => interval += 1,
                    _ => exact += 1,
                }
            }
            exclusions += release.exclusions().len();
            preferences += release.preferences().len();
            descriptions += usize::from(release.description().is_some());
            let license = release.license().as_str();
            compound += usize::from(license.contains(" AND ") || license.contains(" OR "));
        }
    }
    assert!((6..=12).contains(&max_deps), "max dependencies {max_deps}");
    for (what, n) in [
        ("releases without dependencies", no_deps),
        ("exact requirements", exact),
        ("interval requirements", interval),
        ("`*` requirements", any),
        ("exclusions", exclusions),
        ("preferences", preferences),
        ("descriptions", descriptions),
        ("compound licenses", compound),
    ] {
        assert!(n > 0, "no {what}");
    }
    assert!(
        policy_changes * 2 > successors,
        "{policy_changes} of {successors} successors change policy"
    );
}
