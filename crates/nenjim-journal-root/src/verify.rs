//! Verifying a signed root (format section 10), offline, trusting one
//! public key: what a mirror, a CDN or an auditor checks (the command's
//! `verify`; `checkpoint`, `prove` and `witness` read a root the same way).
//!
//! [`SignedRoot`] is a root opened for its transparency log: its
//! checkpoint, its hash tiles and its ledger's records, at
//! `<root>/.ledger/tlog/` (`checkpoint`, `checkpoint.witnessed`, `tile/…`),
//! read through the storage seam on whichever backend; it writes nothing
//! but the witnessed copy ([`SignedRoot::publish_witnessed`]).
//!
//! [`verify`] checks, in one pass over the ledger:
//!
//! 1. the checkpoint's signature by the log's key (`CheckpointInvalid`);
//! 2. every revision file against its ledger record: size and SHA-256 of
//!    its exact bytes, each file streamed and hashed once (`LedgerMismatch`);
//! 3. the tree over the records the checkpoint covers (the first `N`; the
//!    ledger holding fewer is `CheckpointMismatch`): its size and root
//!    hash are the checkpoint's, and so is the root of the hash tiles
//!    (`CheckpointMismatch`, naming a missing tile). The entries after
//!    them are [`Verified::uncovered`]: they wait for the next checkpoint.
//!
//! [`SignedRoot::prove`] gives the inclusion proof of one entry
//! ([`SignedRoot::entry`]) in a checkpoint's tree, from the tiles: a hub's
//! answer once its writer's checkpoint covers the entry.
//!
//! Then [`SignedRoot::check_consistent`] checks that an older checkpoint
//! ([`read_checkpoint`], saved earlier) is extended by the current one
//! (`Rollback`), and [`check_quorum`] that the witnessed copy holds enough
//! cosignatures of the named witnesses (`CheckpointInvalid`).
//!
//! ```no_run
//! # use nenjim_journal_root::{Root, verify};
//! # fn main() -> Result<(), nenjim_journal_api::error::JournalError> {
//! let key = nenjim_journal_tlog::note::VerifierKey::parse("hub.example+1a2b3c4d+…")?;
//! let signed = verify::SignedRoot::open(&Root::open("s3://hub/journals/main")?)?;
//! let verified = verify::verify(&signed, &key)?;
//! println!("{} entries, {} revision files", verified.checkpoint().size(), verified.revisions());
//! # Ok(()) }
//! ```

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_store::ledger::{
    Entry, LEDGER_DIR, LedgerReader, RevisionPointer, SegmentedReader,
};
use nenjim_journal_store::{Store, Version};
use nenjim_journal_tlog::checkpoint::{Checkpoint, count_cosignatures};
use nenjim_journal_tlog::hash::{Hash, TreeHasher, leaf_hash};
use nenjim_journal_tlog::note::{Note, VerifierKey};
use nenjim_journal_tlog::tile::{Tile, TileHashes};
use nenjim_journal_tlog::tree::{prove_consistency, prove_inclusion, tree_root, verify_inclusion};

use crate::Root;

/// The transparency log's directory under the ledger's.
pub const TLOG_DIR: &str = "tlog";
/// The signed checkpoint note.
pub const CHECKPOINT: &str = "checkpoint";
/// The checkpoint with the witnesses' cosignatures, published beside it.
pub const WITNESSED: &str = "checkpoint.witnessed";
/// The largest checkpoint note read (a note has at most 100 signatures).
pub const NOTE_MAX: u64 = 64 * 1024;
/// The largest tile read (256 hashes; an entry bundle of 256 records).
const TILE_MAX: u64 = 256 * (2 + 65_535);

/// A root opened for its transparency log.
#[derive(Debug)]
pub struct SignedRoot {
    store: Arc<dyn Store>,
    /// The root's ledger when a backend keeps it (a NATS stream); `None`:
    /// `log/` and `segments/` in `store`.
    ledger: Option<Arc<dyn LedgerReader>>,
    /// What reads the revisions of that ledger (the files it came with).
    files: Arc<dyn nenjim_journal_store::FileSystem>,
    root: PathBuf,
}

impl SignedRoot {
    /// Opens `root` for its transparency log: a root kept by a backend
    /// with its own ledger (NATS) must exist (`RootMissing`), a directory
    /// must be readable (`Io`); a bucket root is read as it is. Whether
    /// it is signed is found when its checkpoint is read.
    pub fn open(root: &Root) -> Result<SignedRoot, JournalError> {
        // A backend's own ledger (a NATS stream: its checkpoint and tiles
        // in its key-value bucket, its records in the stream), or `log/`
        // and `segments/` in the root's store.
        let reading = root.backend().reading();
        let (ledger, files) = (reading.ledger, reading.file_system);
        if ledger.is_some() && !root.exists()? {
            return Err(error::error(
                ErrorKind::RootMissing,
                "found no stream for this NATS root, expected a root a writer created (`nenjim-journal init`)",
            )
            .with_path(root.path()));
        }
        let (store, path) = root.backend().content_store()?;
        // A local root that does not exist (a bucket root is a prefix,
        // there once it holds something: it is read as it is).
        if !root.address().contains("://")
            && let Err(e) = store.metadata(&path)
        {
            return Err(error::io_error(&path, "cannot read the root", e));
        }
        Ok(SignedRoot {
            store,
            ledger,
            files,
            root: path,
        })
    }

    /// The path of `name` under `<root>/.ledger/tlog/`.
    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(LEDGER_DIR).join(TLOG_DIR).join(name)
    }

    /// The path of a tile.
    pub fn tile_path(&self, tile: &Tile) -> PathBuf {
        self.path(&tile.path())
    }

    /// Reads `name` under `tlog/` with its version, `None` when absent.
    fn get(&self, name: &str) -> Result<Option<(Vec<u8>, Version)>, JournalError> {
        let path = self.path(name);
        self.store
            .get(&path, NOTE_MAX)
            .map_err(|e| error::io_error(&path, "cannot read", e))
    }

    /// The stored checkpoint note, byte for byte; `CheckpointInvalid` for
    /// a root that has none (it is not signed).
    pub fn checkpoint_bytes(&self) -> Result<Vec<u8>, JournalError> {
        match self.get(CHECKPOINT)? {
            Some((bytes, _)) => Ok(bytes),
            None => Err(error::error(
                ErrorKind::CheckpointInvalid,
                "found no checkpoint, expected the signed checkpoint of a signed root (a root becomes signed when a writing command runs with --signing-key)",
            )
            .with_path(self.path(CHECKPOINT))),
        }
    }

    /// The stored checkpoint, parsed but not verified (who signed it is the
    /// name on its first line, the origin).
    pub fn checkpoint_unverified(&self) -> Result<Checkpoint, JournalError> {
        let bytes = self.checkpoint_bytes()?;
        let located = |e: JournalError| e.with_path(self.path(CHECKPOINT));
        let note = Note::parse(&bytes).map_err(located)?;
        Checkpoint::parse_text(note.text()).map_err(located)
    }

    /// Whether the root is signed: its checkpoint, read but not verified
    /// (`None`: it has none); a checkpoint that cannot be read is an error.
    pub fn signed_by(&self) -> Result<Option<Checkpoint>, JournalError> {
        if self.get(CHECKPOINT)?.is_none() {
            return Ok(None);
        }
        self.checkpoint_unverified().map(Some)
    }

    /// The witnessed copy and its version, `None` when there is none.
    pub fn witnessed(&self) -> Result<Option<(Vec<u8>, Version)>, JournalError> {
        self.get(WITNESSED)
    }

    /// Replaces the witnessed copy with `bytes` if it is still at
    /// `expected` (`None`: still absent); `false` when it changed.
    pub fn publish_witnessed(
        &self,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> Result<bool, JournalError> {
        let path = self.path(WITNESSED);
        self.store
            .replace_if_unchanged(&path, bytes, expected)
            .map(|v| v.is_some())
            .map_err(|e| error::io_error(&path, "cannot write the witnessed checkpoint", e))
    }

    /// Reads one tile (a missing one is `CheckpointMismatch`: the tiles
    /// of a signed root cover its checkpoint).
    pub fn read_tile(&self, tile: &Tile) -> Result<Vec<u8>, JournalError> {
        let path = self.tile_path(tile);
        match self.store.get(&path, TILE_MAX) {
            Ok(Some((bytes, _))) => Ok(bytes),
            Ok(None) => Err(error::error(
                ErrorKind::CheckpointMismatch,
                format!(
                    "found no tile {tile}, expected the tiles of the checkpoint's tree (lost with a writer's crash? the next writer with the signing key writes it again)"
                ),
            )
            .with_path(path)),
            Err(e) => Err(error::io_error(&path, "cannot read the tile", e)),
        }
    }

    /// The subtree hashes of the tree of `size` leaves, from the tiles.
    pub fn tile_hashes(
        &self,
        size: u64,
    ) -> TileHashes<impl FnMut(&Tile) -> Result<Vec<u8>, JournalError> + '_> {
        TileHashes::new(size, move |tile: &Tile| self.read_tile(tile))
    }

    /// The root hash of the tree of `size` leaves, from the tiles.
    pub fn tiles_root(&self, size: u64) -> Result<Hash, JournalError> {
        tree_root(&mut self.tile_hashes(size), size)
    }

    /// Checks that `newer` extends `older` (same origin, larger or equal
    /// size, an RFC 6962 consistency proof computed from the tiles of
    /// `newer`'s tree); `Rollback` otherwise.
    pub fn check_consistent(
        &self,
        older: &Checkpoint,
        newer: &Checkpoint,
    ) -> Result<(), JournalError> {
        if newer.size() < older.size() || newer.origin() != older.origin() {
            // Refused before any tile is read.
            return older.check_extension(newer, &[]);
        }
        let proof = prove_consistency(
            &mut self.tile_hashes(newer.size()),
            older.size(),
            newer.size(),
        )?;
        older.check_extension(newer, &proof)
    }

    /// Every entry of the root's ledger, in order (none without a ledger).
    pub fn entries(&self) -> Result<Vec<Entry>, JournalError> {
        let read = match &self.ledger {
            Some(ledger) => nenjim_journal_fs::ledger::read_from(&**ledger)?,
            None => nenjim_journal_fs::ledger::read_from(&SegmentedReader::new(
                &*self.store,
                &self.root,
            ))?,
        };
        Ok(read
            .map(|ledger| ledger.entries().to_vec())
            .unwrap_or_default())
    }

    /// Ledger entry `sequence`, read alone (`None` when the ledger has no
    /// such entry).
    pub fn entry(&self, sequence: u64) -> Result<Option<Entry>, JournalError> {
        let Some(after) = sequence.checked_sub(1) else {
            return Ok(None);
        };
        let read = match &self.ledger {
            Some(ledger) => ledger.read_after(after, 1)?,
            None => SegmentedReader::new(&*self.store, &self.root).read_after(after, 1)?,
        };
        Ok(read.into_iter().find(|e| e.sequence() == sequence))
    }

    /// The RFC 6962 inclusion proof of `entry`'s record in the tree of
    /// `checkpoint` (the current one, verified or not), computed from the
    /// hash tiles and checked against the checkpoint's root before it is
    /// returned: what a hub answers to "is my release in the log?" once a
    /// checkpoint covers the entry (`FsJournalWriter::wait_for_checkpoint`).
    /// `CheckpointMismatch` when the checkpoint does not cover the entry
    /// yet (it waits for the next one) or the tiles do not lead to its
    /// root (a missing tile is named).
    pub fn prove(
        &self,
        checkpoint: &Checkpoint,
        entry: &Entry,
    ) -> Result<InclusionProof, JournalError> {
        let index = entry.sequence().saturating_sub(1);
        let size = checkpoint.size();
        if entry.sequence() == 0 || index >= size {
            return Err(error::error(
                ErrorKind::CheckpointMismatch,
                format!(
                    "found a checkpoint of {size} entries, expected one that covers ledger entry {}: the checkpoint is behind the ledger (the writer covers it at its checkpoint interval, or when it closes)",
                    entry.sequence()
                ),
            )
            .with_path(self.path(CHECKPOINT)));
        }
        let record = entry.to_string();
        let proof = prove_inclusion(&mut self.tile_hashes(size), size, index)?;
        verify_inclusion(
            &leaf_hash(record.as_bytes()),
            index,
            size,
            checkpoint.root(),
            &proof,
        )
        .map_err(|e| e.with_path(self.path("tile")))?;
        Ok(InclusionProof {
            index,
            tree_size: size,
            root: *checkpoint.root(),
            record,
            proof,
        })
    }

    /// The path of the revision file an entry points at.
    pub fn revision_path(&self, pointer: &RevisionPointer) -> PathBuf {
        nenjim_journal_store::ledger::revision_path(
            &self.root,
            pointer.coordinate(),
            pointer.version(),
        )
    }

    /// Streams a revision file (`Io` when it cannot be opened).
    /// Streams the revision of ledger entry `sequence` (`NotFound` when
    /// there is none): its file in the store, streamed, or, on a backend
    /// that keeps revisions in its ledger (NATS), the bytes it reads.
    pub fn open_revision(
        &self,
        sequence: u64,
        pointer: &RevisionPointer,
    ) -> io::Result<Box<dyn io::Read + Send>> {
        match &self.ledger {
            Some(ledger) => {
                match ledger.read_revision(&*self.files, &self.root, sequence, pointer, true)? {
                    Some(bytes) => Ok(Box::new(io::Cursor::new(bytes))),
                    None => Err(io::Error::from(io::ErrorKind::NotFound)),
                }
            }
            None => self.store.open(&self.revision_path(pointer)),
        }
    }
}

/// The inclusion proof of one ledger entry's record in a checkpoint's
/// tree ([`SignedRoot::prove`]): what Go's `tlog.CheckRecord` takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InclusionProof {
    index: u64,
    tree_size: u64,
    root: Hash,
    record: String,
    proof: Vec<Hash>,
}

impl InclusionProof {
    /// The record's leaf index (its entry's sequence minus one).
    pub fn index(&self) -> u64 {
        self.index
    }
    /// The size of the checkpoint's tree.
    pub fn tree_size(&self) -> u64 {
        self.tree_size
    }
    /// The checkpoint's root hash.
    pub fn root(&self) -> &Hash {
        &self.root
    }
    /// The record text (format section 10, "Records").
    pub fn record(&self) -> &str {
        &self.record
    }
    /// The proof's hashes, leaf to root.
    pub fn proof(&self) -> &[Hash] {
        &self.proof
    }
}

/// What [`verify`] found to hold.
#[derive(Clone, Debug)]
pub struct Verified {
    checkpoint: Checkpoint,
    revisions: usize,
    uncovered: u64,
}

impl Verified {
    /// The current checkpoint, its signature verified.
    pub fn checkpoint(&self) -> &Checkpoint {
        &self.checkpoint
    }

    /// How many revision files match their records (those of the
    /// entries after the checkpoint included).
    pub fn revisions(&self) -> usize {
        self.revisions
    }

    /// How many ledger entries follow the ones the checkpoint covers: not
    /// wrong, they wait for the writer's next checkpoint (its checkpoint
    /// interval, or the next writer with the key if it died first).
    pub fn uncovered(&self) -> u64 {
        self.uncovered
    }
}

/// Verifies the signed root `root` with the log's verifier key `key`: the
/// checkpoint's signature, every revision file against its record, the
/// tree over every record and the hash tiles against the checkpoint (the
/// first that does not hold is the error).
pub fn verify(root: &SignedRoot, key: &VerifierKey) -> Result<Verified, JournalError> {
    let located = |e: JournalError| e.with_path(root.path(CHECKPOINT));
    let (checkpoint, _) = Checkpoint::open(&root.checkpoint_bytes()?, key).map_err(located)?;

    // One pass over the ledger: each record into the tree, each revision
    // file streamed and hashed once.
    let entries = root.entries()?;
    let held = entries.len() as u64;
    checkpoint.check_within(held).map_err(located)?;
    // The entries after the checkpoint (a writer at a checkpoint interval,
    // or one that died before its publication) are checked against their
    // files too; the tree is the checkpoint's prefix.
    let mut tree = TreeHasher::new();
    let mut revisions = 0;
    for entry in &entries {
        if tree.size() < checkpoint.size() {
            tree.push_record(entry.to_string().as_bytes());
        }
        if let Some(pointer) = entry.revision() {
            check_revision(root, entry.sequence(), pointer)?;
            revisions += 1;
        }
    }
    checkpoint
        .check_tree(tree.size(), &tree.root())
        .map_err(located)?;
    let tiles = root.tiles_root(checkpoint.size())?;
    if tiles != *checkpoint.root() {
        return Err(error::error(
            ErrorKind::CheckpointMismatch,
            format!(
                "found the hash tiles of root {tiles}, expected the checkpoint's root {}",
                checkpoint.root()
            ),
        )
        .with_path(root.path("tile")));
    }
    Ok(Verified {
        uncovered: held - checkpoint.size(),
        checkpoint,
        revisions,
    })
}

/// An older checkpoint saved in `file` (a note of at most [`NOTE_MAX`]
/// bytes), its signature checked against the log's key.
pub fn read_checkpoint(file: &Path, key: &VerifierKey) -> Result<Checkpoint, JournalError> {
    let bytes = read_note(file)?;
    let (checkpoint, _) = Checkpoint::open(&bytes, key).map_err(|e| e.with_path(file))?;
    Ok(checkpoint)
}

/// A note file of at most [`NOTE_MAX`] bytes (`CheckpointInvalid` when
/// longer).
pub fn read_note(file: &Path) -> Result<Vec<u8>, JournalError> {
    use std::io::Read as _;
    let opened = std::fs::File::open(file)
        .map_err(|e| error::io_error(file, "cannot open the checkpoint", e))?;
    let mut bytes = Vec::new();
    opened
        .take(NOTE_MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| error::io_error(file, "cannot read the checkpoint", e))?;
    if bytes.len() as u64 > NOTE_MAX {
        return Err(error::error(
            ErrorKind::CheckpointInvalid,
            format!("found a file over {NOTE_MAX} bytes, expected a checkpoint note"),
        )
        .with_path(file));
    }
    Ok(bytes)
}

/// Streams the revision file of ledger entry `sequence` and compares its
/// size and SHA-256 with the record (`LedgerMismatch`, a missing file too).
pub fn check_revision(
    root: &SignedRoot,
    sequence: u64,
    pointer: &RevisionPointer,
) -> Result<(), JournalError> {
    let path = root.revision_path(pointer);
    let mismatch = |found: String| {
        error::error(
            ErrorKind::LedgerMismatch,
            format!(
                "found {found}, expected the {} bytes with {} of ledger entry {sequence}",
                pointer.size(),
                pointer.digest()
            ),
        )
        .with_path(&path)
    };
    let mut reader = match root.open_revision(sequence, pointer) {
        Ok(reader) => reader,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(mismatch("no revision file".to_owned()));
        }
        Err(e) => return Err(error::io_error(&path, "cannot open the revision file", e)),
    };
    let found = nenjim_journal_store::measure(&mut reader, &mut io::sink())
        .map_err(|e| error::io_error(&path, "cannot read the revision file", e))?;
    let (size, digest) = (found.size(), *found.digest().as_bytes());
    if size != pointer.size() || digest != *pointer.digest().as_bytes() {
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        return Err(mismatch(format!("{size} bytes with sha256:{hex}")));
    }
    Ok(())
}

/// How many of `witnesses` validly cosigned `checkpoint` in the witnessed
/// copy, which must be that checkpoint signed by the log (`key`);
/// `CheckpointInvalid` when there is no copy (naming `quorum`, the count
/// wanted) or it is of another checkpoint.
pub fn cosignatures(
    root: &SignedRoot,
    checkpoint: &Checkpoint,
    key: &VerifierKey,
    witnesses: &[VerifierKey],
    quorum: usize,
) -> Result<usize, JournalError> {
    let path = root.path(WITNESSED);
    let invalid =
        |message: String| error::error(ErrorKind::CheckpointInvalid, message).with_path(&path);
    let Some((bytes, _)) = root.witnessed()? else {
        return Err(invalid(format!(
            "found no witnessed checkpoint, expected the current one cosigned by at least {quorum} of the named witnesses (`nenjim-journal witness`)"
        )));
    };
    let (witnessed, _) = Checkpoint::open(&bytes, key).map_err(|e| e.with_path(&path))?;
    if witnessed.text() != checkpoint.text() {
        return Err(invalid(format!(
            "found a witnessed checkpoint of {} entries, expected the current checkpoint of {} entries: the witnesses have not cosigned it yet",
            witnessed.size(),
            checkpoint.size()
        )));
    }
    let note = Note::parse(&bytes).map_err(|e| e.with_path(&path))?;
    Ok(count_cosignatures(&note, witnesses))
}

/// The witnessed copy holds at least `quorum` valid cosignatures of
/// `witnesses` of `checkpoint` ([`cosignatures`]); returns how many.
pub fn check_quorum(
    root: &SignedRoot,
    checkpoint: &Checkpoint,
    key: &VerifierKey,
    witnesses: &[VerifierKey],
    quorum: usize,
) -> Result<usize, JournalError> {
    let count = cosignatures(root, checkpoint, key, witnesses, quorum)?;
    if count < quorum {
        return Err(error::error(
            ErrorKind::CheckpointInvalid,
            format!(
                "found {count} valid cosignatures of the {} named witnesses, expected at least {quorum}",
                witnesses.len()
            ),
        )
        .with_path(root.path(WITNESSED)));
    }
    Ok(count)
}
