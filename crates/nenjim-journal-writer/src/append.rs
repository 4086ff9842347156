//! The append path: validation, blobs, the commit of the revision.

use nenjim_journal_api::append::{Appended, JournalWriter};
use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::model::build;
use nenjim_journal_chain::Outcome;
use nenjim_journal_store::ledger::{self, Commit, CommitError, Entry, Record, RevisionPointer};

use crate::{FsJournalWriter, blob};

/// The ledger pointer to `revision`, a text of `size` bytes.
pub(crate) fn pointer(revision: &JournalRevision, size: u64) -> RevisionPointer {
    RevisionPointer::new(
        revision.coordinate().clone(),
        revision.journal_version(),
        size,
        *revision.digest(),
    )
}

impl FsJournalWriter {
    /// The error of a commit at `sequence` that did not commit: `LeaseLost`
    /// if a newer holder fenced the ledger there, else `TipMoved`.
    pub(crate) fn commit_error(&self, sequence: u64, error: CommitError) -> JournalError {
        let path = self.ledger.entry_path(sequence);
        match error {
            CommitError::TipMoved { found } => match found.as_ref().map(Entry::record) {
                Some(Record::Fence { epoch }) if *epoch > self.lease.epoch() => error::error(
                    ErrorKind::LeaseLost,
                    format!(
                        "found the ledger fenced at sequence {sequence} by lease epoch {epoch}, expected this writer's epoch {} to hold the root; nothing of this append was committed",
                        self.lease.epoch()
                    ),
                )
                .with_path(path),
                _ => error::error(
                    ErrorKind::TipMoved,
                    format!(
                        "found ledger entry {sequence} already created by another writer, expected this writer's tip to be the ledger's; nothing of this append was committed (this writer has read the ledger again: the append can be retried)"
                    ),
                )
                .with_path(path),
            },
            CommitError::Failed(error) => error,
        }
    }

    /// The error of a commit at `sequence` that did not commit, and what
    /// follows from it: a lost lease ends the writer; after `TipMoved` the
    /// writer reads what the other writer committed, so the caller can
    /// retry against the new tip (only if that read fails is the writer
    /// left refusing every append).
    pub(crate) fn failed_commit(&mut self, sequence: u64, failed: CommitError) -> JournalError {
        let moved = matches!(failed, CommitError::TipMoved { .. });
        let error = self.commit_error(sequence, failed);
        match error.kind() {
            ErrorKind::LeaseLost => {
                self.lease_lost(&error);
                self.poisoned = Some(error.clone());
            }
            ErrorKind::TipMoved if moved => {
                tracing::warn!(
                    target: "nenjim_journal_writer",
                    root = %self.root.display(),
                    sequence,
                    "ledger tip moved: another writer committed first; reading the ledger again"
                );
                if let Err(reload) = self.catch_up() {
                    self.poisoned = Some(error.clone().note(format_args!(
                        "reading the ledger again failed: {reload}; open the writer again"
                    )));
                }
            }
            _ => {}
        }
        error
    }

    /// Creates `FENCE` entries (of this writer's epoch) at each sequence
    /// after the tip up to `tip`, so that the next append gets `tip + 1`:
    /// a copy of a root keeps the source's sequences by fencing the gaps
    /// the source's own fences left. Nothing to do at `tip`; a tip past it
    /// is `LedgerMismatch` (sequences never go back). Like an append: the
    /// lease is checked first, and another writer's entry is `TipMoved`
    /// (the ledger is then read again) or `LeaseLost`.
    pub fn fence_to(&mut self, tip: u64) -> Result<(), JournalError> {
        if let Some(poisoned) = &self.poisoned {
            return Err(poisoned.clone().with_path(&self.root));
        }
        if tip < self.tip {
            return Err(error::error(
                ErrorKind::LedgerMismatch,
                format!(
                    "found the ledger's tip at sequence {}, expected it at or before {tip} (sequences never go back)",
                    self.tip
                ),
            )
            .with_path(ledger::ledger_dir(&self.root)));
        }
        while self.tip < tip {
            self.check_lease()?;
            let sequence = self.tip + 1;
            match self.ledger.commit(self.tip, self.lease.fence().into()) {
                Ok(entry) => {
                    self.tip = entry.sequence();
                    self.after_commit(&[entry])?;
                }
                Err(failed) => return Err(self.failed_commit(sequence, failed)),
            }
        }
        Ok(())
    }

    /// Checks the lease before a commit (renewing it past half its time);
    /// a lost lease poisons the writer.
    pub(crate) fn check_lease(&mut self) -> Result<(), JournalError> {
        self.lease.renew(self.options.lease_ttl).inspect_err(|e| {
            if e.kind() == ErrorKind::LeaseLost {
                self.lease_lost(e);
                self.poisoned = Some(e.clone().with_path(&self.root));
            }
        })
    }

    /// The event of a lost lease (warn: every later append is refused).
    fn lease_lost(&self, error: &JournalError) {
        tracing::warn!(
            target: "nenjim_journal_writer",
            root = %self.root.display(),
            epoch = self.lease.epoch(),
            tip = self.tip,
            error = %error,
            "lease lost"
        );
    }

    /// Checks that the content store holds the blob of every release of
    /// `revision` that its artifact's `head` does not have.
    pub(crate) fn check_blobs(
        &self,
        revision: &JournalRevision,
        head: Option<&JournalRevision>,
    ) -> Result<(), JournalError> {
        let Some(store) = &self.options.content_store else {
            return Ok(());
        };
        let fs = self.options.content_fs();
        for release in revision.releases() {
            if head.and_then(|h| h.release(release.version())).is_some() {
                continue;
            }
            blob::check(fs, store, release.content()).map_err(|e| {
                e.context(format_args!(
                    "{} {}",
                    release.coordinate(),
                    release.version()
                ))
                .with_path(store)
            })?;
        }
        Ok(())
    }

    /// Parses `text` after the last text this writer appended (see
    /// `last_parsed`): the same revision, and the same errors, as
    /// [`nenjim_journal_parser::parse`].
    pub(crate) fn parse(
        &self,
        text: &str,
    ) -> Result<nenjim_journal_parser::ParsedText, JournalError> {
        parse_after(text, self.last_parsed.as_ref())
    }
}

impl JournalWriter for FsJournalWriter {
    fn append(&mut self, text: &str) -> Result<Appended, JournalError> {
        if let Some(poisoned) = &self.poisoned {
            return Err(poisoned.clone().with_path(&self.root));
        }
        self.check_lease()?;
        let parsed = self.parse(text)?;
        let revision = parsed.revision().clone();
        let sequence = self.tip + 1;
        let head = self.state.latest(revision.coordinate());
        let ingested = self.state.ingest_revision_at(revision, sequence)?;
        if ingested.outcome() == Outcome::Unchanged {
            tracing::debug!(
                target: "nenjim_journal_writer",
                root = %self.root.display(),
                sequence = ingested.revision().sequence(),
                coordinate = %ingested.revision().coordinate(),
                journal_version = %ingested.revision().journal_version(),
                "revision already recorded: nothing written"
            );
            self.ensure_signed()?;
            return Ok(build::appended(ingested.revision().clone(), false));
        }
        self.check_blobs(ingested.revision(), head.as_ref())?;
        let revision = ingested.revision().clone();
        // The ledger keeps the revision before its record (a directory's
        // or a bucket's: its file, put unless the same bytes are there).
        let commit = Commit::revision(pointer(&revision, text.len() as u64), text.as_bytes());
        match self.ledger.commit(self.tip, commit) {
            Ok(entry) => {
                self.state = ingested.into_state();
                self.tip = entry.sequence();
                self.last_parsed = Some(parsed);
                trace_appended(&self.root, &revision, tracing::Level::INFO);
                self.after_commit(&[entry])?;
                Ok(build::appended(revision, true))
            }
            Err(failed) => Err(self.failed_commit(sequence, failed)),
        }
    }
}

/// The event `revision appended` of a committed `revision`, at `level`
/// (info for one [`append`](JournalWriter::append), debug for each of a
/// batch, whose summary is at info): `root`, `sequence`, `coordinate`,
/// `journal_version`, `digest`.
pub(crate) fn trace_appended(
    root: &std::path::Path,
    revision: &JournalRevision,
    level: tracing::Level,
) {
    macro_rules! appended {
        ($level:expr) => {
            tracing::event!(
                target: "nenjim_journal_writer",
                $level,
                root = %root.display(),
                sequence = revision.sequence(),
                coordinate = %revision.coordinate(),
                journal_version = %revision.journal_version(),
                digest = %revision.digest(),
                "revision appended"
            )
        };
    }
    if level == tracing::Level::INFO {
        appended!(tracing::Level::INFO);
    } else {
        appended!(tracing::Level::DEBUG);
    }
}

/// Parses `text` after `previous` (a successor's restated release blocks
/// are not read again), with the tables a parse of `text` starts with: the
/// same revision, and the same errors, as [`nenjim_journal_parser::parse`].
pub(crate) fn parse_after(
    text: &str,
    previous: Option<&nenjim_journal_parser::ParsedText>,
) -> Result<nenjim_journal_parser::ParsedText, JournalError> {
    nenjim_journal_parser::parse_after(
        text.to_owned(),
        &mut nenjim_journal_parser::Interner::for_text(text),
        previous,
    )
}
