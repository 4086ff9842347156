//! The command on the test kit's in-memory backend, by its URL
//! (`testmem://<store>/<path>`): a backend that is one module of the test
//! kit and one line of `nenjim_journal_root::kinds`, which the command
//! reaches without naming it. The command runs in-process
//! (`nenjim_journal_cli::run`), since the roots live in this process.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use nenjim_journal_root::{LoadOptions, Root};

fn run(args: &[&str]) -> u8 {
    let mut all = vec!["nenjim-journal", "--quiet"];
    all.extend_from_slice(args);
    nenjim_journal_cli::run(all)
}

#[test]
fn the_command_publishes_checks_and_refuses_on_a_testmem_root() {
    let root = "testmem://cli-testmem/journal";
    let store = "testmem://cli-testmem/blobs";
    // A root that does not exist is refused, never created by a write.
    assert_eq!(
        run(&["create", root, "left-pad", "--description", "Pads"]),
        2
    );
    assert_eq!(run(&["init", root, "--store", store, "--create"]), 0);
    assert_eq!(
        run(&["create", root, "left-pad", "--description", "Pads"]),
        0
    );
    let dir = tempfile::tempdir().unwrap();
    let content = dir.path().join("left-pad-1.0.0.tgz");
    std::fs::write(&content, b"left-pad 1.0.0").unwrap();
    let content = content.to_str().unwrap();
    assert_eq!(
        run(&[
            "release",
            root,
            "left-pad",
            "1.0.0",
            "--license",
            "MIT",
            "--content",
            content
        ]),
        0
    );
    assert_eq!(
        run(&["yank", root, "left-pad", "[1.0.0,1.0.1)", "broken build"]),
        0
    );
    assert_eq!(run(&["check", root]), 0);
    assert_eq!(run(&["history", root, "left-pad"]), 0);
    assert_eq!(run(&["verify-content", root]), 0);
    // A text that does not parse: exit 1, nothing written.
    let bad = dir.path().join("bad.journal");
    std::fs::write(&bad, "this is not a revision\n").unwrap();
    assert_eq!(run(&["append", root, bad.to_str().unwrap()]), 1);

    // What the command wrote, read through the library by the same URL.
    let assembly = Root::open(root).unwrap().assembly(LoadOptions::new());
    assembly.process().start().unwrap();
    let service = assembly.service();
    let coordinate: ArtifactCoordinate = "left-pad".parse().unwrap();
    let head = service.latest(&coordinate).unwrap().unwrap();
    assert_eq!(head.releases().len(), 1);
    assert_eq!(head.policy().len(), 1);
    assert_eq!(service.position().unwrap().revisions(), 3);
    // The recorded store holds the release's blob.
    let recorded = Root::open(root).unwrap().content_store().unwrap().unwrap();
    assert_eq!(recorded.address(), store);
}
