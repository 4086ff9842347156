//! The writer's integration tests, in one test binary (every other file of
//! `tests/` a module of it): `writer` (the append path end to end, with the
//! children it runs of this same binary) and `errors` (what its errors
//! keep).

mod errors;
mod writer;
