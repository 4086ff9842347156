//! Filesystem layout: a valid load, examples ignored, misplaced
//! directories and files, invalid roots and unexpected entries.

use super::*;

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
