//! A NATS root's writer in a process of its own (the test binary runs
//! itself as the child, see [`child_appends_until_killed`]), killed with
//! SIGKILL wherever it is.

use std::collections::BTreeMap;

use nenjim_journal_api::append::JournalWriter;
use nenjim_journal_nats::NatsRoot;
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::texts::{bare_genesis, ts};
use nenjim_journal_writer::WriterOptions;

use crate::writer::{expire_lease, loaded, root, worldview};

/// Runs the child writer on `root` for round `round` until `wanted`
/// reports came, then kills it (SIGKILL).
fn kill_after_reports(root: &str, round: u64, wanted: u64, reported: &mut BTreeMap<String, u64>) {
    let round = round.to_string();
    let seen = nenjim_journal_testkit::killed::kill_after_reports(
        "writer_processes::child_appends_until_killed",
        &[
            ("NENJIM_NATS_CHILD_ROOT", root.as_ref()),
            ("NENJIM_NATS_CHILD_ROUND", round.as_ref()),
        ],
        wanted,
        reported,
    );
    assert_eq!(seen, wanted, "the child ended before its reports");
}

/// A writer process appends (single texts and batches in turn) and
/// reports each append it got; it is killed after a varying number of
/// reports, at any point of its next append (before, during or after its
/// publish, inside a batch's atomic publish). After each kill the root loads
/// with every reported append at its reported sequence, every entry whole;
/// the next writer takes the killed one's lease over and fences: in even
/// rounds the lease is made expired first (as its time running out
/// would), in odd rounds it is still live and taken over because its
/// holder, a process of this host, is gone.
#[test]
fn a_killed_writer_loses_nothing_it_reported() {
    let server = NatsServer::start();
    let address = server.root("killed");
    let nats = root(&server, "killed");
    let mut reported: BTreeMap<String, u64> = BTreeMap::new();
    for round in 0..8u64 {
        if round > 0 && round % 2 == 0 {
            expire_lease(&server, "killed");
        }
        let wanted = 1 + (round * 7) % 5;
        kill_after_reports(&address, round, wanted, &mut reported);
        let (state, tip) = loaded(&nats);
        let sequences: BTreeMap<String, u64> = worldview(&state)
            .into_iter()
            .map(|(s, c, _, _)| (c, s))
            .collect();
        for (name, sequence) in &reported {
            assert_eq!(sequences.get(name), Some(sequence), "{name} was lost");
        }
        assert!(tip >= *reported.values().max().unwrap());
    }
    assert!(reported.len() >= 8);
}

/// A writer killed (SIGKILL: its lease neither released nor expired) does
/// not hold the root for the rest of its lease: the next writer on this
/// host finds the lease live, sees its holder's process is gone, takes it
/// over at once (no `LeaseHeld`, no wait for the 30 s default) and fences
/// the tip, so its first append comes after the fence.
#[test]
fn a_killed_writers_live_lease_is_taken_over_at_once_on_its_host() {
    let server = NatsServer::start();
    let address = server.root("gone");
    let nats = root(&server, "gone");
    let mut reported: BTreeMap<String, u64> = BTreeMap::new();
    kill_after_reports(&address, 0, 2, &mut reported);
    let (lease, _) = crate::jetstream::raw::Raw::connect(&server).lease("gone");
    let now = nenjim_journal_store::lease::now_millis();
    assert!(
        lease.is_live(now),
        "the killed writer's lease is still live: {lease:?}"
    );
    assert!(nenjim_journal_store::lease::holder_is_gone(lease.holder()));
    let (_, tip) = loaded(&nats);
    let mut writer = nats.writer(WriterOptions::new()).unwrap();
    let appended = writer.append(&bare_genesis("after-kill", &ts(1))).unwrap();
    assert_eq!(appended.sequence(), tip + 2, "a fence at {} first", tip + 1);
    let (state, _) = loaded(&nats);
    for (name, sequence) in &reported {
        let found = worldview(&state)
            .into_iter()
            .find(|(_, c, _, _)| c == name)
            .map(|(s, _, _, _)| s);
        assert_eq!(found, Some(*sequence), "{name} was lost");
    }
}

#[test]
fn child_appends_until_killed() {
    let (Ok(root), Ok(round)) = (
        std::env::var("NENJIM_NATS_CHILD_ROOT"),
        std::env::var("NENJIM_NATS_CHILD_ROUND"),
    ) else {
        return; // only meaningful as the child of the test above
    };
    let nats = NatsRoot::parse_with_env(&root, Vec::<(String, String)>::new()).unwrap();
    let mut writer = nats.writer(WriterOptions::new()).unwrap();
    // Single appends and batches (atomic publishes of three) in turn.
    for i in 0..10_000 {
        let names: Vec<String> = if i % 2 == 0 {
            vec![format!("r{round}-{i}")]
        } else {
            (0..3).map(|k| format!("r{round}-{i}-{k}")).collect()
        };
        let texts: Vec<String> = names.iter().map(|n| bare_genesis(n, &ts(1))).collect();
        let appended = match texts.as_slice() {
            [one] => vec![writer.append(one).unwrap()],
            many => writer
                .append_batch(&many.iter().map(String::as_str).collect::<Vec<_>>())
                .unwrap(),
        };
        for (name, appended) in names.iter().zip(&appended) {
            println!("APPENDED {name} {}", appended.sequence());
        }
    }
}
