//! End-to-end tests of the built `nenjim-journal` binary, in one test
//! binary (every other file of `tests/` a module of it): `cli` (the read
//! commands, with `cli/people.rs`), `publish` (the commands that write) and
//! `s3` (the README's S3 example against moto's server).

mod cli;
mod publish;
mod s3;
