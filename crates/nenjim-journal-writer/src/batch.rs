//! Batched appends (group commit): [`FsJournalWriter::append_batch`].
//!
//! A batch of texts is validated one after the other against the state the
//! earlier ones make (exactly as [`append`](nenjim_journal_api::append::JournalWriter::append) would,
//! one by one), then committed, each revision with its bytes, with one
//! durability barrier for the whole batch instead of one per revision
//! ([`Ledger::commit_batch`]): on a directory or a bucket every new
//! revision file is written, then all are synced, then linked to their
//! names, then their directories synced once
//! ([`BlobStore::put_many_if_absent`]); then their ledger entries are
//! created in sequence order and made durable once, after which the
//! ledger's hooks run once for the batch (a signing hook writes one
//! checkpoint). A crash at any instant leaves a prefix of the batch
//! committed, never a gap: entries are created in order, and a revision
//! file without its entry is never loaded.
//!
//! [`BlobStore::put_many_if_absent`]: nenjim_journal_store::BlobStore::put_many_if_absent
//! [`Ledger::commit_batch`]: nenjim_journal_store::ledger::Ledger::commit_batch

use std::fmt;

use nenjim_journal_api::append::Appended;
use nenjim_journal_api::error::{ErrorContext as _, JournalError};
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_api::model::build;
use nenjim_journal_chain::{ChainState, Outcome};
use nenjim_journal_store::ledger::{self, Commit};

use crate::{FsJournalWriter, append};

/// A batch that stopped before its end: what it committed, and why it
/// stopped (the error the text at [`index`](Self::index) got, or the
/// failure of the commit).
#[derive(Debug)]
pub struct BatchError {
    appended: Vec<Appended>,
    error: JournalError,
}

impl BatchError {
    /// The texts appended (or found recorded) before the batch stopped, in
    /// order: the first `appended().len()` texts of the batch, each
    /// committed durably.
    pub fn appended(&self) -> &[Appended] {
        &self.appended
    }
    /// The index in the batch of the first text not appended: the one
    /// refused, or the first whose commit failed.
    pub fn index(&self) -> usize {
        self.appended.len()
    }
    /// Why the batch stopped.
    pub fn error(&self) -> &JournalError {
        &self.error
    }
    /// The appended texts and the error.
    pub fn into_parts(self) -> (Vec<Appended>, JournalError) {
        (self.appended, self.error)
    }
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "text {} of the batch: {} (the {} before it are appended)",
            self.index() + 1,
            self.error,
            self.index()
        )
    }
}

impl std::error::Error for BatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// One text of a chunk, validated.
enum Slot {
    /// Recorded already (before the batch, or earlier in it).
    Recorded(JournalRevision),
    /// New: the index of its revision in the chunk's new ones.
    New(usize),
}

/// A new revision of a chunk, validated and waiting for its commit.
struct Pending<'t> {
    revision: JournalRevision,
    text: &'t str,
}

/// The texts of a chunk at least this long are parsed on several threads.
const PARALLEL_PARSE: usize = 16;

/// Parses every text of `texts` (the parse is pure: each text alone), on
/// up to as many threads as the machine has cores (at most 4) for a chunk
/// of at least [`PARALLEL_PARSE`] texts. The results are in the texts'
/// order; the validation that follows reads them in turn and stops at the
/// first error, as one-by-one appends would.
fn parse_all(texts: &[&str]) -> Vec<Result<JournalRevision, JournalError>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(4);
    if texts.len() < PARALLEL_PARSE || threads < 2 {
        return parse_in_turn(texts);
    }
    let part = texts.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = texts
            .chunks(part)
            .map(|slice| scope.spawn(move || parse_in_turn(slice)))
            .collect();
        let mut out = Vec::with_capacity(texts.len());
        for (worker, slice) in workers.into_iter().zip(texts.chunks(part)) {
            match worker.join() {
                Ok(parsed) => out.extend(parsed),
                // A parse never panics; if one did, its texts are parsed here.
                Err(_) => out.extend(parse_in_turn(slice)),
            }
        }
        out
    })
}

/// Parses `texts` in turn, each after the one before it
/// ([`parse_after`](nenjim_journal_parser::parse_after)): in an import the
/// revisions of one artifact come one after the other, and a successor's
/// release blocks, restated byte for byte, are not read again. The
/// results are exactly [`nenjim_journal_parser::parse`]'s.
fn parse_in_turn(texts: &[&str]) -> Vec<Result<JournalRevision, JournalError>> {
    let mut previous: Option<nenjim_journal_parser::ParsedText> = None;
    texts
        .iter()
        .map(|text| {
            let parsed = crate::append::parse_after(text, previous.as_ref())?;
            let revision = parsed.revision().clone();
            previous = Some(parsed);
            Ok(revision)
        })
        .collect()
}

impl FsJournalWriter {
    /// Appends `texts` in order, as [`append`](nenjim_journal_api::append::JournalWriter::append) of
    /// each would (the same validation, the same errors, the same
    /// sequences, a text already recorded a success that writes nothing,
    /// a repeat inside the batch too), committing them in batches of at
    /// most [`WriterOptions::batch_max`](crate::WriterOptions::batch_max)
    /// with one durability barrier each (group commit: see the crate docs).
    ///
    /// A refused text ends the batch there: the texts before it are
    /// committed (and in [`BatchError::appended`]), nothing of it or of the
    /// texts after it is recorded (a revision file written for one of them
    /// is never loaded: it has no ledger entry). The same holds when a
    /// commit fails (`TipMoved`, `LeaseLost`, `Io`): the texts whose
    /// entries were created are reported, and they are a prefix.
    pub fn append_batch(&mut self, texts: &[&str]) -> Result<Vec<Appended>, BatchError> {
        let mut appended = Vec::with_capacity(texts.len());
        let span = tracing::debug_span!(
            target: "nenjim_journal_writer",
            "append_batch",
            root = %self.root.display(),
            texts = texts.len()
        );
        let _entered = span.enter();
        for chunk in texts.chunks(self.options.batch_max) {
            if let Err(error) = self.append_chunk(chunk, &mut appended) {
                return Err(BatchError { appended, error });
            }
        }
        Ok(appended)
    }

    /// The most revisions one barrier of [`append_batch`](Self::append_batch)
    /// commits ([`WriterOptions::batch_max`](crate::WriterOptions::batch_max)).
    pub fn batch_max(&self) -> usize {
        self.options.batch_max
    }

    /// One chunk of a batch: validated, its files written, its entries
    /// committed. Pushes every text committed to `out`.
    fn append_chunk(
        &mut self,
        texts: &[&str],
        out: &mut Vec<Appended>,
    ) -> Result<(), JournalError> {
        if let Some(poisoned) = &self.poisoned {
            return Err(poisoned.clone().with_path(&self.root));
        }
        self.check_lease()?;
        let started = std::time::Instant::now();
        let mut slots: Vec<Slot> = Vec::with_capacity(texts.len());
        let mut pending: Vec<Pending<'_>> = Vec::new();
        let mut refused = None;
        // One state for the whole chunk, each new revision ingested into it
        // in place (no copy of a state per revision); `whole` says it holds
        // exactly the new revisions of `pending` (not one refused after
        // its ingestion).
        let mut working = self.state.clone();
        let mut whole = true;
        for (text, parsed) in texts.iter().zip(parse_all(texts)) {
            match self.validate(&mut working, parsed) {
                Ok(Validated::Recorded(revision)) => slots.push(Slot::Recorded(revision)),
                Ok(Validated::New(revision)) => {
                    slots.push(Slot::New(pending.len()));
                    pending.push(Pending { revision, text });
                }
                Err((error, ingested)) => {
                    whole &= !ingested;
                    refused = Some(error);
                    break;
                }
            }
        }
        // The revisions with their bytes, then the entries, one barrier
        // each; a different file found at a revision's path (a directory,
        // a bucket) stops the batch before that revision (`Conflict`).
        let commits: Vec<Commit<'_>> = pending
            .iter()
            .map(|p| {
                let pointer = append::pointer(&p.revision, p.text.len() as u64);
                Commit::revision(pointer, p.text.as_bytes())
            })
            .collect();
        let committed = if commits.is_empty() {
            ledger::BatchCommit {
                entries: Vec::new(),
                stopped: None,
            }
        } else {
            self.ledger.commit_batch(self.tip, commits)
        };
        let done = committed.entries.len();
        if let Some(last) = committed.entries.last() {
            self.tip = last.sequence();
        }
        if done == pending.len() && whole {
            self.state = working;
        } else if done > 0 {
            // A prefix committed (or a revision refused after it was
            // ingested): the state of exactly the committed ones.
            let mut state = self.state.clone();
            for p in pending.get(..done).unwrap_or_default() {
                state.ingest_revision_in_place_at(p.revision.clone(), p.revision.sequence())?;
            }
            self.state = state;
        }
        // Report the texts before the first new one not committed.
        for slot in &slots {
            match slot {
                Slot::Recorded(revision) => out.push(build::appended(revision.clone(), false)),
                Slot::New(i) if *i < done => {
                    let revision = pending.get(*i).map(|p| p.revision.clone());
                    out.extend(revision.map(|r| build::appended(r, true)));
                }
                Slot::New(_) => break,
            }
        }
        // A signed root: one checkpoint for what this batch committed (the
        // prefix, when it stopped), after every entry of it is durable.
        if !committed.entries.is_empty() {
            for p in pending.get(..done).unwrap_or_default() {
                append::trace_appended(&self.root, &p.revision, tracing::Level::DEBUG);
            }
            tracing::info!(
                target: "nenjim_journal_writer",
                root = %self.root.display(),
                revisions = done,
                recorded = slots.len() - pending.len(),
                first_sequence = committed.entries.first().map_or(0, |e| e.sequence()),
                last_sequence = self.tip,
                elapsed_ms = crate::elapsed_ms(started),
                "batch committed"
            );
            self.after_commit(&committed.entries)?;
        }
        if let Some(stopped) = committed.stopped {
            return Err(self.failed_commit(self.tip + 1, stopped));
        }
        match refused {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Validates the text `parsed` came from against `state` as
    /// [`append`](nenjim_journal_api::append::JournalWriter::append) does
    /// (the sequence is the next one after `state`'s pending ones),
    /// ingesting a new revision into `state` in place. On error, whether
    /// the revision was ingested before it was refused (a missing blob).
    fn validate(
        &self,
        state: &mut ChainState,
        parsed: Result<JournalRevision, JournalError>,
    ) -> Result<Validated, (JournalError, bool)> {
        let revision = parsed.map_err(|e| (e, false))?;
        // The pending revisions of the chunk hold every sequence after the tip.
        let sequence = state.last_sequence().max(self.tip) + 1;
        let head = state.latest(revision.coordinate());
        let (revision, outcome) = state
            .ingest_revision_in_place_at(revision, sequence)
            .map_err(|e| (e, false))?;
        if outcome == Outcome::Unchanged {
            return Ok(Validated::Recorded(revision));
        }
        self.check_blobs(&revision, head.as_ref())
            .map_err(|e| (e, true))?;
        Ok(Validated::New(revision))
    }
}

/// What [`FsJournalWriter::validate`] found.
enum Validated {
    /// Recorded already: an idempotent success.
    Recorded(JournalRevision),
    /// New, ingested into the chunk's state.
    New(JournalRevision),
}
