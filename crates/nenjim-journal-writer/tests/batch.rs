//! Batched appends (group commit): a batch commits in order with the
//! sequences one-by-one appends would get, a refused text commits the
//! prefix before it only, and a writer killed (SIGKILL) at any instant of
//! its batches leaves a committed prefix, never a gap, holding everything
//! it reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::Duration;

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use nenjim_journal_fs::{LoadOptions, load};
use nenjim_journal_testkit::texts::{bare_genesis as genesis, restated as successor};
use nenjim_journal_writer::{FsJournalWriter, WriterOptions};

fn c(s: &str) -> ArtifactCoordinate {
    s.parse().unwrap()
}

/// The sequences of the ledger's `log/` entries, ascending.
fn entries(root: &Path) -> Vec<u64> {
    let mut found: Vec<u64> = std::fs::read_dir(root.join(".ledger/log"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .map(|n| n.parse().unwrap())
        .collect();
    found.sort_unstable();
    found
}

/// (coordinate, sequence) of every revision a fresh load gives, in sequence order.
fn loaded(root: &Path) -> Vec<(String, u64)> {
    let state = load(root, LoadOptions::new()).unwrap();
    let mut cursor = state.replay(0);
    let mut out = Vec::new();
    while let Some(r) = cursor.next().unwrap() {
        out.push((r.coordinate().to_string(), r.sequence()));
    }
    out
}

/// A batch (split into chunks of two by `batch_max`) gets the sequences
/// one-by-one appends get, in order; a text recorded before the batch and
/// a repeat inside it are idempotent successes that take no sequence; the
/// ledger has one entry per new revision, and a fresh load agrees.
#[test]
fn a_batch_commits_in_order_with_the_sequences_of_single_appends() {
    let root = tempfile::tempdir().unwrap();
    let aaa = genesis("aaa", "20260101T000000Z");
    let bbb = genesis("bbb", "20260101T000000Z");
    let aaa2 = successor(&aaa, "20260102T000000Z", "");
    let ccc = genesis("ccc", "20260101T000000Z");
    let mut writer = FsJournalWriter::open(root.path(), WriterOptions::new().batch_max(2)).unwrap();
    assert_eq!(writer.append(&aaa).unwrap().sequence(), 1);
    let batch: Vec<&str> = vec![&bbb, &aaa, &aaa2, &bbb, &ccc];
    let appended = writer.append_batch(&batch).unwrap();
    let got: Vec<(String, u64, bool)> = appended
        .iter()
        .map(|a| {
            (
                a.revision().coordinate().to_string(),
                a.sequence(),
                a.is_new(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("bbb".to_owned(), 2, true),
            ("aaa".to_owned(), 1, false),
            ("aaa".to_owned(), 3, true),
            ("bbb".to_owned(), 2, false),
            ("ccc".to_owned(), 4, true),
        ]
    );
    assert_eq!(writer.tip(), 4);
    // The same batch again writes nothing.
    let again = writer.append_batch(&batch).unwrap();
    assert!(again.iter().all(|a| !a.is_new()));
    assert_eq!(writer.tip(), 4);
    // A single append after the batch takes the next sequence.
    assert_eq!(
        writer
            .append(&genesis("ddd", "20260101T000000Z"))
            .unwrap()
            .sequence(),
        5
    );
    writer.close().unwrap();
    assert_eq!(entries(root.path()), [1, 2, 3, 4, 5]);
    assert_eq!(
        loaded(root.path()),
        [
            ("aaa".to_owned(), 1),
            ("bbb".to_owned(), 2),
            ("aaa".to_owned(), 3),
            ("ccc".to_owned(), 4),
            ("ddd".to_owned(), 5),
        ]
    );
}

/// A text refused in the middle of a batch (a parse error, then a text the
/// chain refuses) ends it there: the texts before it are committed and
/// reported, nothing of it or of the texts after it is loaded, the error is
/// the one a single append gets, and the writer appends on at the next
/// sequence.
#[test]
fn a_refused_text_in_a_batch_commits_the_prefix_only() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    let aaa = genesis("aaa", "20260101T000000Z");
    let bbb = genesis("bbb", "20260101T000000Z");
    let broken = "FORMAT nenjim-journal/1\nARTIFACT broken\nJOURNAL_VERSION yesterday\n";
    let after = genesis("after", "20260101T000000Z");
    let error = writer
        .append_batch(&[&aaa, &bbb, broken, &after])
        .unwrap_err();
    assert_eq!(error.index(), 2, "{error}");
    let single = writer.append(broken).unwrap_err();
    assert_eq!(error.error().kind(), single.kind(), "{error}");
    assert_eq!(error.error().to_string(), single.to_string());
    let sequences: Vec<u64> = error.appended().iter().map(|a| a.sequence()).collect();
    assert_eq!(sequences, [1, 2]);
    assert_eq!(writer.tip(), 2);
    assert_eq!(
        loaded(root.path()),
        [("aaa".to_owned(), 1), ("bbb".to_owned(), 2)]
    );
    assert!(!root.path().join("after").exists());

    // A successor whose predecessor is not the head: refused by the chain
    // after two new texts were validated; their files are written only if
    // committed, and the one after the refusal never is.
    let ccc = genesis("ccc", "20260101T000000Z");
    let wrong = successor(&genesis("aaa", "20251231T000000Z"), "20260102T000000Z", "");
    let error = writer
        .append_batch(&[&ccc, &aaa, &wrong, &after])
        .unwrap_err();
    assert_eq!(error.index(), 2, "{error}");
    let single = writer.append(&wrong).unwrap_err();
    assert_eq!(error.error().kind(), single.kind(), "{error}");
    let got: Vec<(u64, bool)> = error
        .appended()
        .iter()
        .map(|a| (a.sequence(), a.is_new()))
        .collect();
    assert_eq!(got, [(3, true), (1, false)]);
    assert_eq!(entries(root.path()), [1, 2, 3]);
    assert!(!root.path().join("after").exists());
    assert_eq!(writer.append(&after).unwrap().sequence(), 4);
    writer.close().unwrap();
    assert_eq!(loaded(root.path()).len(), 4);
}

/// A different file already at the path of the second text of a batch
/// (placed by hand) is `Conflict`, as for a single append: the first text
/// is committed, the second and third are not recorded.
#[test]
fn a_conflicting_file_in_a_batch_commits_the_prefix_only() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap();
    std::fs::create_dir(root.path().join("bbb")).unwrap();
    std::fs::write(
        root.path().join("bbb/20260101T000000Z.journal"),
        "something else\n",
    )
    .unwrap();
    let texts = [
        genesis("aaa", "20260101T000000Z"),
        genesis("bbb", "20260101T000000Z"),
        genesis("ccc", "20260101T000000Z"),
    ];
    let batch: Vec<&str> = texts.iter().map(String::as_str).collect();
    let error = writer.append_batch(&batch).unwrap_err();
    assert_eq!(error.error().kind(), ErrorKind::Conflict, "{error}");
    assert_eq!(error.index(), 1);
    assert_eq!(writer.tip(), 1);
    writer.close().unwrap();
    assert_eq!(loaded(root.path()), [("aaa".to_owned(), 1)]);
    assert_eq!(entries(root.path()), [1]);
}

/// Batches of 1 500 (past a segment span) write segments as single appends
/// do, and a root of them loads with every sequence.
#[test]
fn a_large_batch_writes_its_segments() {
    let root = tempfile::tempdir().unwrap();
    let mut writer =
        FsJournalWriter::open(root.path(), WriterOptions::new().batch_max(1500)).unwrap();
    let texts: Vec<String> = (0..2100)
        .map(|i| genesis(&format!("a{i:05}"), "20260101T000000Z"))
        .collect();
    let batch: Vec<&str> = texts.iter().map(String::as_str).collect();
    let appended = writer.append_batch(&batch).unwrap();
    assert_eq!(appended.last().unwrap().sequence(), 2100);
    writer.close().unwrap();
    for last in [1000, 2000] {
        assert!(
            root.path()
                .join(format!(".ledger/segments/{last:020}.segment"))
                .is_file(),
            "{last}"
        );
    }
    let state = load(root.path(), LoadOptions::new()).unwrap();
    assert_eq!(state.len(), 2100);
    assert_eq!(state.latest(&c("a02099")).unwrap().sequence(), 2100);
}

/// A writer in a child process appends batches of varying sizes and
/// reports each revision of a batch once the batch returned; it is killed
/// (SIGKILL) after a varying number of reports, wherever it is in its next
/// batch (writing files, creating entries, syncing). After every kill the
/// root loads, holds every reported revision at its reported sequence,
/// and its ledger entries are contiguous from 1: a prefix, never a gap.
#[test]
fn a_writer_killed_during_batches_leaves_a_committed_prefix() {
    let root = tempfile::tempdir().unwrap();
    let reported = crate::writer::kill_rounds(
        "batch::child_appends_batches_until_killed",
        root.path(),
        10,
        |round| 1 + (round * 13) % 40,
        |round, state| {
            let found = entries(root.path());
            let contiguous: Vec<u64> = (1..=found.len() as u64).collect();
            assert_eq!(found, contiguous, "round {round}: a gap in the ledger");
            // Everything the ledger records is loaded (fences aside).
            assert!(state.last_sequence() <= found.len() as u64);
        },
    );
    assert!(reported.len() >= 10);
}

#[test]
fn child_appends_batches_until_killed() {
    let (Some(root), Some(round)) = (
        std::env::var_os("NENJIM_CHILD_ROOT"),
        std::env::var_os("NENJIM_CHILD_ROUND"),
    ) else {
        return; // only meaningful as the child of the test above
    };
    let round = round.to_string_lossy().into_owned();
    // A killed writer leaves an unreleased lease, taken over at once: its
    // holder is a process of this host that is gone (killed and reaped).
    // A long lease: a short one expired under a loaded machine's slow
    // append and made the child stop early (LeaseLost).
    let mut writer = loop {
        match FsJournalWriter::open(
            Path::new(&root),
            WriterOptions::new()
                .lease_ttl(Duration::from_secs(60))
                .batch_max(7),
        ) {
            Ok(writer) => break writer,
            Err(e) if e.kind() == ErrorKind::LeaseHeld => {
                std::thread::sleep(Duration::from_millis(50))
            }
            Err(e) => panic!("{e}"),
        }
    };
    for b in 0..1_000 {
        let size = 1 + b % 11;
        let names: Vec<String> = (0..size).map(|i| format!("r{round}-{b}-{i}")).collect();
        let texts: Vec<String> = names
            .iter()
            .map(|n| genesis(n, "20260101T000000Z"))
            .collect();
        let batch: Vec<&str> = texts.iter().map(String::as_str).collect();
        let appended = writer.append_batch(&batch).unwrap();
        for (name, appended) in names.iter().zip(&appended) {
            println!("APPENDED {name} {}", appended.sequence());
        }
    }
}

/// A batch on a signed root is covered by a checkpoint when it returns:
/// the checkpoint verifies and its size is the whole ledger, the batch's
/// entries included (one checkpoint for the batch, written after them).
#[test]
fn a_batch_on_a_signed_root_is_covered_by_its_checkpoint() {
    use nenjim_journal_testkit::signed;
    let root = tempfile::tempdir().unwrap();
    let (skey, vkey) = signed::key("batch.example/journal", 3);
    let options = || WriterOptions::new().signing_key(&skey);
    let mut writer = FsJournalWriter::open(root.path(), options()).unwrap();
    writer.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    let texts: Vec<String> = (0..20)
        .map(|i| genesis(&format!("b{i:02}"), "20260101T000000Z"))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let appended = writer.append_batch(&refs).unwrap();
    assert_eq!(appended.len(), 20);
    let (checkpoint, entries) =
        signed::checked(&nenjim_journal_fs::RealFileSystem, root.path(), &vkey).unwrap();
    assert_eq!(entries.len(), 21);
    assert_eq!(checkpoint.size(), 21, "the batch is not covered");
    writer.close().unwrap();
}
