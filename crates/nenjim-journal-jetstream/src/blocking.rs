//! Blocking on a connection's own runtime, from any thread.
//!
//! Every call of the backend blocks on the runtime its connection owns. A
//! call made from a thread of another async runtime (an async service that
//! forgot `spawn_blocking`) would make tokio panic ("cannot start a runtime
//! from within a runtime"), and so would dropping the runtime there: such a
//! call runs on a thread of its own instead (it blocks the caller's worker,
//! never panics), and the runtime lives and is dropped on a thread of its
//! own. The same holds in `nenjim-journal-objstore` (`blocking.rs`): two
//! backends, each on its client alone, so each has its copy.

/// A multi-threaded runtime, blocked on through its handle.
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
            // Until the connection is dropped (the sender with it).
            let _ = stopped.recv();
            drop(runtime);
        });
        Blocking {
            handle,
            _stop: stop,
        }
    }

    /// The runtime's handle (to enter it).
    pub(crate) fn handle(&self) -> &tokio::runtime::Handle {
        &self.handle
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
