//! End-to-end tests of the built `nenjim-journal` binary, in one test
//! binary (every other file of `tests/` a module of it): `cluster` (NATS
//! roots on a 3-node JetStream cluster), `cache` (the
//! read-through cache of a bucket root, its GETs counted), `cli` (the read
//! commands, with `cli/people.rs` and `cli/warnings.rs`, `check`'s
//! summary of warnings that repeat), `publish` (the commands that write),
//! `keygen` (a note signer key written, never over a file), `operators`
//! (issue 20's unattended runs: the lease, `--wait`, signals,
//! `init`, `events --follow`), `operator_checks` (issue 20's checks at
//! publish time, root copies, S3 errors), `operators_combined` (where the
//! two meet), `s3` (the README's S3 example against moto's server) and
//! `verifiable` (issue 23: `checkpoint`, `verify`, `prove` checked by Go's
//! `tlog.CheckRecord`, `witness`, `verify --quorum`; `s3_verifiable` the
//! same on a bucket root against moto), `tls` (NATS and S3 roots over TLS,
//! with a test CA: trusted, refused, mutual TLS); `takeover` (issue 30: a
//! killed writer's lease taken over on every backend, a writer in another
//! PID namespace never taken for dead).

mod cache;
mod cli;
mod cluster;
mod keygen;
mod nats;
mod operator_checks;
mod operators;
mod operators_combined;
mod publish;
mod s3;
mod s3_verifiable;
mod takeover;
mod testmem;
mod tls;
mod verifiable;
