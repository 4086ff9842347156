//! The seed scenarios of the reference Journal, one test each (named after
//! the scenario), plus the lifecycle and concurrency cases of the issue.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use nenjim_journal_api::JournalService;
use nenjim_journal_api::component::NenjimProcess;
use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::build;
use nenjim_journal_api::model::{JournalRevision, RefreshReport, ReplayRequest};
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, JournalVersion, ReleaseVersion, RevisionDigest,
};
use nenjim_journal_ref::{COMPONENT_NAME, JournalAssembly, LoadOptions};
use nenjim_journal_testkit::texts::{Root, genesis, revision, successor, ts};

fn coordinate(text: &str) -> ArtifactCoordinate {
    text.parse().unwrap()
}

fn version(text: &str) -> JournalVersion {
    text.parse().unwrap()
}

fn release(text: &str) -> ReleaseVersion {
    text.parse().unwrap()
}

/// An assembly over `root`, started successfully.
pub(crate) fn started(root: &Root) -> JournalAssembly {
    let assembly = JournalAssembly::new(root.path());
    assembly.process().start().unwrap();
    assembly
}

/// Every revision of the Journal as (artifact, version, digest, sequence), by replay.
fn dump(service: &dyn JournalService) -> Vec<(String, String, RevisionDigest, u64)> {
    let mut cursor = service.replay(&ReplayRequest::after(0)).unwrap();
    let mut out = Vec::new();
    while let Some(r) = cursor.next().unwrap() {
        out.push((
            r.coordinate().to_string(),
            r.journal_version().to_string(),
            *r.digest(),
            r.sequence(),
        ));
    }
    out
}

fn kind<T: std::fmt::Debug>(result: Result<T, JournalError>) -> ErrorKind {
    result.unwrap_err().kind()
}

/// Every query of the service fails with `expected`.
fn assert_all_queries_fail(service: &dyn JournalService, expected: ErrorKind) {
    let a = coordinate("serde");
    assert_eq!(kind(service.coordinates()), expected);
    assert_eq!(kind(service.revisions(&a)), expected);
    assert_eq!(kind(service.latest(&a)), expected);
    assert_eq!(kind(service.revision(&a, version(&ts(1)))), expected);
    assert_eq!(kind(service.revision_as_of(&a, version(&ts(1)))), expected);
    assert_eq!(
        kind(service.release(&a, version(&ts(1)), &release("1.0.0"))),
        expected
    );
    assert_eq!(
        service
            .replay(&ReplayRequest::after(0))
            .map(|_| ())
            .unwrap_err()
            .kind(),
        expected
    );
    assert_eq!(
        service
            .replay_events(&ReplayRequest::after(0))
            .map(|_| ())
            .unwrap_err()
            .kind(),
        expected
    );
}

/// A chain g -> s1 -> s2 of `serde` at ts(10), ts(20), ts(30), plus a
/// `left-pad` genesis: s1 recommends 1.1.0, s2 adds 2.0.0, yanks 1.0.0,
/// withdraws RECOMMEND 1.1.0 and recommends 2.0.0 (also the event feed's
/// fixture).
pub(crate) fn three_revisions(root: &Root) -> Vec<String> {
    let g = genesis("serde", &ts(10), &["1.0.0"]);
    let s1 = revision(
        "serde",
        &ts(20),
        Some(&g),
        &["1.0.0", "1.1.0"],
        &["RECOMMEND 1.1.0"],
    );
    let s2 = revision(
        "serde",
        &ts(30),
        Some(&s1),
        &["1.0.0", "1.1.0", "2.0.0"],
        &["YANK 1.0.0 \"broken\"", "RECOMMEND 2.0.0"],
    );
    root.put("serde", &ts(10), &g);
    root.put("serde", &ts(20), &s1);
    root.put("serde", &ts(30), &s2);
    root.put("left-pad", &ts(5), &genesis("left-pad", &ts(5), &["0.1.0"]));
    vec![g, s1, s2]
}

fn assert_chain_intact(revisions: &[JournalRevision]) {
    for (i, r) in revisions.iter().enumerate() {
        if i == 0 {
            assert!(r.is_genesis(), "{r:?}");
        } else {
            assert_eq!(r.predecessor(), Some(revisions[i - 1].digest()));
            assert!(r.journal_version() > revisions[i - 1].journal_version());
        }
    }
}

fn examples_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/nenjim/journals")
}

// ---------------------------------------------------------------------------
// Packaging and boundaries

#[test]
fn public_package_contents() {
    // The crate offers the assembly, the load options and the component name.
    let assembly: JournalAssembly =
        JournalAssembly::with_options("/x", LoadOptions::new().with_examples(true));
    let _: Arc<dyn JournalService> = assembly.service();
    let _: Arc<dyn NenjimProcess> = assembly.process();
    let _: Arc<dyn nenjim_journal_api::JournalServiceManager> = assembly.manager();
    assert_eq!(COMPONENT_NAME, "nenjim.journal");
    assert_eq!(assembly.service().component_name(), "nenjim.journal");

    // No type named JournalManager anywhere in the workspace's Rust code.
    let name = ["Journal", "Manager"].concat();
    let forbidden: Vec<String> = ["struct", "trait", "type", "enum", "as", "mod", "fn"]
        .iter()
        .map(|k| format!("{k} {name}"))
        .collect();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut stack = vec![workspace.join("crates")];
    let mut scanned = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                scanned += 1;
                for f in &forbidden {
                    let hit = text.match_indices(f.as_str()).any(|(i, _)| {
                        !text[i + f.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                    });
                    assert!(!hit, "{} declares `{f}`", path.display());
                }
            }
        }
    }
    assert!(scanned > 10);
}

#[test]
fn reference_implementation_boundary() {
    // Building an assembly touches no disk; its root is absolute and normalized.
    let root = Root::new();
    let configured = root.join("journals/./sub/..");
    let assembly = JournalAssembly::new(&configured);
    assert!(
        !root.join("journals").exists(),
        "the assembly created nothing"
    );
    assert_eq!(assembly.manager().journal_root(), root.join("journals"));
    // Consumers see the Journal only through the API's traits.
    fn consumer(service: &dyn JournalService) -> usize {
        service.coordinates().map(|c| c.len()).unwrap_or(0)
    }
    root.put(
        "journals/serde",
        &ts(1),
        &genesis("serde", &ts(1), &["1.0.0"]),
    );
    assembly.process().start().unwrap();
    assert_eq!(consumer(&*assembly.service()), 1);
}

#[test]
fn read_only_boundary() {
    // Queries answer from the published snapshot and never read the disk.
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    let before = dump(&*service);
    for entry in std::fs::read_dir(root.path()).unwrap() {
        std::fs::remove_dir_all(entry.unwrap().path()).unwrap();
    }
    assert_eq!(dump(&*service), before);
    assert_eq!(service.revisions(&coordinate("serde")).unwrap().len(), 3);
    // Deleting files and refreshing does not erase history either.
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(0, 0, 0)
    );
    assert_eq!(dump(&*service), before);
}

// ---------------------------------------------------------------------------
// Queries

#[test]
fn chronological_and_latest_queries() {
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    let serde = coordinate("serde");
    let coordinates: Vec<String> = service
        .coordinates()
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(coordinates, vec!["left-pad", "serde"]);
    let revisions = service.revisions(&serde).unwrap();
    let versions: Vec<String> = revisions
        .iter()
        .map(|r| r.journal_version().to_string())
        .collect();
    assert_eq!(versions, vec![ts(10), ts(20), ts(30)]);
    assert_chain_intact(&revisions);
    let latest = service.latest(&serde).unwrap().unwrap();
    assert_eq!(*latest.digest(), RevisionDigest::of_text(&texts[2]));
    assert_eq!(latest, revisions[2]);
}

#[test]
fn exact_and_as_of_historical_queries() {
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    let serde = coordinate("serde");
    let exact = service.revision(&serde, version(&ts(20))).unwrap().unwrap();
    assert_eq!(*exact.digest(), RevisionDigest::of_text(&texts[1]));
    assert_eq!(service.revision(&serde, version(&ts(25))).unwrap(), None);
    let as_of = |k| {
        service
            .revision_as_of(&serde, version(&ts(k)))
            .unwrap()
            .map(|r| r.journal_version().to_string())
    };
    assert_eq!(as_of(9), None);
    assert_eq!(as_of(10), Some(ts(10)));
    assert_eq!(as_of(25), Some(ts(20)));
    assert_eq!(as_of(30), Some(ts(30)));
    assert_eq!(as_of(3000), Some(ts(30)));
}

#[test]
fn release_query_from_selected_worldview() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    let serde = coordinate("serde");
    let at = |k: u32, r: &str| {
        service
            .release(&serde, version(&ts(k)), &release(r))
            .unwrap()
    };
    let old = at(20, "1.0.0").unwrap();
    assert_eq!(old.policy().yanked(), None);
    let new = at(30, "1.0.0").unwrap();
    assert_eq!(new.policy().yanked().map(|d| d.as_str()), Some("broken"));
    assert!(build::same_values(&old, &new));
    assert!(at(20, "1.1.0").unwrap().policy().is_recommended());
    assert!(!at(30, "1.1.0").unwrap().policy().is_recommended());
    assert_eq!(at(20, "2.0.0"), None, "not yet released in that worldview");
    assert_eq!(at(25, "1.0.0"), None, "no revision at that instant");
}

#[test]
fn missing_query_result() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    let unknown = coordinate("unknown");
    assert_eq!(service.revisions(&unknown).unwrap(), vec![]);
    assert_eq!(service.latest(&unknown).unwrap(), None);
    assert_eq!(service.revision(&unknown, version(&ts(10))).unwrap(), None);
    assert_eq!(
        service.revision_as_of(&unknown, version(&ts(99))).unwrap(),
        None
    );
    assert_eq!(
        service
            .release(&unknown, version(&ts(10)), &release("1.0.0"))
            .unwrap(),
        None
    );
    assert_eq!(
        service
            .release(&coordinate("serde"), version(&ts(10)), &release("9.9.9"))
            .unwrap(),
        None
    );
    let mut cursor = service.replay(&ReplayRequest::after(1000)).unwrap();
    assert!(cursor.next().unwrap().is_none());
}

// ---------------------------------------------------------------------------
// Ingestion and chains

#[test]
fn valid_internal_ingestion() {
    // Sequences follow the ingestion order: artifacts by coordinate, then time.
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let order: Vec<(String, String, u64)> = dump(&*assembly.service())
        .into_iter()
        .map(|(c, v, _, s)| (c, v, s))
        .collect();
    assert_eq!(
        order,
        vec![
            ("left-pad".to_owned(), ts(5), 1),
            ("serde".to_owned(), ts(10), 2),
            ("serde".to_owned(), ts(20), 3),
            ("serde".to_owned(), ts(30), 4),
        ]
    );
    let after_two: Vec<u64> = {
        let mut cursor = assembly.service().replay(&ReplayRequest::after(2)).unwrap();
        std::iter::from_fn(|| cursor.next().unwrap().map(|r| r.sequence())).collect()
    };
    assert_eq!(after_two, vec![3, 4]);
}

#[test]
fn exact_text_digest() {
    // The digest is over the exact bytes: comments and CRLF included.
    let root = Root::new();
    let text = format!(
        "# a comment\r\n{}\r\n\r\n",
        genesis("serde", &ts(1), &["1.0.0"])
            .trim_end()
            .replace('\n', "\r\n")
    );
    root.put("serde", &ts(1), &text);
    let assembly = started(&root);
    let latest = assembly
        .service()
        .latest(&coordinate("serde"))
        .unwrap()
        .unwrap();
    assert_eq!(*latest.digest(), RevisionDigest::of_text(&text));
    assert_ne!(
        *latest.digest(),
        RevisionDigest::of_text(&genesis("serde", &ts(1), &["1.0.0"]))
    );
}

#[test]
fn failed_ingestion_is_atomic() {
    // A refresh whose revision rewrites a release leaves the state identical.
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let before = dump(&*assembly.service());
    let rewritten = revision("serde", &ts(40), Some(&texts[2]), &["1.0.0", "2.0.0"], &[]);
    let path = root.put("serde", &ts(40), &rewritten);
    let error = assembly.manager().refresh().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ReleaseRewritten);
    assert_eq!(error.path(), Some(path.as_path()));
    assert_eq!(dump(&*assembly.service()), before);
}

#[test]
fn valid_successor() {
    let root = Root::new();
    let g = genesis("serde", &ts(1), &["1.0.0"]);
    let s = successor(&g, "serde", &ts(2), &["1.0.0", "1.0.1"]);
    root.put("serde", &ts(1), &g);
    root.put("serde", &ts(2), &s);
    let assembly = started(&root);
    let revisions = assembly.service().revisions(&coordinate("serde")).unwrap();
    assert_eq!(revisions.len(), 2);
    assert_chain_intact(&revisions);
    assert_eq!(revisions[1].releases().len(), 2);
    assert!(build::shares_values(
        &revisions[1].releases()[0],
        &revisions[0].releases()[0]
    ));
}

#[test]
fn missing_or_cross_artifact_predecessor() {
    let missing = Root::new();
    let elsewhere = genesis("serde", &ts(0), &[]);
    missing.put("serde", &ts(1), &genesis("serde", &ts(1), &[]));
    let path = missing.put(
        "serde",
        &ts(2),
        &successor(&elsewhere, "serde", &ts(2), &[]),
    );
    let assembly = JournalAssembly::new(missing.path());
    let error = assembly.process().start().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::UnknownPredecessor);
    assert_eq!(error.path(), Some(path.as_path()));

    let cross = Root::new();
    let left_pad = genesis("left-pad", &ts(1), &[]);
    cross.put("left-pad", &ts(1), &left_pad);
    cross.put("serde", &ts(1), &genesis("serde", &ts(1), &[]));
    let path = cross.put("serde", &ts(2), &successor(&left_pad, "serde", &ts(2), &[]));
    let assembly = JournalAssembly::new(cross.path());
    let error = assembly.process().start().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::CrossArtifactPredecessor);
    assert_eq!(error.path(), Some(path.as_path()));
}

#[test]
fn fork_or_stale_predecessor() {
    let root = Root::new();
    let g = genesis("serde", &ts(1), &["1.0.0"]);
    root.put("serde", &ts(1), &g);
    root.put("serde", &ts(2), &successor(&g, "serde", &ts(2), &["1.0.0"]));
    let assembly = started(&root);
    let before = dump(&*assembly.service());
    let path = root.put("serde", &ts(3), &successor(&g, "serde", &ts(3), &["1.0.0"]));
    let error = assembly.manager().refresh().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::StalePredecessor);
    assert_eq!(error.path(), Some(path.as_path()));
    assert_eq!(dump(&*assembly.service()), before);
}

#[test]
fn non_increasing_revision_time() {
    // A successor of the head dated before the head is refused.
    let root = Root::new();
    let g = genesis("serde", &ts(10), &["1.0.0"]);
    let s1 = successor(&g, "serde", &ts(30), &["1.0.0"]);
    root.put("serde", &ts(10), &g);
    root.put("serde", &ts(30), &s1);
    let assembly = started(&root);
    let before = dump(&*assembly.service());
    let path = root.put(
        "serde",
        &ts(20),
        &successor(&s1, "serde", &ts(20), &["1.0.0"]),
    );
    let error = assembly.manager().refresh().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NonIncreasingVersion);
    assert_eq!(error.path(), Some(path.as_path()));
    assert_eq!(dump(&*assembly.service()), before);
}

#[test]
fn repeated_identical_text() {
    // Re-reading identical texts is idempotent: same revisions, same sequences.
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let before = dump(&*assembly.service());
    let manager = assembly.manager();
    assert_eq!(manager.refresh().unwrap(), build::refresh_report(0, 4, 0));
    assert_eq!(manager.refresh().unwrap(), build::refresh_report(0, 4, 0));
    assert_eq!(dump(&*assembly.service()), before);

    // An example identical to its runtime file is the same revision, once.
    let both = Root::new();
    let g = genesis("serde", &ts(1), &["1.0.0"]);
    both.put("serde", &ts(1), &g);
    both.write(&format!("serde/{}.journal.example", ts(1)), &g);
    let assembly =
        JournalAssembly::with_options(both.path(), LoadOptions::new().with_examples(true));
    assembly.process().start().unwrap();
    assert_eq!(dump(&*assembly.service()).len(), 1);
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(0, 2, 0)
    );
}

#[test]
fn conflicting_text() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let before = dump(&*assembly.service());
    let path = root.join(&format!("serde/{}.journal", ts(20)));
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("DESCRIPTION \"test", "DESCRIPTION \"edited");
    std::fs::write(&path, edited).unwrap();
    // A new file after the conflicting one is not reached either.
    root.put("zzz", &ts(1), &genesis("zzz", &ts(1), &[]));
    let error = assembly.manager().refresh().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conflict);
    assert_eq!(error.path(), Some(path.as_path()));
    assert_eq!(dump(&*assembly.service()), before);
}

// ---------------------------------------------------------------------------
// Filesystem layout

#[test]
fn valid_filesystem_load() {
    let root = Root::new();
    three_revisions(&root);
    root.write(".git/config", "[core]");
    root.write("serde/.notes", "ignored");
    let assembly = started(&root);
    assert_eq!(dump(&*assembly.service()).len(), 4);
}

#[test]
fn example_files_are_ignored() {
    let root = Root::new();
    three_revisions(&root);
    root.write(
        &format!("serde/{}.journal.example", ts(99)),
        "not even a journal",
    );
    root.write(
        &format!("example-only/{}.journal.example", ts(1)),
        genesis("example-only", &ts(1), &[]),
    );
    let assembly = started(&root);
    assert_eq!(dump(&*assembly.service()).len(), 4);
    assert!(
        !assembly
            .service()
            .coordinates()
            .unwrap()
            .contains("example-only")
    );
}

fn start_error(root: &Root) -> JournalError {
    JournalAssembly::new(root.path())
        .process()
        .start()
        .unwrap_err()
}

#[test]
fn invalid_directory_placement() {
    for (name, expected) in [
        ("README.md", ErrorKind::UnexpectedEntry),
        ("Serde", ErrorKind::InvalidFileName),
        ("left_-pad", ErrorKind::InvalidFileName),
    ] {
        let root = Root::new();
        three_revisions(&root);
        let path = if name.ends_with(".md") {
            root.write(name, "stray")
        } else {
            root.mkdir(name)
        };
        let error = start_error(&root);
        assert_eq!(error.kind(), expected, "{name}: {error}");
        assert_eq!(error.path(), Some(path.as_path()));
    }
}

#[test]
fn invalid_filename_placement() {
    for name in [
        "x.journal.bak",
        "2026-11-29.journal",
        "20261129T101530.journal",
        "20261129t101530z.journal",
        "notes.txt",
    ] {
        let root = Root::new();
        three_revisions(&root);
        let path = root.write(&format!("serde/{name}"), "x");
        let error = start_error(&root);
        assert_eq!(error.kind(), ErrorKind::InvalidFileName, "{name}: {error}");
        assert_eq!(error.path(), Some(path.as_path()));
    }
}

#[test]
fn invalid_root() {
    let root = Root::new();
    let missing = root.join("missing");
    let error = JournalAssembly::new(&missing)
        .process()
        .start()
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::RootMissing);
    assert_eq!(error.path(), Some(missing.as_path()));

    let file = root.write("file", "x");
    let error = JournalAssembly::new(&file).process().start().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::RootNotDirectory);
    assert_eq!(error.path(), Some(file.as_path()));

    // Unreadable: injected (permissions do not stop root).
    #[derive(Debug)]
    struct Unlistable;
    impl nenjim_journal_fs::FileSystem for Unlistable {
        fn metadata(&self, p: &Path) -> std::io::Result<nenjim_journal_fs::EntryMetadata> {
            nenjim_journal_fs::RealFileSystem.metadata(p)
        }
        fn symlink_metadata(&self, p: &Path) -> std::io::Result<nenjim_journal_fs::EntryMetadata> {
            nenjim_journal_fs::RealFileSystem.symlink_metadata(p)
        }
        fn read_dir(&self, _: &Path) -> std::io::Result<Vec<std::ffi::OsString>> {
            Err(std::io::ErrorKind::PermissionDenied.into())
        }
        fn read(&self, p: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
            nenjim_journal_fs::RealFileSystem.read(p, limit)
        }
    }
    let assembly =
        JournalAssembly::with_file_system(root.path(), LoadOptions::new(), Arc::new(Unlistable));
    let error = assembly.process().start().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::RootUnreadable);
    assert_eq!(error.path(), Some(root.path()));
    assert!(std::error::Error::source(&error).is_some());
}

#[test]
fn unexpected_filesystem_entry() {
    let outside = Root::new();
    let target_dir = outside.mkdir("dir");
    let target_file = outside.write("file", genesis("serde", &ts(99), &[]));
    type Setup = Box<dyn Fn(&Root) -> PathBuf>;
    let cases: Vec<(&str, Setup)> = vec![
        (
            "sub-directory",
            Box::new(|r: &Root| r.mkdir("serde/archive")),
        ),
        (
            "symlinked artifact",
            Box::new(move |r: &Root| {
                let link = r.join("linked");
                std::os::unix::fs::symlink(&target_dir, &link).unwrap();
                link
            }),
        ),
        (
            "symlinked revision",
            Box::new(move |r: &Root| {
                let link = r.join(&format!("serde/{}.journal", ts(99)));
                std::os::unix::fs::symlink(&target_file, &link).unwrap();
                link
            }),
        ),
    ];
    for (what, setup) in cases {
        let root = Root::new();
        three_revisions(&root);
        let path = setup(&root);
        let error = start_error(&root);
        assert_eq!(error.kind(), ErrorKind::UnexpectedEntry, "{what}: {error}");
        assert_eq!(error.path(), Some(path.as_path()), "{what}");
    }
}

// ---------------------------------------------------------------------------
// Refresh

#[test]
fn unchanged_refresh() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let before = dump(&*assembly.service());
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(0, 4, 0)
    );
    assert_eq!(dump(&*assembly.service()), before);
}

#[test]
fn new_revision_discovered() {
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let next = successor(&texts[2], "serde", &ts(40), &["1.0.0", "1.1.0", "2.0.0"]);
    root.put("serde", &ts(40), &next);
    root.put("new-one", &ts(1), &genesis("new-one", &ts(1), &[]));
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(2, 4, 0)
    );
    let service = assembly.service();
    let latest = service.latest(&coordinate("serde")).unwrap().unwrap();
    assert_eq!(*latest.digest(), RevisionDigest::of_text(&next));
    assert_eq!(latest.sequence(), 6, "new-one (5) sorts before serde");
    assert!(service.coordinates().unwrap().contains("new-one"));
    assert_chain_intact(&service.revisions(&coordinate("serde")).unwrap());
    // And the next refresh sees them as unchanged.
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(0, 6, 0)
    );
}

#[test]
fn refresh_is_not_a_service_operation() {
    // The service never reads the disk again: a new file shows only after
    // the manager's refresh.
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    root.put(
        "serde",
        &ts(40),
        &successor(&texts[2], "serde", &ts(40), &["1.0.0", "1.1.0", "2.0.0"]),
    );
    for _ in 0..3 {
        assert_eq!(service.revisions(&coordinate("serde")).unwrap().len(), 3);
        assert_eq!(dump(&*service).len(), 4);
    }
    assembly.manager().refresh().unwrap();
    assert_eq!(service.revisions(&coordinate("serde")).unwrap().len(), 4);
}

// ---------------------------------------------------------------------------
// Shipped examples

#[test]
fn example_placement() {
    // Every shipped example sits at <root>/<coordinate>/<timestamp>.journal.example,
    // and none is loaded unless asked for.
    let root = examples_root();
    let mut files = 0;
    for artifact in std::fs::read_dir(&root).unwrap() {
        let artifact = artifact.unwrap();
        let name = artifact.file_name().into_string().unwrap();
        if name.starts_with('.') {
            continue;
        }
        assert!(artifact.file_type().unwrap().is_dir(), "{name}");
        name.parse::<ArtifactCoordinate>().unwrap();
        for file in std::fs::read_dir(artifact.path()).unwrap() {
            let file = file.unwrap();
            let file_name = file.file_name().into_string().unwrap();
            let stem = file_name.strip_suffix(".journal.example").unwrap();
            stem.parse::<JournalVersion>().unwrap();
            assert!(file.file_type().unwrap().is_file());
            files += 1;
        }
    }
    assert!(files > 0, "examples are shipped");
    let runtime = JournalAssembly::new(&root);
    runtime.process().start().unwrap();
    assert!(runtime.service().coordinates().unwrap().is_empty());
}

#[test]
fn example_chain_integrity() {
    let root = examples_root();
    let assembly = JournalAssembly::with_options(&root, LoadOptions::new().with_examples(true));
    assembly.process().start().unwrap();
    let service = assembly.service();
    let coordinates = service.coordinates().unwrap();
    assert!(!coordinates.is_empty());
    let mut total = 0;
    for artifact in &coordinates {
        let revisions = service.revisions(artifact).unwrap();
        let on_disk = std::fs::read_dir(root.join(artifact.as_str()))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .ends_with(".journal.example")
            })
            .count();
        assert_eq!(revisions.len(), on_disk, "{artifact}");
        assert_chain_intact(&revisions);
        total += revisions.len();
    }
    assert_eq!(dump(&*service).len(), total);
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(0, total, 0)
    );
}

// ---------------------------------------------------------------------------
// Views and lifecycle

#[test]
fn journal_views_preserve_identity() {
    let assembly = JournalAssembly::new("/nonexistent");
    let service = assembly.service();
    let process = assembly.process();
    let manager = assembly.manager();
    let service_ptr = Arc::as_ptr(&service) as *const ();
    let process_ptr = Arc::as_ptr(&process) as *const ();
    let manager_ptr = Arc::as_ptr(&manager) as *const ();
    assert_eq!(service_ptr, process_ptr);
    assert_ne!(service_ptr, manager_ptr);
    assert_eq!(Arc::as_ptr(&assembly.service()) as *const (), service_ptr);
    assert_eq!(Arc::as_ptr(&assembly.process()) as *const (), process_ptr);
    assert_eq!(Arc::as_ptr(&assembly.manager()) as *const (), manager_ptr);
    // Two assemblies are two Journals.
    let other = JournalAssembly::new("/nonexistent");
    assert_ne!(Arc::as_ptr(&other.service()) as *const (), service_ptr);
}

#[test]
fn ordinary_service_reference_remains_read_only() {
    // Whatever a holder of the service does, the Journal does not change.
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let service: Arc<dyn JournalService> = assembly.service();
    let before = dump(&*service);
    let worker = {
        let service = Arc::clone(&service);
        std::thread::spawn(move || {
            for _ in 0..50 {
                service.coordinates().unwrap();
                service.latest(&coordinate("serde")).unwrap();
                let error = service
                    .replay(&ReplayRequest::after(0).follow(true))
                    .map(|_| ())
                    .unwrap_err();
                assert_eq!(error.kind(), ErrorKind::FollowUnsupported);
            }
        })
    };
    worker.join().unwrap();
    assert_eq!(dump(&*service), before);
}

#[test]
fn successful_initial_process_start() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = JournalAssembly::new(root.path());
    assembly.process().start().unwrap();
    assert_eq!(dump(&*assembly.service()).len(), 4);
}

#[test]
fn example_only_root_starts_empty() {
    let root = Root::new();
    root.write(
        &format!("serde/{}.journal.example", ts(1)),
        genesis("serde", &ts(1), &[]),
    );
    let assembly = started(&root);
    assert!(assembly.service().coordinates().unwrap().is_empty());
    assert!(dump(&*assembly.service()).is_empty());
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(0, 0, 0)
    );
}

#[test]
fn query_before_successful_startup() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = JournalAssembly::new(root.path());
    assert_all_queries_fail(&*assembly.service(), ErrorKind::NotStarted);
    assert_eq!(kind(assembly.manager().refresh()), ErrorKind::NotStarted);
}

#[test]
fn failed_startup_is_not_retried() {
    let root = Root::new();
    three_revisions(&root);
    let stray = root.write("stray.txt", "x");
    let assembly = JournalAssembly::new(root.path());
    let process = assembly.process();
    assert_eq!(kind(process.start()), ErrorKind::UnexpectedEntry);
    // Fix the root: the second start still refuses, and loads nothing.
    std::fs::remove_file(stray).unwrap();
    assert_eq!(kind(process.start()), ErrorKind::AlreadyStarted);
    assert_all_queries_fail(&*assembly.service(), ErrorKind::NotStarted);
    assert_eq!(kind(assembly.manager().refresh()), ErrorKind::NotStarted);
    assert_eq!(kind(process.start()), ErrorKind::AlreadyStarted);
}

#[test]
fn failed_initial_load_publishes_nothing() {
    // A valid earlier entry and an invalid later one: nothing is published.
    let root = Root::new();
    three_revisions(&root);
    root.put("zzz", &ts(1), "FORMAT nenjim-journal/1\nARTIFACT zzz\n");
    let assembly = JournalAssembly::new(root.path());
    let error = assembly.process().start().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Syntax);
    assert_eq!(
        error.path(),
        Some(root.join(&format!("zzz/{}.journal", ts(1))).as_path())
    );
    assert_all_queries_fail(&*assembly.service(), ErrorKind::NotStarted);
}

#[test]
fn manager_contract_is_passive() {
    // The manager neither starts nor loads: before start it refuses, and its
    // only other operation is to name the root.
    let root = Root::new();
    three_revisions(&root);
    let assembly = JournalAssembly::new(root.path());
    let manager = assembly.manager();
    assert_eq!(manager.journal_root(), root.path());
    assert_eq!(kind(manager.refresh()), ErrorKind::NotStarted);
    assert_all_queries_fail(&*assembly.service(), ErrorKind::NotStarted);
    // The process still gets its single start.
    assembly.process().start().unwrap();
    assert_eq!(dump(&*assembly.service()).len(), 4);
}

#[test]
fn refresh_follows_process_startup() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = JournalAssembly::new(root.path());
    let manager = assembly.manager();
    assert_eq!(kind(manager.refresh()), ErrorKind::NotStarted);
    assembly.process().start().unwrap();
    assert_eq!(manager.refresh().unwrap(), build::refresh_report(0, 4, 0));
    assembly.process().stop().unwrap();
    assert_eq!(kind(manager.refresh()), ErrorKind::Stopped);
    assert_all_queries_fail(&*assembly.service(), ErrorKind::Stopped);
    assembly.process().stop().unwrap();
    assert_eq!(kind(assembly.process().start()), ErrorKind::AlreadyStarted);
}

#[test]
fn manager_delegates_after_startup() {
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let next = successor(&texts[2], "serde", &ts(40), &["1.0.0", "1.1.0", "2.0.0"]);
    root.put("serde", &ts(40), &next);
    // A manager obtained any time administers the same Journal the service shows.
    let manager = JournalAssembly::manager(&assembly);
    assert_eq!(manager.refresh().unwrap(), build::refresh_report(1, 4, 0));
    let latest = assembly
        .service()
        .latest(&coordinate("serde"))
        .unwrap()
        .unwrap();
    assert_eq!(*latest.digest(), RevisionDigest::of_text(&next));
}

// ---------------------------------------------------------------------------
// Beyond the seed scenarios

#[test]
fn relative_root_is_normalized() {
    let assembly = JournalAssembly::new("journals/./a/../b");
    let expected = std::env::current_dir().unwrap().join("journals/b");
    assert_eq!(assembly.manager().journal_root(), expected);
    assert!(assembly.manager().journal_root().is_absolute());
}

#[test]
fn stop_before_start_refuses_start() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = JournalAssembly::new(root.path());
    assembly.process().stop().unwrap();
    assert_eq!(kind(assembly.process().start()), ErrorKind::Stopped);
    assert_all_queries_fail(&*assembly.service(), ErrorKind::Stopped);
    assert_eq!(kind(assembly.manager().refresh()), ErrorKind::Stopped);
}

#[test]
fn concurrent_refreshes_are_serialized() {
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    root.put(
        "serde",
        &ts(40),
        &successor(&texts[2], "serde", &ts(40), &["1.0.0", "1.1.0", "2.0.0"]),
    );
    let reports: Vec<RefreshReport> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let manager = assembly.manager();
                scope.spawn(move || manager.refresh().unwrap())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let ingested: usize = reports.iter().map(RefreshReport::ingested).sum();
    assert_eq!(ingested, 1, "{reports:?}");
    assert_eq!(dump(&*assembly.service()).len(), 5);
}

#[test]
fn readers_never_see_a_broken_chain_during_refreshes() {
    const REVISIONS: u32 = 40;
    let root = Root::new();
    let first = genesis("serde", &ts(1), &["1.0.0"]);
    root.put("serde", &ts(1), &first);
    let assembly = started(&root);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let service = assembly.service();
        let done = &done;
        let reader = scope.spawn(move || {
            let serde = coordinate("serde");
            let mut seen = 0;
            let mut reads = 0;
            // Bounded: at most 100 000 reads, and at least one after the writer is done.
            while reads < 100_000 {
                let finished = done.load(Ordering::Acquire);
                let revisions = service.revisions(&serde).unwrap();
                assert_chain_intact(&revisions);
                assert!(revisions.len() >= seen, "history never shrinks");
                seen = revisions.len();
                let replayed = dump(&*service);
                let sequences: Vec<u64> = replayed.iter().map(|r| r.3).collect();
                assert_eq!(sequences, (1..=replayed.len() as u64).collect::<Vec<_>>());
                reads += 1;
                if finished {
                    break;
                }
            }
            seen
        });
        let manager = assembly.manager();
        let mut previous = first.clone();
        for k in 2..=REVISIONS {
            let next = successor(&previous, "serde", &ts(k), &["1.0.0"]);
            root.put("serde", &ts(k), &next);
            // Two files per refresh on even steps, one otherwise.
            if k % 2 == 1 || k == REVISIONS {
                manager.refresh().unwrap();
            }
            previous = next;
        }
        done.store(true, Ordering::Release);
        assert_eq!(reader.join().unwrap(), REVISIONS as usize);
    });
}
