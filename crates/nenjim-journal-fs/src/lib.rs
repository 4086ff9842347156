//! The read-only filesystem loader of a Journal root (section 7).
#![forbid(unsafe_code)]
