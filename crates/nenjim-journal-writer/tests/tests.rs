//! The writer's integration tests, in one test binary (every other file of
//! `tests/` a module of it): `writer` (the append path end to end, with the
//! children it runs of this same binary; its `lease` and `loader`),
//! `errors` (what its errors keep),
//! `batch` (batched appends: order, a refused text, a writer killed
//! during batches), `batch_state` (the state a batch leaves, its parallel
//! parse), `fence_to` (the fences a root copy keeps its source's
//! sequences with), `fault_walk` (every call of a start and of a refresh of
//! a root with a ledger failed in turn), `signing` (signed roots: the
//! checkpoint and tiles after every commit, writers without the key
//! refused, a writer killed at random instants), `cadence` (checkpoints
//! at an interval: the prefix a verified load serves, the timer, the close,
//! a killed writer covered by the next, a torn checkpoint), `interop_go` (Go's
//! sumdb/note and tlog check a checkpoint and tiles this writer wrote)
//! `takeover_and_fencing` (the findings and probes of the writer's audit: a
//! lease at its last epoch, fenced and interrupted batches) and `traced`
//! (the tracing events of a takeover, appends, a start and a refresh);
//! the testkit's `killed` runs the kill rounds of `writer`, `batch`,
//! `signing` and `cadence`.

mod batch;
mod batch_state;
mod cadence;
mod errors;
mod fault_walk;
mod fence_to;
mod interop_go;
mod signing;
mod takeover_and_fencing;
mod traced;
mod writer;
