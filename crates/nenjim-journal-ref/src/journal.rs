//! The one reference `Journal` object: lifecycle, published snapshot, queries.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use nenjim_journal_api::JournalService;
use nenjim_journal_api::component::{NenjimComponent, NenjimProcess};
use nenjim_journal_api::error::{self, ErrorKind, JournalError};
use nenjim_journal_api::model::{
    ArtifactRelease, EventCursor, JournalRevision, RefreshReport, ReplayRequest, RevisionCursor,
};
use nenjim_journal_api::valuetypes::{ArtifactCoordinate, JournalVersion, ReleaseVersion};
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::{FileSystem, LoadOptions, Verified};
use nenjim_journal_store::ledger::{LedgerFollow, LedgerReader};
use parking_lot::{Mutex, RwLock};

use crate::COMPONENT_NAME;
use crate::admin::Administration;
use crate::follow::Following;

/// Where the single start attempt stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StartAttempt {
    /// `start()` was never called.
    None,
    /// The first `start()` is loading the root.
    Loading,
    /// The first `start()` failed (or was overtaken by `stop()`); nothing was published.
    Failed,
    /// The first `start()` published the loaded state.
    Succeeded,
}

/// The lifecycle and the published snapshot, behind one lock that is only
/// ever held to read or swap a few words.
#[derive(Debug)]
struct Lifecycle {
    start: StartAttempt,
    stopped: bool,
    /// `Some` exactly when started successfully and not stopped.
    snapshot: Option<Arc<ChainState>>,
}

/// The reference Journal: one object that is both the read-only
/// [`JournalService`] and the [`NenjimProcess`], and that the manager
/// administers through the crate-private [`Administration`] view.
#[derive(Debug)]
pub(crate) struct Journal {
    root: PathBuf,
    options: LoadOptions,
    fs: Arc<dyn FileSystem>,
    /// The root's ledger when a backend other than the store's own layout
    /// keeps it (a NATS stream); `None`: `log/` and `segments/` in `fs`.
    ledger: Option<Arc<dyn LedgerReader>>,
    /// The backend's notifications, when it can notify: follow cursors.
    follow: Option<Arc<dyn LedgerFollow>>,
    /// Set by `stop()`: every follow cursor ends with `Stopped`.
    halted: Arc<AtomicBool>,
    lifecycle: RwLock<Lifecycle>,
    /// Serializes refreshes: each sees the state the previous one left,
    /// and the last checkpoint verified (with a verifier key: format
    /// section 10), which the next one must extend.
    refreshing: Mutex<Option<Verified>>,
}

/// Milliseconds since `started`, for the events' `elapsed_ms`.
fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn not_started() -> JournalError {
    error::error(
        ErrorKind::NotStarted,
        "the Journal has not been started successfully, expected a successful start() first",
    )
}

pub(crate) fn stopped() -> JournalError {
    error::error(
        ErrorKind::Stopped,
        "the Journal has been stopped, expected a running Journal",
    )
}

impl Journal {
    /// A Journal over an already normalized `root`, not started.
    pub(crate) fn new(
        root: PathBuf,
        options: LoadOptions,
        fs: Arc<dyn FileSystem>,
        ledger: Option<Arc<dyn LedgerReader>>,
        follow: Option<Arc<dyn LedgerFollow>>,
    ) -> Journal {
        Journal {
            root,
            options,
            fs,
            ledger,
            follow,
            halted: Arc::new(AtomicBool::new(false)),
            lifecycle: RwLock::new(Lifecycle {
                start: StartAttempt::None,
                stopped: false,
                snapshot: None,
            }),
            refreshing: Mutex::new(None),
        }
    }

    /// The current snapshot: the read lock is held only to clone the `Arc`.
    fn snapshot(&self) -> Result<Arc<ChainState>, JournalError> {
        let lifecycle = self.lifecycle.read();
        if lifecycle.stopped {
            return Err(stopped());
        }
        lifecycle.snapshot.clone().ok_or_else(not_started)
    }

    /// Publishes `state` with one pointer swap (unless stopped meanwhile).
    fn publish(&self, state: ChainState) {
        let next = Arc::new(state);
        let previous = {
            let mut lifecycle = self.lifecycle.write();
            if lifecycle.stopped {
                return;
            }
            lifecycle.snapshot.replace(next)
        };
        // The old snapshot (if last) is freed here, outside the lock.
        drop(previous);
    }
}

impl NenjimComponent for Journal {
    fn component_name(&self) -> &str {
        COMPONENT_NAME
    }
}

impl NenjimProcess for Journal {
    fn start(&self) -> Result<(), JournalError> {
        {
            let mut lifecycle = self.lifecycle.write();
            if lifecycle.start != StartAttempt::None {
                return Err(error::error(
                    ErrorKind::AlreadyStarted,
                    "found a second start(), expected a single start: the first call is the only attempt",
                ));
            }
            if lifecycle.stopped {
                return Err(stopped());
            }
            lifecycle.start = StartAttempt::Loading;
        }
        let span =
            tracing::info_span!(target: "nenjim_journal_ref", "start", root = %self.root.display());
        let _entered = span.enter();
        let started = Instant::now();
        // Loaded into a private state, outside any lock; queries meanwhile
        // fail with NotStarted.
        let loaded = match &self.ledger {
            Some(ledger) => nenjim_journal_fs::load_verified_from(
                &*self.fs,
                &**ledger,
                &self.root,
                self.options,
            ),
            None => nenjim_journal_fs::load_verified(&*self.fs, &self.root, self.options),
        }
        .map(|(state, verified)| {
            // Before the state is published (and outside the lifecycle
            // lock, which a refresh takes after this one): no refresh
            // gets past `NotStarted` before.
            *self.refreshing.lock() = verified;
            state
        });
        let mut lifecycle = self.lifecycle.write();
        match loaded {
            Ok(_) if lifecycle.stopped => {
                lifecycle.start = StartAttempt::Failed;
                Err(stopped())
            }
            Ok(state) => {
                tracing::info!(
                    target: "nenjim_journal_ref",
                    root = %self.root.display(),
                    artifacts = state.artifact_count(),
                    revisions = state.len(),
                    last_sequence = state.last_sequence(),
                    elapsed_ms = elapsed_ms(started),
                    "started"
                );
                lifecycle.start = StartAttempt::Succeeded;
                lifecycle.snapshot = Some(Arc::new(state));
                Ok(())
            }
            Err(error) => {
                tracing::warn!(
                    target: "nenjim_journal_ref",
                    root = %self.root.display(),
                    kind = ?error.kind(),
                    elapsed_ms = elapsed_ms(started),
                    error = %error,
                    "start failed"
                );
                lifecycle.start = StartAttempt::Failed;
                Err(error)
            }
        }
    }

    fn stop(&self) -> Result<(), JournalError> {
        let previous = {
            let mut lifecycle = self.lifecycle.write();
            lifecycle.stopped = true;
            lifecycle.snapshot.take()
        };
        drop(previous);
        tracing::info!(target: "nenjim_journal_ref", root = %self.root.display(), "stopped");
        // Every follow cursor ends: a blocked one is woken by its backend.
        self.halted.store(true, Ordering::Release);
        if let Some(follow) = &self.follow {
            follow.stop();
        }
        Ok(())
    }
}

impl JournalService for Journal {
    fn coordinates(&self) -> Result<BTreeSet<ArtifactCoordinate>, JournalError> {
        Ok(self.snapshot()?.coordinates())
    }

    fn position(&self) -> Result<nenjim_journal_api::model::Position, JournalError> {
        let state = self.snapshot()?;
        Ok(nenjim_journal_api::model::Position::new(
            state.last_sequence(),
            state.len(),
            state.artifact_count(),
        ))
    }

    fn revisions(
        &self,
        artifact: &ArtifactCoordinate,
    ) -> Result<Vec<JournalRevision>, JournalError> {
        Ok(self.snapshot()?.revisions(artifact))
    }

    fn latest(
        &self,
        artifact: &ArtifactCoordinate,
    ) -> Result<Option<JournalRevision>, JournalError> {
        Ok(self.snapshot()?.latest(artifact))
    }

    fn revision(
        &self,
        artifact: &ArtifactCoordinate,
        version: JournalVersion,
    ) -> Result<Option<JournalRevision>, JournalError> {
        Ok(self.snapshot()?.revision(artifact, version))
    }

    fn revision_as_of(
        &self,
        artifact: &ArtifactCoordinate,
        at_or_before: JournalVersion,
    ) -> Result<Option<JournalRevision>, JournalError> {
        Ok(self.snapshot()?.revision_as_of(artifact, at_or_before))
    }

    fn release(
        &self,
        artifact: &ArtifactCoordinate,
        revision: JournalVersion,
        release: &ReleaseVersion,
    ) -> Result<Option<ArtifactRelease>, JournalError> {
        Ok(self.snapshot()?.release(artifact, revision, release))
    }

    fn replay(&self, request: &ReplayRequest) -> Result<Box<dyn RevisionCursor>, JournalError> {
        let snapshot = self.snapshot()?;
        match self.following(request)? {
            Some(following) => following.revisions(&snapshot, request.after_sequence()),
            None => Ok(snapshot.replay(request.after_sequence())),
        }
    }

    fn replay_events(&self, request: &ReplayRequest) -> Result<Box<dyn EventCursor>, JournalError> {
        let snapshot = self.snapshot()?;
        match self.following(request)? {
            Some(following) => following.events(&snapshot, request.after_sequence()),
            None => Ok(snapshot.replay_events(request.after_sequence())),
        }
    }
}

impl Journal {
    /// What a follow cursor of `request` reads through (`None` for a cold
    /// request); `FollowUnsupported` for `follow(true)` over a backend
    /// that cannot notify (a directory, a bucket): the reference Journal
    /// never watches files, and never downgrades to a cold read silently.
    fn following(&self, request: &ReplayRequest) -> Result<Option<Following>, JournalError> {
        if !request.is_follow() {
            return Ok(None);
        }
        match &self.follow {
            Some(backend) => Ok(Some(Following {
                backend: backend.clone(),
                fs: self.fs.clone(),
                ledger: self.ledger.clone(),
                root: Arc::from(self.root.as_path()),
                halted: self.halted.clone(),
            })),
            None => Err(error::error(
                ErrorKind::FollowUnsupported,
                "found a replay request with follow(true), expected follow(false): \
                 this root's backend (a directory or a bucket) cannot notify, and the \
                 reference Journal never watches files for new revisions",
            )),
        }
    }
}

impl Administration for Journal {
    fn journal_root(&self) -> &Path {
        &self.root
    }

    fn refresh(&self) -> Result<RefreshReport, JournalError> {
        let mut verified = self.refreshing.lock();
        let state = self.snapshot()?;
        let span = tracing::info_span!(target: "nenjim_journal_ref", "refresh", root = %self.root.display());
        let _entered = span.enter();
        let started = Instant::now();
        let mut published: Option<(usize, u64, u64)> = None;
        let mut publish = |next: ChainState| {
            published = Some((next.artifact_count(), next.len(), next.last_sequence()));
            self.publish(next);
        };
        let report = match &self.ledger {
            Some(ledger) => nenjim_journal_fs::refresh_verified_from(
                &*self.fs,
                &**ledger,
                &self.root,
                self.options,
                &state,
                &mut verified,
                &mut publish,
            ),
            None => nenjim_journal_fs::refresh_verified(
                &*self.fs,
                &self.root,
                self.options,
                &state,
                &mut verified,
                &mut publish,
            ),
        };
        let (artifacts, revisions, last_sequence) = published
            .unwrap_or_else(|| (state.artifact_count(), state.len(), state.last_sequence()));
        match &report {
            // Something new at info; a refresh that found nothing (a hub
            // polling every few seconds) at debug.
            Ok(report) if report.ingested() > 0 => tracing::info!(
                target: "nenjim_journal_ref",
                root = %self.root.display(),
                ingested = report.ingested(),
                unchanged = report.unchanged(),
                unrecorded = report.unrecorded(),
                artifacts,
                revisions,
                last_sequence,
                elapsed_ms = elapsed_ms(started),
                "refreshed"
            ),
            Ok(report) => tracing::debug!(
                target: "nenjim_journal_ref",
                root = %self.root.display(),
                ingested = report.ingested(),
                unchanged = report.unchanged(),
                unrecorded = report.unrecorded(),
                artifacts,
                revisions,
                last_sequence,
                elapsed_ms = elapsed_ms(started),
                "refreshed"
            ),
            Err(error) => tracing::warn!(
                target: "nenjim_journal_ref",
                root = %self.root.display(),
                kind = ?error.kind(),
                artifacts,
                revisions,
                last_sequence,
                elapsed_ms = elapsed_ms(started),
                error = %error,
                "refresh failed"
            ),
        }
        report
    }
}
