//! Pure, atomic ingestion of Journal revisions into per-artifact hash chains (section 6).
#![forbid(unsafe_code)]
