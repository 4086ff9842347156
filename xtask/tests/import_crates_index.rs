//! `cargo xtask import-crates-index` on the small handwritten index under
//! `tests/fixtures/crates-index`: the output loads clean, and what could
//! not be mapped is reported, not guessed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::path::{Path, PathBuf};
use std::process::Command;

use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use nenjim_journal_fs::{LoadOptions, load};

fn import(dir: &Path, out: &Path) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("import-crates-index")
        .arg(dir)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    stderr
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crates-index")
}

#[test]
fn the_fixture_index_imports_and_loads_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("root");
    let stderr = import(&fixture(), &out);
    let state = load(&out, LoadOptions::new()).unwrap_or_else(|e| panic!("{e}"));
    let c = |s: &str| s.parse::<ArtifactCoordinate>().unwrap();
    let names: Vec<String> = state
        .coordinates()
        .iter()
        .map(|c| c.as_str().to_owned())
        .collect();
    assert_eq!(names, ["cc", "demo-lib", "inflector"]);

    // 0.1.0 and 0.2.0 (no pubtime), 2024-03-01 (two releases), 03-05, 03-06;
    // 03-07 repeats 1.0.1 once build metadata is stripped, so adds nothing.
    let revisions = state.revisions(&c("demo-lib"));
    let stamps: Vec<String> = revisions
        .iter()
        .map(|r| r.journal_version().to_string())
        .collect();
    assert_eq!(
        stamps,
        [
            "19700101T000000Z",
            "19700101T000001Z",
            "20240301T183000Z",
            "20240305T080000Z",
            "20240306T000000Z"
        ]
    );
    let head = state.latest(&c("demo-lib")).unwrap();
    let versions: Vec<String> = head
        .releases()
        .iter()
        .map(|r| r.version().to_string())
        .collect();
    assert_eq!(
        versions,
        ["0.1.0", "0.2.0", "0.2.1", "1.0.0-rc.1", "1.0.0", "1.0.1"]
    );
    let release = |v: &str| head.release(&v.parse().unwrap()).unwrap().clone();
    assert!(release("1.0.0").policy().yanked().is_some());
    assert!(release("1.0.1").policy().yanked().is_none());
    assert_eq!(release("1.0.0").license().as_str(), "NOASSERTION");
    assert_eq!(release("1.0.0").content().size(), 0);
    // serde twice (the unconditional entry kept), rand unsatisfiable
    // (skipped), json renamed to serde_json.
    let deps: Vec<(String, String)> = release("1.0.0-rc.1")
        .dependencies()
        .iter()
        .map(|d| {
            (
                d.artifact().as_str().to_owned(),
                d.requirement().to_string(),
            )
        })
        .collect();
    assert_eq!(
        deps,
        [
            ("serde".to_owned(), "[1.0.0,2.0.0)".to_owned()),
            ("serde_json".to_owned(), "[1.0.50,1.1.0)".to_owned()),
        ]
    );
    let inflector = release("0.2.0").dependencies()[0].clone();
    assert_eq!(inflector.artifact().as_str(), "inflector");
    assert_eq!(inflector.requirement().to_string(), "[0.11.0,0.12.0)");
    // Both cc releases are yanked, each by exactly one YANK, on the head only.
    let cc = state.revisions(&c("cc"));
    assert_eq!(cc.len(), 2);
    assert!(cc[0].policy().is_empty());
    assert_eq!(cc[1].policy().len(), 2);

    let report = std::fs::read_to_string(out.join(".import-report")).unwrap();
    for expected in [
        "crate `bad__name`",
        "crate `bcksum` 1.0.0: cksum is not a SHA-256 hex digest",
        "dependency `rand` `>=0.8, <0.7`: the comparators cannot all hold",
        "dependency `serde`: listed twice",
        "1.0.1+build.7: build metadata stripped",
        "1.0.1+other: repeats version 1.0.1",
    ] {
        assert!(report.contains(expected), "{expected} not in\n{report}");
    }
    assert!(stderr.contains("loads clean"), "{stderr}");
}

#[test]
fn cargo_cache_files_import_too() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join(".cache/de/mo");
    std::fs::create_dir_all(&cache).unwrap();
    let lines = std::fs::read_to_string(fixture().join("de/mo/demo-lib")).unwrap();
    let mut bytes = vec![3u8, 2, 0, 0, 0];
    bytes.extend_from_slice(b"etag: \"abc\"\0");
    for line in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        bytes.extend_from_slice(v["vers"].as_str().unwrap().as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(0);
    }
    std::fs::write(cache.join("demo-lib"), bytes).unwrap();
    let out = tmp.path().join("root");
    import(&tmp.path().join(".cache"), &out);
    let state = load(&out, LoadOptions::new()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state.len(), 5);
}
