//! The one integration-test binary: every module drives the real
//! `dsh-agents` binary.

#![allow(clippy::unwrap_used)] // a test or a benchmark stops at its first surprise

#[macro_use]
mod common;
mod bridge;
mod completions;
mod concurrency;
mod conformance;
mod differential;
mod events;
mod faults;
mod fleet;
mod generations;
mod golden;
mod guarantees;
mod hostile;
mod incremental;
mod liveness;
mod located;
mod messaging;
mod operator;
mod otel;
mod reading;
mod recovery;
mod rules;
mod runtime;
mod sharing;
mod spawn;
mod store_errors;
mod usage;
