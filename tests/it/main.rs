//! The one integration-test binary: every module drives the real
//! `dsh-agents` binary.

mod common;
mod completions;
mod conformance;
mod golden;
mod liveness;
mod spawn;
mod store_errors;
