//! Concurrency: reader threads check the chain invariants on every snapshot
//! they see while one thread refreshes thousands of times, new revisions
//! appearing between refreshes. Bounded by counts, never by time: the
//! refresher does `REFRESHES` refreshes, the readers read until it is done.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use nenjim_journal_api::JournalService;
use nenjim_journal_api::model::{JournalRevision, ReplayRequest};
use nenjim_journal_api::valuetypes::ArtifactCoordinate;
use nenjim_journal_ref::{JournalAssembly, LoadOptions};
use nenjim_journal_testkit::memory_fs::MemoryFs;
use nenjim_journal_testkit::texts::{genesis, successor, ts};

/// Refreshes by the writer; each one ingests one new revision.
const REFRESHES: usize = 2000;
/// Artifacts the new revisions go to (round robin; new artifacts appear too).
const ARTIFACTS: usize = 4;
const READERS: usize = 3;

fn root() -> PathBuf {
    PathBuf::from("/stress")
}

fn file(coordinate: &str, k: u32) -> PathBuf {
    root().join(coordinate).join(format!("{}.journal", ts(k)))
}

/// Checks one chain (one snapshot): linear, versions and sequences increasing.
fn check_chain(coordinate: &ArtifactCoordinate, chain: &[JournalRevision]) {
    assert!(!chain.is_empty(), "{coordinate} listed with no revision");
    assert!(
        chain[0].is_genesis(),
        "{coordinate} does not start at a genesis"
    );
    for pair in chain.windows(2) {
        assert_eq!(
            pair[1].predecessor(),
            Some(pair[0].digest()),
            "{coordinate} not linear"
        );
        assert!(pair[1].journal_version() > pair[0].journal_version());
        assert!(pair[1].sequence() > pair[0].sequence());
        assert_eq!(pair[1].coordinate(), coordinate);
    }
}

/// One pass of a reader. Each service call is its own snapshot, so the
/// checks that span calls only rely on snapshots growing: a later call
/// sees everything an earlier one saw.
fn read_once(service: &dyn JournalService, seen: &mut usize) {
    // One snapshot: the replay, whose chains must be linear on their own.
    let mut cursor = service.replay(&ReplayRequest::after(0)).unwrap();
    let mut all = Vec::new();
    while let Some(revision) = cursor.next().unwrap() {
        assert_eq!(
            revision.sequence(),
            all.len() as u64 + 1,
            "a gap in the replay"
        );
        all.push(revision);
    }
    assert!(all.len() >= *seen, "a snapshot went back in time");
    *seen = all.len();
    let mut chains: std::collections::BTreeMap<ArtifactCoordinate, Vec<JournalRevision>> =
        std::collections::BTreeMap::new();
    for revision in all {
        chains
            .entry(revision.coordinate().clone())
            .or_default()
            .push(revision);
    }
    for (coordinate, chain) in &chains {
        check_chain(coordinate, chain);
        // Later snapshots: revisions(), latest(), revisions() again.
        let first = service.revisions(coordinate).unwrap();
        check_chain(coordinate, &first);
        assert!(first.len() >= chain.len());
        for (a, b) in chain.iter().zip(&first) {
            assert_eq!(a.digest(), b.digest(), "{coordinate}: history changed");
        }
        let latest = service.latest(coordinate).unwrap().unwrap();
        let second = service.revisions(coordinate).unwrap();
        check_chain(coordinate, &second);
        assert!(
            second.starts_with_digests(&first),
            "{coordinate}: history changed"
        );
        let at = second
            .iter()
            .position(|r| r.digest() == latest.digest())
            .expect("latest is in the chain");
        assert!(
            at + 1 >= first.len(),
            "latest is older than a revision seen before it"
        );
        let exact = service
            .revision(coordinate, latest.journal_version())
            .unwrap()
            .unwrap();
        assert_eq!(exact.digest(), latest.digest());
    }
}

trait Digests {
    fn starts_with_digests(&self, prefix: &[JournalRevision]) -> bool;
}

impl Digests for Vec<JournalRevision> {
    fn starts_with_digests(&self, prefix: &[JournalRevision]) -> bool {
        self.len() >= prefix.len()
            && self
                .iter()
                .zip(prefix)
                .all(|(a, b)| a.digest() == b.digest())
    }
}

#[test]
fn readers_see_consistent_snapshots_during_thousands_of_refreshes() {
    let fs = Arc::new(MemoryFs::with_root(&root()));
    let names: Vec<String> = (0..ARTIFACTS).map(|i| format!("artifact-{i}")).collect();
    // Each artifact starts with a genesis; the last one only appears later.
    let mut heads: Vec<Option<(u32, String)>> = vec![None; ARTIFACTS];
    for (i, name) in names.iter().enumerate().take(ARTIFACTS - 1) {
        let text = genesis(name, &ts(1), &["1.0.0"]);
        fs.put(&file(name, 1), text.as_str());
        heads[i] = Some((1, text));
    }
    let journal = JournalAssembly::with_file_system(root(), LoadOptions::new(), fs.clone());
    journal.process().start().unwrap();
    let service = journal.service();
    let manager = journal.manager();

    let done = Arc::new(AtomicBool::new(false));
    let passes = Arc::new(AtomicUsize::new(0));
    let readers: Vec<_> = (0..READERS)
        .map(|_| {
            let service = service.clone();
            let done = done.clone();
            let passes = passes.clone();
            std::thread::spawn(move || {
                let mut seen = 0;
                while !done.load(Ordering::SeqCst) {
                    read_once(&*service, &mut seen);
                    passes.fetch_add(1, Ordering::SeqCst);
                }
                // One last pass over the final state.
                read_once(&*service, &mut seen);
                seen
            })
        })
        .collect();

    let writer = {
        let fs = fs.clone();
        std::thread::spawn(move || {
            for step in 0..REFRESHES {
                let i = step % ARTIFACTS;
                let name = &names[i];
                let (k, text) = match &heads[i] {
                    None => (1, genesis(name, &ts(1), &["1.0.0"])),
                    Some((k, previous)) => {
                        let k = k + 1;
                        (k, successor(previous, name, &ts(k), &["1.0.0"]))
                    }
                };
                fs.put(&file(name, k), text.as_str());
                let report = manager.refresh().unwrap();
                assert_eq!(report.ingested(), 1, "step {step}");
                // Ingested revisions need not stay on disk: keep the files few
                // so that a refresh stays cheap (history is never erased).
                if let Some((old, _)) = &heads[i] {
                    fs.remove(&file(name, *old));
                }
                heads[i] = Some((k, text));
            }
        })
    };
    writer.join().unwrap();
    done.store(true, Ordering::SeqCst);
    let total = 3 + REFRESHES;
    for reader in readers {
        assert_eq!(reader.join().unwrap(), total);
    }
    assert!(passes.load(Ordering::SeqCst) >= READERS);
    let coordinates = service.coordinates().unwrap();
    assert_eq!(coordinates.len(), ARTIFACTS);
}
