//! Criterion benches of the Nenjim Journal (see the performance issue).
