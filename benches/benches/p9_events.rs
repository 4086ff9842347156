//! P9 events (restated by issue 24): replaying every event of the synthetic
//! corpus (`NENJIM_BENCH_FILES` revisions, the root of P3/P4/P6) from
//! sequence 0 over one started Journal, against `start()` of that same
//! root (a new assembly each time). Target: at most 0.05x. Replaying a
//! revision is one reference count, so the old measure (events against
//! revisions, at most 2x) measured the floor, not the feed; the revision
//! feed is still timed, and reported beside it.
//!
//! Restated by issue 32: the target row reads every value of every event
//! (`events_values`: a published release's license, content, description
//! and every line, each statement), so that a model decoding a release's
//! values on first access pays for it here. `rebuild_all` (report only)
//! is the least such a model's feed would pay: every release of the root
//! built again from its values through the api's builders (each
//! artifact's latest revision, which restates them all), no text read.
//! `read_all` (report only) is the reading alone in this model: every
//! value of those same releases read once, no event built; `events` plus
//! `read_all` is the least the target row can take here.
#![allow(clippy::panic)] // a bench with a broken setup fails loudly

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use nenjim_journal_api::JournalService;
use nenjim_journal_api::error::JournalError;
use nenjim_journal_api::model::{EventChange, ReplayRequest};
use nenjim_journal_benches::{floor, read, setup};
use nenjim_journal_ref::JournalAssembly;

/// Drains the revision feed; returns how many revisions it gave.
fn revisions(service: &dyn JournalService) -> Result<u64, JournalError> {
    let mut cursor = service.replay(&ReplayRequest::after(0))?;
    let mut n = 0;
    while let Some(revision) = cursor.next()? {
        black_box(&revision);
        n += 1;
    }
    Ok(n)
}

/// Drains the event feed; returns how many events it gave.
fn events(service: &dyn JournalService) -> Result<u64, JournalError> {
    let mut cursor = service.replay_events(&ReplayRequest::after(0))?;
    let mut n = 0;
    while let Some(event) = cursor.next()? {
        black_box(&event);
        n += 1;
    }
    Ok(n)
}

/// Drains the revision feed, reading every revision as a consumer of whole
/// records does: its header, each release's version and each statement.
fn revisions_read(service: &dyn JournalService) -> Result<u64, JournalError> {
    let mut cursor = service.replay(&ReplayRequest::after(0))?;
    let mut n = 0;
    while let Some(revision) = cursor.next()? {
        black_box(revision.description());
        for release in revision.releases() {
            black_box(release.version());
        }
        for statement in revision.policy() {
            black_box(statement);
        }
        n += 1;
    }
    Ok(n)
}

/// Drains the event feed, reading every event's change.
fn events_read(service: &dyn JournalService) -> Result<u64, JournalError> {
    let mut cursor = service.replay_events(&ReplayRequest::after(0))?;
    let mut n = 0;
    while let Some(event) = cursor.next()? {
        match event.change() {
            EventChange::ReleasePublished(release) => {
                black_box(release.version());
            }
            EventChange::PolicyStated(s) | EventChange::PolicyWithdrawn(s) => {
                black_box(s);
            }
            other => {
                black_box(other);
            }
        }
        n += 1;
    }
    Ok(n)
}

/// Drains the event feed, reading every value of every event once.
fn events_values(service: &dyn JournalService) -> Result<u64, JournalError> {
    let mut cursor = service.replay_events(&ReplayRequest::after(0))?;
    let mut n = 0u64;
    while let Some(event) = cursor.next()? {
        n += match event.change() {
            EventChange::ReleasePublished(release) => read::release(release) as u64,
            EventChange::DescriptionChanged(d) => d.as_str().len() as u64,
            EventChange::InformationChanged(i) => i.as_ref().map_or(0, |i| i.as_str().len()) as u64,
            other => {
                black_box(other);
                1
            }
        };
    }
    Ok(n)
}

fn p9(c: &mut Criterion) {
    let files = setup::files();
    let root = match setup::cached_root(&setup::large_root_spec(files)) {
        Ok(root) => root,
        Err(e) => panic!("cannot generate the P9 root: {e}"),
    };
    let assembly = JournalAssembly::new(&root);
    if let Err(e) = assembly.process().start() {
        panic!("start failed: {e}");
    }
    let service = assembly.service();
    let (revision_count, event_count) = match (revisions(&*service), events(&*service)) {
        (Ok(r), Ok(e)) => (r, e),
        (Err(e), _) | (_, Err(e)) => panic!("replay failed: {e}"),
    };
    if let Err(e) = setup::record(
        "p9_events",
        &serde_json::json!({ "revisions": revision_count, "events": event_count }),
    ) {
        eprintln!("cannot record the P9 sizes: {e}");
    }
    let mut group = c.benchmark_group("p9_events");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("revisions", |b| b.iter(|| revisions(&*service)));
    group.bench_function("events", |b| b.iter(|| events(&*service)));
    group.bench_function("revisions_read", |b| b.iter(|| revisions_read(&*service)));
    group.bench_function("events_read", |b| b.iter(|| events_read(&*service)));
    group.bench_function("events_values", |b| b.iter(|| events_values(&*service)));
    // Each artifact's latest revision, which restates all its releases.
    let mut latest = std::collections::HashMap::new();
    let mut cursor = service
        .replay(&ReplayRequest::after(0))
        .unwrap_or_else(|e| panic!("replay failed: {e}"));
    while let Some(revision) = cursor
        .next()
        .unwrap_or_else(|e| panic!("replay failed: {e}"))
    {
        latest.insert(revision.coordinate().clone(), revision);
    }
    let latest: Vec<_> = latest.into_values().collect();
    group.bench_function("rebuild_all", |b| {
        b.iter(|| {
            latest
                .iter()
                .map(|r| floor::rebuild(r).map_or(0, |r| r.releases().len()))
                .sum::<usize>()
        })
    });
    // Every value of every release read once, no event built: what the
    // target row's reading costs in this model, beside the feed itself.
    group.bench_function("read_all", |b| {
        b.iter(|| latest.iter().map(read::revision).sum::<usize>())
    });
    group.finish();
    let mut group = c.benchmark_group("p9_events");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(8));
    group.bench_function("start", |b| {
        b.iter_batched(
            || JournalAssembly::new(&root),
            |assembly| {
                if let Err(e) = assembly.process().start() {
                    panic!("start failed: {e}");
                }
                assembly
            },
            criterion::BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, p9);
criterion_main!(benches);
