//! Settling a put whose answer is lost or refused: never a blind retry; the
//! object is read back and compared with what was sent.

use std::io;

use object_store::PutMode;
use object_store::path::Path as Key;

use crate::ObjectFs;
use crate::errors::io_error;

impl ObjectFs {
    /// Creates `key` with `bytes` if absent; a refusal or a lost answer is
    /// settled by reading the object back: `Ok(true)` if it now holds
    /// exactly `bytes` (this call's object, whose answer was lost, or the
    /// same bytes put before), `Ok(false)` if it holds others.
    pub(crate) fn create_settled(&self, key: &Key, bytes: &[u8]) -> io::Result<bool> {
        match self.put(key, bytes, PutMode::Create) {
            Ok(()) => Ok(true),
            Err(error) => match self.get_if_exists(key)? {
                Some(found) => {
                    let ours = found == bytes;
                    self.trace_settled(key, &error, if ours { "stored" } else { "another's" });
                    Ok(ours)
                }
                // Nothing there: the create failed (a refusal without an
                // object is a store that lies: report it as it came).
                None => {
                    self.trace_settled(key, &error, "absent");
                    Err(io_error(error))
                }
            },
        }
    }

    /// The event of a put whose answer was lost or refused, settled by
    /// reading the object back (warn): `location` (the store), `key`,
    /// `outcome` (`stored`: this put's bytes are there; `another's`:
    /// other bytes; `absent`: nothing, the put failed), `error` (the put's).
    pub(crate) fn trace_settled(&self, key: &Key, error: &object_store::Error, outcome: &str) {
        tracing::warn!(
            target: "nenjim_journal_objstore",
            location = %self.location,
            key = %key,
            outcome,
            error = %error,
            "put answer lost or refused; settled by reading the object back"
        );
    }
}
