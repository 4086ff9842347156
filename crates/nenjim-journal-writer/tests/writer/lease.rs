//! The lease and its fence: a live lease held, a released one taken
//! without a fence, an expired one taken over, the old holder fenced, and
//! appends and feeds across the fences a takeover leaves.

use super::*;

#[test]
fn a_live_lease_is_held_and_a_released_one_is_taken_without_a_fence() {
    let root = tempfile::tempdir().unwrap();
    let mut first = open(root.path());
    first.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    let error = FsJournalWriter::open(root.path(), WriterOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LeaseHeld, "{error}");
    first.close().unwrap();
    let mut second = open(root.path());
    assert_eq!(
        second
            .append(&genesis("bbb", "20260101T000000Z"))
            .unwrap()
            .sequence(),
        2
    );
}

#[test]
fn an_expired_lease_is_taken_over_and_fences_the_old_holder() {
    let root = tempfile::tempdir().unwrap();
    let mut old = FsJournalWriter::open(
        root.path(),
        WriterOptions::new().lease_ttl(Duration::from_millis(100)),
    )
    .unwrap();
    old.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    std::thread::sleep(Duration::from_millis(150));
    // The old holder's lease has expired: it is refused from now on.
    let error = old.append(&genesis("ccc", "20260101T000000Z")).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LeaseLost, "{error}");
    let mut new = open(root.path());
    assert_eq!(
        new.append(&genesis("bbb", "20260101T000000Z"))
            .unwrap()
            .sequence(),
        3,
        "2 is the fence"
    );
    assert_eq!(
        old.append(&genesis("ddd", "20260101T000000Z"))
            .unwrap_err()
            .kind(),
        ErrorKind::LeaseLost
    );
}

#[test]
fn a_holder_whose_clock_says_live_is_stopped_by_the_fence() {
    let root = tempfile::tempdir().unwrap();
    let mut old = open(root.path());
    old.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    // Another machine sees the lease expired (a skewed clock): rewrite its expiry.
    nenjim_journal_testkit::feeds::expire_lease_of(root.path());
    let mut new = open(root.path());
    let text = genesis("bbb", "20260101T000000Z");
    let error = old.append(&text).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LeaseLost, "{error}");
    // Nothing of the refused append is loaded; the new holder records the
    // file it left (the same bytes at the same place).
    let loaded = load(root.path(), LoadOptions::new()).unwrap();
    assert!(loaded.latest(&c("bbb")).is_none());
    assert_eq!(new.append(&text).unwrap().sequence(), 3);
    assert_eq!(
        old.append(&genesis("eee", "20260101T000000Z"))
            .unwrap_err()
            .kind(),
        ErrorKind::LeaseLost
    );
}

/// Another writer commits the sequence this one was about to take (here:
/// its revision file and ledger entry placed behind the lease's back). The
/// append is refused with `TipMoved` and commits nothing; the writer reads
/// the ledger again, so retrying the same append commits it at the new tip.
#[test]
fn after_tip_moved_the_same_append_commits_at_the_new_tip() {
    let root = tempfile::tempdir().unwrap();
    let mut writer = open(root.path());
    assert_eq!(
        writer
            .append(&genesis("aaa", "20260101T000000Z"))
            .unwrap()
            .sequence(),
        1
    );

    let other = genesis("bbb", "20260102T000000Z");
    std::fs::create_dir(root.path().join("bbb")).unwrap();
    std::fs::write(root.path().join("bbb/20260102T000000Z.journal"), &other).unwrap();
    std::os::unix::fs::symlink(
        format!(
            "2 REVISION bbb 20260102T000000Z {} {}",
            other.len(),
            RevisionDigest::of_text(&other)
        ),
        root.path().join(".ledger/log/00000000000000000002"),
    )
    .unwrap();

    let text = genesis("ccc", "20260103T000000Z");
    let error = writer.append(&text).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TipMoved, "{error}");
    assert!(error.message().contains("can be retried"), "{error}");
    // Nothing of ccc was committed: a load sees aaa and bbb.
    let loaded = sequences(&load(root.path(), LoadOptions::new()).unwrap());
    assert_eq!(loaded.len(), 2, "{loaded:?}");
    // The writer follows the ledger now: bbb is its state, and the retry
    // of the same text commits at sequence 3.
    assert!(writer.state().latest(&c("bbb")).is_some());
    assert_eq!(writer.append(&text).unwrap().sequence(), 3);
    writer.close().unwrap();

    let loaded = sequences(&load(root.path(), LoadOptions::new()).unwrap());
    let expected: BTreeMap<(String, String), u64> = [
        ("aaa", "20260101T000000Z", 1),
        ("bbb", "20260102T000000Z", 2),
        ("ccc", "20260103T000000Z", 3),
    ]
    .into_iter()
    .map(|(a, v, s)| ((a.to_owned(), v.to_owned()), s))
    .collect();
    assert_eq!(loaded, expected);
}

/// Appends `texts` through a writer that takes over an expired lease, so
/// the ledger gets a FENCE first: one sequence number that no revision has.
fn append_after_a_takeover(root: &Path, texts: &[String]) {
    nenjim_journal_testkit::feeds::expire_lease_of(root);
    let mut writer = open(root);
    for text in texts {
        writer.append(text).unwrap();
    }
    writer.close().unwrap();
}

/// Issue 20: both feeds resume exactly after a sequence before, at or after
/// each fence's gap, from a start and after a refresh that read more gaps.
#[test]
fn feeds_resume_across_the_gaps_fences_leave() {
    use nenjim_journal_testkit::feeds::assert_feeds_resume_across_gaps;
    let root = tempfile::tempdir().unwrap();
    let aaa = genesis("aaa", "20260101T000000Z");
    let mut first = open(root.path());
    first.append(&aaa).unwrap();
    first.close().unwrap();
    // Fence at 2, then 3 and 4.
    append_after_a_takeover(
        root.path(),
        &[
            genesis("bbb", "20260101T000000Z"),
            genesis("ccc", "20260101T000000Z"),
        ],
    );
    let assembly = JournalAssembly::new(root.path());
    assembly.process().start().unwrap();
    assert_feeds_resume_across_gaps(&*assembly.service(), &[1, 3, 4], &[1, 3, 4]);
    // Fence at 5, then 6 (a release: an event); a refresh reads it.
    append_after_a_takeover(
        root.path(),
        &[successor(
            &aaa,
            "20260102T000000Z",
            &release("1.0.0", CONTENT),
        )],
    );
    assembly.manager().refresh().unwrap();
    assert_feeds_resume_across_gaps(&*assembly.service(), &[1, 3, 4, 6], &[1, 3, 4, 6]);
    // A fresh start gives the same.
    let again = JournalAssembly::new(root.path());
    again.process().start().unwrap();
    assert_feeds_resume_across_gaps(&*again.service(), &[1, 3, 4, 6], &[1, 3, 4, 6]);
}
