//! Reading one revision file: size limit, UTF-8, parsing, and the checks of
//! its header against its place on disk.

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use nenjim_journal_api::model::JournalRevision;
use nenjim_journal_parser::{Interner, ParsedText};

use crate::MAX_FILE_LEN;
use crate::layout::RevisionFile;
use nenjim_journal_store::{Directory, FileSystem};

fn too_large(file: &RevisionFile, len: u64) -> JournalError {
    error::error(
        ErrorKind::TooLarge,
        format!("found a file of {len} bytes, expected at most {MAX_FILE_LEN} bytes (64 MiB)"),
    )
    .with_path(file.path())
}

/// Reads the file's text: refuses a file over the limit before reading it
/// (from the listed length) and while reading it (in case it grew), and a
/// file that is not UTF-8. Reads into `buf`'s allocation (its bytes are
/// dropped): a loader reads its files in turn into the few buffers it
/// recycles ([`FileSystem::read_into`]).
/// The file is read by name in `opened`, its directory opened, if given.
pub(crate) fn read_text(
    fs: &dyn FileSystem,
    opened: Option<&dyn Directory>,
    file: &RevisionFile,
    mut buf: Vec<u8>,
) -> Result<String, JournalError> {
    let bytes = read_bytes_with(file, |path| {
        match opened {
            Some(dir) => dir.read_into(file.name().as_os_str(), MAX_FILE_LEN, &mut buf),
            None => fs.read_into(path, MAX_FILE_LEN, &mut buf),
        }
        .map(|()| std::mem::take(&mut buf))
    })?;
    decode(bytes).map_err(|e| e.with_path(file.path()))
}

/// Reads a revision file's bytes, refusing `TooLarge` (not yet decoded).
pub(crate) fn read_bytes(
    fs: &dyn FileSystem,
    file: &RevisionFile,
) -> Result<Vec<u8>, JournalError> {
    read_bytes_with(file, |path| fs.read(path, MAX_FILE_LEN))
}

/// The bytes of a revision a ledger records, through `read` (the ledger's
/// [`LedgerReader::read_revision`](nenjim_journal_store::ledger::LedgerReader::read_revision),
/// or the bytes it carried): `Ok(None)` when there is no such revision;
/// `TooLarge` as [`read_bytes`] refuses it (from the record's size before
/// reading, then from what was read).
pub(crate) fn read_recorded_bytes(
    file: &RevisionFile,
    read: impl FnOnce() -> std::io::Result<Option<Vec<u8>>>,
) -> Result<Option<Vec<u8>>, JournalError> {
    let mut missing = false;
    let bytes = read_bytes_with(file, |_| {
        read().map(|bytes| {
            missing = bytes.is_none();
            bytes.unwrap_or_default()
        })
    })?;
    Ok((!missing).then_some(bytes))
}

fn read_bytes_with(
    file: &RevisionFile,
    read: impl FnOnce(&std::path::Path) -> std::io::Result<Vec<u8>>,
) -> Result<Vec<u8>, JournalError> {
    if let Some(len) = file.len
        && len > MAX_FILE_LEN
    {
        return Err(too_large(file, len));
    }
    let bytes = read(&file.path()).map_err(|e| {
        if e.kind() == std::io::ErrorKind::FileTooLarge {
            error::error(
                ErrorKind::TooLarge,
                format!("found a file over the limit ({e}), expected at most {MAX_FILE_LEN} bytes (64 MiB)"),
            )
            .with_path(file.path())
            .with_source(e)
        } else {
            error::io_error(file.path(), "cannot read the revision file", e)
        }
    })?;
    if bytes.len() as u64 > MAX_FILE_LEN {
        return Err(too_large(file, bytes.len() as u64));
    }
    Ok(bytes)
}

/// Decodes a revision file's bytes as UTF-8 (section 7), locating the first
/// invalid byte by line and column (the column counts the characters before
/// it on its line, plus one) as an `InvalidUtf8` error.
pub fn decode(bytes: Vec<u8>) -> Result<String, JournalError> {
    String::from_utf8(bytes).map_err(|error| {
        let utf8 = error.utf8_error();
        let offset = utf8.valid_up_to();
        let valid = error.as_bytes().get(..offset).unwrap_or_default();
        let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = std::str::from_utf8(valid.get(line_start..).unwrap_or_default())
            .map_or(1, |s| s.chars().count() + 1);
        let byte = error.as_bytes().get(offset).copied().unwrap_or_default();
        error::error(
            ErrorKind::InvalidUtf8,
            format!(
                "found byte 0x{byte:02x} at byte offset {offset}, which is not valid UTF-8; \
                 expected a UTF-8 text"
            ),
        )
        .at(line, column)
        .with_source(utf8)
    })
}

/// Parses `text`, the content of `file`, and checks its header against the
/// file's place (`ARTIFACT` against the directory, `JOURNAL_VERSION`
/// against the file name stem).
pub(crate) fn parse_checked(
    file: &RevisionFile,
    text: &str,
    interner: &mut Interner,
) -> Result<JournalRevision, JournalError> {
    let revision =
        nenjim_journal_parser::parse_with(text, interner).map_err(|e| e.with_path(file.path()))?;
    check_place(file, &revision)?;
    Ok(revision)
}

/// The header's artifact and Journal version against the file's directory
/// and name.
pub(crate) fn check_place(
    file: &RevisionFile,
    revision: &JournalRevision,
) -> Result<(), JournalError> {
    if *revision.coordinate() != file.coordinate {
        return Err(error::error(
            ErrorKind::CoordinateMismatch,
            format!(
                "found ARTIFACT {}, expected {} (the name of its directory)",
                revision.coordinate(),
                file.coordinate
            ),
        )
        .with_path(file.path()));
    }
    if revision.journal_version() != file.version {
        return Err(error::error(
            ErrorKind::VersionMismatch,
            format!(
                "found JOURNAL_VERSION {}, expected {} (the file name stem)",
                revision.journal_version(),
                file.version
            ),
        )
        .with_path(file.path()));
    }
    Ok(())
}

/// Reads (into `buf`'s allocation), parses and checks `file`, reusing the
/// unchanged release blocks of `previous`, the file before it in the same
/// artifact.
pub(crate) fn read_revision(
    fs: &dyn FileSystem,
    opened: Option<&dyn Directory>,
    file: &RevisionFile,
    interner: &mut Interner,
    previous: Option<&ParsedText>,
    buf: Vec<u8>,
) -> Result<ParsedText, JournalError> {
    let text = read_text(fs, opened, file, buf)?;
    let parsed = nenjim_journal_parser::parse_after(text, interner, previous)
        .map_err(|e| e.with_path(file.path()))?;
    check_place(file, parsed.revision())?;
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_utf8_is_kept() {
        assert_eq!(
            decode(b"caf\xc3\xa9\n".to_vec()).ok().as_deref(),
            Some("caf\u{e9}\n")
        );
    }

    #[test]
    fn invalid_utf8_is_located_by_line_and_character_column() {
        let Err(error) = decode(b"FORMAT x\n\xc3\xa9t\xe9\n".to_vec()) else {
            unreachable!("not UTF-8");
        };
        assert_eq!(error.kind(), ErrorKind::InvalidUtf8);
        assert_eq!((error.line(), error.column()), (Some(2), Some(3)));
        assert!(
            error.message().contains("0xe9 at byte offset 12"),
            "{error}"
        );
    }
}
