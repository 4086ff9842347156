//! A small hub service on the library, copying nothing from the command:
//! open a root from a string, query it, publish a release (waiting for the
//! lease while another writer holds it), refresh, and follow what is
//! appended (live on a backend that can notify, else a refresh's replay).
//!
//! `cargo run -p nenjim-journal-root --example service -- <root> [<artifact>]`
//! (the root is a path or a URL: `s3://bucket/prefix`, `nats://host:4222/name` …;
//! a root that does not exist is created). `tests/service.rs` runs it.

use std::io::Write;
use std::time::Duration;

use nenjim_journal_api::error::{ErrorKind, JournalError};
use nenjim_journal_api::model::ReplayRequest;
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, Description};
use nenjim_journal_root::publish::{self, NewRelease};
use nenjim_journal_root::{Creating, LoadOptions, Root, WriterOptions};

/// What the service did, for its caller (and its test).
#[derive(Debug)]
pub struct Served {
    /// The sequence of the release it published.
    pub published: u64,
    /// The sequences it saw in the change feed after its start.
    pub followed: Vec<u64>,
}

/// Runs the service once over `address`, publishing `version` of `artifact`.
pub fn run(
    address: &str,
    artifact: &str,
    version: &str,
    out: &mut dyn Write,
) -> Result<Served, JournalError> {
    let root = Root::open(address)?;
    if root.create(&Creating::new())? {
        let _ = writeln!(out, "created {root}");
    }
    // Queries: the reference Journal over the root.
    let assembly = root.assembly(LoadOptions::new());
    assembly.process().start()?;
    let service = assembly.service();
    let position = service.position()?;
    let _ = writeln!(
        out,
        "{root}: {} revisions of {} artifacts, last sequence {}",
        position.revisions(),
        position.artifacts(),
        position.last_sequence()
    );
    // Publishing: the writer waits up to 30 s for another writer's lease;
    // blobs go to the store the root records, else to the root itself.
    let options = WriterOptions::new().lease_wait(Duration::from_secs(30));
    let options = match root.content_store()? {
        Some(store) => store.as_content_store_of(options)?,
        None => root.as_content_store_of(options)?,
    };
    let coordinate: ArtifactCoordinate = artifact.parse()?;
    let mut writer = root.writer(options)?;
    if service.latest(&coordinate)?.is_none() {
        publish::create(
            &mut writer,
            &coordinate,
            &Description::new("published by the example service")?,
            None,
        )?;
    }
    let release = NewRelease::new(
        version.parse()?,
        "Apache-2.0".parse()?,
        format!("{artifact} {version}").into_bytes(),
    );
    let published = publish::release(&mut writer, &coordinate, vec![release])?;
    writer.close()?;
    let _ = writeln!(
        out,
        "published {coordinate} {version} at sequence {}",
        published.revision().sequence()
    );
    // Following: live where the backend notifies; elsewhere a refresh
    // publishes what was appended, and a replay after the start's position
    // yields it.
    let after = ReplayRequest::after(position.last_sequence());
    let mut followed = Vec::new();
    match service.replay(&after.follow(true)) {
        Ok(mut cursor) => {
            while followed.last() != Some(&published.revision().sequence()) {
                match cursor.next_timeout(Duration::from_secs(10))? {
                    Some(revision) => followed.push(revision.sequence()),
                    None => break,
                }
            }
        }
        Err(e) if e.kind() == ErrorKind::FollowUnsupported => {
            let report = assembly.manager().refresh()?;
            let _ = writeln!(out, "refreshed: {} new", report.ingested());
            let mut cursor = service.replay(&after)?;
            while let Some(revision) = cursor.next()? {
                followed.push(revision.sequence());
            }
        }
        Err(e) => return Err(e),
    }
    let _ = writeln!(out, "followed sequences {followed:?}");
    assembly.process().stop()?;
    Ok(Served {
        published: published.revision().sequence(),
        followed,
    })
}

#[allow(dead_code, reason = "the test includes this file and calls `run`")]
fn main() -> Result<(), JournalError> {
    let mut args = std::env::args().skip(1);
    let Some(address) = args.next() else {
        eprintln!("usage: service <root> [<artifact>]");
        std::process::exit(2);
    };
    let artifact = args.next().unwrap_or_else(|| "hub-demo".to_owned());
    let served = run(&address, &artifact, "1.0.0", &mut std::io::stdout())?;
    println!("{served:?}");
    Ok(())
}
