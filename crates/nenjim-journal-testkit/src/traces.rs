//! The tracing events a test's code emits, collected: [`capture`] runs a
//! closure and returns every span opened and every event on its thread
//! meanwhile (those of other threads and other tests are not seen), with
//! its target, level, message and fields as text, so a test asserts what
//! a hub operator's log pipeline would see.
//!
//! The collector is the process's global subscriber, installed at the
//! first capture, interested in every callsite, and recording only on a
//! thread that captures. Not a scoped one per test (`with_default`): the
//! callsites' cached interest is computed from the dispatchers alive when
//! each is first hit, and a test running in parallel without a subscriber
//! could leave a callsite cached as uninteresting while another test's
//! scoped subscriber registered, losing its events now and then.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once, PoisonError};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};

/// One event or span as a subscriber saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Traced {
    /// Its target (the crate's name, here).
    pub target: String,
    /// Its level.
    pub level: Level,
    /// An event's message, or a span's name.
    pub message: String,
    /// Every other field, its value as text (a string without quotes).
    pub fields: BTreeMap<String, String>,
}

impl Traced {
    /// The field `name`, if it was recorded.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// What [`capture`] saw.
#[derive(Clone, Debug, Default)]
pub struct Captured {
    /// Every span opened, in order.
    pub spans: Vec<Traced>,
    /// Every event, in order.
    pub events: Vec<Traced>,
}

impl Captured {
    /// The events with the message `message`.
    pub fn events_said(&self, message: &str) -> Vec<&Traced> {
        self.events
            .iter()
            .filter(|e| e.message == message)
            .collect()
    }

    /// The one event with the message `message`.
    ///
    /// # Panics
    ///
    /// Unless there is exactly one, showing every event.
    pub fn one(&self, message: &str) -> &Traced {
        let found = self.events_said(message);
        match found.as_slice() {
            [one] => one,
            _ => panic!(
                "expected one event `{message}`, found {}: {:#?}",
                found.len(),
                self.events
            ),
        }
    }
}

/// Runs `work` with a collecting subscriber as this thread's default, and
/// returns its result and what was traced meanwhile (on this thread).
pub fn capture<T>(work: impl FnOnce() -> T) -> (T, Captured) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        tracing::subscriber::set_global_default(Collector::default())
            .expect("no other global tracing subscriber in a test binary");
        // Callsites hit before, cached as uninteresting, are asked again.
        tracing::callsite::rebuild_interest_cache();
    });
    let seen = Arc::new(Mutex::new(Captured::default()));
    CAPTURING.with(|c| *c.borrow_mut() = Some(seen.clone()));
    // Stops capturing on this thread however `work` ends.
    struct Stop;
    impl Drop for Stop {
        fn drop(&mut self) {
            CAPTURING.with(|c| *c.borrow_mut() = None);
        }
    }
    let stop = Stop;
    let value = work();
    drop(stop);
    let captured = seen.lock().unwrap_or_else(PoisonError::into_inner).clone();
    (value, captured)
}

thread_local! {
    /// Where this thread's spans and events go while it captures.
    static CAPTURING: RefCell<Option<Arc<Mutex<Captured>>>> = const { RefCell::new(None) };
}

/// Runs `record` on what this thread captures into, if it captures.
fn with_capture(record: impl FnOnce(&mut Captured)) {
    let target = CAPTURING.with(|c| c.borrow().clone());
    if let Some(seen) = target {
        record(&mut seen.lock().unwrap_or_else(PoisonError::into_inner));
    }
}

#[derive(Default)]
struct Collector {
    next_id: AtomicU64,
}

/// Collects a span's or an event's fields.
struct Fields<'a>(&'a mut Traced);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, value.to_owned());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.put(field, format!("{value:?}"));
    }
}

impl Fields<'_> {
    fn put(&mut self, field: &Field, value: String) {
        if field.name() == "message" {
            self.0.message = value;
        } else {
            self.0.fields.insert(field.name().to_owned(), value);
        }
    }
}

fn traced(metadata: &Metadata<'_>, message: &str) -> Traced {
    Traced {
        target: metadata.target().to_owned(),
        level: *metadata.level(),
        message: message.to_owned(),
        fields: BTreeMap::new(),
    }
}

impl Subscriber for Collector {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::always()
    }
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        with_capture(|seen| {
            let mut traced = traced(span.metadata(), span.metadata().name());
            span.record(&mut Fields(&mut traced));
            seen.spans.push(traced);
        });
        Id::from_u64(self.next_id.fetch_add(1, Ordering::Relaxed) + 1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        with_capture(|seen| {
            let mut traced = traced(event.metadata(), "");
            event.record(&mut Fields(&mut traced));
            seen.events.push(traced);
        });
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}
