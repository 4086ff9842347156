//! What the loader, a hub and the event feed read of what the writer
//! wrote: blobs before their pointers, files placed by hand, segments,
//! forks, resumed feeds, and a successor parsed after the last append.

use super::*;

#[test]
fn blobs_are_required_before_their_pointers() {
    let (root, store, mut writer, g) = with_store();

    let pointer = writer.put_blob(b"the artifact's bytes").unwrap();
    let blob = store
        .path()
        .join("blobs/sha256")
        .join(pointer.digest().to_hex());
    assert_eq!(std::fs::read(&blob).unwrap(), b"the artifact's bytes");
    assert_eq!(
        writer.put_blob(b"the artifact's bytes").unwrap(),
        pointer,
        "idempotent"
    );

    let missing = successor(&g, "20260102T000000Z", &release("1.0.0", CONTENT));
    let before = files(root.path());
    let error = writer.append(&missing).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BlobMissing, "{error}");
    assert_eq!(files(root.path()), before);

    let wrong_size = format!("{} {}", pointer.digest(), pointer.size() + 1);
    let error = writer
        .append(&successor(
            &g,
            "20260102T000000Z",
            &release("1.0.0", &wrong_size),
        ))
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BlobMismatch, "{error}");

    let good = successor(
        &g,
        "20260102T000000Z",
        &release("1.0.0", &format!("{} {}", pointer.digest(), pointer.size())),
    );
    assert_eq!(writer.append(&good).unwrap().sequence(), 2);
    // A release the predecessor already had is not checked again.
    std::fs::remove_file(&blob).unwrap();
    let policy = successor(&good, "20260103T000000Z", "RECOMMEND 1.0.0\n");
    assert_eq!(writer.append(&policy).unwrap().sequence(), 3);
}

#[test]
fn a_file_placed_by_hand_is_recorded_or_refused_by_its_bytes() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    let text = genesis("aaa", "20260101T000000Z");
    std::fs::create_dir(root.path().join("aaa")).unwrap();
    let path = root.path().join("aaa/20260101T000000Z.journal");
    std::fs::write(&path, &text).unwrap();
    assert_eq!(
        load(root.path(), LoadOptions::new()).unwrap().len(),
        0,
        "not recorded, not loaded"
    );
    assert_eq!(writer.append(&text).unwrap().sequence(), 1);

    let other = genesis("bbb", "20260101T000000Z");
    std::fs::create_dir(root.path().join("bbb")).unwrap();
    std::fs::write(
        root.path().join("bbb/20260101T000000Z.journal"),
        other.replace("\"bbb\"", "\"x\""),
    )
    .unwrap();
    let error = writer.append(&other).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conflict, "{error}");
    assert_eq!(load(root.path(), LoadOptions::new()).unwrap().len(), 1);
}

#[test]
fn the_loader_refuses_a_recorded_file_that_changed_or_went_missing() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    let text = genesis("aaa", "20260101T000000Z");
    writer.append(&text).unwrap();
    writer.close().unwrap();
    let path = root.path().join("aaa/20260101T000000Z.journal");

    std::fs::write(&path, text.replace("\"aaa\"", "\"bbb\"")).unwrap();
    let error = load(root.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LedgerMismatch, "{error}");
    assert_eq!(error.path(), Some(path.as_path()));

    std::fs::write(&path, format!("{text}# one more line\n")).unwrap();
    assert_eq!(
        load(root.path(), LoadOptions::new()).unwrap_err().kind(),
        ErrorKind::LedgerMismatch
    );

    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        load(root.path(), LoadOptions::new()).unwrap_err().kind(),
        ErrorKind::LedgerMismatch
    );

    std::fs::write(&path, &text).unwrap();
    assert_eq!(load(root.path(), LoadOptions::new()).unwrap().len(), 1);
    // A malformed entry.
    std::os::unix::fs::symlink(
        "2 REVISION aaa",
        root.path().join(".ledger/log/00000000000000000002"),
    )
    .unwrap();
    assert_eq!(
        load(root.path(), LoadOptions::new()).unwrap_err().kind(),
        ErrorKind::LedgerMismatch
    );
}

#[test]
fn a_hub_refreshing_while_a_writer_appends_sees_each_append_once() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    writer.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    let assembly = JournalAssembly::new(root.path());
    assembly.process().start().unwrap();
    let (service, manager) = (assembly.service(), assembly.manager());
    let mut previous = genesis("aaa", "20260101T000000Z");
    for day in 2..=9 {
        let text = successor(&previous, &format!("202601{day:02}T000000Z"), "");
        let appended = writer.append(&text).unwrap();
        let report = manager.refresh().unwrap();
        assert_eq!((report.ingested(), report.unrecorded()), (1, 0));
        let latest = service.latest(&c("aaa")).unwrap().unwrap();
        assert_eq!(latest.sequence(), appended.sequence());
        assert_eq!(latest.digest(), appended.revision().digest());
        previous = text;
    }
    assert_eq!(manager.refresh().unwrap().ingested(), 0);
    // A file the ledger does not record is never loaded; a refresh reads
    // the ledger alone (it costs what is new), and `check`'s listing of
    // unrecorded files finds it.
    std::fs::create_dir(root.path().join("zzz")).unwrap();
    std::fs::write(
        root.path().join("zzz/20260101T000000Z.journal"),
        genesis("zzz", "20260101T000000Z"),
    )
    .unwrap();
    let report = manager.refresh().unwrap();
    assert_eq!((report.ingested(), report.unrecorded()), (0, 0));
    assert!(service.latest(&c("zzz")).unwrap().is_none());
    let held = |a: &ArtifactCoordinate, v| service.revision(a, v).unwrap().is_some();
    let found = nenjim_journal_fs::unrecorded(root.path(), LoadOptions::new(), &held).unwrap();
    assert_eq!(found, [root.path().join("zzz/20260101T000000Z.journal")]);
}

#[test]
fn segments_checkpoint_the_log() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    let count = nenjim_journal_fs::ledger::SEGMENT_SPAN + 5;
    for i in 0..count {
        writer
            .append(&genesis(&format!("a{i:05}"), "20260101T000000Z"))
            .unwrap();
    }
    writer.close().unwrap();
    let span = nenjim_journal_fs::ledger::SEGMENT_SPAN;
    assert!(
        root.path()
            .join(format!(".ledger/segments/{span:020}.segment"))
            .is_file()
    );
    let ledger = nenjim_journal_fs::ledger::read(&nenjim_journal_fs::RealFileSystem, root.path())
        .unwrap()
        .unwrap();
    assert_eq!((ledger.tip(), ledger.segmented()), (count, span));
    let state = load(root.path(), LoadOptions::new()).unwrap();
    assert_eq!(state.len(), count);
    assert_eq!(state.latest(&c("a01004")).unwrap().sequence(), 1005);
}

/// The event feed of a root with a ledger: a consumer that stored the
/// sequence of the last event it processed resumes after a restart (and
/// after appends made meanwhile) with exactly the events it has not seen.
#[test]
fn the_event_feed_resumes_from_a_stored_sequence_across_restarts_of_a_ledger_root() {
    use nenjim_journal_api::model::{EventChange, JournalEvent};

    fn drain(root: &Path, after: u64) -> Vec<JournalEvent> {
        let assembly = JournalAssembly::new(root);
        assembly.process().start().unwrap();
        let mut cursor = assembly
            .service()
            .replay_events(&ReplayRequest::after(after))
            .unwrap();
        let mut events = Vec::new();
        while let Some(event) = cursor.next().unwrap() {
            events.push(event);
        }
        events
    }

    let root = tempfile::tempdir().unwrap();
    let aaa = genesis("aaa", "20260101T000000Z");
    let mut writer = open(root.path());
    writer.append(&aaa).unwrap();
    writer.append(&genesis("bbb", "20260101T000000Z")).unwrap();
    let seen = drain(root.path(), 0);
    let stored = seen.last().unwrap().sequence();
    assert_eq!(stored, 2);

    // Appends while the consumer is away, one of them a historical import.
    let aaa2 = successor(&aaa, "20260102T000000Z", &release("1.0.0", CONTENT));
    writer.append(&aaa2).unwrap();
    writer.append(&genesis("old", "19990101T000000Z")).unwrap();
    writer.close().unwrap();

    for _restart in 0..2 {
        let resumed = drain(root.path(), stored);
        let got: Vec<(u64, String, &EventChange)> = resumed
            .iter()
            .map(|e| (e.sequence(), e.coordinate().to_string(), e.change()))
            .collect();
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!((got[0].0, got[0].1.as_str()), (3, "aaa"));
        assert!(
            matches!(got[0].2, EventChange::ReleasePublished(r) if r.version().to_string() == "1.0.0")
        );
        assert_eq!((got[1].0, got[1].1.as_str()), (4, "old"));
        assert_eq!(got[1].2, &EventChange::ArtifactCreated);
    }
}

/// Two people each write a successor of the same head: the writer records
/// the first and refuses the second (`StalePredecessor`), and a fork dropped
/// into the root by hand is not part of the Journal, so every start still
/// succeeds (a root without a ledger would refuse to start).
#[test]
fn a_fork_is_refused_by_the_writer_and_a_hand_placed_one_never_breaks_a_start() {
    let root = tempfile::tempdir().unwrap();
    let g = genesis("aaa", "20260101T000000Z");
    let mut writer = open(root.path());
    writer.append(&g).unwrap();
    let first = successor(&g, "20260102T000000Z", &release("1.0.0", CONTENT));
    let second = successor(&g, "20260103T000000Z", &release("2.0.0", CONTENT));
    writer.append(&first).unwrap();
    assert_eq!(
        writer.append(&second).unwrap_err().kind(),
        ErrorKind::StalePredecessor
    );
    writer.close().unwrap();

    std::fs::write(root.path().join("aaa/20260103T000000Z.journal"), &second).unwrap();
    let assembly = JournalAssembly::new(root.path());
    assembly.process().start().unwrap();
    let head = assembly.service().latest(&c("aaa")).unwrap().unwrap();
    assert_eq!(head.journal_version().to_string(), "20260102T000000Z");
    let held = |a: &ArtifactCoordinate, v| assembly.service().revision(a, v).unwrap().is_some();
    let unrecorded = nenjim_journal_fs::unrecorded(root.path(), LoadOptions::new(), &held).unwrap();
    assert_eq!(
        unrecorded,
        vec![root.path().join("aaa/20260103T000000Z.journal")]
    );
}

/// Recording a large root writes segments of the writer's span (a single
/// segment would outgrow what a reader accepts), with a start's sequences.
#[test]
fn recording_a_root_writes_segments_of_the_span() {
    let root = tempfile::tempdir().unwrap();
    for i in 0..25 {
        let name = format!("a{i:02}");
        std::fs::create_dir(root.path().join(&name)).unwrap();
        std::fs::write(
            root.path().join(&name).join("20260101T000000Z.journal"),
            genesis(&name, "20260101T000000Z"),
        )
        .unwrap();
    }
    let before = sequences(&load(root.path(), LoadOptions::new()).unwrap());
    let writer = FsJournalWriter::open(root.path(), WriterOptions::new().segment_span(10)).unwrap();
    writer.close().unwrap();
    let mut segments: Vec<String> = std::fs::read_dir(root.path().join(".ledger/segments"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    segments.sort();
    assert_eq!(
        segments,
        [10, 20, 25].map(|n| format!("{n:020}.segment")).to_vec()
    );
    assert_eq!(
        sequences(&load(root.path(), LoadOptions::new()).unwrap()),
        before
    );
}

/// Each append is parsed after the last one (its restated release blocks
/// are not read again): what is appended is what a plain parse of each
/// text gives, whether a block is restated byte for byte, spelled
/// differently (spaces, a comment) or new, and after a text of another
/// artifact.
#[test]
fn a_successor_parsed_after_the_last_append_is_what_a_plain_parse_gives() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    let deps = "  DEPENDS bbb [1.0.0,2.0.0) \"runtime\"\n  DEPENDS ccc *\n";
    let first = format!(
        "{}{}{deps}",
        genesis("aaa", "20260101T000000Z"),
        release("1.0.0", CONTENT)
    );
    let second = successor(
        &first,
        "20260102T000000Z",
        &format!("{}{deps}", release("1.1.0", CONTENT)),
    );
    // The same values as `second`'s blocks, other bytes.
    let third = successor(&second, "20260103T000000Z", "").replace(
        "  DEPENDS ccc *",
        "  DEPENDS ccc  *\n# a comment inside the block",
    );
    let other = genesis("zzz", "20260101T000000Z");
    let fourth = successor(&third, "20260104T000000Z", &release("2.0.0", CONTENT));
    for text in [&first, &second, &third, &other, &fourth] {
        let appended = writer.append(text).unwrap();
        let plain = nenjim_journal_parser::parse(text).unwrap();
        assert!(appended.is_new());
        assert_eq!(appended.revision().digest(), plain.digest());
        assert!(appended.revision().same_worldview(&plain), "{text}");
    }
    let head = writer.state().latest(&c("aaa")).unwrap();
    assert_eq!(head.releases().len(), 3);
    assert_eq!(head.releases()[0].dependencies().len(), 2);
    // A restated block whose values changed is refused as before.
    let rewritten =
        successor(&fourth, "20260105T000000Z", "").replace("DEPENDS ccc  *", "DEPENDS ccc 1.0.0");
    assert_eq!(
        writer.append(&rewritten).unwrap_err().kind(),
        ErrorKind::ReleaseRewritten
    );
}
