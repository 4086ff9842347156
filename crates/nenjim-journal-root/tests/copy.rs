//! Copying a root into another through the library: a directory root
//! into a `testmem://` one, keeping its sequences, its blobs copied between
//! the content stores; an earlier copy completed; a destination filled
//! otherwise refused.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::valuetypes::Description;
use nenjim_journal_root::copy::{self, ContentStores, Copied, CopyOptions, Outcome, Source};
use nenjim_journal_root::publish::{self, NewRelease};
use nenjim_journal_root::{Creating, LoadOptions, Root, WriterOptions};

/// Publishes `artifact` with `releases` into `root` (created if absent),
/// the blobs in `store`.
fn publish_into(root: &Root, store: &Root, artifact: &str, releases: &[&str]) {
    root.create(&Creating::new()).unwrap();
    let options = store.as_content_store_of(WriterOptions::new()).unwrap();
    let mut writer = root.writer(options).unwrap();
    let coordinate = artifact.parse().unwrap();
    let description = Description::new("Pads strings").unwrap();
    publish::create(&mut writer, &coordinate, &description, None).unwrap();
    for version in releases {
        let release = NewRelease::new(
            version.parse().unwrap(),
            "MIT".parse().unwrap(),
            format!("{artifact} {version}").into_bytes(),
        );
        publish::release(&mut writer, &coordinate, vec![release]).unwrap();
    }
    writer.close().unwrap();
}

/// (sequence, coordinate, version) of every revision of `root`.
fn revisions(root: &Root) -> Vec<(u64, String, String)> {
    let assembly = root.assembly(LoadOptions::new());
    assembly.process().start().unwrap();
    let service = assembly.service();
    let mut all = Vec::new();
    for coordinate in service.coordinates().unwrap() {
        for revision in service.revisions(&coordinate).unwrap() {
            all.push((
                revision.sequence(),
                coordinate.to_string(),
                revision.journal_version().to_string(),
            ));
        }
    }
    all.sort();
    all
}

/// Copies `source` into `destination` with `options`: each revision
/// reported, as (new, file).
fn copy_into(
    destination: &Root,
    source: &Source,
    options: &CopyOptions<'_>,
) -> Result<Vec<(bool, String)>, JournalError> {
    let store = Root::open("testmem://copy-test/store").unwrap();
    let mut writer = destination
        .writer(store.as_content_store_of(WriterOptions::new())?)
        .unwrap();
    let mut seen = Vec::new();
    let outcome = copy::copy::<JournalError>(&mut writer, destination, source, options, |c| {
        match c {
            Copied::Appended { file, .. } => seen.push((true, file.display().to_string())),
            Copied::Held { file, .. } => seen.push((false, file.display().to_string())),
            _ => {}
        }
        Ok(())
    });
    writer.close().unwrap();
    assert_eq!(outcome?, Outcome::Complete);
    Ok(seen)
}

#[test]
fn a_directory_root_is_copied_into_a_memory_root_with_its_sequences_and_blobs() {
    let dir = tempfile::tempdir().unwrap();
    let source_store = dir.path().join("store");
    std::fs::create_dir(&source_store).unwrap();
    let source_store = Root::open(source_store.to_str().unwrap()).unwrap();
    let source_root = Root::open(dir.path().join("hub").to_str().unwrap()).unwrap();
    publish_into(&source_root, &source_store, "left-pad", &["1.0.0", "1.1.0"]);
    publish_into(&source_root, &source_store, "right-pad", &["2.0.0"]);
    let source = Source::load(&source_root).unwrap();
    assert_eq!(source.len(), 5);

    let destination = Root::open("testmem://copy-test/hub").unwrap();
    destination.create(&Creating::new()).unwrap();
    // Without the blobs, the destination's store lacks them.
    let missing = copy_into(&destination, &source, &CopyOptions::new()).unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::BlobMissing, "{missing}");
    // With them, in batches of two.
    let stores = ContentStores::new(
        &source_store,
        &Root::open("testmem://copy-test/store").unwrap(),
    )
    .unwrap();
    let options = CopyOptions::new().batch(2).blobs(&stores);
    let seen = copy_into(&destination, &source, &options).unwrap();
    // The first revision was appended before the refusal: held now.
    assert_eq!(seen.iter().filter(|(new, _)| !new).count(), 1, "{seen:?}");
    assert_eq!(seen.len(), 5);
    let hub = source_root.address();
    assert!(
        seen.iter().all(|(_, file)| file.starts_with(hub)),
        "{seen:?}"
    );
    assert_eq!(revisions(&destination), revisions(&source_root));
    // Again: everything is held, nothing written.
    let again = copy_into(&destination, &source, &options).unwrap();
    assert!(again.iter().all(|(new, _)| !new), "{again:?}");
    assert_eq!(revisions(&destination), revisions(&source_root));
}

#[test]
fn a_destination_filled_otherwise_is_refused() {
    let store = Root::open("testmem://copy-refused/store").unwrap();
    let source_root = Root::open("testmem://copy-refused/source").unwrap();
    publish_into(&source_root, &store, "left-pad", &[]);
    let destination = Root::open("testmem://copy-refused/hub").unwrap();
    publish_into(&destination, &store, "other", &[]);
    let source = Source::load(&source_root).unwrap();
    let mut writer = destination.writer(WriterOptions::new()).unwrap();
    let refused = copy::copy::<JournalError>(
        &mut writer,
        &destination,
        &source,
        &CopyOptions::new(),
        |_| Ok(()),
    )
    .unwrap_err();
    writer.close().unwrap();
    assert_eq!(refused.kind(), ErrorKind::Conflict, "{refused}");
    assert!(
        refused.message().starts_with(
            "cannot copy the root testmem://copy-refused/source into testmem://copy-refused/hub: "
        ),
        "{refused}"
    );
    assert!(refused.message().ends_with("; nothing more was written"));
}

#[test]
fn a_stop_appends_what_was_read_and_ends_the_copy() {
    let store = Root::open("testmem://copy-stop/store").unwrap();
    let source_root = Root::open("testmem://copy-stop/source").unwrap();
    publish_into(&source_root, &store, "left-pad", &[]);
    let source = Source::load(&source_root).unwrap();
    let destination = Root::open("testmem://copy-stop/hub").unwrap();
    destination.create(&Creating::new()).unwrap();
    let mut writer = destination.writer(WriterOptions::new()).unwrap();
    let stop = || true;
    let options = CopyOptions::new().stop_when(&stop);
    let outcome =
        copy::copy::<JournalError>(&mut writer, &destination, &source, &options, |_| Ok(()))
            .unwrap();
    writer.close().unwrap();
    assert_eq!(outcome, Outcome::Stopped);
    assert!(revisions(&destination).is_empty());
}
