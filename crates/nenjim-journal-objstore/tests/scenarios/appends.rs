//! Loading and appending in a bucket: a tree loaded the same as from a
//! directory, a writer under its lease, a takeover fencing the old writer,
//! two writers racing, hubs refreshing during appends, feeds across fences.

use super::*;

/// The same tree loaded from a directory and from a bucket gives the same
/// worldview, revision by revision; and so does a refresh after appends.
pub fn a_tree_loads_the_same_from_a_directory_and_a_bucket(new_store: NewStore<'_>) {
    let dir = tempfile::tempdir().unwrap();
    let mut local =
        FsJournalWriter::open(dir.path(), WriterOptions::new().segment_span(3)).unwrap();
    let all = texts();
    let (first, later) = all.split_at(5);
    for text in first {
        local.append(text).unwrap();
    }
    let fs = new_store("same-tree");
    support::copy_into(dir.path(), &**fs.object_store(), "journals/main");
    let root = Path::new("/journals/main");
    let from_dir = load(dir.path(), LoadOptions::new()).unwrap();
    let from_bucket = load_with(&*fs, root, LoadOptions::new()).unwrap();
    assert_eq!(worldview(&from_bucket), worldview(&from_dir));
    assert_eq!(worldview(&from_dir).len(), 5);

    // The rest appended to each, then a refresh of the bucket's state.
    for text in later {
        local.append(text).unwrap();
    }
    local.close().unwrap();
    support::copy_into(dir.path(), &**fs.object_store(), "journals/main");
    let mut published = 0;
    let report = refresh_with(&*fs, root, LoadOptions::new(), &from_bucket, &mut |_| {
        published += 1
    })
    .unwrap();
    assert_eq!(report.ingested(), later.len(), "{report:?}");
    let reloaded = load_with(&*fs, root, LoadOptions::new()).unwrap();
    assert_eq!(
        worldview(&reloaded),
        worldview(&load(dir.path(), LoadOptions::new()).unwrap())
    );
}

/// A writer appends to a bucket: lease, ledger, revisions; a second writer
/// is refused while the first holds the lease, and continues after close.
pub fn a_writer_appends_to_a_bucket_under_its_lease(new_store: NewStore<'_>) {
    let fs = new_store("writer");
    let root = Path::new("/j");
    let all = texts();
    let mut writer = open(&fs, root);
    for (i, text) in all.iter().take(4).enumerate() {
        let appended = writer.append(text).unwrap();
        assert_eq!(
            (appended.sequence(), appended.is_new()),
            (i as u64 + 1, true)
        );
    }
    // An idempotent repeat writes nothing.
    assert!(!writer.append(&all[0]).unwrap().is_new());
    let error = FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LeaseHeld, "{error}");
    writer.close().unwrap();
    let mut second = open(&fs, root);
    assert_eq!(second.append(&all[4]).unwrap().sequence(), 5);
    second.close().unwrap();
    let loaded = load_with(&*fs, root, LoadOptions::new()).unwrap();
    let sequences: Vec<u64> = worldview(&loaded).iter().map(|r| r.0).collect();
    assert_eq!(sequences, vec![1, 2, 3, 4, 5]);
    // The ledger entries are objects holding their records.
    let record = fs
        .read_record(&root.join(".ledger/log/00000000000000000005"))
        .unwrap();
    assert!(
        String::from_utf8(record)
            .unwrap()
            .starts_with("5 REVISION ")
    );
    // And the revision files are where a local root has them.
    assert_eq!(
        fs.read(&root.join("left-pad/20260101T000000Z.journal"), 1 << 20)
            .unwrap(),
        all[0].as_bytes()
    );
}

/// A lease taken over after it expired (here: a clock that says so) fences
/// the old holder: its next commit is refused, nothing of it is loaded.
pub fn a_lease_taken_over_fences_the_old_writer(new_store: NewStore<'_>) {
    let fs = new_store("takeover");
    let root = Path::new("/j");
    let mut old = open(&fs, root);
    old.append(&genesis("aaa", "20260101T000000Z")).unwrap();
    // Another machine sees the lease expired: rewrite its expiry.
    expire_lease(&fs, "j");
    let mut new = open(&fs, root);
    let text = genesis("bbb", "20260101T000000Z");
    let error = old.append(&text).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LeaseLost, "{error}");
    let loaded = load_with(&*fs, root, LoadOptions::new()).unwrap();
    assert_eq!(worldview(&loaded).len(), 1);
    assert_eq!(new.append(&text).unwrap().sequence(), 3, "2 is the fence");
    assert_eq!(
        old.append(&genesis("eee", "20260101T000000Z"))
            .unwrap_err()
            .kind(),
        ErrorKind::LeaseLost
    );
}

/// Two writers race on one bucket: each append either commits once or is
/// refused with TipMoved or LeaseHeld; nothing is lost or doubled.
pub fn two_writers_racing_commit_each_sequence_once(new_store: NewStore<'_>) {
    let fs = new_store("race");
    let root = Path::new("/race");
    fs.ensure_dir(root).unwrap();
    let committed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for w in 0..2 {
            // Each writer a client of its own, as two processes would be.
            let fs =
                Arc::new(ObjectFs::new(fs.object_store().clone(), format!("writer {w}")).unwrap());
            let committed = &committed;
            scope.spawn(move || {
                for i in 0..6 {
                    let text = genesis(&format!("w{w}-a{i}"), "20260101T000000Z");
                    match FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()) {
                        Ok(mut writer) => {
                            match writer.append(&text) {
                                Ok(appended) => {
                                    committed.lock().unwrap().push((appended.sequence(), text))
                                }
                                Err(e) => assert!(
                                    matches!(e.kind(), ErrorKind::TipMoved | ErrorKind::LeaseLost),
                                    "{e}"
                                ),
                            }
                            let _ = writer.close();
                        }
                        Err(e) => assert_eq!(e.kind(), ErrorKind::LeaseHeld, "{e}"),
                    }
                }
            });
        }
    });
    let mut committed = committed.into_inner().unwrap();
    committed.sort();
    let loaded = load_with(&*fs, root, LoadOptions::new()).unwrap();
    let view = worldview(&loaded);
    assert_eq!(view.len(), committed.len());
    for ((sequence, text), row) in committed.iter().zip(&view) {
        assert_eq!(*sequence, row.0);
        assert!(text.contains(&format!("ARTIFACT {}\n", row.1)));
    }
}

/// Every revision a Journal serves, by sequence (the same rows as [`worldview`]).
fn served(service: &dyn nenjim_journal_api::JournalService) -> Vec<(u64, String, String, String)> {
    let mut cursor = service
        .replay(&nenjim_journal_api::model::ReplayRequest::after(0))
        .unwrap();
    let mut out = Vec::new();
    while let Some(r) = cursor.next().unwrap() {
        out.push(row(&r));
    }
    out
}

/// Three hubs (reference Journals, each with a client of its own) start
/// from one bucket and refresh while a writer appends: each sees a prefix
/// of the final worldview at every refresh, and all of it at the end;
/// `journal_root()` is the root's path inside the store.
pub fn hubs_refreshing_while_a_writer_appends_agree_on_every_sequence(new_store: NewStore<'_>) {
    use nenjim_journal_ref::JournalAssembly;
    let fs = new_store("hubs");
    let root = Path::new("/hub");
    let all = texts();
    let mut writer = open(&fs, root);
    writer.append(&all[0]).unwrap();
    let hubs: Vec<JournalAssembly> = (0..3)
        .map(|i| {
            let client = ObjectFs::new(fs.object_store().clone(), format!("hub {i}")).unwrap();
            JournalAssembly::with_file_system(root, LoadOptions::new(), Arc::new(client))
        })
        .collect();
    for hub in &hubs {
        hub.process().start().unwrap();
        assert_eq!(hub.manager().journal_root(), root);
    }
    let seen = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for hub in &hubs {
            let seen = &seen;
            scope.spawn(move || {
                for _ in 0..6 {
                    hub.manager().refresh().unwrap();
                    seen.lock().unwrap().push(served(&*hub.service()));
                }
            });
        }
        for text in &all[1..] {
            writer.append(text).unwrap();
        }
    });
    writer.close().unwrap();
    let expected = worldview(&load_with(&*fs, root, LoadOptions::new()).unwrap());
    assert_eq!(expected.len(), all.len());
    for view in seen.into_inner().unwrap() {
        assert_eq!(view[..], expected[..view.len()]);
    }
    for hub in &hubs {
        hub.manager().refresh().unwrap();
        assert_eq!(served(&*hub.service()), expected);
    }
}

/// Rewrites the lease of the root at key prefix `root` in `fs`'s bucket as
/// expired but not released (testkit's `expired_lease`): the next writer
/// takes it over and fences the tip.
fn expire_lease(fs: &Arc<ObjectFs>, root: &str) {
    let key = Key::from(format!("{root}/.ledger/lease"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let bytes = fs
            .object_store()
            .get(&key)
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        let expired =
            nenjim_journal_testkit::feeds::expired_lease(std::str::from_utf8(&bytes).unwrap());
        fs.object_store()
            .put(&key, PutPayload::from(expired.into_bytes()))
            .await
            .unwrap();
    });
}

/// Issue 20: on a bucket, both feeds of a served Journal resume exactly
/// after a sequence before, at or after each fence's gap, from a start and
/// after a refresh that read more gaps.
pub fn feeds_resume_across_the_gaps_fences_leave(new_store: NewStore<'_>) {
    use nenjim_journal_ref::JournalAssembly;
    use nenjim_journal_testkit::feeds::assert_feeds_resume_across_gaps;
    let fs = new_store("gaps");
    let root = Path::new("/g");
    let aaa = genesis("aaa", "20260101T000000Z");
    let after_takeover = |texts: &[String]| {
        expire_lease(&fs, "g");
        let mut writer = open(&fs, root);
        for text in texts {
            writer.append(text).unwrap();
        }
        writer.close().unwrap();
    };
    let mut first = open(&fs, root);
    first.append(&aaa).unwrap();
    first.close().unwrap();
    after_takeover(&[
        genesis("bbb", "20260101T000000Z"),
        genesis("ccc", "20260101T000000Z"),
    ]);
    let hub = JournalAssembly::with_file_system(root, LoadOptions::new(), fs.clone());
    hub.process().start().unwrap();
    assert_feeds_resume_across_gaps(&*hub.service(), &[1, 3, 4], &[1, 3, 4]);
    // A successor that changes the description: an event at 6.
    let changed = successor(&aaa, "20260102T000000Z", "").replace(
        "DESCRIPTION \"aaa\"",
        "DESCRIPTION \"aaa, described again\"",
    );
    after_takeover(&[changed]);
    hub.manager().refresh().unwrap();
    assert_feeds_resume_across_gaps(&*hub.service(), &[1, 3, 4, 6], &[1, 3, 4, 6]);
}
