//! The nom grammar of the Nenjim Journal text format (sections 1–5): text to revision, and back.
#![forbid(unsafe_code)]
