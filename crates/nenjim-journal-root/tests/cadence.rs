//! Checkpoints on a cadence (format section 10) on the network backends:
//! a bucket root (S3, the `moto` server) and a NATS root (`nats-server
//! -js`), each started by the test on 127.0.0.1 and a free port (a test
//! fails, never skips, without them). The directory's cases are the
//! writer's `tests/cadence.rs`; these are their counterparts:
//!
//! - a writer at an interval (an hour: nothing is published in the test's
//!   time) leaves its entries uncovered; a verified load in between serves
//!   exactly the checkpoint's prefix and a refresh counts what waits; the
//!   close covers everything (and the timer, waited for as an event, does
//!   at a short interval);
//! - a writer killed (SIGKILL, a child test of this binary) between a
//!   commit and its publication: the checkpoint left always verifies
//!   against the ledger's prefix and never shrinks, and the next writer
//!   covers the whole ledger before its first commit;
//! - a crash at each write of a publication (each hash tile, each entry
//!   bundle, the checkpoint; the store refusing that write and every later
//!   one of the log, or losing the checkpoint write's answer): the root
//!   left verifies with the older checkpoint (so does it after a repair
//!   crashing at the same write), and the next writer repairs it so that
//!   it verifies with every entry covered. On NATS and on the
//!   test kit's in-memory store of files (`testmem://`, the bucket's
//!   ledger and lease without the network) for a publication past a full
//!   tile (every kind of write); on the S3 server for one of a few
//!   entries (a partial tile and bundle, the checkpoint), as each of the
//!   260 entries past a tile costs it a hundred requests or so.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_objstore::{Address, ObjectRoot, parse_address_with_env};
use nenjim_journal_root::verify::{self, SignedRoot};
use nenjim_journal_root::{Creating, FsJournalWriter, LoadOptions, Root, WriterOptions};
use nenjim_journal_store::backend::Writing;
use nenjim_journal_store::ledger;
use nenjim_journal_testkit::faults::{FailingWrites, WriteFault};
use nenjim_journal_testkit::moto::Moto;
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::signed;
use nenjim_journal_testkit::texts::bare_genesis as genesis;
use nenjim_journal_tlog::note::VerifierKey;
use nenjim_journal_tlog::tile::{Tile, unbundle};

const HOUR: Duration = Duration::from_secs(3600);
/// The log's key: its name and seed.
const KEY: (&str, u8) = ("example.org/cadence-backends", 21);
const AT: &str = "20260101T000000Z";

/// A server of one backend kind, and how its roots are opened.
enum Server {
    S3(Moto),
    Nats(NatsServer),
    /// The test kit's in-memory store (`testmem://`), named: a store of
    /// files as a bucket is, without the network.
    Memory(&'static str),
}

impl Server {
    /// The S3 server, with the bucket `journals`.
    fn s3() -> Server {
        let moto = Moto::start();
        moto.create_bucket("journals");
        Server::S3(moto)
    }

    fn nats() -> Server {
        Server::Nats(NatsServer::start())
    }

    /// The address of the root `name`.
    fn address(&self, name: &str) -> String {
        match self {
            Server::S3(_) => format!("s3://journals/{name}"),
            Server::Nats(server) => server.root(name),
            Server::Memory(store) => format!("testmem://{store}/{name}"),
        }
    }

    /// The S3 endpoint, for a bucket root.
    fn endpoint(&self) -> Option<String> {
        match self {
            Server::S3(moto) => Some(moto.endpoint()),
            Server::Nats(_) | Server::Memory(_) => None,
        }
    }

    /// The root `name`, created.
    fn root(&self, name: &str) -> Root {
        let root = open_root(&self.address(name), self.endpoint().as_deref());
        assert!(root.create(&Creating::new()).unwrap(), "{name} existed");
        root
    }
}

/// The root at `address`: a bucket root on the S3 server at `endpoint`
/// (configured with the tests' settings, not the process's environment),
/// or a NATS (or `testmem://`) root.
fn open_root(address: &str, endpoint: Option<&str>) -> Root {
    let Some(endpoint) = endpoint else {
        return Root::open(address).unwrap();
    };
    let env = [
        ("AWS_ENDPOINT_URL", endpoint),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "us-east-1"),
    ];
    match parse_address_with_env(address, env).unwrap() {
        Address::Object { store, root } => Root::from_backend(
            address,
            Arc::new(ObjectRoot::new(store, root, address.to_owned())),
        ),
        Address::Local(path) => panic!("{address} is the local {}", path.display()),
    }
}

fn keys() -> (String, String) {
    signed::key(KEY.0, KEY.1)
}

fn signing(skey: &str, interval: Duration) -> WriterOptions {
    WriterOptions::new()
        .signing_key(skey)
        .checkpoint_interval(interval)
}

/// The root verified offline with the log's key: the checkpoint's size
/// and how many entries follow it.
fn verified(root: &Root, vkey: &str) -> (u64, u64) {
    let signed = SignedRoot::open(root).unwrap();
    let verified = verify::verify(&signed, &VerifierKey::parse(vkey).unwrap()).unwrap();
    (verified.checkpoint().size(), verified.uncovered())
}

/// A verified Journal of `root`, started.
fn journal(root: &Root, vkey: &str) -> nenjim_journal_root::JournalAssembly {
    let assembly = root.assembly(LoadOptions::new().verifier(vkey));
    assembly.process().start().unwrap();
    assembly
}

/// Checks the root as a reader trusting the key sees it: it verifies
/// with a checkpoint of `size` entries and `uncovered` after them, its
/// entry bundles hold exactly the records the checkpoint covers, and a
/// verified load serves exactly the revisions among them.
fn check_root(root: &Root, vkey: &str, size: u64, uncovered: u64) {
    assert_eq!(verified(root, vkey), (size, uncovered), "{root}");
    let signed = SignedRoot::open(root).unwrap();
    let entries = signed.entries().unwrap();
    assert_eq!(entries.len() as u64, size + uncovered);
    let mut records = Vec::new();
    for index in 0..size.div_ceil(256) {
        let tile = Tile::entries(index, size).unwrap();
        let data = signed.read_tile(&tile).unwrap();
        records.extend(unbundle(&data).unwrap().into_iter().map(<[u8]>::to_vec));
    }
    let covered = &entries[..usize::try_from(size).unwrap()];
    let expected: Vec<Vec<u8>> = covered.iter().map(|e| e.to_string().into_bytes()).collect();
    assert!(records == expected, "{root}: the entry bundles differ");
    let journal = journal(root, vkey);
    let position = journal.service().position().unwrap();
    let revisions = covered.iter().filter(|e| e.revision().is_some()).count();
    assert_eq!(position.revisions(), revisions as u64, "{root}");
    assert!(position.last_sequence() <= size, "{root}");
}

/// At an interval, appends and a batch leave the checkpoint where the
/// open left it; a verified load in between serves exactly its prefix and
/// a refresh says how many entries wait; the close covers everything, and
/// the next refresh takes it. At a short interval the timer covers the
/// entries without a close (waited for as an event).
fn served_at_an_interval(server: &Server) {
    let root = server.root("interval");
    let (skey, vkey) = keys();
    let mut writer = root.writer(signing(&skey, Duration::ZERO)).unwrap();
    writer.append(&genesis("a", AT)).unwrap();
    writer.append(&genesis("b", AT)).unwrap();
    writer.close().unwrap();
    assert_eq!(verified(&root, &vkey), (2, 0));

    let mut writer = root.writer(signing(&skey, HOUR)).unwrap();
    assert_eq!(writer.checkpoint_covers(), Some(2));
    writer.append(&genesis("c", AT)).unwrap();
    writer
        .append_batch(&[&genesis("d", AT), &genesis("e", AT)])
        .unwrap();
    assert_eq!((writer.tip(), writer.checkpoint_covers()), (5, Some(2)));
    check_root(&root, &vkey, 2, 3);

    let journal = journal(&root, &vkey);
    let service = journal.service();
    assert_eq!(service.position().unwrap().last_sequence(), 2);
    assert!(service.latest(&"c".parse().unwrap()).unwrap().is_none());
    let report = journal.manager().refresh().unwrap();
    assert_eq!((report.ingested(), report.uncovered()), (0, 3));

    writer.close().unwrap();
    check_root(&root, &vkey, 5, 0);
    let report = journal.manager().refresh().unwrap();
    assert_eq!((report.ingested(), report.uncovered()), (3, 0));
    assert_eq!(service.position().unwrap().last_sequence(), 5);
    assert!(service.latest(&"e".parse().unwrap()).unwrap().is_some());

    // The timer: once the interval has passed it publishes what waits.
    let mut writer = root
        .writer(signing(&skey, Duration::from_millis(20)))
        .unwrap();
    let last = writer.append(&genesis("f", AT)).unwrap().sequence();
    assert!(writer.wait_for_checkpoint(last).unwrap() >= last);
    assert_eq!(verified(&root, &vkey), (6, 0));
    let report = journal.manager().refresh().unwrap();
    assert_eq!((report.ingested(), report.uncovered()), (1, 0));
    writer.close().unwrap();
}

#[test]
fn a_bucket_root_at_an_interval_serves_the_checkpoints_prefix_until_the_close() {
    served_at_an_interval(&Server::s3());
}

#[test]
fn a_nats_root_at_an_interval_serves_the_checkpoints_prefix_until_the_close() {
    served_at_an_interval(&Server::nats());
}

/// A signing writer at an interval of an hour, in a child process,
/// appends and reports; it is killed (SIGKILL) after a varying number of
/// reports, its entries uncovered. The checkpoint left always verifies
/// against the ledger's prefix and never shrinks, a verified load serves
/// exactly that prefix; the next writer (taking the dead writer's lease
/// over) covers the whole ledger before it commits anything (its fence),
/// and its close covers the fence.
fn killed_at_an_interval(server: &Server) {
    let root = server.root("killed");
    let (skey, vkey) = keys();
    let address: OsString = server.address("killed").into();
    let endpoint: OsString = server.endpoint().unwrap_or_default().into();
    let mut reported: BTreeMap<String, u64> = BTreeMap::new();
    let mut previous = 0;
    for round in 0..3u64 {
        let wanted = 2 + round;
        let round_text: OsString = round.to_string().into();
        let seen = nenjim_journal_testkit::killed::kill_after_reports(
            "cadence::child_appends_at_an_interval_until_killed",
            &[
                ("NENJIM_CADENCE_ADDRESS", &address),
                ("NENJIM_CADENCE_S3", &endpoint),
                ("NENJIM_CADENCE_ROUND", &round_text),
            ],
            wanted,
            &mut reported,
        );
        assert_eq!(seen, wanted, "round {round}: the child stopped early");
        let (size, uncovered) = verified(&root, &vkey);
        assert!(size >= previous, "round {round}: the checkpoint shrank");
        let entries = size + uncovered;
        let last = reported.values().max().copied().unwrap();
        assert!(
            entries >= last,
            "round {round}: {entries} entries, {last} reported"
        );
        check_root(&root, &vkey, size, uncovered);

        let writer = root.writer(signing(&skey, HOUR)).unwrap();
        // Covered before the first commit (the fence of the takeover, one
        // entry, waits for the close).
        assert_eq!(writer.checkpoint_covers(), Some(entries), "round {round}");
        assert_eq!(writer.tip(), entries + 1, "round {round}: no fence");
        check_root(&root, &vkey, entries, 1);
        let tip = writer.tip();
        writer.close().unwrap();
        check_root(&root, &vkey, tip, 0);
        previous = tip;
    }
}

#[test]
fn a_killed_writer_of_a_bucket_root_is_covered_by_the_next_writer() {
    killed_at_an_interval(&Server::s3());
}

#[test]
fn a_killed_writer_of_a_nats_root_is_covered_by_the_next_writer() {
    killed_at_an_interval(&Server::nats());
}

#[test]
fn child_appends_at_an_interval_until_killed() {
    let (Ok(address), Ok(endpoint), Ok(round)) = (
        std::env::var("NENJIM_CADENCE_ADDRESS"),
        std::env::var("NENJIM_CADENCE_S3"),
        std::env::var("NENJIM_CADENCE_ROUND"),
    ) else {
        return; // only meaningful as the child of the tests above
    };
    let endpoint = Some(endpoint.as_str()).filter(|e| !e.is_empty());
    let root = open_root(&address, endpoint);
    let (skey, _) = keys();
    let mut writer = root.writer(signing(&skey, HOUR)).unwrap();
    for i in 0..10_000 {
        let name = format!("k{round}-{i}");
        let appended = writer.append(&genesis(&name, AT)).unwrap();
        println!("APPENDED {name} {}", appended.sequence());
    }
}

/// A publication of the walk: the entries of the first writer (at
/// interval zero: covered), of the second (at an interval: its close
/// publishes them), and the writes of that publication.
struct Publication {
    first: usize,
    second: usize,
    writes: &'static [&'static str],
}

/// Past a full tile: every kind of write a publication makes (a full hash
/// tile and its level-1 parent, a partial one, a full and a partial entry
/// bundle, the checkpoint).
const PAST_A_TILE: Publication = Publication {
    first: 250,
    second: 10,
    writes: &[
        "tile/0/000",
        "tile/0/001.p/4",
        "tile/1/000.p/1",
        "tile/entries/000",
        "tile/entries/001.p/4",
        "checkpoint",
    ],
};

/// A few entries: a partial hash tile, a partial bundle, the checkpoint
/// (the walk against the S3 server, where each of 260 entries costs
/// requests a hundred times over).
const A_FEW: Publication = Publication {
    first: 3,
    second: 2,
    writes: &["tile/0/000.p/5", "tile/entries/000.p/5", "checkpoint"],
};

/// What a session of [`crash`] left.
struct Crashed {
    root: Root,
    /// The writes of the log the close made (paths under the root's
    /// `.ledger/tlog/`), in order.
    writes: Vec<PathBuf>,
    /// Whether the write to fail came.
    tripped: bool,
    closed: Result<(), nenjim_journal_api::error::JournalError>,
}

/// The writer of `root` over its backend's parts, its store behind `faulty`
/// (as `Root::writer` opens it, without waiting for a lease).
fn faulty_writer(
    root: &Root,
    watch: impl FnOnce(Arc<dyn nenjim_journal_store::Store>) -> Arc<dyn nenjim_journal_store::Store>,
    options: WriterOptions,
) -> Result<FsJournalWriter, nenjim_journal_api::error::JournalError> {
    match root.backend().writing().unwrap() {
        Writing::Files(store) => FsJournalWriter::open_store(watch(store), root.path(), options),
        Writing::Native {
            store,
            ledger,
            lease,
        } => {
            let writer = FsJournalWriter::open_with(
                watch(store),
                root.path().to_path_buf(),
                ledger,
                lease,
                options,
            )?;
            root.backend().writer_opened().unwrap();
            Ok(writer)
        }
    }
}

/// On a new root `name`: a first writer at interval zero commits
/// `sizes.first` entries (covered); a second, at an interval, commits
/// `sizes.second` more through a store that fails the write of `fault`'s
/// path of the log (and every later write of the log), then closes: its
/// publication crashes there.
fn crash(
    server: &Server,
    name: &str,
    sizes: &Publication,
    fault: Option<(&Path, WriteFault)>,
) -> Crashed {
    let (first_size, all) = (sizes.first, sizes.first + sizes.second);
    let root = server.root(name);
    let (skey, _) = keys();
    let texts: Vec<String> = (0..all).map(|i| genesis(&format!("p{i:03}"), AT)).collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut first = root.writer(signing(&skey, Duration::ZERO)).unwrap();
    first.append_batch(&texts[..first_size]).unwrap();
    first.close().unwrap();

    let tlog = ledger::tlog_dir(root.path());
    let mut failing = None;
    let mut second = faulty_writer(
        &root,
        |store| {
            let faulty = Arc::new(FailingWrites::new(store, &tlog));
            failing = Some(faulty.clone());
            faulty
        },
        signing(&skey, HOUR),
    )
    .unwrap();
    let failing = failing.unwrap();
    second.append_batch(&texts[first_size..]).unwrap();
    assert_eq!(
        failing.take_writes(),
        Vec::<PathBuf>::new(),
        "published early"
    );
    if let Some((path, fault)) = fault {
        failing.fail(tlog.join(path), fault);
    }
    let closed = second.close();
    let writes = failing
        .take_writes()
        .into_iter()
        .map(|p| p.strip_prefix(&tlog).unwrap().to_path_buf())
        .collect();
    Crashed {
        root,
        writes,
        tripped: failing.tripped(),
        closed,
    }
}

/// A crash at each write of a publication (each of its tiles and entry
/// bundles, refused with every later write of the log; the checkpoint,
/// refused or written with its answer lost) leaves a root that verifies
/// with the checkpoint before it, serving that prefix; a repair that
/// crashes at the same write leaves it so; the next writer repairs it
/// before its first commit, and it verifies with every entry covered, its
/// tiles and bundles whole.
fn a_crash_at_each_write_of_a_publication_is_repaired(server: &Server, sizes: &Publication) {
    let (skey, vkey) = keys();
    let all = (sizes.first + sizes.second) as u64;
    let clean = crash(server, &format!("walk{}-clean", sizes.first), sizes, None);
    clean.closed.unwrap();
    check_root(&clean.root, &vkey, all, 0);
    let writes: BTreeSet<String> = clean
        .writes
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let expected: BTreeSet<String> = sizes.writes.iter().map(|w| (*w).to_owned()).collect();
    assert_eq!(writes, expected, "{:?}", clean.writes);
    assert_eq!(clean.writes.len(), expected.len(), "{:?}", clean.writes);
    assert_eq!(clean.writes.last(), Some(&PathBuf::from("checkpoint")));

    let mut cases: Vec<(PathBuf, WriteFault)> = clean
        .writes
        .iter()
        .map(|p| (p.clone(), WriteFault::Refused))
        .collect();
    cases.push((PathBuf::from("checkpoint"), WriteFault::Lost));
    for (case, (path, fault)) in cases.iter().enumerate() {
        let what = format!("{} {fault:?}", path.display());
        let crashed = crash(
            server,
            &format!("walk{}-{case}", sizes.first),
            sizes,
            Some((path, *fault)),
        );
        assert!(crashed.tripped, "{what}: never written");
        assert!(crashed.closed.is_err(), "{what}: the close succeeded");
        let root = &crashed.root;
        // The checkpoint before the publication (or its own, when only its
        // answer was lost): it verifies, and nothing it covered is lost.
        let size = if *fault == WriteFault::Lost {
            all
        } else {
            sizes.first as u64
        };
        check_root(root, &vkey, size, all - size);
        if size < all {
            // The repair crashes too, at the same write (the publication
            // of a writer's open): the writer is not opened, the root is
            // as the crash left it.
            let tlog = ledger::tlog_dir(root.path());
            let mut failing = None;
            let repair = faulty_writer(
                root,
                |store| {
                    let faulty = Arc::new(FailingWrites::new(store, &tlog));
                    faulty.fail(tlog.join(path), *fault);
                    failing = Some(faulty.clone());
                    faulty
                },
                signing(&skey, HOUR),
            );
            assert!(repair.is_err(), "{what}: the repair's open succeeded");
            assert!(
                failing.unwrap().tripped(),
                "{what}: the repair wrote nothing"
            );
            check_root(root, &vkey, size, all - size);
        }
        // The next writer covers everything before its first commit.
        let mut writer = root.writer(signing(&skey, HOUR)).unwrap();
        assert_eq!(writer.checkpoint_covers(), Some(all), "{what}");
        check_root(root, &vkey, all, 0);
        writer.append(&genesis("after", AT)).unwrap();
        writer.close().unwrap();
        check_root(root, &vkey, all + 1, 0);
    }
}

#[test]
fn a_crash_in_a_publication_to_a_bucket_is_repaired_by_the_next_writer() {
    a_crash_at_each_write_of_a_publication_is_repaired(&Server::s3(), &A_FEW);
}

/// Past a full tile, on a store of files (the bucket's ledger and lease,
/// in memory).
#[test]
fn a_crash_in_a_publication_past_a_tile_to_a_store_of_files_is_repaired() {
    let server = Server::Memory("cadence-walk");
    a_crash_at_each_write_of_a_publication_is_repaired(&server, &PAST_A_TILE);
}

#[test]
fn a_crash_in_a_publication_to_a_nats_root_is_repaired_by_the_next_writer() {
    let server = Server::nats();
    a_crash_at_each_write_of_a_publication_is_repaired(&server, &A_FEW);
    a_crash_at_each_write_of_a_publication_is_repaired(&server, &PAST_A_TILE);
}
