//! SIGINT and SIGTERM as a flag (`signal_hook::flag`, no unsafe code).
//!
//! The commands that must not die half-way (the writing commands, `events
//! --follow`) call [`catch`] first: from then on a signal only sets the
//! flag, and the command checks [`requested`] where stopping is clean
//! (between two appends, while waiting for a lease, between two polls) and
//! stops there. Every other command keeps the default action (it dies at
//! once, which a read may do).

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Routes SIGINT and SIGTERM to the flag. If they cannot be caught (not a
/// Unix platform) they keep their default action, which loses nothing that
/// a crash would not (the writer's appends are atomic).
pub fn catch() {
    let flag = FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register(signal, Arc::clone(flag));
    }
}

/// Whether SIGINT or SIGTERM arrived since [`catch`].
pub fn requested() -> bool {
    FLAG.get().is_some_and(|f| f.load(Ordering::SeqCst))
}

/// Sleeps until `until`, waking early when a signal arrives; returns
/// whether one did.
pub fn sleep_until(until: Instant) -> bool {
    /// How often the flag is looked at while sleeping.
    const STEP: Duration = Duration::from_millis(50);
    loop {
        if requested() {
            return true;
        }
        let now = Instant::now();
        if now >= until {
            return false;
        }
        thread::sleep(STEP.min(until - now));
    }
}
