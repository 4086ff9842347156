//! `events <root> [--after N] [--coordinate C]... [--kind K]... [--limit N]
//! [--json | --format text|json|atom] [--examples]`: the event feed of the
//! reference Journal (`JournalService::replay_events`), oldest first, as
//! text lines, JSON lines or an Atom feed of the newest events.
//!
//! Text and JSON lines are written as the cursor yields them (nothing but
//! the current output chunk is kept); with `--limit` (and always for Atom)
//! only the newest N selected events are kept while the feed is read.

use std::collections::{BTreeSet, VecDeque};
use std::path::Path;

use nenjim_journal_api::model::{EventChange, JournalEvent, ReplayRequest};
use nenjim_journal_api::valuetypes::ArtifactCoordinate;

use super::unknown_artifact;
use crate::args::{EventFormat, EventKind, EventsArgs};
use crate::atom;
use crate::failure::{CliError, Status};
use crate::load::load;
use crate::report::{EventJson, Mark, change_text};
use crate::ui::{Paint, Ui};

/// How many events an Atom feed holds unless `--limit` says otherwise.
pub const ATOM_DEFAULT_LIMIT: usize = 50;

/// Output is handed to stdout in chunks of about this many bytes.
const CHUNK_BYTES: usize = 64 * 1024;

/// An event and its position among the events of its revision (0-based,
/// counted before any selection, so it names the event whatever the filters).
pub struct Numbered {
    pub event: JournalEvent,
    pub index: usize,
}

pub fn run(args: &EventsArgs, ui: &Ui) -> Result<Status, CliError> {
    let loaded = load(&args.root, ui)?;
    let service = &*loaded.service;
    let coordinates: BTreeSet<ArtifactCoordinate> = args.coordinates.iter().cloned().collect();
    if !coordinates.is_empty() {
        let known = service.coordinates()?;
        if let Some(unknown) = coordinates.iter().find(|c| !known.contains(*c)) {
            return Err(unknown_artifact(&known, &args.root.root, unknown));
        }
    }
    let selected = |event: &JournalEvent| {
        (coordinates.is_empty() || coordinates.contains(event.coordinate()))
            && (args.kinds.is_empty() || args.kinds.contains(&kind_of(event.change())))
    };
    let format = args.format();
    let limit = match format {
        EventFormat::Atom => Some(args.limit.unwrap_or(ATOM_DEFAULT_LIMIT)),
        EventFormat::Text | EventFormat::Json => args.limit,
    };
    let columns = match format {
        EventFormat::Text => Columns::of(service, &coordinates)?,
        EventFormat::Json | EventFormat::Atom => Columns::default(),
    };
    let mut cursor = service.replay_events(&ReplayRequest::after(args.after))?;
    let mut position = Position::default();
    let mut output = Output::new(ui);
    let mut newest: VecDeque<Numbered> = VecDeque::new();
    while let Some(event) = cursor.next()? {
        let index = position.index_of(&event);
        if !selected(&event) {
            continue;
        }
        match limit {
            None => output.push(&line(format, &event, &columns, ui)?)?,
            Some(0) => {}
            Some(n) => {
                if newest.len() == n {
                    newest.pop_front();
                }
                newest.push_back(Numbered { event, index });
            }
        }
    }
    match format {
        EventFormat::Atom => {
            let root =
                std::path::absolute(&args.root.root).unwrap_or_else(|_| args.root.root.clone());
            output.push(&atom::feed(&root, newest.iter().rev()))?;
        }
        EventFormat::Text | EventFormat::Json => {
            for numbered in &newest {
                output.push(&line(format, &numbered.event, &columns, ui)?)?;
            }
        }
    }
    output.finish()?;
    Ok(Status::Ok)
}

/// Counts the events of each revision as the cursor yields them.
#[derive(Default)]
struct Position {
    sequence: u64,
    next: usize,
}

impl Position {
    fn index_of(&mut self, event: &JournalEvent) -> usize {
        if event.sequence() != self.sequence {
            self.sequence = event.sequence();
            self.next = 0;
        }
        let index = self.next;
        self.next += 1;
        index
    }
}

/// The `--kind` an event belongs to.
fn kind_of(change: &EventChange) -> EventKind {
    match change {
        EventChange::ArtifactCreated => EventKind::Created,
        EventChange::ReleasePublished(_) => EventKind::Release,
        EventChange::PolicyWithdrawn(_) | EventChange::PolicyStated(_) => EventKind::Policy,
        // DescriptionChanged, InformationChanged, and any later header-like kind.
        _ => EventKind::Header,
    }
}

/// The widths of the text lines' columns, so that they line up: the
/// sequence as wide as the root's greatest, the coordinate as the longest
/// selected one (Journal versions all have the same width).
#[derive(Debug, Default)]
struct Columns {
    sequence: usize,
    coordinate: usize,
}

impl Columns {
    /// The widths for the events of `selected` (every artifact when empty).
    fn of(
        service: &dyn nenjim_journal_api::JournalService,
        selected: &BTreeSet<ArtifactCoordinate>,
    ) -> Result<Columns, CliError> {
        let mut columns = Columns::default();
        for coordinate in service.coordinates()? {
            if let Some(latest) = service.latest(&coordinate)? {
                columns.sequence = columns.sequence.max(latest.sequence().to_string().len());
            }
            if selected.is_empty() || selected.contains(&coordinate) {
                columns.coordinate = columns.coordinate.max(coordinate.as_str().chars().count());
            }
        }
        Ok(columns)
    }
}

/// One output line (with its newline) of a text or JSON listing.
fn line(
    format: EventFormat,
    event: &JournalEvent,
    columns: &Columns,
    ui: &Ui,
) -> Result<String, CliError> {
    if format == EventFormat::Json {
        let mut text = serde_json::to_string(&EventJson::of(event))
            .map_err(|e| CliError::io(Path::new("<stdout>"), "cannot encode JSON", e.into()))?;
        text.push('\n');
        return Ok(text);
    }
    let coordinate = event.coordinate().as_str();
    let pad = " ".repeat(
        columns
            .coordinate
            .saturating_sub(coordinate.chars().count()),
    );
    Ok(format!(
        "{:>width$}  {}  {}{pad}  {}\n",
        event.sequence(),
        event.journal_version(),
        ui.out(Paint::Strong, coordinate),
        marked(event.change(), ui),
        width = columns.sequence
    ))
}

/// `+ RELEASE 1.0.0`, with the mark painted for stdout.
pub fn marked(change: &EventChange, ui: &Ui) -> String {
    let (mark, text) = change_text(change);
    let paint = match mark {
        Mark::Created | Mark::Added => Paint::Good,
        Mark::Removed => Paint::Warn,
        Mark::Changed => Paint::Strong,
    };
    format!("{} {text}", ui.out(paint, mark.symbol()))
}

/// Stdout in chunks: a long feed is never held whole.
struct Output<'a> {
    ui: &'a Ui,
    chunk: String,
}

impl<'a> Output<'a> {
    fn new(ui: &'a Ui) -> Output<'a> {
        Output {
            ui,
            chunk: String::new(),
        }
    }
    fn push(&mut self, text: &str) -> Result<(), CliError> {
        self.chunk.push_str(text);
        if self.chunk.len() >= CHUNK_BYTES {
            self.ui.print(&self.chunk)?;
            self.chunk.clear();
        }
        Ok(())
    }
    fn finish(self) -> Result<(), CliError> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        self.ui.print(&self.chunk)
    }
}
