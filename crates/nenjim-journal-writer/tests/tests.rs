//! The writer's integration tests, in one test binary (every other file of
//! `tests/` a module of it): `writer` (the append path end to end, with the
//! children it runs of this same binary), `errors` (what its errors keep)
//! and `fence_to` (the fences a root copy keeps its source's sequences
//! with).

mod errors;
mod fence_to;
mod writer;
