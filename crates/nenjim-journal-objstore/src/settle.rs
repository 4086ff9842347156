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
                Some(found) => Ok(found == bytes),
                // Nothing there: the create failed (a refusal without an
                // object is a store that lies: report it as it came).
                None => Err(io_error(error)),
            },
        }
    }
}
