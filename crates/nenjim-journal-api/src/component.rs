//! The component and process contracts every Nenjim service shares.

use crate::error::JournalError;

/// Something a Nenjim hub registers under a stable name.
pub trait NenjimComponent: Send + Sync {
    /// Stable registration name, e.g. `"nenjim.journal"`.
    fn component_name(&self) -> &str;
}

/// A component with a single-use lifecycle: start once, stop once.
pub trait NenjimProcess: Send + Sync {
    /// Single use: the first call is the only accepted attempt; every later
    /// call fails with [`ErrorKind::AlreadyStarted`](crate::error::ErrorKind::AlreadyStarted).
    fn start(&self) -> Result<(), JournalError>;
    /// After stop, queries and refresh fail with
    /// [`ErrorKind::Stopped`](crate::error::ErrorKind::Stopped). Idempotent.
    fn stop(&self) -> Result<(), JournalError>;
}
