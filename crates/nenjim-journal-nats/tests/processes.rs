//! Committers and followers in processes of their own (the test binary runs
//! itself as each, see [`nats_process`]), against one server.

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};

use nenjim_journal_nats::{CommitError, NatsRoot};
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::texts::{genesis, ts};

/// The variable that makes [`nats_process`] a committer or a follower.
const ROLE: &str = "NENJIM_NATS_ROLE";

fn spawn(role: &str, root: &str) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "processes::nats_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ROLE, role)
        .env("NENJIM_NATS_ROOT", root)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The lines of a process's output that start with one of `words` (the
/// harness's `test … ` may precede the first).
fn reports<'a>(line: &'a str, words: &[&str]) -> Option<Vec<&'a str>> {
    let at = words.iter().filter_map(|w| line.find(w)).min()?;
    Some(line[at..].split(' ').collect())
}

/// (sequence, artifact) of every `committed <seq> <artifact>` line.
fn committed(output: &str) -> Vec<(u64, String)> {
    output
        .lines()
        .filter_map(|l| reports(l, &["committed "]))
        .map(|w| (w[1].parse().unwrap(), w[2].to_owned()))
        .collect()
}

fn parse(root: &str) -> NatsRoot {
    NatsRoot::parse_with_env(root, Vec::<(String, String)>::new()).unwrap()
}

/// The ledger as (sequence, artifact), read whole and checked.
fn ledger_of(root: &str) -> BTreeMap<u64, String> {
    let ledger = parse(root).ledger().unwrap();
    let mut all = BTreeMap::new();
    loop {
        let read = ledger.read_after(all.len() as u64, 50).unwrap();
        if read.is_empty() {
            return all;
        }
        for message in read {
            let entry = message.entry();
            let artifact = entry
                .revision()
                .map_or_else(|| "fence".to_owned(), |p| p.coordinate().to_string());
            all.insert(entry.sequence(), artifact);
        }
    }
}

#[test]
fn two_committer_processes_race_while_a_follower_process_sees_each_entry_once_in_order() {
    let server = NatsServer::start();
    let root = server.root("procs");
    parse(&root).ledger().unwrap().create().unwrap();
    let follower = spawn("follower 30", &root);
    let committers: Vec<Child> = ["committer 0 15", "committer 1 15"]
        .iter()
        .map(|role| spawn(role, &root))
        .collect();
    let mut reported = BTreeMap::new();
    let mut lost_races = 0;
    for child in committers {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success());
        let output = String::from_utf8(output.stdout).unwrap();
        for (sequence, artifact) in committed(&output) {
            assert!(reported.insert(sequence, artifact).is_none(), "{output}");
        }
        lost_races += output
            .lines()
            .filter(|l| reports(l, &["tip-moved "]).is_some())
            .count();
    }
    let output = follower.wait_with_output().unwrap();
    assert!(output.status.success());
    let output = String::from_utf8(output.stdout).unwrap();
    let seen: Vec<(u64, String)> = output
        .lines()
        .filter_map(|l| reports(l, &["seen "]))
        .map(|w| (w[1].parse().unwrap(), w[2].to_owned()))
        .collect();
    // Every commit reported is in the ledger at its sequence, nothing else
    // is, and the follower saw exactly those, once each, in order.
    let ledger = ledger_of(&root);
    assert_eq!(reported, ledger, "{lost_races} races lost");
    assert_eq!(
        ledger.keys().copied().collect::<Vec<_>>(),
        (1..=30).collect::<Vec<_>>()
    );
    assert_eq!(seen, ledger.into_iter().collect::<Vec<_>>());
}

#[test]
fn a_committer_killed_at_any_instant_loses_nothing_it_reported() {
    let server = NatsServer::start();
    let root = server.root("killed");
    parse(&root).ledger().unwrap().create().unwrap();
    let mut reported = BTreeMap::new();
    for (round, kill_after) in [1usize, 2, 5, 9, 14, 20].into_iter().enumerate() {
        let mut child = spawn(&format!("committer k{round} 1000"), &root);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut this_round = Vec::new();
        while this_round.len() < kill_after {
            let line = lines.next().unwrap().unwrap();
            this_round.extend(committed(&line));
        }
        child.kill().unwrap();
        // What it reported before it died is in the pipe still.
        for line in lines {
            this_round.extend(committed(&line.unwrap()));
        }
        child.wait().unwrap();
        for (sequence, artifact) in this_round {
            assert!(reported.insert(sequence, artifact).is_none());
        }
        // The ledger reads whole, contiguous, and holds every report.
        let ledger = ledger_of(&root);
        assert_eq!(
            ledger.keys().copied().collect::<Vec<_>>(),
            (1..=ledger.len() as u64).collect::<Vec<_>>()
        );
        for (sequence, artifact) in &reported {
            assert_eq!(ledger.get(sequence), Some(artifact), "round {round}");
        }
        assert!(ledger.len() >= reported.len());
    }
}

/// Not a case of its own: the body of a committer or follower process of
/// the tests above, which set `ROLE` (without it, this returns at once).
///
/// - `committer <tag> <n>`: commits `n` revisions (artifacts `w<tag>-a<i>`),
///   each at the tip it reads, again after a lost race; prints
///   `committed <seq> <artifact>` for each, `tip-moved <seq>` for each race lost;
/// - `follower <n>`: follows from 0 and prints `seen <seq> <artifact>` for
///   the first `n` entries.
#[test]
fn nats_process() {
    use std::io::Write as _;
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let root = parse(&std::env::var("NENJIM_NATS_ROOT").unwrap());
    let ledger = root.ledger().unwrap();
    let words: Vec<&str> = role.split(' ').collect();
    let mut out = std::io::stdout();
    match words[..] {
        ["committer", tag, n] => {
            for i in 0..n.parse::<u32>().unwrap() {
                let artifact = format!("w{}-a{i}", tag.trim_start_matches('k'));
                let text = genesis(&artifact, &ts(1), &[]);
                let record = crate::jetstream::record(&artifact, &ts(1), text.as_bytes());
                loop {
                    let tip = ledger.tip().unwrap();
                    match ledger.commit_at(tip, record.clone(), Some(text.as_bytes())) {
                        Ok(entry) => {
                            writeln!(out, "committed {} {artifact}", entry.sequence()).unwrap();
                            out.flush().unwrap();
                            break;
                        }
                        Err(CommitError::TipMoved { tip, .. }) => {
                            writeln!(out, "tip-moved {tip}").unwrap();
                        }
                        Err(e) => panic!("{e}"),
                    }
                }
            }
        }
        ["follower", n] => {
            let mut follower = ledger.follow(0).unwrap();
            for _ in 0..n.parse::<u32>().unwrap() {
                let message = follower.wait().unwrap();
                let entry = message.entry();
                let artifact = entry
                    .revision()
                    .map_or_else(|| "fence".to_owned(), |p| p.coordinate().to_string());
                writeln!(out, "seen {} {artifact}", entry.sequence()).unwrap();
                out.flush().unwrap();
            }
        }
        _ => panic!("unknown role {role}"),
    }
}
