//! A signed root (format section 10) read by the reference Journal with a
//! verifier key (`LoadOptions::verifier`): start verifies the checkpoint's
//! signature, size and root hash before publishing anything; refresh
//! accepts only a checkpoint consistent with the last one verified.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use nenjim_journal_api::append::JournalWriter;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_ref::{JournalAssembly, LoadOptions};
use nenjim_journal_testkit::signed;
use nenjim_journal_testkit::texts::bare_genesis as genesis;
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

const ORIGIN: &str = "hub.example/journal";

/// A root with `names` appended by a writer signing with the key of `seed`.
fn append(root: &Path, seed: u8, names: &[&str]) {
    let (skey, _) = signed::key(ORIGIN, seed);
    let mut writer = FsJournalWriter::open(root, WriterOptions::new().signing_key(&skey)).unwrap();
    for name in names {
        writer.append(&genesis(name, "20260101T000000Z")).unwrap();
    }
    writer.close().unwrap();
}

fn verifying(root: &Path, vkey: &str) -> JournalAssembly {
    JournalAssembly::with_options(root, LoadOptions::new().verifier(vkey))
}

fn coordinates(assembly: &JournalAssembly) -> Vec<String> {
    let service = assembly.service();
    service
        .coordinates()
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// The start fails with `kind` and publishes nothing.
fn refused(assembly: &JournalAssembly, kind: ErrorKind) {
    let error = assembly.process().start().unwrap_err();
    assert_eq!(error.kind(), kind, "{error}");
    let service = assembly.service();
    assert_eq!(
        service.coordinates().unwrap_err().kind(),
        ErrorKind::NotStarted
    );
}

/// With its key a signed root starts (the same Journal as without one);
/// without a verifier it loads as an unsigned root does.
#[test]
fn a_signed_root_loads_with_its_key_and_without_a_verifier() {
    let root = tempfile::tempdir().unwrap();
    append(root.path(), 1, &["a", "b", "c"]);
    let (_, vkey) = signed::key(ORIGIN, 1);
    let assembly = verifying(root.path(), &vkey);
    assembly.process().start().unwrap();
    assert_eq!(coordinates(&assembly), ["a", "b", "c"]);
    let plain = JournalAssembly::new(root.path());
    plain.process().start().unwrap();
    assert_eq!(coordinates(&plain), ["a", "b", "c"]);
    // An unchanged refresh of a verified Journal ingests nothing.
    let report = assembly.manager().refresh().unwrap();
    assert_eq!((report.ingested(), report.unchanged()), (0, 3));
}

/// Another key (of the same name, or of another), a root without a
/// checkpoint, and a malformed key are `CheckpointInvalid`, nothing
/// published.
#[test]
fn another_key_no_checkpoint_or_a_malformed_key_is_checkpoint_invalid() {
    let root = tempfile::tempdir().unwrap();
    append(root.path(), 1, &["a"]);
    let (_, same_name) = signed::key(ORIGIN, 2);
    let (_, other_name) = signed::key("other.example/journal", 1);
    for key in [
        same_name.as_str(),
        &other_name,
        "hub.example/journal+0000+AAAA",
        "",
    ] {
        refused(&verifying(root.path(), key), ErrorKind::CheckpointInvalid);
    }
    // An unsigned root (with a ledger, and without one).
    let unsigned = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(unsigned.path(), WriterOptions::new()).unwrap();
    writer.append(&genesis("a", "20260101T000000Z")).unwrap();
    writer.close().unwrap();
    let (_, vkey) = signed::key(ORIGIN, 1);
    refused(
        &verifying(unsigned.path(), &vkey),
        ErrorKind::CheckpointInvalid,
    );
    let bare = tempfile::tempdir().unwrap();
    refused(&verifying(bare.path(), &vkey), ErrorKind::CheckpointInvalid);
    // A checkpoint whose signature was tampered with.
    let checkpoint = root.path().join(".ledger/tlog/checkpoint");
    let mut bytes = std::fs::read(&checkpoint).unwrap();
    let at = bytes.len() - 5;
    bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
    std::fs::write(&checkpoint, bytes).unwrap();
    refused(&verifying(root.path(), &vkey), ErrorKind::CheckpointInvalid);
}

/// An older, validly signed checkpoint in front of a longer ledger (a
/// writer at a checkpoint interval, or one that died before publishing)
/// is served as what it covers: exactly its prefix, the entries after it
/// counted as uncovered by a refresh, taken once a checkpoint covers them.
/// A checkpoint covering more than the ledger holds (a dropped newest
/// entry) and one flipped byte of a record are refused at start
/// (`CheckpointMismatch`), nothing published.
#[test]
fn an_older_checkpoint_serves_its_prefix_and_a_flipped_record_byte_is_refused() {
    let root = tempfile::tempdir().unwrap();
    append(root.path(), 1, &["a", "b"]);
    let checkpoint = root.path().join(".ledger/tlog/checkpoint");
    let older = std::fs::read(&checkpoint).unwrap();
    append(root.path(), 1, &["c"]);
    let newer = std::fs::read(&checkpoint).unwrap();
    let (_, vkey) = signed::key(ORIGIN, 1);
    std::fs::write(&checkpoint, &older).unwrap();
    let lagging = verifying(root.path(), &vkey);
    lagging.process().start().unwrap();
    assert_eq!(coordinates(&lagging), ["a", "b"]);
    let report = lagging.manager().refresh().unwrap();
    assert_eq!((report.ingested(), report.uncovered()), (0, 1));
    std::fs::write(&checkpoint, &newer).unwrap();
    let report = lagging.manager().refresh().unwrap();
    assert_eq!((report.ingested(), report.uncovered()), (1, 0));
    assert_eq!(coordinates(&lagging), ["a", "b", "c"]);
    verifying(root.path(), &vkey).process().start().unwrap();

    // The newest ledger entry dropped: the checkpoint covers more than
    // the ledger holds.
    let third = root.path().join(".ledger/log/00000000000000000003");
    let kept = std::fs::read_link(&third).unwrap();
    std::fs::remove_file(&third).unwrap();
    refused(
        &verifying(root.path(), &vkey),
        ErrorKind::CheckpointMismatch,
    );
    std::os::unix::fs::symlink(&kept, &third).unwrap();
    verifying(root.path(), &vkey).process().start().unwrap();

    // One byte of the second record's digest, flipped (the entry is a
    // symbolic link whose target is the record).
    let entry = root.path().join(".ledger/log/00000000000000000002");
    let record = std::fs::read_link(&entry).unwrap();
    let mut record = record.to_string_lossy().into_owned();
    let last = record.pop().unwrap();
    record.push(if last == '0' { '1' } else { '0' });
    std::fs::remove_file(&entry).unwrap();
    std::os::unix::fs::symlink(&record, &entry).unwrap();
    refused(
        &verifying(root.path(), &vkey),
        ErrorKind::CheckpointMismatch,
    );
}

/// A root restored from an older copy under a running Journal is refused
/// at refresh (`Rollback`), the published state unchanged; a consistent
/// longer checkpoint refreshes.
#[test]
fn a_rollback_is_refused_at_refresh_and_a_consistent_extension_refreshes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    append(&root, 1, &["a"]);
    let copy = dir.path().join("copy");
    signed::copy_tree(&root, &copy).unwrap();
    append(&root, 1, &["b", "c"]);
    let (_, vkey) = signed::key(ORIGIN, 1);
    let assembly = verifying(&root, &vkey);
    assembly.process().start().unwrap();
    assert_eq!(coordinates(&assembly), ["a", "b", "c"]);

    // A consistent longer checkpoint: the new revisions at once.
    append(&root, 1, &["d", "e"]);
    let report = assembly.manager().refresh().unwrap();
    assert_eq!((report.ingested(), report.unchanged()), (2, 3));
    assert_eq!(coordinates(&assembly), ["a", "b", "c", "d", "e"]);

    // The older copy put in place of the root.
    let newer = dir.path().join("newer");
    std::fs::rename(&root, &newer).unwrap();
    std::fs::rename(&copy, &root).unwrap();
    let error = assembly.manager().refresh().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Rollback, "{error}");
    assert_eq!(coordinates(&assembly), ["a", "b", "c", "d", "e"]);

    // A fork: as long as the verified one, or longer, but another tree.
    append(&root, 1, &["x", "y", "z", "w", "v"]);
    let error = assembly.manager().refresh().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Rollback, "{error}");
    assert_eq!(coordinates(&assembly), ["a", "b", "c", "d", "e"]);

    // The real root back: it refreshes again.
    std::fs::remove_dir_all(&root).unwrap();
    std::fs::rename(&newer, &root).unwrap();
    append(&root, 1, &["f"]);
    let report = assembly.manager().refresh().unwrap();
    assert_eq!(report.ingested(), 1);
    assert_eq!(coordinates(&assembly).len(), 6);
}
