//! Section 4 of the format: release blocks.
//!
//! A `RELEASE <version>` line opens an [`OpenRelease`]; its property lines
//! (two spaces of indentation) must come in the order `LICENSE`, `CONTENT`,
//! `DESCRIPTION`, `DEPENDS`*, `EXCLUDES`*, `PREFERS`*, with `LICENSE` and
//! `CONTENT` exactly once and `DESCRIPTION` at most once (syntax errors
//! otherwise). The next top-level line or the end of the text closes the
//! block. The semantic rules (duplicates, depends-and-excludes, the own
//! artifact) are the `ReleaseBuilder`'s; see `semantic.rs`.

use nenjim_journal_api::error::{self, ErrorContext as _, JournalError};
use nenjim_journal_api::model::ArtifactRelease;
use nenjim_journal_api::model::build::{self, ReleaseBuilder, RevisionBuilder};
use nenjim_journal_api::valuetypes::{
    ArtifactCoordinate, ContentDigest, ContentPointer, Description, LicenseExpression,
    ReleaseVersion,
};

use crate::interner::Interner;
use crate::lines::Line;
use crate::semantic::located;
use crate::tokens::{Cursor, Quick, Token, shown};

/// The release properties, in their required order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Property {
    License,
    Content,
    Description,
    Depends,
    Excludes,
    Prefers,
}

impl Property {
    /// The property a keyword names.
    pub(crate) fn from_keyword(keyword: &str) -> Option<Property> {
        Some(match keyword {
            "LICENSE" => Property::License,
            "CONTENT" => Property::Content,
            "DESCRIPTION" => Property::Description,
            "DEPENDS" => Property::Depends,
            "EXCLUDES" => Property::Excludes,
            "PREFERS" => Property::Prefers,
            _ => return None,
        })
    }

    fn keyword(self) -> &'static str {
        match self {
            Property::License => "LICENSE",
            Property::Content => "CONTENT",
            Property::Description => "DESCRIPTION",
            Property::Depends => "DEPENDS",
            Property::Excludes => "EXCLUDES",
            Property::Prefers => "PREFERS",
        }
    }

    fn repeatable(self) -> bool {
        matches!(
            self,
            Property::Depends | Property::Excludes | Property::Prefers
        )
    }
}

const ORDER: &str = "`LICENSE`, `CONTENT`, `DESCRIPTION`, `DEPENDS`, `EXCLUDES`, `PREFERS`";

/// A release block being read.
#[derive(Debug)]
pub(crate) struct OpenRelease {
    /// Line and 1-based character column of the version on the `RELEASE` line.
    line: usize,
    column: usize,
    version: ReleaseVersion,
    license: Option<LicenseExpression>,
    last: Option<Property>,
}

impl OpenRelease {
    /// Reads a `RELEASE <version>` line (its keyword already read) and checks
    /// that the release may come next in `revision`.
    pub(crate) fn open(
        mut cursor: Cursor<'_>,
        revision: &RevisionBuilder,
    ) -> Result<OpenRelease, JournalError> {
        let line = cursor.line();
        let (version, token) = cursor.value::<ReleaseVersion>("a release version")?;
        cursor.finish()?;
        located(revision.check_next_release(&version), &line, token.start)?;
        Ok(OpenRelease {
            line: line.number,
            column: line.column(token.start),
            version,
            license: None,
            last: None,
        })
    }

    /// [`open`](Self::open) for a `RELEASE` line that is byte for byte a
    /// line an earlier parse read as `version` (the first line of a
    /// restated block): the version is not read again; the release order
    /// is checked as `open` checks it, at the version's token.
    pub(crate) fn restated(
        mut cursor: Cursor<'_>,
        revision: &RevisionBuilder,
        version: &ReleaseVersion,
    ) -> Result<OpenRelease, JournalError> {
        let line = cursor.line();
        let token = cursor.token("a release version")?;
        located(revision.check_next_release(version), &line, token.start)?;
        Ok(OpenRelease {
            line: line.number,
            column: line.column(token.start),
            version: version.clone(),
            license: None,
            last: None,
        })
    }

    /// The version on the `RELEASE` line.
    pub(crate) fn version(&self) -> &ReleaseVersion {
        &self.version
    }

    /// Adds `release`, read earlier from a byte-identical block, instead of
    /// this block's properties.
    pub(crate) fn push_reused(
        &self,
        revision: &mut RevisionBuilder,
        release: ArtifactRelease,
    ) -> Result<(), JournalError> {
        revision
            .push_release(release)
            .map_err(|e| e.at(self.line, self.column))
    }

    /// Reads one property line (its keyword already read).
    pub(crate) fn property(
        &mut self,
        builder: &mut Option<ReleaseBuilder>,
        coordinate: &ArtifactCoordinate,
        keyword: Token<'_>,
        mut cursor: Cursor<'_>,
        interner: &mut Interner,
    ) -> Result<(), JournalError> {
        let line = cursor.line();
        let Some(property) = Property::from_keyword(keyword.text) else {
            return Err(line.syntax(
                keyword.start,
                format!(
                    "found {} in release {}, expected a release property ({ORDER})",
                    shown(keyword.text),
                    self.version
                ),
            ));
        };
        self.check_order(property, &line, keyword)?;
        self.last = Some(property);
        match property {
            Property::License => {
                let token = cursor.rest_of_line("an SPDX license expression")?;
                let license = interner
                    .license(token.text)
                    .map_err(|e| line.relocate(e, token.start))?;
                self.license = Some(license);
            }
            Property::Content => {
                let (digest, _) =
                    cursor.value::<ContentDigest>("a content digest `sha256:<hex>`")?;
                let size = cursor.token("a size in bytes")?;
                let size =
                    build::content_size(size.text).map_err(|e| line.relocate(e, size.start))?;
                cursor.finish()?;
                let Some(license) = self.license.take() else {
                    return Err(line.syntax(keyword.start, "found `CONTENT`, expected `LICENSE`"));
                };
                *builder = Some(ReleaseBuilder::new(
                    coordinate.clone(),
                    self.version.clone(),
                    license,
                    ContentPointer::new(digest, size),
                ));
            }
            Property::Description => {
                let (description, _) = interner.quoted(&mut cursor, "a quoted description")?;
                cursor.finish()?;
                Self::builder_mut(builder, &line, keyword)?.description(description);
            }
            Property::Depends => {
                let (artifact, at) = interner.coordinate(&mut cursor, "an artifact coordinate")?;
                let (requirement, _) = interner
                    .requirement(&mut cursor, "a requirement (`*`, a version or an interval)")?;
                let description = trailing_description(&mut cursor, interner)?;
                let builder = Self::builder_mut(builder, &line, keyword)?;
                let dependency = build::dependency(artifact, requirement, description);
                located(builder.push_dependency(dependency), &line, at.start)?;
            }
            Property::Excludes => {
                let (artifact, at) = interner.coordinate(&mut cursor, "an artifact coordinate")?;
                let requirement = if cursor.at_end() || cursor.next_is_quoted() {
                    None
                } else {
                    Some(
                        interner
                            .requirement(
                                &mut cursor,
                                "a requirement, a quoted description or the end of the line",
                            )?
                            .0,
                    )
                };
                let description = trailing_description(&mut cursor, interner)?;
                let builder = Self::builder_mut(builder, &line, keyword)?;
                let exclusion = build::exclusion(artifact, requirement, description);
                located(builder.push_exclusion(exclusion), &line, at.start)?;
            }
            Property::Prefers => {
                let (artifact, at) = interner.coordinate(&mut cursor, "an artifact coordinate")?;
                let (requirement, _) = interner
                    .requirement(&mut cursor, "a requirement (`*`, a version or an interval)")?;
                let description = trailing_description(&mut cursor, interner)?;
                let builder = Self::builder_mut(builder, &line, keyword)?;
                let preference = build::preference(artifact, requirement, description);
                located(builder.push_preference(preference), &line, at.start)?;
            }
        }
        Ok(())
    }

    /// Reads a property line written the usual way (see [`Quick`]) on the
    /// structural index, with exactly [`property`](Self::property)'s values
    /// and effects. `None` when the line is not read that way (an unusual
    /// spelling, a property out of order, a token that is not valid):
    /// nothing was changed, and the caller reads the line with `property`,
    /// which reports its error. `quick` starts after the indentation;
    /// `line_start` is the line's offset in the text.
    pub(crate) fn quick_property(
        &mut self,
        builder: &mut Option<ReleaseBuilder>,
        coordinate: &ArtifactCoordinate,
        line: &Line<'_>,
        line_start: usize,
        mut quick: Quick<'_>,
        interner: &mut Interner,
    ) -> Option<Result<(), JournalError>> {
        let property = Property::from_keyword(quick.keyword()?)?;
        if !self.in_order(property) {
            return None;
        }
        match property {
            Property::License => {
                let license = interner.license(quick.rest()?).ok()?;
                self.license = Some(license);
            }
            Property::Content => {
                let digest = quick.token()?.parse::<ContentDigest>().ok()?;
                let size = build::content_size(quick.token()?).ok()?;
                if !quick.at_end() {
                    return None;
                }
                let license = self.license.take()?;
                *builder = Some(ReleaseBuilder::new(
                    coordinate.clone(),
                    self.version.clone(),
                    license,
                    ContentPointer::new(digest, size),
                ));
            }
            Property::Description => {
                let description = interner.quoted_of(quick.quoted()?)?;
                if !quick.at_end() {
                    return None;
                }
                builder.as_mut()?.description(description);
            }
            Property::Depends | Property::Excludes | Property::Prefers => {
                if self.last < Some(Property::Depends)
                    && let Some(builder) = builder.as_mut()
                {
                    // The release's first list line: its lists are sized
                    // once, to the lines of the usual spelling that follow.
                    // Their coordinates and requirements are looked up
                    // next, at random in tables larger than the cache: the
                    // slots are read now, together, so that their misses
                    // overlap instead of coming one a line.
                    // (Not while the tables are small enough to stay in
                    // the cache, as in one parse of one text.)
                    let (d, e, p) = match interner.warming() {
                        Some(warm) => {
                            let counts = quick.list_lines(line_start, Some(|c, r| warm.add(c, r)));
                            interner.warm();
                            counts
                        }
                        None => quick.list_lines(line_start, None::<fn(&str, Option<&str>)>),
                    };
                    builder.reserve(d, e, p);
                }
                let at = quick.offset() + 1 - line_start;
                let artifact = interner.coordinate_of(quick.token()?)?;
                let requirement = if property == Property::Excludes
                    && (quick.at_end() || quick.next_is_quoted())
                {
                    None
                } else {
                    Some(interner.requirement_of(quick.token()?)?)
                };
                let description = if quick.at_end() {
                    None
                } else {
                    Some(interner.quoted_of(quick.quoted()?)?)
                };
                if !quick.at_end() {
                    return None;
                }
                let builder = builder.as_mut()?;
                let pushed = match (property, requirement) {
                    (Property::Depends, Some(requirement)) => builder
                        .push_dependency(build::dependency(artifact, requirement, description)),
                    (Property::Prefers, Some(requirement)) => builder
                        .push_preference(build::preference(artifact, requirement, description)),
                    (_, requirement) => {
                        builder.push_exclusion(build::exclusion(artifact, requirement, description))
                    }
                };
                self.last = Some(property);
                return Some(located(pushed, line, at));
            }
        }
        self.last = Some(property);
        Some(Ok(()))
    }

    /// Whether `property` may come next ([`check_order`](Self::check_order)
    /// would accept it).
    #[inline]
    fn in_order(&self, property: Property) -> bool {
        match self.last {
            None => property == Property::License,
            Some(Property::License) => property == Property::Content,
            Some(last) if last == property => property.repeatable(),
            Some(last) => property > last,
        }
    }

    /// Refuses a property out of order, missing before it, or repeated.
    fn check_order(
        &self,
        property: Property,
        line: &Line<'_>,
        keyword: Token<'_>,
    ) -> Result<(), JournalError> {
        let version = &self.version;
        let message = match self.last {
            None if property != Property::License => format!(
                "found `{}` in release {version}, expected `LICENSE <license>` first",
                property.keyword()
            ),
            Some(Property::License) if property != Property::Content => {
                if property == Property::License {
                    format!(
                        "found a second `LICENSE` in release {version}, expected `CONTENT <digest> <size>`"
                    )
                } else {
                    format!(
                        "found `{}` in release {version}, expected `CONTENT <digest> <size>` after `LICENSE`",
                        property.keyword()
                    )
                }
            }
            Some(last) if last == property && !property.repeatable() => format!(
                "found a second `{}` in release {version}, expected it at most once",
                property.keyword()
            ),
            Some(last) if property < last => format!(
                "found `{}` after `{}` in release {version}, expected the properties in the order {ORDER}",
                property.keyword(),
                last.keyword()
            ),
            _ => return Ok(()),
        };
        Err(line.syntax(keyword.start, message))
    }

    fn builder_mut<'b>(
        builder: &'b mut Option<ReleaseBuilder>,
        line: &Line<'_>,
        keyword: Token<'_>,
    ) -> Result<&'b mut ReleaseBuilder, JournalError> {
        match builder.as_mut() {
            Some(builder) => Ok(builder),
            None => Err(line.syntax(
                keyword.start,
                format!(
                    "found {}, expected `CONTENT <digest> <size>`",
                    shown(keyword.text)
                ),
            )),
        }
    }

    /// Closes the block at what `found` says (a top-level line or the end of
    /// the text, located at `at`; said only in an error) and adds the
    /// release to `revision`, built by `builder` (taken: `None` after).
    pub(crate) fn close(
        &self,
        builder: &mut Option<ReleaseBuilder>,
        revision: &mut RevisionBuilder,
        found: &dyn Fn() -> String,
        at: (usize, usize),
    ) -> Result<(), JournalError> {
        let Some(builder) = builder.take() else {
            let missing = if self.license.is_none() {
                "`  LICENSE <license>`"
            } else {
                "`  CONTENT <digest> <size>`"
            };
            return Err(error::syntax_error(
                at.0,
                at.1,
                format!(
                    "found {}, expected {missing} in release {} (required)",
                    found(),
                    self.version
                ),
            ));
        };
        revision
            .push_release(builder.build())
            .map_err(|e| e.at(self.line, self.column))
    }
}

/// The optional trailing quoted description of a DEPENDS, EXCLUDES or
/// PREFERS line, then the end of the line.
fn trailing_description(
    cursor: &mut Cursor<'_>,
    interner: &mut Interner,
) -> Result<Option<Description>, JournalError> {
    if cursor.at_end() {
        return Ok(None);
    }
    if !cursor.next_is_quoted() {
        cursor.finish_expecting("a quoted description or the end of the line")?;
    }
    let (description, _) = interner.quoted(cursor, "a quoted description")?;
    cursor.finish()?;
    Ok(Some(description))
}
