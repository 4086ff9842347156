//! The reference Journal: assembly, process lifecycle and the passive manager.
#![forbid(unsafe_code)]
