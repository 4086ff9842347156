//! Kill rounds of the crash tests: a test of the running test binary run
//! as a child that appends and reports, killed (SIGKILL) after a number of
//! reports, wherever it then is (the writer's and the NATS writer's tests).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// Runs the test `child` of the current test binary with `env`, reads its
/// reports (`APPENDED <artifact> <sequence>` lines) into `reported` until
/// `wanted` of them came or its output ended, then kills it (SIGKILL) and
/// waits for it. Returns how many reports it read.
pub fn kill_after_reports(
    child: &str,
    env: &[(&str, &OsStr)],
    wanted: u64,
    reported: &mut BTreeMap<String, u64>,
) -> u64 {
    let mut process = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", child, "--nocapture", "--test-threads=1"])
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(process.stdout.take().unwrap()).lines();
    let mut seen = 0;
    while seen < wanted {
        let Some(Ok(line)) = lines.next() else { break };
        if let Some((_, rest)) = line.split_once("APPENDED ") {
            let (name, sequence) = rest.split_once(' ').unwrap();
            reported.insert(name.to_owned(), sequence.parse().unwrap());
            seen += 1;
        }
    }
    process.kill().unwrap();
    process.wait().unwrap();
    seen
}
