//! The diagnosis of a root through the library (what the command's `check`
//! reports): a damaged revision found by the files scan, a recorded file
//! changed into another valid text found by the ledger's, and the warnings
//! of a root that loads.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::valuetypes::Description;
use nenjim_journal_root::diagnose::{self, DiagnoseOptions};
use nenjim_journal_root::publish::{self, NewRelease};
use nenjim_journal_root::{Creating, LoadOptions, Root, WriterOptions};

/// A root at `address` with one artifact of two revisions (its blob in the
/// content store at `store`, outside the root): the root and the path of
/// each revision file in the root's store.
fn published(address: &str, store: &str) -> (Root, Vec<PathBuf>) {
    let root = Root::open(address).unwrap();
    root.create(&Creating::new()).unwrap();
    let store = Root::open(store).unwrap();
    let options = store.as_content_store_of(WriterOptions::new()).unwrap();
    let mut writer = root.writer(options).unwrap();
    let coordinate = "left-pad".parse().unwrap();
    let description = Description::new("Pads strings").unwrap();
    let created = publish::create(&mut writer, &coordinate, &description, None).unwrap();
    let release = NewRelease::new(
        "1.0.0".parse().unwrap(),
        "MIT".parse().unwrap(),
        b"v1".to_vec(),
    );
    let released = publish::release(&mut writer, &coordinate, vec![release]).unwrap();
    writer.close().unwrap();
    let path = |revision: &JournalRevision| {
        nenjim_journal_store::ledger::revision_path(
            root.path(),
            revision.coordinate(),
            revision.journal_version(),
        )
    };
    let files = vec![path(created.revision()), path(released.revision())];
    (root, files)
}

fn loads(root: &Root) -> bool {
    root.assembly(LoadOptions::new()).process().start().is_ok()
}

#[test]
fn a_damaged_revision_of_a_memory_root_is_found_by_the_files_scan() {
    let (root, files) = published(
        "testmem://diagnose-damaged/hub",
        "testmem://diagnose-damaged/store",
    );
    assert!(loads(&root));
    let clean = diagnose::diagnose(&root, &DiagnoseOptions::new()).unwrap();
    assert!(clean.errors.is_empty(), "{:?}", clean.errors);
    let store = nenjim_journal_testkit::memory::store("diagnose-damaged");
    store
        .tree()
        .put(&files[1], "FORMAT nenjim-journal/1\nnot a line\n");
    assert!(!loads(&root));
    let diagnosis = diagnose::diagnose(&root, &DiagnoseOptions::new()).unwrap();
    assert_eq!(diagnosis.errors.len(), 1, "{:?}", diagnosis.errors);
    let error = &diagnosis.errors[0];
    assert_eq!(error.kind(), ErrorKind::Syntax, "{error}");
    assert_eq!(error.path(), Some(files[1].as_path()));
    assert!(!diagnosis.truncated);
}

#[test]
fn a_recorded_file_changed_into_another_valid_text_is_found_by_the_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    std::fs::create_dir(&store).unwrap();
    let (root, files) = published(
        dir.path().join("hub").to_str().unwrap(),
        store.to_str().unwrap(),
    );
    let head = &files[1];
    let mut text = std::fs::read_to_string(head).unwrap();
    text.push('\n');
    let mut permissions = std::fs::metadata(head).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false, reason = "a test's own file")]
    permissions.set_readonly(false);
    std::fs::set_permissions(head, permissions).unwrap();
    std::fs::write(head, text).unwrap();
    assert!(!loads(&root));
    // The files scan finds nothing wrong: the text is valid.
    let files_only = diagnose::scan(&root, &DiagnoseOptions::new()).unwrap();
    assert!(files_only.errors.is_empty(), "{:?}", files_only.errors);
    let diagnosis = diagnose::diagnose(&root, &DiagnoseOptions::new()).unwrap();
    let kinds: Vec<ErrorKind> = diagnosis.errors.iter().map(|e| e.kind()).collect();
    assert_eq!(kinds, [ErrorKind::LedgerMismatch], "{:?}", diagnosis.errors);
}

#[test]
fn the_errors_stop_at_the_limit() {
    let (root, files) = published(
        "testmem://diagnose-limit/hub",
        "testmem://diagnose-limit/store",
    );
    let store = nenjim_journal_testkit::memory::store("diagnose-limit");
    store.tree().put(&files[0], "not a revision\n");
    store
        .tree()
        .put(&root.path().join("other/bad-name.journal"), "x\n");
    let every = diagnose::diagnose(&root, &DiagnoseOptions::new()).unwrap();
    assert!(every.errors.len() >= 2, "{:?}", every.errors);
    let first = diagnose::diagnose(&root, &DiagnoseOptions::new().max_errors(1)).unwrap();
    assert_eq!(first.errors.len(), 1);
    assert!(first.truncated);
    assert_eq!(first.errors[0].message(), every.errors[0].message());
}

#[test]
fn a_root_that_loads_warns_of_what_its_ledger_never_reads() {
    let (root, _) = published(
        "testmem://diagnose-warnings/hub",
        "testmem://diagnose-warnings/store",
    );
    let store = nenjim_journal_testkit::memory::store("diagnose-warnings");
    let tree = store.tree();
    tree.put(&root.path().join("README.txt"), "hello\n");
    let unrecorded = root.path().join("right-pad/20260101T000000Z.journal");
    tree.put(
        &unrecorded,
        nenjim_journal_testkit::texts::bare_genesis("right-pad", "20260101T000000Z"),
    );
    tree.put(
        &root
            .path()
            .join("left-pad/20200101T000000Z.journal.example"),
        nenjim_journal_testkit::texts::bare_genesis("left-pad", "20200101T000000Z"),
    );
    let assembly = root.assembly(LoadOptions::new());
    assembly.process().start().unwrap();
    let service = assembly.service();
    let options = DiagnoseOptions::new();
    let warnings = diagnose::warnings(&root, &options, &*service).unwrap();
    assert_eq!(warnings.skipped_examples, 1);
    assert_eq!(warnings.unrecorded, [unrecorded]);
    assert_eq!(warnings.stray.len(), 1, "{:?}", warnings.stray);
    assert!(
        warnings.stray[0].to_string().contains("README.txt"),
        "{}",
        warnings.stray[0]
    );
    assert!(warnings.signed.unwrap().is_none());
    assert!(warnings.replication.is_none());
    let with_examples = DiagnoseOptions::new().with_examples(true);
    let warnings = diagnose::warnings(&root, &with_examples, &*service).unwrap();
    assert_eq!(warnings.skipped_examples, 0);
}
