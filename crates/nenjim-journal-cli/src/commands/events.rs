//! `events <root> [--after N] [--coordinate C]... [--kind K]... [--limit N]
//! [--json | --format text|json|atom] [--examples]`: the event feed of the
//! reference Journal (`JournalService::replay_events`), oldest first, as
//! text lines, JSON lines or an Atom feed of the newest events.
//!
//! Text and JSON lines are written as the cursor yields them (nothing but
//! the current output chunk is kept); with `--limit` (and always for Atom)
//! only the newest N selected events are kept while the feed is read.
//!
//! `--follow` then goes on: each time its source of new revisions
//! ([`NewRevisions`], the one seam) says there may be more, the feed is
//! read again after the last sequence seen and each new event printed (and
//! flushed) at once, until SIGINT or SIGTERM, or a closed stdout, ends it
//! with exit code 0. A root that can notify (NATS) is followed live: a
//! `replay_events` cursor with `follow(true)` after the last sequence
//! printed, each event printed as it arrives. On a directory or a bucket
//! (which refuse `follow(true)`) the source is [`Polling`]: an explicit
//! `refresh()` of the root every `--interval` (default 2 s).

use std::collections::{BTreeSet, VecDeque};
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nenjim_journal_api::JournalServiceManager;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::model::{EventChange, JournalEvent, ReplayRequest};
use nenjim_journal_api::valuetypes::ArtifactCoordinate;

use super::unknown_artifact;
use crate::args::{EventFormat, EventKind, EventsArgs};
use crate::atom;
use crate::failure::{CliError, Status};
use crate::load::load;
use crate::report::EventJson;
use crate::ui::{Paint, Ui};

/// How many events an Atom feed holds unless `--limit` says otherwise.
pub const ATOM_DEFAULT_LIMIT: usize = 50;

/// How often `--follow` refreshes a directory or a bucket unless `--interval` says otherwise.
pub const FOLLOW_INTERVAL: Duration = Duration::from_secs(2);

/// Output is handed to stdout in chunks of about this many bytes.
const CHUNK_BYTES: usize = 64 * 1024;

/// An event and its position among the events of its revision (0-based,
/// counted before any selection, so it names the event whatever the filters).
pub struct Numbered {
    pub event: JournalEvent,
    pub index: usize,
}

pub fn run(args: &EventsArgs, ui: &Ui) -> Result<Status, CliError> {
    if args.follow && args.format() == EventFormat::Atom {
        return Err(CliError::usage(
            "FollowUnsupported",
            "found --follow with --format atom, expected text or JSON lines (an Atom feed is one document: poll it instead)",
        ));
    }
    if args.follow {
        // From here on a signal ends the follow after its last whole line.
        crate::interrupt::catch();
    }
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
    let mut columns = match format {
        EventFormat::Text => Columns::of(service, &coordinates)?,
        EventFormat::Json | EventFormat::Atom => Columns::default(),
    };
    let mut cursor = service.replay_events(&ReplayRequest::after(args.after))?;
    let mut position = Position::default();
    let mut output = Output::new(ui);
    let mut newest: VecDeque<Numbered> = VecDeque::new();
    // The last sequence read (selected or not): where a follow resumes.
    let mut last = args.after;
    while let Some(event) = cursor.next()? {
        last = last.max(event.sequence());
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
    if !args.follow {
        return Ok(Status::Ok);
    }
    let mut print = |event: &JournalEvent, text: &mut String| -> Result<(), CliError> {
        if selected(event) {
            // Aligned with the lines before; wider only when needed.
            if format == EventFormat::Text {
                columns.fit(event);
            }
            text.push_str(&line(format, event, &columns, ui)?);
        }
        Ok(())
    };
    // A root that can notify (NATS) follows live; the others poll.
    match service.replay_events(&ReplayRequest::after(last).follow(true)) {
        Ok(mut live) => loop {
            let mut text = String::new();
            // Everything that is there now, then a short wait for more.
            let mut wait = LIVE_WAIT;
            let mut outage = false;
            loop {
                match live.next_timeout(wait) {
                    Ok(Some(event)) => {
                        last = last.max(event.sequence());
                        print(&event, &mut text)?;
                        wait = Duration::ZERO;
                    }
                    Ok(None) => break,
                    // The server restarts, a leader is being elected: what
                    // was read is printed, and following resumes after it.
                    Err(e) if e.kind() == ErrorKind::Unavailable => {
                        outage = true;
                        break;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            if !emit(&text)? || crate::interrupt::requested() {
                break;
            }
            if outage {
                match resume(service, last)? {
                    Some(cursor) => live = cursor,
                    None => break, // interrupted while waiting
                }
            }
        },
        Err(e) if e.kind() == ErrorKind::FollowUnsupported => {
            let interval = args.interval.unwrap_or(FOLLOW_INTERVAL);
            let mut source = Polling::new(Arc::clone(&loaded.manager), interval);
            while source.more()? {
                let mut cursor = service.replay_events(&ReplayRequest::after(last))?;
                let mut text = String::new();
                while let Some(event) = cursor.next()? {
                    last = last.max(event.sequence());
                    print(&event, &mut text)?;
                }
                if !emit(&text)? {
                    break; // stdout was closed: nobody reads any more
                }
            }
        }
        Err(e) => return Err(e.into()),
    }
    Ok(Status::Ok)
}

/// How long a live follow waits for the next event before it looks for a
/// signal again (an event is printed as soon as it arrives).
const LIVE_WAIT: Duration = Duration::from_millis(200);

/// A live follow after an outage: a new cursor after `last` (the last
/// sequence printed or passed over), once the backend answers again; `None`
/// when SIGINT or SIGTERM came first. Nothing is printed twice or skipped:
/// the cursor starts after `last`.
fn resume(
    service: &dyn nenjim_journal_api::JournalService,
    last: u64,
) -> Result<Option<Box<dyn nenjim_journal_api::model::EventCursor + '_>>, CliError> {
    loop {
        if crate::interrupt::requested() {
            return Ok(None);
        }
        std::thread::sleep(RESUME_PAUSE);
        match service.replay_events(&ReplayRequest::after(last).follow(true)) {
            Ok(cursor) => return Ok(Some(cursor)),
            Err(e) if e.kind() == ErrorKind::Unavailable => {}
            Err(e) => return Err(e.into()),
        }
    }
}

/// The pause before a live follow tries its backend again after an outage.
const RESUME_PAUSE: Duration = Duration::from_millis(500);

/// Where `--follow` learns that new revisions may be there: the one seam
/// between following and the backend.
trait NewRevisions {
    /// Waits until new revisions may have been published to the service
    /// (made visible to its queries), or until following must end: `Ok(false)`
    /// after SIGINT or SIGTERM.
    fn more(&mut self) -> Result<bool, CliError>;
}

/// A directory or a bucket: nothing notifies, so the root is refreshed
/// (`JournalServiceManager::refresh`) every `interval`.
struct Polling {
    manager: Arc<dyn JournalServiceManager>,
    interval: Duration,
}

impl Polling {
    fn new(manager: Arc<dyn JournalServiceManager>, interval: Duration) -> Polling {
        Polling { manager, interval }
    }
}

impl NewRevisions for Polling {
    fn more(&mut self) -> Result<bool, CliError> {
        if crate::interrupt::sleep_until(Instant::now() + self.interval) {
            return Ok(false);
        }
        self.manager.refresh()?;
        Ok(true)
    }
}

/// Writes `text` to stdout and flushes it; `Ok(false)` once stdout is closed.
fn emit(text: &str) -> Result<bool, CliError> {
    if text.is_empty() {
        return Ok(true);
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(CliError::io(Path::new("<stdout>"), "cannot write", e)),
    }
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

    /// Widens the columns for a followed `event` that they are too narrow for
    /// (a later sequence with more digits, a longer new coordinate).
    fn fit(&mut self, event: &JournalEvent) {
        self.sequence = self.sequence.max(event.sequence().to_string().len());
        self.coordinate = self
            .coordinate
            .max(event.coordinate().as_str().chars().count());
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

/// `+ RELEASE 1.0.0`: the change's `Display`, with its mark painted for
/// stdout (created, published or stated good; withdrawn a warning; a
/// changed header value strong).
pub fn marked(change: &EventChange, ui: &Ui) -> String {
    let paint = match change {
        EventChange::ArtifactCreated
        | EventChange::ReleasePublished(_)
        | EventChange::PolicyStated(_) => Paint::Good,
        EventChange::PolicyWithdrawn(_) => Paint::Warn,
        _ => Paint::Strong,
    };
    format!("{} {change:#}", ui.out(paint, &change.mark().to_string()))
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
