//! Blocking on a backend's own tokio runtime, from any thread (feature
//! `tokio`): what the bucket and NATS backends, which offer no async API,
//! both do. Without the feature this crate compiles no async crate.

use std::io;

/// A backend's own runtime, blocked on by every call. A call made from a
/// thread of another async runtime (an async service that forgot
/// `spawn_blocking`) would make tokio panic ("cannot start a runtime from
/// within a runtime"): such a call is run on a thread of its own instead,
/// which blocks the caller's worker but never panics.
///
/// The runtime itself lives on a thread of its own and is dropped there
/// when the backend drops this (dropping a runtime inside another panics too).
#[derive(Debug)]
pub struct Blocking {
    handle: tokio::runtime::Handle,
    _stop: std::sync::mpsc::Sender<()>,
}

impl Blocking {
    /// Blocks on `runtime` (a multi-threaded one, whose handle drives it).
    pub fn new(runtime: tokio::runtime::Runtime) -> Blocking {
        let handle = runtime.handle().clone();
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            // Until this is dropped (the sender with it).
            let _ = stopped.recv();
            drop(runtime);
        });
        Blocking {
            handle,
            _stop: stop,
        }
    }

    /// The runtime's handle (to enter it).
    pub fn handle(&self) -> &tokio::runtime::Handle {
        &self.handle
    }

    /// Refuses a call from a thread of another async runtime (for a future
    /// that cannot be moved to a thread of its own).
    pub fn refuse_inside_a_runtime(&self) -> io::Result<()> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(io::Error::other(
                "called from inside an async runtime: call it from `tokio::task::spawn_blocking` (or a plain thread)",
            ));
        }
        Ok(())
    }

    /// Runs `future` here (the caller checked it is not inside a runtime).
    pub fn block_on_here<F: std::future::Future>(&self, future: F) -> F::Output {
        self.handle.block_on(future)
    }

    /// Runs `future` to its end.
    pub fn block_on<F>(&self, future: F) -> F::Output
    where
        F: std::future::Future + Send,
        F::Output: Send,
    {
        if tokio::runtime::Handle::try_current().is_err() {
            return self.handle.block_on(future);
        }
        std::thread::scope(
            |scope| match scope.spawn(|| self.handle.block_on(future)).join() {
                Ok(output) => output,
                Err(panic) => std::panic::resume_unwind(panic),
            },
        )
    }
}
