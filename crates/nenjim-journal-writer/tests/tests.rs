//! The writer's integration tests, in one test binary (every other file of
//! `tests/` a module of it): `writer` (the append path end to end, with the
//! children it runs of this same binary), `errors` (what its errors keep),
//! `batch` (batched appends: order, a refused text, a writer killed
//! during batches), `fence_to` (the fences a root copy keeps its source's sequences with)
//! and `fault_walk` (every call of a start and of a refresh of a root with
//! a ledger failed in turn).

mod batch;
mod errors;
mod fault_walk;
mod fence_to;
mod writer;
