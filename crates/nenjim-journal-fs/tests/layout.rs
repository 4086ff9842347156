//! Section 7 "On disk": every layout case as one row of a table.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::error::Error as _;
use std::os::unix::fs::symlink;

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use nenjim_journal_fs::{LoadOptions, MAX_FILE_LEN, load};
use nenjim_journal_testkit::texts::{Root, genesis, successor, ts};
use rstest::rstest;

/// What loading a root should do.
#[derive(Debug)]
enum Expect {
    /// Succeed with this many revisions in all.
    Loads(u64),
    /// Fail with this kind, about `<root>/<relative path>` ("" = the root).
    Fails(ErrorKind, &'static str),
}
use Expect::{Fails, Loads};

const SERDE: &str = "serde";

fn serde_genesis() -> String {
    genesis(SERDE, &ts(1), &["1.0.0"])
}

fn valid(root: &Root) {
    root.put(SERDE, &ts(1), &serde_genesis());
}

fn empty(_: &Root) {}

fn stray_root_file(root: &Root) {
    valid(root);
    root.write("README.md", "hello");
}

fn symlink_dir(root: &Root) {
    valid(root);
    let elsewhere = root.mkdir(".elsewhere/left-pad");
    symlink(&elsewhere, root.join("left-pad")).unwrap();
}

fn symlink_file(root: &Root) {
    let target = root.write(".elsewhere/file", serde_genesis());
    root.mkdir(SERDE);
    symlink(&target, root.join(&format!("serde/{}.journal", ts(1)))).unwrap();
}

fn dangling_symlink(root: &Root) {
    valid(root);
    symlink(root.join("nowhere"), root.join("serde/zzz")).unwrap();
}

fn sub_directory(root: &Root) {
    valid(root);
    root.mkdir("serde/old");
}

fn example_named_directory(root: &Root) {
    valid(root);
    root.mkdir(&format!("serde/{}.journal.example", ts(9)));
}

fn bad_coordinate_dir(root: &Root) {
    valid(root);
    root.mkdir("Serde");
}

fn separator_coordinate_dir(root: &Root) {
    valid(root);
    root.mkdir("left--pad");
}

fn backup_file(root: &Root) {
    valid(root);
    root.write("serde/x.journal.bak", "x");
}

fn dashed_date(root: &Root) {
    valid(root);
    root.write("serde/2026-11-29.journal", serde_genesis());
}

fn impossible_date(root: &Root) {
    root.write("serde/20260230T000000Z.journal", serde_genesis());
}

fn no_suffix(root: &Root) {
    root.write(&format!("serde/{}", ts(1)), serde_genesis());
}

fn dot_entries(root: &Root) {
    valid(root);
    root.write(".DS_Store", "junk");
    root.write(".git/HEAD", "ref: refs/heads/main");
    root.mkdir(".git/objects/aa");
    root.write("serde/.20260101T000001Z.journal.swp", [0xff, 0xfe]);
    root.mkdir("serde/.cache");
    symlink(root.join("nowhere"), root.join(".link")).unwrap();
}

fn examples_ignored(root: &Root) {
    valid(root);
    root.write(&format!("serde/{}.journal.example", ts(0)), "not a journal");
    root.write("serde/not-a-timestamp.journal.example", [0xff]);
    root.write(
        &format!("left-pad/{}.journal.example", ts(5)),
        genesis("left-pad", &ts(5), &[]),
    );
}

fn examples_included(root: &Root) {
    valid(root);
    root.write(
        &format!("left-pad/{}.journal.example", ts(5)),
        genesis("left-pad", &ts(5), &[]),
    );
}

fn example_with_bad_name(root: &Root) {
    valid(root);
    root.write("serde/latest.journal.example", serde_genesis());
}

fn runtime_and_identical_example(root: &Root) {
    valid(root);
    root.write(&format!("serde/{}.journal.example", ts(1)), serde_genesis());
}

fn runtime_and_different_example(root: &Root) {
    valid(root);
    root.write(
        &format!("serde/{}.journal.example", ts(1)),
        format!("# edited\n{}", serde_genesis()),
    );
}

fn too_large(root: &Root) {
    valid(root);
    let path = root.join(&format!("serde/{}.journal", ts(2)));
    let file = std::fs::File::create(path).unwrap();
    file.set_len(MAX_FILE_LEN + 1).unwrap();
}

fn invalid_utf8(root: &Root) {
    let mut bytes = serde_genesis().into_bytes();
    bytes.extend_from_slice(b"# caf\xe9\n");
    root.write(&format!("serde/{}.journal", ts(1)), bytes);
}

fn coordinate_mismatch(root: &Root) {
    root.put("left-pad", &ts(1), &serde_genesis());
}

fn version_mismatch(root: &Root) {
    root.put(SERDE, &ts(2), &serde_genesis());
}

fn syntax_error(root: &Root) {
    root.put(SERDE, &ts(1), "FORMAT nenjim-journal/2\n");
}

fn empty_file(root: &Root) {
    root.put(SERDE, &ts(1), "\n  \n");
}

fn chain_of_three(root: &Root) {
    let a = serde_genesis();
    let b = successor(&a, SERDE, &ts(2), &["1.0.0", "1.1.0"]);
    let c = successor(&b, SERDE, &ts(3), &["1.0.0", "1.1.0", "2.0.0"]);
    root.put(SERDE, &ts(1), &a);
    root.put(SERDE, &ts(2), &b);
    root.put(SERDE, &ts(3), &c);
    root.put("left-pad", &ts(0), &genesis("left-pad", &ts(0), &[]));
}

fn unknown_predecessor(root: &Root) {
    valid(root);
    let other = genesis(SERDE, &ts(0), &[]);
    root.put(SERDE, &ts(2), &successor(&other, SERDE, &ts(2), &["1.0.0"]));
}

fn fork(root: &Root) {
    let a = serde_genesis();
    root.put(SERDE, &ts(1), &a);
    root.put(SERDE, &ts(2), &successor(&a, SERDE, &ts(2), &["1.0.0"]));
    root.put(SERDE, &ts(3), &successor(&a, SERDE, &ts(3), &["1.0.0"]));
}

#[rstest]
#[case::empty_root(empty, false, Loads(0))]
#[case::valid_root(valid, false, Loads(1))]
#[case::stray_root_file(stray_root_file, false, Fails(ErrorKind::UnexpectedEntry, "README.md"))]
#[case::symlink_dir(symlink_dir, false, Fails(ErrorKind::UnexpectedEntry, "left-pad"))]
#[case::symlink_file(
    symlink_file,
    false,
    Fails(ErrorKind::UnexpectedEntry, "serde/20260101T000001Z.journal")
)]
#[case::dangling_symlink(
    dangling_symlink,
    false,
    Fails(ErrorKind::UnexpectedEntry, "serde/zzz")
)]
#[case::sub_directory(sub_directory, false, Fails(ErrorKind::UnexpectedEntry, "serde/old"))]
#[case::example_named_directory(
    example_named_directory,
    false,
    Fails(ErrorKind::UnexpectedEntry, "serde/20260101T000009Z.journal.example")
)]
#[case::bad_coordinate_dir(bad_coordinate_dir, false, Fails(ErrorKind::InvalidFileName, "Serde"))]
#[case::separator_coordinate_dir(
    separator_coordinate_dir,
    false,
    Fails(ErrorKind::InvalidFileName, "left--pad")
)]
#[case::backup_file(
    backup_file,
    false,
    Fails(ErrorKind::InvalidFileName, "serde/x.journal.bak")
)]
#[case::dashed_date(
    dashed_date,
    false,
    Fails(ErrorKind::InvalidFileName, "serde/2026-11-29.journal")
)]
#[case::impossible_date(
    impossible_date,
    false,
    Fails(ErrorKind::InvalidFileName, "serde/20260230T000000Z.journal")
)]
#[case::no_suffix(
    no_suffix,
    false,
    Fails(ErrorKind::InvalidFileName, "serde/20260101T000001Z")
)]
#[case::dot_entries_ignored(dot_entries, false, Loads(1))]
#[case::examples_ignored(examples_ignored, false, Loads(1))]
#[case::examples_included(examples_included, true, Loads(2))]
#[case::example_with_bad_name_ignored(example_with_bad_name, false, Loads(1))]
#[case::example_with_bad_name_included(
    example_with_bad_name,
    true,
    Fails(ErrorKind::InvalidFileName, "serde/latest.journal.example")
)]
#[case::runtime_and_identical_example(runtime_and_identical_example, true, Loads(1))]
#[case::runtime_and_different_example(
    runtime_and_different_example,
    true,
    Fails(ErrorKind::Conflict, "serde/20260101T000001Z.journal.example")
)]
#[case::too_large(
    too_large,
    false,
    Fails(ErrorKind::TooLarge, "serde/20260101T000002Z.journal")
)]
#[case::invalid_utf8(
    invalid_utf8,
    false,
    Fails(ErrorKind::InvalidUtf8, "serde/20260101T000001Z.journal")
)]
#[case::coordinate_mismatch(
    coordinate_mismatch,
    false,
    Fails(ErrorKind::CoordinateMismatch, "left-pad/20260101T000001Z.journal")
)]
#[case::version_mismatch(
    version_mismatch,
    false,
    Fails(ErrorKind::VersionMismatch, "serde/20260101T000002Z.journal")
)]
#[case::syntax_error(
    syntax_error,
    false,
    Fails(ErrorKind::Syntax, "serde/20260101T000001Z.journal")
)]
#[case::empty_file(
    empty_file,
    false,
    Fails(ErrorKind::EmptyInput, "serde/20260101T000001Z.journal")
)]
#[case::chain_of_three(chain_of_three, false, Loads(4))]
#[case::unknown_predecessor(
    unknown_predecessor,
    false,
    Fails(ErrorKind::UnknownPredecessor, "serde/20260101T000002Z.journal")
)]
#[case::fork(
    fork,
    false,
    Fails(ErrorKind::StalePredecessor, "serde/20260101T000003Z.journal")
)]
fn layout(#[case] setup: fn(&Root), #[case] examples: bool, #[case] expect: Expect) {
    let root = Root::new();
    setup(&root);
    let result = load(root.path(), LoadOptions::new().with_examples(examples));
    match (result, expect) {
        (Ok(state), Loads(n)) => assert_eq!(state.len(), n),
        (Err(error), Fails(kind, relative)) => {
            assert_eq!(error.kind(), kind, "{error}");
            let expected = if relative.is_empty() {
                root.path().to_path_buf()
            } else {
                root.join(relative)
            };
            assert_eq!(error.path(), Some(expected.as_path()), "{error}");
            assert!(
                error
                    .to_string()
                    .starts_with(&expected.display().to_string())
            );
        }
        (Ok(state), expect) => panic!("loaded {} revisions, expected {expect:?}", state.len()),
        (Err(error), expect) => panic!(
            "failed with {error} ({:?}), expected {expect:?}",
            error.kind()
        ),
    }
}

#[test]
fn root_missing() {
    let root = Root::new();
    let missing = root.join("missing");
    let error = load(&missing, LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::RootMissing);
    assert_eq!(error.path(), Some(missing.as_path()));
}

#[test]
fn root_not_a_directory() {
    let root = Root::new();
    let file = root.write("file", "x");
    let error = load(&file, LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::RootNotDirectory);
    assert_eq!(error.path(), Some(file.as_path()));
}

#[test]
fn root_may_be_reached_through_a_symlink() {
    let root = Root::new();
    valid(&root);
    let outside = tempfile::tempdir().unwrap();
    let link = outside.path().join("journals");
    symlink(root.path(), &link).unwrap();
    assert_eq!(load(&link, LoadOptions::new()).unwrap().len(), 1);
}

#[test]
fn invalid_utf8_is_located() {
    let root = Root::new();
    invalid_utf8(&root);
    let error = load(root.path(), LoadOptions::new()).unwrap_err();
    let text_lines = serde_genesis().lines().count();
    assert_eq!(error.line(), Some(text_lines + 1));
    assert_eq!(error.column(), Some(6));
    assert!(error.message().contains("byte offset"), "{error}");
    assert!(error.source().is_some());
}

#[test]
fn exactly_the_limit_is_not_too_large() {
    // A file of exactly 64 MiB passes the size check (and then fails as text).
    let root = Root::new();
    let path = root.join(&format!("serde/{}.journal", ts(1)));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::File::create(&path)
        .unwrap()
        .set_len(MAX_FILE_LEN)
        .unwrap();
    let error = load(root.path(), LoadOptions::new()).unwrap_err();
    assert_ne!(error.kind(), ErrorKind::TooLarge, "{error}");
    assert_eq!(error.path(), Some(path.as_path()));
}

#[test]
fn ingestion_is_ordered_by_coordinate_then_timestamp() {
    let root = Root::new();
    chain_of_three(&root);
    let state = load(root.path(), LoadOptions::new()).unwrap();
    let left_pad: ArtifactCoordinate = "left-pad".parse().unwrap();
    let serde: ArtifactCoordinate = SERDE.parse().unwrap();
    let sequences: Vec<u64> = state
        .revisions(&left_pad)
        .iter()
        .chain(state.revisions(&serde).iter())
        .map(|r| r.sequence())
        .collect();
    assert_eq!(sequences, vec![1, 2, 3, 4]);
    let versions: Vec<String> = state
        .revisions(&serde)
        .iter()
        .map(|r| r.journal_version().to_string())
        .collect();
    assert_eq!(versions, vec![ts(1), ts(2), ts(3)]);
}

#[test]
fn the_first_error_in_ingestion_order_is_reported() {
    // Many artifacts, several broken: whatever the parallel reading does,
    // the reported error is always the first in coordinate order.
    let root = Root::new();
    for i in 0..40 {
        let coordinate = format!("artifact{i:02}");
        root.put(
            &coordinate,
            &ts(1),
            &genesis(&coordinate, &ts(1), &["1.0.0"]),
        );
    }
    root.put(
        "artifact17",
        &ts(2),
        "FORMAT nenjim-journal/1\nARTIFACT x\n",
    );
    root.put("artifact23", &ts(2), &genesis("artifact23", &ts(2), &[]));
    root.write("artifact31/notes.txt", "stray");
    root.write("zzz.txt", "stray");
    for _ in 0..5 {
        let error = load(root.path(), LoadOptions::new()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Syntax, "{error}");
        assert_eq!(
            error.path(),
            Some(
                root.join(&format!("artifact17/{}.journal", ts(2)))
                    .as_path()
            )
        );
    }
}

#[test]
fn a_misplaced_entry_after_a_broken_file_is_not_reported_first() {
    let root = Root::new();
    root.put("aaa", &ts(1), &genesis("bbb", &ts(1), &[]));
    root.write("bbb/old/x", "stray");
    let error = load(root.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::CoordinateMismatch);
}

#[test]
fn a_misplaced_entry_before_a_broken_file_is_reported_first() {
    let root = Root::new();
    root.write("aaa/old/x", "stray");
    root.put("bbb", &ts(1), &genesis("ccc", &ts(1), &[]));
    let error = load(root.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::UnexpectedEntry);
    assert_eq!(error.path(), Some(root.join("aaa/old").as_path()));
}

#[test]
fn loading_writes_nothing() {
    let root = Root::new();
    chain_of_three(&root);
    examples_ignored(&root);
    let before = snapshot(root.path());
    load(root.path(), LoadOptions::new()).unwrap();
    load(root.path(), LoadOptions::new().with_examples(true)).unwrap_err();
    assert_eq!(snapshot(root.path()), before);
}

/// Every path under `dir` with its bytes and modification time.
fn snapshot(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        let metadata = std::fs::symlink_metadata(&next).unwrap();
        let bytes = if metadata.is_file() {
            std::fs::read(&next).unwrap()
        } else {
            Vec::new()
        };
        if metadata.is_dir() {
            for entry in std::fs::read_dir(&next).unwrap() {
                stack.push(entry.unwrap().path());
            }
        }
        out.push((next, bytes, metadata.modified().unwrap()));
    }
    out.sort();
    out
}
