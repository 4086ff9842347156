//! The read-through cache of a bucket root (`--cache <dir>`), with the
//! built command against moto's S3 server behind a proxy that counts the
//! GETs of objects: a second `check` of an unchanged bucket root makes as
//! many GETs for 300 revisions (30 segments) as for 30 (3 segments), and a
//! root that changed is still seen as changed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_objstore::ObjectFs;
use nenjim_journal_testkit::cli;
use nenjim_journal_testkit::moto::Moto;
use nenjim_journal_testkit::texts::bare_genesis;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

use crate::operators::{Proxy, s3_at};

/// The segment span of the roots written here (the command's is 1 000).
const SPAN: u64 = 10;

/// Appends the revisions `from..to` (one artifact each, named after the
/// root, so no two roots share a revision file) to the bucket root
/// `/<name>` of `journals`, with a ledger segment every [`SPAN`] entries.
fn append(moto: &Moto, name: &str, from: usize, to: usize) {
    let fs = Arc::new(ObjectFs::new(moto.bucket("journals"), "s3://journals").unwrap());
    let root = Path::new("/").join(name);
    fs.ensure_dir(&root).unwrap();
    let mut writer =
        FsJournalWriter::open_store(fs, &root, WriterOptions::new().segment_span(SPAN)).unwrap();
    for i in from..to {
        writer
            .append(&bare_genesis(&format!("{name}{i:05}"), "20260101T000000Z"))
            .unwrap();
    }
    writer.close().unwrap();
}

/// The summary `check <url> --cache <cache>` prints through `proxy` (it
/// must succeed), less the time it took, and the GETs of objects it made.
fn check(proxy: &Proxy, dir: &Path, url: &str) -> (String, usize) {
    let cache = dir.join("cache");
    let args = ["check", url, "--cache", cache.to_str().unwrap()];
    let before = proxy.gets.load(Ordering::SeqCst);
    let output = cli::output(&mut s3_at(&proxy.endpoint, dir, &args));
    cli::assert_code(&output, 0);
    let gets = proxy.gets.load(Ordering::SeqCst) - before;
    let text = String::from_utf8(output.stdout).unwrap();
    // The summary without its time.
    let summary = text
        .split(" (loaded in")
        .next()
        .unwrap_or_default()
        .to_owned();
    (summary, gets)
}

#[test]
fn a_second_check_of_an_unchanged_bucket_root_makes_gets_independent_of_its_size() {
    let moto = Moto::start();
    moto.create_bucket("journals");
    let proxy = Proxy::start(&moto.endpoint());
    let dir = tempfile::tempdir().unwrap();
    let mut seconds = Vec::new();
    for (name, revisions) in [("small", 30), ("large", 300)] {
        append(&moto, name, 0, revisions);
        let url = format!("s3://journals/{name}");
        let (first, first_gets) = check(&proxy, dir.path(), &url);
        assert!(first.contains(&format!("{revisions} revisions")), "{first}");
        // Every revision file and segment once.
        assert!(
            first_gets >= revisions + revisions / SPAN as usize,
            "{first_gets}"
        );
        let (second, gets) = check(&proxy, dir.path(), &url);
        assert_eq!(second, first);
        seconds.push(gets);
    }
    // The marker, the one segment compared with its copy, the absent entry
    // after the last segment (and, on a bucket, nothing else per revision).
    assert_eq!(seconds[0], seconds[1], "{seconds:?}");
    assert!(seconds[1] <= 4, "{seconds:?}");

    // Changed: 5 revisions after the last segment, then 10 more (a new
    // segment, and 5 after it); each check sees them, still for O(1) GETs
    // more than what is new.
    append(&moto, "large", 300, 305);
    let (changed, gets) = check(&proxy, dir.path(), "s3://journals/large");
    assert!(changed.contains("305 revisions"), "{changed}");
    // The new entries and their revision files, and the absent reads of
    // the tail's doubling batches (at most one per new entry).
    println!("unchanged: {seconds:?} GETs; 5 new revisions: {gets}");
    assert!(gets <= seconds[1] + 3 * 5, "{gets}");
    append(&moto, "large", 305, 315);
    let (changed, _) = check(&proxy, dir.path(), "s3://journals/large");
    assert!(changed.contains("315 revisions"), "{changed}");
    let (again, gets) = check(&proxy, dir.path(), "s3://journals/large");
    assert_eq!(again, changed);
    // The 5 entries after the new last segment are read (and the absent
    // reads of the doubling), nothing else new.
    println!("unchanged, 5 entries after the last segment: {gets}");
    assert!(gets <= seconds[1] + 2 * 5, "{gets}");
}
