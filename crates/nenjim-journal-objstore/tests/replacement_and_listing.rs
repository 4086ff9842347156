//! Replacements and listings, the correctness audit's cases (this file
//! was `audit.rs`): a lease replacement whose put failed
//! before it reached the store, and S3 "folder" marker objects (a key
//! ending in `/`, which consoles and other tools create) in a root.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;
use std::sync::Arc;

use nenjim_journal_fs::{FileSystem as _, LoadOptions, load, load_with};
use nenjim_journal_objstore::ObjectFs;
use nenjim_journal_store::{BlobStore, EntryKind};
use object_store::memory::InMemory;
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt as _, PutPayload};

use support::{Fault, Faulty, Moto, MotoBuckets as _, genesis, successor, worldview};

/// `replace_if_unchanged` answers `Ok(None)` only when the object changed
/// in between: a put that failed before it reached the store (the lease is
/// still at the expected version) is an error, not "changed" (which made
/// a renewal report `LeaseLost` on a transient failure, and an acquire
/// retry forever on a put that always fails). A lost answer of a put that
/// landed is this writer's new version; a put refused because another
/// writer replaced the object is `Ok(None)`.
#[test]
fn a_replacement_that_never_reached_the_store_is_an_error_not_a_change() {
    let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let direct = ObjectFs::new(inner.clone(), "memory://").unwrap();
    let lease = Path::new("/root/.ledger/lease");
    let first = direct
        .replace_if_unchanged(lease, b"one\n", None)
        .unwrap()
        .unwrap();

    // The put (call 1) fails before it reaches the store.
    let refused =
        ObjectFs::new(Arc::new(Faulty::new(inner.clone(), Fault::Refuse(1))), "f").unwrap();
    let result = refused.replace_if_unchanged(lease, b"two\n", Some(&first));
    assert!(result.is_err(), "{result:?}");
    let (bytes, version) = BlobStore::get(&direct, lease, 100).unwrap().unwrap();
    assert_eq!((bytes.as_slice(), &version), (&b"one\n"[..], &first));

    // A create of a lease that is still absent, failed the same way.
    let absent = Path::new("/other/.ledger/lease");
    let refused =
        ObjectFs::new(Arc::new(Faulty::new(inner.clone(), Fault::Refuse(1))), "f").unwrap();
    let result = refused.replace_if_unchanged(absent, b"two\n", None);
    assert!(result.is_err(), "{result:?}");

    // The put lands, its answer is lost: this writer's new version.
    let lost = ObjectFs::new(
        Arc::new(Faulty::new(inner.clone(), Fault::LoseAnswer(1))),
        "f",
    )
    .unwrap();
    let second = lost
        .replace_if_unchanged(lease, b"two\n", Some(&first))
        .unwrap()
        .expect("the put landed");
    let (bytes, version) = BlobStore::get(&direct, lease, 100).unwrap().unwrap();
    assert_eq!((bytes.as_slice(), &version), (&b"two\n"[..], &second));

    // Another writer replaced it since `first`: refused, `Ok(None)`.
    assert_eq!(
        direct
            .replace_if_unchanged(lease, b"three\n", Some(&first))
            .unwrap(),
        None
    );
    // Refused and its answer is about another writer's bytes: `Ok(None)`.
    let lost = ObjectFs::new(Arc::new(Faulty::new(inner, Fault::LoseAnswer(1))), "f").unwrap();
    assert_eq!(
        lost.replace_if_unchanged(lease, b"three\n", Some(&first))
            .unwrap(),
        None
    );
}

/// An S3 "folder" marker (an empty object whose key ends in `/`, as the
/// S3 console's "Create folder" makes) is no entry of the directory it
/// marks: `object_store` lists the key `journals/main/` as the object
/// `journals/main`, inside the listing of `journals/main`, which made the
/// root hold a file named `main` (and an artifact a file named after
/// itself), and the loader refused the root (`UnexpectedEntry`).
#[test]
fn a_folder_marker_is_not_an_entry_of_the_directory_it_marks() {
    let moto = Moto::start();
    // A root without a ledger: the loader checks every entry of it.
    let dir = tempfile::tempdir().unwrap();
    for (i, artifact) in ["left-pad", "serde", "zz"].iter().enumerate() {
        let stem = format!("2026010{}T000000Z", i + 1);
        std::fs::create_dir(dir.path().join(artifact)).unwrap();
        std::fs::write(
            dir.path().join(artifact).join(format!("{stem}.journal")),
            genesis(artifact, &stem),
        )
        .unwrap();
    }
    let fs = moto.object_fs("markers");
    support::copy_into(dir.path(), &**fs.object_store(), "journals/main");
    for marker in ["journals/", "journals/main/", "journals/main/left-pad/"] {
        moto.put_object("markers", marker, b"");
    }
    let root = Path::new("/journals/main");
    let from_dir = load(dir.path(), LoadOptions::new()).unwrap();
    let from_bucket = load_with(&*fs, root, LoadOptions::new()).unwrap();
    assert_eq!(worldview(&from_bucket), worldview(&from_dir));

    // Each listing, not read ahead (a store of its own).
    let fresh = ObjectFs::new(moto.bucket("markers"), "s3://markers").unwrap();
    let names = |p: &str| {
        let mut names: Vec<String> = fresh
            .read_dir(Path::new(p))
            .unwrap()
            .into_iter()
            .map(|n| n.into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names("/journals"), ["main"]);
    assert!(!names("/journals/main").contains(&"main".to_owned()));
    let left_pad = names("/journals/main/left-pad");
    assert_eq!(left_pad, ["20260101T000000Z.journal"]);
    let mut listed = fresh.list(Path::new("/journals/main/left-pad")).unwrap();
    listed.sort();
    assert_eq!(listed, left_pad);
    // The marked directory still exists.
    let kind = fresh.metadata(Path::new("/journals/main")).unwrap().kind();
    assert!(matches!(kind, EntryKind::Directory), "{kind:?}");
}

/// A listing read ahead with its parent's is handed out once, and a later
/// listing of the parent reads it again: also when that later listing
/// reads nothing ahead (one directory left). A load that stopped at a
/// misplaced root entry before listing `left-pad` left `left-pad`'s
/// read-ahead listing behind, and the next load of the same store, once
/// the stray entry was gone, took it for `left-pad`'s and missed the
/// revision appended in between.
#[test]
fn a_listing_read_ahead_is_not_handed_out_after_a_later_listing_of_its_parent() {
    let fs = ObjectFs::memory().unwrap();
    let store = fs.object_store().clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let put = |key: &str, text: &str| {
        runtime
            .block_on(store.put(&Key::from(key), PutPayload::from(text.to_owned())))
            .unwrap();
    };
    let first = genesis("left-pad", "20260101T000000Z");
    put("r/left-pad/20260101T000000Z.journal", &first);
    // A misplaced root entry, sorting before `left-pad`.
    put("r/-bad/x", "");
    let root = Path::new("/r");
    let error = load_with(&fs, root, LoadOptions::new()).unwrap_err();
    assert!(error.path().unwrap().starts_with("/r/-bad"), "{error}");

    // The stray entry removed, a revision appended: the next load has both.
    runtime
        .block_on(store.delete(&Key::from("r/-bad/x")))
        .unwrap();
    put(
        "r/left-pad/20260201T000000Z.journal",
        &successor(&first, "20260201T000000Z", ""),
    );
    let loaded = load_with(&fs, root, LoadOptions::new()).unwrap();
    assert_eq!(worldview(&loaded).len(), 2, "{:?}", worldview(&loaded));
}
