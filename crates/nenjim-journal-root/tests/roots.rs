//! A root from its address, on the test kit's in-memory backend (one crate
//! and one line of `kinds`, feature `testkit`) and on a directory: exists,
//! create, the writer, publishing as calls, the reference Journal, the
//! recorded content store.

use std::time::Duration;

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::model::PolicyStatement;
use nenjim_journal_api::valuetypes::Description;
use nenjim_journal_root::publish::{self, NewRelease};
use nenjim_journal_root::{Creating, LoadOptions, Root, WriterOptions};

fn publish_and_query(address: &str) {
    let root = Root::open(address).unwrap();
    assert!(!root.exists().unwrap(), "{address} exists before create");
    // A writer never creates a root: a typo is refused.
    let refused = root.writer(WriterOptions::new()).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::RootMissing, "{refused}");
    assert!(root.create(&Creating::new()).unwrap());
    assert!(!root.create(&Creating::new()).unwrap(), "created twice");
    assert!(root.exists().unwrap());

    let options = root.as_content_store_of(WriterOptions::new()).unwrap();
    let mut writer = root.writer(options).unwrap();
    let coordinate = "left-pad".parse().unwrap();
    let created = publish::create(
        &mut writer,
        &coordinate,
        &Description::new("Pads strings").unwrap(),
        None,
    )
    .unwrap();
    assert!(created.is_new());
    let release = NewRelease::new(
        "1.0.0".parse().unwrap(),
        "MIT".parse().unwrap(),
        b"v1".to_vec(),
    );
    let pointer = release.pointer();
    let newer = NewRelease::new(
        "1.1.0".parse().unwrap(),
        "MIT".parse().unwrap(),
        b"v11".to_vec(),
    );
    let released =
        publish::release(&mut writer, &coordinate, vec![release.clone(), newer]).unwrap();
    assert!(released.is_new());
    assert_eq!(
        released.revision().sequence(),
        created.revision().sequence() + 1
    );
    // The same release again writes nothing.
    let again = publish::release(&mut writer, &coordinate, vec![release]).unwrap();
    assert!(!again.is_new());
    assert_eq!(again.revision().digest(), released.revision().digest());
    // Other values for a published release: refused, nothing written.
    let other = NewRelease::new(
        "1.0.0".parse().unwrap(),
        "MIT".parse().unwrap(),
        b"v2".to_vec(),
    );
    let rewritten = publish::release(&mut writer, &coordinate, vec![other]).unwrap_err();
    assert_eq!(rewritten.kind(), ErrorKind::ReleaseRewritten, "{rewritten}");
    let yanked = publish::yank(
        &mut writer,
        &coordinate,
        "[1.0.0,1.1.0)".parse().unwrap(),
        Description::new("broken").unwrap(),
    )
    .unwrap();
    assert!(yanked.is_new());
    let recommended = publish::recommend(&mut writer, &coordinate, "1.1.0".parse().unwrap());
    assert!(recommended.unwrap().is_new());
    // A change to an artifact never created is refused.
    let unknown = publish::yank(
        &mut writer,
        &"nothing-here".parse().unwrap(),
        "[1.0.0,2.0.0)".parse().unwrap(),
        Description::new("x").unwrap(),
    )
    .unwrap_err();
    assert_eq!(unknown.kind(), ErrorKind::UnknownPredecessor);
    writer.close().unwrap();

    let assembly = root.assembly(LoadOptions::new());
    assembly.process().start().unwrap();
    let service = assembly.service();
    let head = service.latest(&coordinate).unwrap().unwrap();
    assert_eq!(
        head.release(&"1.0.0".parse().unwrap()).unwrap().content(),
        &pointer
    );
    assert!(
        head.policy()
            .iter()
            .any(|s| matches!(s, PolicyStatement::Yank { .. }))
    );
    let position = service.position().unwrap();
    assert_eq!(position.revisions(), 4);
    assert_eq!(position.artifacts(), 1);
    assert_eq!(position.last_sequence(), head.sequence());
}

#[test]
fn a_memory_root_is_opened_published_to_and_queried_by_its_url() {
    publish_and_query("testmem://roots-test/journal");
}

#[test]
fn a_directory_root_is_the_same_by_its_path() {
    let dir = tempfile::tempdir().unwrap();
    publish_and_query(dir.path().join("journal").to_str().unwrap());
}

#[test]
fn an_unknown_scheme_is_refused_naming_the_known_ones() {
    let error = Root::open("ftp://example/x").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Usage);
    assert!(error.message().contains("`testmem://`"), "{error}");
}

#[test]
fn a_held_lease_is_waited_for_as_the_options_allow() {
    let root = Root::open("testmem://roots-lease/journal").unwrap();
    root.create(&Creating::new()).unwrap();
    let first = root.writer(WriterOptions::new()).unwrap();
    let held = root.writer(WriterOptions::new()).unwrap_err();
    assert_eq!(held.kind(), ErrorKind::LeaseHeld);
    // Waiting: the first writer closes while the second waits.
    let mut seen = 0;
    let closer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        first.close().unwrap();
    });
    let second = root.writer_observed(
        WriterOptions::new().lease_wait(Duration::from_secs(60)),
        |e| {
            assert_eq!(e.kind(), ErrorKind::LeaseHeld);
            seen += 1;
            std::ops::ControlFlow::Continue(())
        },
    );
    closer.join().unwrap();
    assert!(second.is_ok(), "{second:?}");
    assert!(seen >= 1);
}
