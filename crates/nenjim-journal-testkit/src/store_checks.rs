//! What the fuzz targets of the storage seam's parsers check (and their
//! stable twin, `crates/nenjim-journal-fs/tests/ledger_fuzz.rs`): the
//! parsers of what a root's store holds never panic, refuse with a typed
//! error that says what was found and what was expected, and whatever they
//! accept is exactly what a writer writes for it (one text per value).
//!
//! - [`ledger_records`]: one ledger record line (`Entry::parse`): an
//!   accepted line is its entry's `Display`; a refusal's message says what
//!   it expected and stays short.
//! - [`ledger_segments`]: a ledger (marker, `segments/`, `log/`) built from
//!   a valid one and damaged (segments renamed, edited, cut, in CRLF; log
//!   entries edited, missing, of the wrong kind), read by
//!   `SegmentedReader`: a read that succeeds gives contiguous entries from
//!   1 whose segment files and log records are byte for byte the ones a
//!   writer writes for them, and reading it again in batches from any
//!   point gives the same entries; a refusal is `LedgerMismatch` or `Io`
//!   at a path of the ledger; an undamaged ledger reads whole.
//! - [`lease_records`]: the lease's text (`LeaseRecord::parse`): an
//!   accepted text is exactly its `render`, and taking a lease over it
//!   gives the next epoch (or, at the last one, an `Io` error); any lease
//!   with a one-line holder renders to a text that reads back.
//!
//! In each, the first byte picks the input: even, the rest as it is; odd,
//! edits of valid texts, as `tlog_checks` does.

use std::path::{Path, PathBuf};
use std::time::Duration;

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::valuetypes::RevisionDigest;
use nenjim_journal_fs::FileSystem as _;
use nenjim_journal_store::lease::LeaseRecord;
use nenjim_journal_store::ledger::{
    self, Entry, LEDGER_FILE_MAX, MARKER, MARKER_TEXT, Record, RevisionPointer, SEGMENTS_DIR,
    SegmentedReader,
};

use crate::checks::Choices;
use crate::memory_fs::{self, MemoryFs};

/// Valid record lines, the seeds of the edited inputs.
pub const RECORD_SEEDS: [&str; 3] = [
    "1 REVISION left-pad 20261129T101530Z 123 sha256:9f2c0d4e5a3b7c1d8e6f00112233445566778899aabbccddeeff001122334455",
    "42 FENCE 7",
    "18446744073709551615 REVISION com.r35157.nenjim-hubd-api 20261101T090000Z 0 sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
];

/// A valid lease text, the seed of the edited inputs.
pub const LEASE_SEED: &str =
    "nenjim-lease/1\nholder host/4242/0b6e-boot/123456/a1b2c3\nepoch 3\nexpires 1798761600000\n";

/// Applies two-byte edits to `bytes` (a position and a byte: replaced,
/// inserted, removed or a bit flipped, by the byte's low bits).
pub fn edit(mut bytes: Vec<u8>, edits: &[u8]) -> Vec<u8> {
    for pair in edits.chunks_exact(2) {
        let at = usize::from(pair[0]) % (bytes.len() + 1);
        match pair[1] & 0b11 {
            0 if at < bytes.len() => bytes[at] = pair[1],
            // Mostly printable bytes, and the line ending's.
            1 => bytes.insert(
                at,
                match pair[1] >> 2 {
                    0 => b'\n',
                    1 => b'\r',
                    2 => b' ',
                    b => b | 0x20,
                },
            ),
            2 if at < bytes.len() => {
                bytes.remove(at);
            }
            _ if at < bytes.len() => bytes[at] ^= 1 << (pair[1] >> 5),
            _ => bytes.push(pair[1]),
        }
    }
    bytes
}

/// Panics unless `message` is a refusal's: it says what it expected, and
/// it is not much longer than the input it quotes.
fn assert_message(message: &str, input: &str) {
    assert!(!message.is_empty(), "an empty message for {input:?}");
    assert!(
        message.contains("expected"),
        "{message:?}: the message of a refusal says what it expected"
    );
    assert!(
        message.len() <= 2 * input.len() + 512,
        "a message of {} bytes for an input of {}",
        message.len(),
        input.len()
    );
}

/// Checks `Entry::parse` on one line (see the module docs).
pub fn check_record(line: &str) {
    match Entry::parse(line) {
        Ok(entry) => {
            assert_eq!(entry.to_string(), line, "a record writes back as read");
            assert!(entry.sequence() >= 1, "{line:?}: sequence 0");
            assert_eq!(Entry::parse(&entry.to_string()).ok(), Some(entry.clone()));
            // A record has no line ending: the line with one is refused.
            for ending in ["\n", "\r\n", "\r", " "] {
                assert!(
                    Entry::parse(&format!("{line}{ending}")).is_err(),
                    "{line:?} with {ending:?} accepted"
                );
            }
        }
        Err(e) => {
            assert_message(e.message(), line);
            assert_eq!(e.to_string(), e.message());
        }
    }
}

/// The fuzz target `ledger_records` (see the module docs).
pub fn ledger_records(data: &[u8]) {
    let bytes = match data.split_first() {
        Some((first, rest)) if first % 2 == 1 => {
            let (pick, edits) = rest.split_first().unwrap_or((&0, &[]));
            let seed = RECORD_SEEDS[usize::from(*pick) % RECORD_SEEDS.len()];
            edit(seed.as_bytes().to_vec(), edits)
        }
        Some((_, rest)) => rest.to_vec(),
        None => Vec::new(),
    };
    check_record(&String::from_utf8_lossy(&bytes));
}

/// Checks `LeaseRecord::parse` on one text (see the module docs).
pub fn check_lease(text: &str) {
    let Some(lease) = LeaseRecord::parse(text) else {
        return;
    };
    assert_eq!(lease.render(), text, "a lease writes back as read");
    assert!(!lease.holder().is_empty() && !lease.holder().contains('\n'));
    assert_eq!(LeaseRecord::parse(&lease.render()), Some(lease.clone()));
    // Taken over at a time when it has expired (whatever its holder, so
    // no process is looked up): the next epoch, or a refusal at the last.
    let path = Path::new("/journal/.ledger/lease");
    match LeaseRecord::take(Some(&lease), "next", u64::MAX, Duration::ZERO, path) {
        Ok((next, taken_over)) => {
            assert_eq!(Some(next.epoch()), lease.epoch().checked_add(1));
            assert_eq!(taken_over, !lease.is_released());
            assert_eq!(next.holder(), "next");
            assert!(!next.is_released(), "a lease taken is held");
        }
        Err(e) => {
            assert_eq!(lease.epoch(), u64::MAX, "{e}");
            assert_eq!(e.kind(), ErrorKind::Io, "{e}");
            assert_eq!(e.path(), Some(path));
        }
    }
}

/// The fuzz target `lease_records` (see the module docs).
pub fn lease_records(data: &[u8]) {
    let bytes = match data.split_first() {
        Some((first, rest)) if first % 2 == 1 => edit(LEASE_SEED.as_bytes().to_vec(), rest),
        Some((_, rest)) => rest.to_vec(),
        None => Vec::new(),
    };
    let text = String::from_utf8_lossy(&bytes);
    check_lease(&text);
    // Any lease whose holder is one line (not ending in a CR, which a
    // line ending would swallow) renders to a text that reads back.
    let mut choices = Choices::new(&bytes);
    let epoch = u64::from_le_bytes([0; 8].map(|_| choices.byte()));
    let expires = u64::from_le_bytes([0; 8].map(|_| choices.byte()));
    let holder: String = text
        .chars()
        .skip(16)
        .take(40)
        .filter(|c| !matches!(c, '\n' | '\r'))
        .collect();
    if !holder.is_empty() {
        let lease = LeaseRecord::new(&holder, epoch, expires);
        assert_eq!(LeaseRecord::parse(&lease.render()), Some(lease));
    }
}

/// What a segment file holds for `entries`: their records, one a line.
pub fn segment_text(entries: &[Entry]) -> String {
    entries.iter().map(|e| format!("{e}\n")).collect()
}

/// A valid ledger of `count` entries drawn from `choices`: fences and
/// revisions of a few artifacts.
fn entries(choices: &mut Choices<'_>, count: u64) -> Vec<Entry> {
    const COORDINATES: [&str; 3] = ["left-pad", "com.r35157.nenjim-hubd-api", "a"];
    const VERSIONS: [&str; 3] = ["20261101T090000Z", "20261129T101530Z", "20261120T080000Z"];
    (1..=count)
        .map(|sequence| {
            let record = match choices.below(4) {
                0 => Record::Fence {
                    epoch: u64::from(choices.byte()),
                },
                n => {
                    let text = format!("revision {sequence} {n}");
                    Record::Revision(RevisionPointer::new(
                        COORDINATES[choices.below(3)].parse().expect("a coordinate"),
                        VERSIONS[choices.below(3)].parse().expect("a version"),
                        text.len() as u64,
                        RevisionDigest::of_bytes(text.as_bytes()),
                    ))
                }
            };
            Entry::new(sequence, record)
        })
        .collect()
}

/// One way a segment can be damaged.
fn damage_segment(choices: &mut Choices<'_>, name: &mut String, text: &mut Vec<u8>) {
    match choices.below(8) {
        0 => *name = format!("+{}", &name[1..]),
        1 => {
            let last: u64 = name[..20].parse().unwrap_or(0);
            let other = if choices.byte().is_multiple_of(2) {
                last + 1
            } else {
                last.saturating_sub(1)
            };
            *name = format!("{}{}", ledger::entry_name(other), ledger::SEGMENT_SUFFIX);
        }
        2 => {
            *name = match choices.below(4) {
                0 => format!("{}.segment.bak", &name[..20]),
                1 => format!("{}.segment", &name[1..20]),
                2 => format!(".tmp-{name}"),
                _ => "junk".to_owned(),
            }
        }
        3 => {
            *text = String::from_utf8_lossy(text)
                .replace('\n', "\r\n")
                .into_bytes()
        }
        4 => {
            let keep = choices.below(text.len() + 1);
            text.truncate(keep);
        }
        _ => {
            let edits: Vec<u8> = (0..2 + 2 * choices.below(3))
                .map(|_| choices.byte())
                .collect();
            *text = edit(std::mem::take(text), &edits);
        }
    }
}

/// The fuzz target `ledger_segments` (see the module docs).
pub fn ledger_segments(data: &[u8]) {
    let mut choices = Choices::new(data);
    let root = memory_fs::root();
    let fs = MemoryFs::with_root(&root);
    let ledger_dir = ledger::ledger_dir(&root);
    let mut damaged = false;

    // The marker.
    match choices.below(16) {
        0 => damaged = true,
        1 => {
            damaged = true;
            let edits = [choices.byte(), choices.byte()];
            fs.put(
                &ledger_dir.join(MARKER),
                edit(MARKER_TEXT.as_bytes().to_vec(), &edits),
            );
        }
        _ => fs.put(&ledger_dir.join(MARKER), MARKER_TEXT),
    }
    let count = choices.below(20) as u64;
    let valid = entries(&mut choices, count);

    // Segments over a prefix, each maybe damaged.
    let segments_dir = ledger_dir.join(SEGMENTS_DIR);
    let mut segmented = 0;
    for _ in 0..choices.below(4) {
        let span = 1 + choices.below(6) as u64;
        if segmented + span > count {
            break;
        }
        let chunk = &valid[segmented as usize..(segmented + span) as usize];
        let last = segmented + span;
        let mut name = format!("{}{}", ledger::entry_name(last), ledger::SEGMENT_SUFFIX);
        let mut text = segment_text(chunk).into_bytes();
        if choices.below(6) == 0 {
            damage_segment(&mut choices, &mut name, &mut text);
            damaged = true;
        }
        fs.put(&segments_dir.join(name), text);
        segmented = last;
    }
    if choices.below(8) == 0 {
        // An empty segments directory.
        fs.mkdir(&segments_dir);
    }

    // Log entries after the segments (and a few the segments cover).
    let from = segmented.saturating_sub(choices.below(3) as u64);
    for entry in valid.iter().filter(|e| e.sequence() > from) {
        let path = ledger::entry_path(&root, entry.sequence());
        let record = entry.to_string().into_bytes();
        let inside = entry.sequence() <= segmented;
        match choices.below(12) {
            0 => damaged |= !inside,
            1 => {
                damaged |= !inside;
                fs.put(&path, record);
            }
            2 | 3 => {
                damaged |= !inside;
                let edits = [choices.byte(), choices.byte()];
                fs.put_record(&path, edit(record, &edits));
            }
            _ => fs.put_record(&path, record),
        }
    }
    if choices.below(4) == 0 {
        // An entry past a gap.
        damaged = true;
        let stray = count + 2 + choices.below(2) as u64;
        fs.put_record(
            &ledger::entry_path(&root, stray),
            format!("{stray} FENCE 1"),
        );
    }

    let after = choices.below(count as usize + 2) as u64;
    let max = 1 + choices.below(8);
    check_ledger(&fs, &root, (!damaged).then_some(&valid[..]), after, max);
}

/// Reads the ledger of `root` in `fs` whole and in batches (see the
/// module docs); `valid`: the entries an undamaged ledger holds.
pub fn check_ledger(fs: &MemoryFs, root: &Path, valid: Option<&[Entry]>, after: u64, max: usize) {
    let reader = SegmentedReader::new(fs, root);
    let all = match reader.read_all_after(0) {
        Ok((all, _)) => all,
        Err(e) => {
            assert!(valid.is_none(), "an undamaged ledger is refused: {e}");
            assert!(
                matches!(e.kind(), ErrorKind::LedgerMismatch | ErrorKind::Io),
                "{e}"
            );
            let path = e.path().expect("a refusal names its path");
            assert!(path.starts_with(ledger::ledger_dir(root)), "{e}");
            if e.kind() == ErrorKind::LedgerMismatch {
                // The files are small: a message quotes a line at most.
                assert_message(e.message(), &"x".repeat(2048));
            }
            if let Some(line) = e
                .message()
                .strip_prefix("line ")
                .and_then(|m| m.split(':').next())
            {
                let line: usize = line.parse().expect("a line number");
                let bytes = fs.read(path, LEDGER_FILE_MAX).expect("the file refused");
                let lines = bytes.iter().filter(|b| **b == b'\n').count() + 1;
                assert!(line >= 1 && line <= lines, "{e}: line past the file");
            }
            return;
        }
    };
    if let Some(valid) = valid {
        assert_eq!(all, valid, "an undamaged ledger reads whole");
    }
    for (index, entry) in all.iter().enumerate() {
        assert_eq!(
            entry.sequence(),
            index as u64 + 1,
            "entries follow each other"
        );
    }

    // What was accepted is what a writer writes: each segment's name and
    // bytes, each log record after the last segment.
    let segments_dir = ledger::ledger_dir(root).join(SEGMENTS_DIR);
    let mut names: Vec<String> = fs
        .read_dir(&segments_dir)
        .unwrap_or_default()
        .into_iter()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    let mut first = 0;
    for name in &names {
        let last: u64 = name[..20].parse().expect("a segment's name");
        assert_eq!(
            segments_dir.join(name),
            ledger::segment_path(root, last),
            "a segment accepted under another name"
        );
        let bytes = fs.read(&segments_dir.join(name), LEDGER_FILE_MAX).unwrap();
        let covered = all
            .get(first as usize..last as usize)
            .expect("an accepted segment's entries are read");
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            segment_text(covered),
            "a segment accepted with other bytes than its records"
        );
        first = last;
    }
    for entry in all.iter().skip(first as usize) {
        let record = fs
            .read_record(&ledger::entry_path(root, entry.sequence()))
            .expect("an accepted log entry");
        assert_eq!(
            String::from_utf8_lossy(&record),
            entry.to_string(),
            "a log entry accepted with other bytes than its record"
        );
    }
    let next = ledger::entry_path(root, all.len() as u64 + 1);
    assert!(
        fs.read_record(&next)
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound),
        "the read stopped before an entry"
    );

    // The same entries batch after batch, from any point up to the tip.
    let after = after.min(all.len() as u64);
    let mut read = Vec::new();
    let mut tip = after;
    loop {
        let batch = ledger::LedgerReader::read_after(&reader, tip, max)
            .expect("a ledger read whole reads in batches");
        assert!(batch.len() <= max, "a batch longer than asked");
        if let Some(first) = batch.first() {
            assert_eq!(
                first.sequence(),
                tip + 1,
                "a batch starts after its sequence"
            );
        }
        let Some(last) = batch.last() else { break };
        tip = last.sequence();
        read.extend(batch);
    }
    assert_eq!(read, all[after as usize..], "batches read other entries");
}

/// The root of the checks' ledgers (for the corpus's tests).
pub fn root() -> PathBuf {
    memory_fs::root()
}
