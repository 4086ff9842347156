//! Shipped examples, views and the lifecycle (start, stop, refresh, the
//! manager), and the cases beyond the seed scenarios: a relative root,
//! concurrent refreshes, readers during refreshes.

use super::*;

#[test]
fn example_placement() {
    // Every shipped example sits at <root>/<coordinate>/<timestamp>.journal.example,
    // and none is loaded unless asked for.
    let root = examples_root();
    let mut files = 0;
    for artifact in std::fs::read_dir(&root).unwrap() {
        let artifact = artifact.unwrap();
        let name = artifact.file_name().into_string().unwrap();
        if name.starts_with('.') {
            continue;
        }
        assert!(artifact.file_type().unwrap().is_dir(), "{name}");
        name.parse::<ArtifactCoordinate>().unwrap();
        for file in std::fs::read_dir(artifact.path()).unwrap() {
            let file = file.unwrap();
            let file_name = file.file_name().into_string().unwrap();
            let stem = file_name.strip_suffix(".journal.example").unwrap();
            stem.parse::<JournalVersion>().unwrap();
            assert!(file.file_type().unwrap().is_file());
            files += 1;
        }
    }
    assert!(files > 0, "examples are shipped");
    let runtime = JournalAssembly::new(&root);
    runtime.process().start().unwrap();
    assert!(runtime.service().coordinates().unwrap().is_empty());
}

#[test]
fn example_chain_integrity() {
    let root = examples_root();
    let assembly = JournalAssembly::with_options(&root, LoadOptions::new().with_examples(true));
    assembly.process().start().unwrap();
    let service = assembly.service();
    let coordinates = service.coordinates().unwrap();
    assert!(!coordinates.is_empty());
    let mut total = 0;
    for artifact in &coordinates {
        let revisions = service.revisions(artifact).unwrap();
        let on_disk = std::fs::read_dir(root.join(artifact.as_str()))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .ends_with(".journal.example")
            })
            .count();
        assert_eq!(revisions.len(), on_disk, "{artifact}");
        assert_chain_intact(&revisions);
        total += revisions.len();
    }
    assert_eq!(dump(&*service).len(), total);
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(0, total, 0)
    );
}

#[test]
fn journal_views_preserve_identity() {
    let assembly = JournalAssembly::new("/nonexistent");
    let service = assembly.service();
    let process = assembly.process();
    let manager = assembly.manager();
    let service_ptr = Arc::as_ptr(&service) as *const ();
    let process_ptr = Arc::as_ptr(&process) as *const ();
    let manager_ptr = Arc::as_ptr(&manager) as *const ();
    assert_eq!(service_ptr, process_ptr);
    assert_ne!(service_ptr, manager_ptr);
    assert_eq!(Arc::as_ptr(&assembly.service()) as *const (), service_ptr);
    assert_eq!(Arc::as_ptr(&assembly.process()) as *const (), process_ptr);
    assert_eq!(Arc::as_ptr(&assembly.manager()) as *const (), manager_ptr);
    // Two assemblies are two Journals.
    let other = JournalAssembly::new("/nonexistent");
    assert_ne!(Arc::as_ptr(&other.service()) as *const (), service_ptr);
}

#[test]
fn ordinary_service_reference_remains_read_only() {
    // Whatever a holder of the service does, the Journal does not change.
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let service: Arc<dyn JournalService> = assembly.service();
    let before = dump(&*service);
    let worker = {
        let service = Arc::clone(&service);
        std::thread::spawn(move || {
            for _ in 0..50 {
                service.coordinates().unwrap();
                service.latest(&coordinate("serde")).unwrap();
                let error = service
                    .replay(&ReplayRequest::after(0).follow(true))
                    .map(|_| ())
                    .unwrap_err();
                assert_eq!(error.kind(), ErrorKind::FollowUnsupported);
            }
        })
    };
    worker.join().unwrap();
    assert_eq!(dump(&*service), before);
}

#[test]
fn successful_initial_process_start() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = JournalAssembly::new(root.path());
    assembly.process().start().unwrap();
    assert_eq!(dump(&*assembly.service()).len(), 4);
}

#[test]
fn example_only_root_starts_empty() {
    let root = Root::new();
    root.write(
        &format!("serde/{}.journal.example", ts(1)),
        genesis("serde", &ts(1), &[]),
    );
    let assembly = started(&root);
    assert!(assembly.service().coordinates().unwrap().is_empty());
    assert!(dump(&*assembly.service()).is_empty());
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(0, 0, 0)
    );
}

#[test]
fn query_before_successful_startup() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = JournalAssembly::new(root.path());
    assert_all_queries_fail(&*assembly.service(), ErrorKind::NotStarted);
    assert_eq!(kind(assembly.manager().refresh()), ErrorKind::NotStarted);
}

#[test]
fn failed_startup_is_not_retried() {
    let root = Root::new();
    three_revisions(&root);
    let stray = root.write("stray.txt", "x");
    let assembly = JournalAssembly::new(root.path());
    let process = assembly.process();
    assert_eq!(kind(process.start()), ErrorKind::UnexpectedEntry);
    // Fix the root: the second start still refuses, and loads nothing.
    std::fs::remove_file(stray).unwrap();
    assert_eq!(kind(process.start()), ErrorKind::AlreadyStarted);
    assert_all_queries_fail(&*assembly.service(), ErrorKind::NotStarted);
    assert_eq!(kind(assembly.manager().refresh()), ErrorKind::NotStarted);
    assert_eq!(kind(process.start()), ErrorKind::AlreadyStarted);
}

#[test]
fn failed_initial_load_publishes_nothing() {
    // A valid earlier entry and an invalid later one: nothing is published.
    let root = Root::new();
    three_revisions(&root);
    root.put("zzz", &ts(1), "FORMAT nenjim-journal/1\nARTIFACT zzz\n");
    let assembly = JournalAssembly::new(root.path());
    let error = assembly.process().start().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Syntax);
    assert_eq!(
        error.path(),
        Some(root.join(&format!("zzz/{}.journal", ts(1))).as_path())
    );
    assert_all_queries_fail(&*assembly.service(), ErrorKind::NotStarted);
}

#[test]
fn manager_contract_is_passive() {
    // The manager neither starts nor loads: before start it refuses, and its
    // only other operation is to name the root.
    let root = Root::new();
    three_revisions(&root);
    let assembly = JournalAssembly::new(root.path());
    let manager = assembly.manager();
    assert_eq!(manager.journal_root(), root.path());
    assert_eq!(kind(manager.refresh()), ErrorKind::NotStarted);
    assert_all_queries_fail(&*assembly.service(), ErrorKind::NotStarted);
    // The process still gets its single start.
    assembly.process().start().unwrap();
    assert_eq!(dump(&*assembly.service()).len(), 4);
}

#[test]
fn refresh_follows_process_startup() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = JournalAssembly::new(root.path());
    let manager = assembly.manager();
    assert_eq!(kind(manager.refresh()), ErrorKind::NotStarted);
    assembly.process().start().unwrap();
    assert_eq!(manager.refresh().unwrap(), build::refresh_report(0, 4, 0));
    assembly.process().stop().unwrap();
    assert_eq!(kind(manager.refresh()), ErrorKind::Stopped);
    assert_all_queries_fail(&*assembly.service(), ErrorKind::Stopped);
    assembly.process().stop().unwrap();
    assert_eq!(kind(assembly.process().start()), ErrorKind::AlreadyStarted);
}

#[test]
fn manager_delegates_after_startup() {
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let next = successor(&texts[2], "serde", &ts(40), &["1.0.0", "1.1.0", "2.0.0"]);
    root.put("serde", &ts(40), &next);
    // A manager obtained any time administers the same Journal the service shows.
    let manager = JournalAssembly::manager(&assembly);
    assert_eq!(manager.refresh().unwrap(), build::refresh_report(1, 4, 0));
    let latest = assembly
        .service()
        .latest(&coordinate("serde"))
        .unwrap()
        .unwrap();
    assert_eq!(*latest.digest(), RevisionDigest::of_text(&next));
}

#[test]
fn relative_root_is_normalized() {
    let assembly = JournalAssembly::new("journals/./a/../b");
    let expected = std::env::current_dir().unwrap().join("journals/b");
    assert_eq!(assembly.manager().journal_root(), expected);
    assert!(assembly.manager().journal_root().is_absolute());
}

#[test]
fn stop_before_start_refuses_start() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = JournalAssembly::new(root.path());
    assembly.process().stop().unwrap();
    assert_eq!(kind(assembly.process().start()), ErrorKind::Stopped);
    assert_all_queries_fail(&*assembly.service(), ErrorKind::Stopped);
    assert_eq!(kind(assembly.manager().refresh()), ErrorKind::Stopped);
}

#[test]
fn concurrent_refreshes_are_serialized() {
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    root.put(
        "serde",
        &ts(40),
        &successor(&texts[2], "serde", &ts(40), &["1.0.0", "1.1.0", "2.0.0"]),
    );
    let reports: Vec<RefreshReport> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let manager = assembly.manager();
                scope.spawn(move || manager.refresh().unwrap())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let ingested: usize = reports.iter().map(RefreshReport::ingested).sum();
    assert_eq!(ingested, 1, "{reports:?}");
    assert_eq!(dump(&*assembly.service()).len(), 5);
}

#[test]
fn readers_never_see_a_broken_chain_during_refreshes() {
    const REVISIONS: u32 = 40;
    let root = Root::new();
    let first = genesis("serde", &ts(1), &["1.0.0"]);
    root.put("serde", &ts(1), &first);
    let assembly = started(&root);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let service = assembly.service();
        let done = &done;
        let reader = scope.spawn(move || {
            let serde = coordinate("serde");
            let mut seen = 0;
            let mut reads = 0;
            // Bounded: at most 100 000 reads, and at least one after the writer is done.
            while reads < 100_000 {
                let finished = done.load(Ordering::Acquire);
                let revisions = service.revisions(&serde).unwrap();
                assert_chain_intact(&revisions);
                assert!(revisions.len() >= seen, "history never shrinks");
                seen = revisions.len();
                let replayed = dump(&*service);
                let sequences: Vec<u64> = replayed.iter().map(|r| r.3).collect();
                assert_eq!(sequences, (1..=replayed.len() as u64).collect::<Vec<_>>());
                reads += 1;
                if finished {
                    break;
                }
            }
            seen
        });
        let manager = assembly.manager();
        let mut previous = first.clone();
        for k in 2..=REVISIONS {
            let next = successor(&previous, "serde", &ts(k), &["1.0.0"]);
            root.put("serde", &ts(k), &next);
            // Two files per refresh on even steps, one otherwise.
            if k % 2 == 1 || k == REVISIONS {
                manager.refresh().unwrap();
            }
            previous = next;
        }
        done.store(true, Ordering::Release);
        assert_eq!(reader.join().unwrap(), REVISIONS as usize);
    });
}
