//! Blocking on the store's own runtime, from any thread.

use std::io;

/// The store's own runtime, blocked on by every call. A call made from a
/// thread of another async runtime (an async service that forgot
/// `spawn_blocking`) would make tokio panic ("cannot start a runtime from
/// within a runtime"): such a call is run on a thread of its own instead,
/// which blocks the caller's worker but never panics.
///
/// The runtime itself lives on a thread of its own and is dropped there
/// when the store is (dropping a runtime inside another panics too).
#[derive(Debug)]
pub(crate) struct Blocking {
    handle: tokio::runtime::Handle,
    _stop: std::sync::mpsc::Sender<()>,
}

impl Blocking {
    /// Blocks on `runtime` (a multi-threaded one, whose handle drives it).
    pub(crate) fn new(runtime: tokio::runtime::Runtime) -> Blocking {
        let handle = runtime.handle().clone();
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            // Until the store is dropped (the sender with it).
            let _ = stopped.recv();
            drop(runtime);
        });
        Blocking {
            handle,
            _stop: stop,
        }
    }

    /// Refuses a call from a thread of another async runtime (for a future
    /// that cannot be moved to a thread of its own).
    pub(crate) fn refuse_inside_a_runtime(&self) -> io::Result<()> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(io::Error::other(
                "called from inside an async runtime: call this store from `tokio::task::spawn_blocking` (or a plain thread)",
            ));
        }
        Ok(())
    }

    /// Runs `future` here (the caller checked it is not inside a runtime).
    pub(crate) fn block_on_here<F: std::future::Future>(&self, future: F) -> F::Output {
        self.handle.block_on(future)
    }

    /// Runs `future` to its end.
    pub(crate) fn block_on<F>(&self, future: F) -> F::Output
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
