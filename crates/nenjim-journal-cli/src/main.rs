//! The `nenjim-journal` command: check, inspect, author and verify Journal roots.
#![forbid(unsafe_code)]

fn main() {}
