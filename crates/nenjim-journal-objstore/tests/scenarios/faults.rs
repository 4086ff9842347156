//! A fault on any single call of the store: an appending session and a
//! batch leave a root that loads, holding a prefix of what was asked.

use super::*;

/// How many appends a session of the fault walk makes.
const SESSION_APPENDS: usize = 3;

/// Runs a writer session (open, [`SESSION_APPENDS`] appends, close) on the
/// root `/j` of `inner` through a store with `fault`; returns each append's
/// text and whether it reported success.
fn session(inner: &Arc<dyn ObjectStore>, fault: Fault) -> Vec<(String, bool)> {
    let faulty = Arc::new(Faulty::new(inner.clone(), fault));
    let fs = Arc::new(ObjectFs::new(faulty, "faulty").unwrap());
    let root = Path::new("/j");
    let mut results = Vec::new();
    if fs.ensure_dir(root).is_err() {
        return results;
    }
    let Ok(mut writer) = FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()) else {
        return results;
    };
    for text in texts().iter().take(SESSION_APPENDS) {
        results.push((text.clone(), writer.append(text).is_ok()));
    }
    let _ = writer.close();
    results
}

/// A store that fails any single call of a writer session, or loses its
/// answer (the call took effect, the writer is told it failed), never
/// leaves a root that does not load: every call of a session in turn, each
/// case on a new store from `new_inner`. Each append that reported success
/// is loaded, sequences stay increasing from 1, and a writer opened
/// afterwards appends on top (or finds the lease of a session whose close
/// failed, until it expires). Lost answers are settled by reading back.
pub fn a_fault_on_any_single_call_never_leaves_a_root_that_does_not_load(
    new_inner: NewObjectStore<'_>,
) {
    let calls = {
        let inner = new_inner("fault-count");
        let faulty = Arc::new(Faulty::new(inner, Fault::Never));
        let fs = Arc::new(ObjectFs::new(faulty.clone(), "counting").unwrap());
        let root = Path::new("/j");
        fs.ensure_dir(root).unwrap();
        let mut writer = FsJournalWriter::open_store(fs, root, WriterOptions::new()).unwrap();
        for text in texts().iter().take(SESSION_APPENDS) {
            writer.append(text).unwrap();
        }
        writer.close().unwrap();
        faulty.calls()
    };
    assert!(calls > 10, "{calls}");
    println!("a session of {SESSION_APPENDS} appends makes {calls} calls");
    for fault in (1..=calls).flat_map(|n| [Fault::LoseAnswer(n), Fault::Refuse(n)]) {
        let inner = new_inner(&format!("{fault:?}"));
        let results = session(&inner, fault);
        let fs = ObjectFs::new(inner, "after").unwrap();
        let loaded = load_with(&fs, Path::new("/j"), LoadOptions::new());
        let loaded = match loaded {
            Ok(state) => state,
            // A session that failed before the root had anything.
            Err(e) if e.kind() == ErrorKind::RootMissing => {
                assert!(results.iter().all(|(_, ok)| !ok), "{fault:?}");
                continue;
            }
            Err(e) => panic!("{fault:?}: the root does not load: {e}"),
        };
        let view = worldview(&loaded);
        for (text, ok) in &results {
            if *ok {
                let artifact = text.lines().nth(1).unwrap().trim_start_matches("ARTIFACT ");
                assert!(
                    view.iter().any(|r| r.1 == artifact),
                    "{fault:?}: the reported append of {artifact} is not loaded"
                );
            }
        }
        // Sequences increase from 1 (a fence may take one).
        for (i, row) in view.iter().enumerate() {
            assert!(row.0 > i as u64, "{fault:?}: {view:?}");
        }
        // A writer opened afterwards appends on top of whatever is there
        // (unless the fault hit the close: the lease then stays until it expires).
        let fs = Arc::new(fs);
        match FsJournalWriter::open_store(fs.clone(), Path::new("/j"), WriterOptions::new()) {
            Ok(mut writer) => {
                writer
                    .append(&genesis("after", "20260301T000000Z"))
                    .unwrap();
            }
            Err(e) => assert_eq!(e.kind(), ErrorKind::LeaseHeld, "{fault:?}: {e}"),
        }
    }
}

/// (coordinate, Journal version) of a revision text.
fn named(text: &str) -> (String, String) {
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap()
            .to_owned()
    };
    (field("ARTIFACT "), field("JOURNAL_VERSION "))
}

/// Runs a batch session (open, one `append_batch` of `batch`, close) on
/// `/j` of `inner` through a store with `fault`; returns the texts the
/// batch reported appended, and how many calls the session made.
fn batch_session(inner: &Arc<dyn ObjectStore>, fault: Fault, batch: &[&str]) -> (Vec<String>, u64) {
    let faulty = Arc::new(Faulty::new(inner.clone(), fault));
    let fs = Arc::new(ObjectFs::new(faulty.clone(), "faulty").unwrap());
    let root = Path::new("/j");
    if fs.ensure_dir(root).is_err() {
        return (Vec::new(), faulty.calls());
    }
    let Ok(mut writer) = FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()) else {
        return (Vec::new(), faulty.calls());
    };
    let appended = match writer.append_batch(batch) {
        Ok(appended) => appended,
        Err(stopped) => stopped.into_parts().0,
    };
    let _ = writer.close();
    let reported = batch
        .iter()
        .take(appended.len())
        .map(|t| (*t).to_owned())
        .collect();
    (reported, faulty.calls())
}

/// Batched appends in a bucket: a batch commits in order with the
/// sequences of single appends, a refused text in the middle commits the
/// prefix before it only; and a fault on any single call of a batch
/// session (refused, or its answer lost) leaves a root that loads holding
/// a prefix of the batch (never a gap) that includes every text reported.
pub fn a_batch_in_a_bucket_commits_a_prefix_whatever_call_fails(new_inner: NewObjectStore<'_>) {
    let all = texts();
    let batch: Vec<&str> = all.iter().map(String::as_str).take(6).collect();
    {
        let fs = Arc::new(ObjectFs::new(new_inner("batch"), "batch").unwrap());
        let root = Path::new("/b");
        fs.ensure_dir(root).unwrap();
        let mut writer =
            FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new()).unwrap();
        let broken = "FORMAT nenjim-journal/1\nARTIFACT broken\n";
        let mut refused: Vec<&str> = batch.clone();
        refused.insert(3, broken);
        let stopped = writer.append_batch(&refused).unwrap_err();
        assert_eq!(stopped.index(), 3, "{stopped}");
        let sequences: Vec<u64> = stopped.appended().iter().map(|a| a.sequence()).collect();
        assert_eq!(sequences, [1, 2, 3]);
        let rest = writer.append_batch(&batch[3..]).unwrap();
        let sequences: Vec<u64> = rest.iter().map(|a| a.sequence()).collect();
        assert_eq!(sequences, [4, 5, 6]);
        writer.close().unwrap();
        let loaded = load_with(&*fs, root, LoadOptions::new()).unwrap();
        let names: Vec<(String, String)> =
            worldview(&loaded).into_iter().map(|r| (r.1, r.2)).collect();
        let wanted: Vec<(String, String)> = batch.iter().map(|t| named(t)).collect();
        assert_eq!(names, wanted);
    }
    let (reported, calls) = batch_session(&new_inner("batch-count"), Fault::Never, &batch);
    assert_eq!(reported.len(), 6);
    assert!(calls > 10, "{calls}");
    for fault in (1..=calls).flat_map(|n| [Fault::LoseAnswer(n), Fault::Refuse(n)]) {
        let inner = new_inner(&format!("batch {fault:?}"));
        let (reported, _) = batch_session(&inner, fault, &batch);
        let fs = ObjectFs::new(inner, "after").unwrap();
        let loaded = match load_with(&fs, Path::new("/j"), LoadOptions::new()) {
            Ok(state) => state,
            Err(e) if e.kind() == ErrorKind::RootMissing => {
                assert!(reported.is_empty(), "{fault:?}");
                continue;
            }
            Err(e) => panic!("{fault:?}: the root does not load: {e}"),
        };
        let names: Vec<(String, String)> =
            worldview(&loaded).into_iter().map(|r| (r.1, r.2)).collect();
        let prefix: Vec<(String, String)> =
            batch.iter().take(names.len()).map(|t| named(t)).collect();
        assert_eq!(names, prefix, "{fault:?}: not a prefix of the batch");
        assert!(
            names.len() >= reported.len(),
            "{fault:?}: {} reported, {} loaded",
            reported.len(),
            names.len()
        );
    }
}
