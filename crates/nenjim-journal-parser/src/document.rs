//! The whole text: which line may come where (sections 1, 3, 4 and 5 together).
//!
//! Lines are read once, in order. Until `DESCRIPTION` they go to the
//! [`Header`]; after it the body accepts one optional `INFORMATION`, then
//! release blocks, then policy statements. A line in any other place (a
//! header keyword after the header, a `RELEASE` after a policy statement, a
//! property outside a release, an unknown keyword) is a syntax error; the
//! rule that releases come before policy is the builder's
//! (`RevisionBuilder::check_release_allowed`), asked at the `RELEASE`
//! keyword. The first error in text order is the one returned.

use std::ops::Range;

use nenjim_journal_api::error::{self, ErrorKind, JournalError};
use nenjim_journal_api::model::build::{ReleaseBuilder, RevisionBuilder};
use nenjim_journal_api::model::{ArtifactRelease, JournalRevision};
use nenjim_journal_api::valuetypes::{InformationUri, ReleaseVersion, RevisionDigest};
use sha2::{Digest as _, Sha256};

use crate::header::{Header, is_header_keyword};
use crate::interner::Interner;
use crate::lines::{LineClass, Lines};
use crate::policy::{is_policy_keyword, statement};
use crate::release::{OpenRelease, Property};
use crate::semantic::located;
use crate::tokens::{Cursor, Quick, Token, shown};

/// What the body expects next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Directly after `DESCRIPTION`: `INFORMATION` may come.
    AfterDescription,
    /// After `INFORMATION`: releases or policy.
    AfterInformation,
    /// After the first `RELEASE` line.
    Releases,
    /// After the first policy statement.
    Policy,
}

/// A previous revision of the same artifact, parsed from `text`, whose
/// release blocks a parse may reuse.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Previous<'p> {
    pub(crate) text: &'p str,
    pub(crate) revision: &'p JournalRevision,
    /// Where each release block is in `text`, one per release.
    pub(crate) blocks: &'p [Block],
}

/// Where a release block is in its text: its byte range, and how many line
/// terminators it holds (so that skipping it needs no count).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) bytes: Range<usize>,
    pub(crate) newlines: usize,
}

/// The reuse of a [`Previous`] during one parse: releases come in
/// ascending order in both texts, so one forward cursor finds them.
#[derive(Debug)]
struct Reuse<'p> {
    previous: Previous<'p>,
    next: usize,
}

impl Reuse<'_> {
    /// The previous release `version` and its block placed at `start`, if that
    /// block is byte-for-byte the block of `text` that starts at `start`.
    ///
    /// A block runs from its `RELEASE` line to the next top-level line (or
    /// the end of the text), comment and blank lines included. Identical
    /// bytes, read in the same artifact, give identical values: every rule
    /// of a block looks only at the block and its artifact; the order of
    /// releases, which looks further, is checked at the `RELEASE` line
    /// before this is asked. The block, less the empty lines that end it
    /// ([`core`]), must also end at the same place: the bytes after it are
    /// the end of the text, or (after a `\n` and any empty lines, which are
    /// then read as usual) a line that cannot continue a block (not
    /// indented, not a comment). Anything else is read line by line, as
    /// without reuse.
    fn find(
        &mut self,
        version: &ReleaseVersion,
        text: &str,
        start: usize,
    ) -> Option<(ArtifactRelease, Block)> {
        let releases = self.previous.revision.releases();
        while releases
            .get(self.next)
            .is_some_and(|r| r.version() < version)
        {
            self.next += 1;
        }
        if releases.get(self.next)?.version() != version {
            return None;
        }
        self.next_block(text, start)
    }

    /// The previous release after the last one reused (or passed over) and
    /// its block placed at `start`, if that block is byte-for-byte the block of
    /// `text` that starts at `start` and ends at the same place (as
    /// [`find`](Self::find) says). Asked before the `RELEASE` line's
    /// version is read: a successor restates its predecessor's releases in
    /// order, and the identical line holds the same version.
    fn next_block(&mut self, text: &str, start: usize) -> Option<(ArtifactRelease, Block)> {
        let release = self.previous.revision.releases().get(self.next)?;
        let place = self.previous.blocks.get(self.next)?;
        let (block, newlines) = core(self.previous.text.get(place.bytes.clone())?, place.newlines);
        let rest = text.get(start..)?;
        if !rest.starts_with(block) {
            return None;
        }
        // Empty lines after the block are read as usual, after it; the
        // line after them must not continue the block.
        let after = rest.get(block.len()..)?;
        let ends = if block.ends_with('\n') {
            !matches!(
                after.trim_start_matches('\n').as_bytes().first(),
                Some(b' ' | b'#' | b'\r')
            )
        } else {
            after.is_empty()
        };
        if !ends {
            return None;
        }
        let block = Block {
            bytes: start..start + block.len(),
            newlines,
        };
        // Versions ascend: this release cannot be asked for again.
        self.next += 1;
        Some((release.clone(), block))
    }
}

/// A release block without the empty lines that end it (its last line's
/// `\n` kept), and its line terminators then. The block before a
/// revision's policy, or before any line set apart by an empty line,
/// ends with one; restated in the next revision before one more release,
/// it does not, and its values are the same: they are in the lines kept.
fn core(block: &str, newlines: usize) -> (&str, usize) {
    let kept = block.trim_end_matches('\n');
    if kept.len() == block.len() {
        return (block, newlines);
    }
    let kept = block.get(..kept.len() + 1).unwrap_or(block);
    (kept, newlines.saturating_sub(block.len() - kept.len()))
}

/// Everything after the header's `DESCRIPTION`.
#[derive(Debug)]
struct Body<'p> {
    revision: RevisionBuilder,
    stage: Stage,
    open: Option<OpenRelease>,
    /// The open release's values, from its `CONTENT` line on: kept here,
    /// not in [`OpenRelease`], so that opening and closing a release moves
    /// a few words, not the builder's few hundred bytes.
    builder: Option<ReleaseBuilder>,
    /// Where the open release's block starts: byte and line.
    open_start: (usize, usize),
    reuse: Option<Reuse<'p>>,
    /// Where each release block read so far is.
    blocks: Vec<Block>,
}

impl Body<'_> {
    /// Reads one line, which starts at byte `start` of `text`; returns the
    /// block that was reused from there, which needs no reading.
    fn line(
        &mut self,
        class: LineClass,
        keyword: Token<'_>,
        mut cursor: Cursor<'_>,
        text: &str,
        start: usize,
        interner: &mut Interner,
    ) -> Result<Option<Block>, JournalError> {
        let line = cursor.line();
        let word = keyword.text;
        if class == LineClass::Property {
            return match (&mut self.open, self.stage) {
                (Some(open), _) => {
                    let coordinate = self.revision.coordinate().clone();
                    open.property(&mut self.builder, &coordinate, keyword, cursor, interner)
                        .map(|()| None)
                }
                (None, Stage::Policy) => Err(line.syntax(
                    keyword.start,
                    format!(
                        "found an indented {} after a policy statement, expected a policy statement at column 1",
                        shown(word)
                    ),
                )),
                (None, _) => Err(line.syntax(
                    keyword.start,
                    format!(
                        "found an indented {} outside a release block, expected a top-level line at column 1",
                        shown(word)
                    ),
                )),
            };
        }
        if word == "INFORMATION" && self.stage == Stage::AfterDescription {
            // The predecessor's URI when the token is its text (a URI is
            // kept exactly as written): a successor restates it, and
            // parsing a URI again was 1.9 % of a start.
            let token = cursor.token("an absolute URI")?;
            let restated = self
                .reuse
                .as_ref()
                .and_then(|r| r.previous.revision.information())
                .filter(|uri| uri.as_str() == token.text);
            let uri = match restated {
                Some(uri) => uri.clone(),
                None => token
                    .text
                    .parse::<InformationUri>()
                    .map_err(|e| line.relocate(e, token.start))?,
            };
            cursor.finish()?;
            self.revision.information(uri);
            self.stage = Stage::AfterInformation;
            return Ok(None);
        }
        if word == "RELEASE" {
            // Releases before policy: the builder's rule, reported at the keyword.
            located(self.revision.check_release_allowed(), &line, keyword.start)?;
            self.close(Some(word), (line.number, line.column(keyword.start)), start)?;
            self.stage = Stage::Releases;
            // The predecessor's next block, restated byte for byte: its
            // version is that release's, not read again; else the version
            // is read and the predecessor's block of that version compared.
            let (open, reused) = match self.reuse.as_mut().and_then(|r| r.next_block(text, start)) {
                Some((release, block)) => (
                    OpenRelease::restated(cursor, &self.revision, release.version())?,
                    Some((release, block)),
                ),
                None => {
                    let open = OpenRelease::open(cursor, &self.revision)?;
                    let found = self
                        .reuse
                        .as_mut()
                        .and_then(|reuse| reuse.find(open.version(), text, start));
                    (open, found)
                }
            };
            if let Some((release, block)) = reused {
                open.push_reused(&mut self.revision, release)?;
                self.blocks.push(block.clone());
                return Ok(Some(block));
            }
            self.open = Some(open);
            self.open_start = (start, line.number);
            return Ok(None);
        }
        if is_policy_keyword(word) {
            self.close(Some(word), (line.number, line.column(keyword.start)), start)?;
            self.stage = Stage::Policy;
            return statement(word, cursor, &mut self.revision, interner).map(|()| None);
        }
        let expected = match self.stage {
            Stage::Policy => "`YANK`, `DEPRECATE` or `RECOMMEND`",
            _ => "`RELEASE`, `YANK`, `DEPRECATE` or `RECOMMEND`",
        };
        let message = if word == "INFORMATION" {
            format!(
                "found `INFORMATION` here, expected it only directly after the header's `DESCRIPTION`; expected {expected}"
            )
        } else if is_header_keyword(word) {
            format!("found header line `{word}` after the header, expected {expected}")
        } else if Property::from_keyword(word).is_some() {
            format!(
                "found release property `{word}` at column 1, expected it indented by two spaces in a release block, or {expected}"
            )
        } else {
            format!("found {}, expected {expected}", shown(word))
        };
        Err(line.syntax(keyword.start, message))
    }

    /// Closes the open release block, if any, at the line that starts with
    /// `word` (`None`: the end of the text) located at `at`, byte `end` of
    /// the text.
    fn close(
        &mut self,
        word: Option<&str>,
        at: (usize, usize),
        end: usize,
    ) -> Result<(), JournalError> {
        let Some(open) = self.open.as_mut() else {
            return Ok(());
        };
        let found = || match word {
            Some(word) => format!("`{word}`"),
            None => "the end of the text".to_owned(),
        };
        let closed = open.close(&mut self.builder, &mut self.revision, &found, at);
        self.open = None;
        closed?;
        // The block's lines run from its `RELEASE` line to the line before
        // `at` (the last line itself, at an unterminated end).
        let (start, line) = self.open_start;
        self.blocks.push(Block {
            bytes: start..end,
            newlines: at.0 - line,
        });
        Ok(())
    }
}

/// From this size on, a text's SHA-256 is computed on a thread of its own
/// while the text is read (at about 1.8 GB/s with the SHA extensions,
/// 256 KiB hash in some 140 µs, several times what starting a thread
/// costs); a smaller text is hashed in the index's pass over its bytes.
const HASH_APART: usize = 256 * 1024;

/// Parses and validates a whole text, reusing the identical release blocks
/// of `previous` if it is a revision of the same artifact; also returns the
/// byte range of each release block.
pub(crate) fn parse(
    text: &str,
    interner: &mut Interner,
    previous: Option<Previous<'_>>,
) -> Result<(JournalRevision, Vec<Block>), JournalError> {
    if text.len() < HASH_APART {
        return parse_lines(text, interner, previous, true);
    }
    std::thread::scope(|scope| {
        let hashing = scope.spawn(|| Sha256::digest(text.as_bytes()));
        let digest = move || {
            let digest = hashing
                .join()
                .unwrap_or_else(|_| Sha256::digest(text.as_bytes()));
            RevisionDigest::from_bytes(digest.into())
        };
        read(
            text,
            interner,
            previous,
            true,
            Hashing::Apart(Box::new(digest)),
        )
    })
}

/// Where the digest of a text comes from.
enum Hashing<'h> {
    /// Computed by the index, in its pass over the text.
    Inline,
    /// Computed elsewhere (a thread of its own); asked once the text is read.
    Apart(Box<dyn FnOnce() -> RevisionDigest + 'h>),
}

/// [`parse`]; with `quick`, the lines written the usual way are read on
/// the structural index ([`Quick`]), the others with a [`Cursor`]; without,
/// every line with a `Cursor` (the reference reading the differential
/// tests compare the quick one with).
pub(crate) fn parse_lines(
    text: &str,
    interner: &mut Interner,
    previous: Option<Previous<'_>>,
    quick: bool,
) -> Result<(JournalRevision, Vec<Block>), JournalError> {
    read(text, interner, previous, quick, Hashing::Inline)
}

/// [`parse_lines`], the digest from `hashing`.
fn read(
    text: &str,
    interner: &mut Interner,
    previous: Option<Previous<'_>>,
    quick: bool,
    hashing: Hashing<'_>,
) -> Result<(JournalRevision, Vec<Block>), JournalError> {
    interner.forget_warmed();
    let mut lines = match hashing {
        Hashing::Inline => Lines::hashed(text, std::mem::take(&mut interner.buffers))?,
        Hashing::Apart(_) => Lines::new(text)?,
    };
    let mut header = Header::default();
    let mut body: Option<Body<'_>> = None;
    let mut any = false;
    loop {
        let start = lines.offset();
        let Some(line) = lines.next() else {
            break;
        };
        // A clean line of exactly two spaces and then neither a space nor
        // a `#` is a property line (what `classify` would say, without
        // asking it), read quickly when it is written the usual way.
        if quick
            && line.clean
            && matches!(line.text.as_bytes(), [b' ', b' ', c, ..] if *c != b' ' && *c != b'#')
            && let Some(body) = body.as_mut()
            && let Some(open) = body.open.as_mut()
        {
            let end = start + line.text.len();
            let quick = Quick::new(text, lines.index(), start + 2, end);
            let coordinate = body.revision.coordinate();
            if let Some(read) =
                open.quick_property(&mut body.builder, coordinate, &line, start, quick, interner)
            {
                read?;
                continue;
            }
        }
        let indent = match line.classify()? {
            LineClass::Ignorable => continue,
            LineClass::TopLevel => (LineClass::TopLevel, 0),
            LineClass::Property => (LineClass::Property, 2),
        };
        any = true;
        let mut cursor = Cursor::new(line, indent.1);
        let keyword = cursor.keyword();
        match body.as_mut() {
            Some(body) => {
                if let Some(block) = body.line(indent.0, keyword, cursor, text, start, interner)? {
                    // The reused block's `RELEASE` line was just read.
                    let read = lines.offset() - start;
                    lines.skip_block(
                        block.bytes.len().saturating_sub(read),
                        block.newlines.saturating_sub(1),
                    );
                }
            }
            None => {
                if let Some(mut revision) = header.line(indent.0, keyword, cursor, interner)? {
                    let reuse = previous
                        .filter(|p| p.revision.coordinate() == revision.coordinate())
                        .map(|previous| Reuse { previous, next: 0 });
                    // A successor restates its predecessor's releases and
                    // usually adds a few; without one, a release takes a
                    // few hundred bytes. Both lists are then allocated once.
                    let releases = reuse.as_ref().map_or(text.len() / 512, |r| {
                        r.previous.revision.releases().len() + 4
                    });
                    revision.reserve_releases(releases);
                    body = Some(Body {
                        revision,
                        stage: Stage::AfterDescription,
                        open: None,
                        builder: None,
                        open_start: (0, 0),
                        reuse,
                        blocks: Vec::with_capacity(releases),
                    });
                }
            }
        }
    }
    if !any {
        return Err(error::error(
            ErrorKind::EmptyInput,
            "found only blank and comment lines, expected a Journal revision starting with `FORMAT nenjim-journal/1`",
        ));
    }
    let end = lines.end();
    let Some(mut body) = body else {
        return Err(error::syntax_error(
            end.0,
            end.1,
            format!("found the end of the text, expected {}", header.expected()),
        ));
    };
    body.close(None, end, text.len())?;
    let blocks = body.blocks;
    let digest = match hashing {
        Hashing::Inline => lines.digest(),
        Hashing::Apart(digest) => digest(),
    };
    interner.buffers = lines.into_buffers();
    Ok((body.revision.build(digest), blocks))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)] // tests fail loudly

    use super::{Block, Previous, Reuse, parse};
    use crate::interner::Interner;

    const OLD: &str = "FORMAT nenjim-journal/1\nARTIFACT left-pad\n\
        JOURNAL_VERSION 20261129T101530Z\nPREDECESSOR GENESIS\nDESCRIPTION \"pads\"\n\
        \nRELEASE 1.0.0\n  LICENSE MIT\n  CONTENT sha256:1e0a5b9c3d2f4a6b8c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d 4821\n\
        \nRECOMMEND 1.0.0\n";
    const BLOCK: &str = "RELEASE 1.0.0\n  LICENSE MIT\n  CONTENT sha256:1e0a5b9c3d2f4a6b8c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d 4821\n";

    /// The block of `OLD`'s release 1.0.0 that `new` restates, if reused.
    fn reused(new: &str) -> Option<Block> {
        let (revision, blocks) =
            parse(OLD, &mut Interner::default(), None).unwrap_or_else(|e| panic!("{e}"));
        // The previous block ends with the empty line before the policy.
        assert!(
            OLD.get(blocks[0].bytes.clone())
                .is_some_and(|b| b.ends_with("\n\n"))
        );
        let previous = Previous {
            text: OLD,
            revision: &revision,
            blocks: &blocks,
        };
        let start = new.find("RELEASE 1.0.0")?;
        let mut reuse = Reuse { previous, next: 0 };
        reuse.next_block(new, start).map(|(_, block)| block)
    }

    #[test]
    fn a_block_is_reused_whatever_empty_lines_end_it() {
        let at = OLD.find(BLOCK).unwrap_or_else(|| panic!("the block"));
        let core = Block {
            bytes: at..at + BLOCK.len(),
            newlines: 3,
        };
        for new in [
            OLD.to_owned(),
            OLD.replace("4821\n\n", "4821\n"),
            OLD.replace("4821\n\n", "4821\n\n\n"),
            OLD.replace("4821\n\n", "4821\nRELEASE 1.1.0\n"),
            OLD.replace("4821\n\nRECOMMEND 1.0.0\n", "4821\n"),
            OLD.replace("4821\n\nRECOMMEND 1.0.0\n", "4821\n\n"),
        ] {
            assert_eq!(reused(&new), Some(core.clone()), "{new}");
        }
        // A line after the empty lines that may continue the block, or a
        // block that ends without its newline: read, not reused.
        for new in [
            OLD.replace("4821\n\n", "4821\n\n  # c\n"),
            OLD.replace("4821\n\n", "4821\n\n# c\n"),
            OLD.replace("4821\n\n", "4821\n  \n"),
            OLD.replace("4821\n\n", "4821\n\r\n"),
            OLD.replace("4821\n\nRECOMMEND 1.0.0\n", "4821"),
        ] {
            assert_eq!(reused(&new), None, "{new}");
        }
    }
}
