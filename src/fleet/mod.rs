//! The fleet: agents on many hosts, over NATS JetStream. One daemon per
//! host (`fleet daemon`) is the only process that speaks NATS; every other
//! command reads and writes files, as on one host.
//!
//! Invariants: the store files stay the truth (nothing here writes a DSH
//! log: a message reaches an agent only through its inbox's keyed append,
//! the path `followup --id` takes); a cross-host send is in the local
//! outbox, fsynced, before it is answered; it runs once because the
//! target's inbox refuses a reused id forever, not because of JetStream's
//! bounded deduplication window.

/// A line of a fleet daemon's log (stderr): its time first, so it lines
/// up with the hub nodes' logs, then what happened.
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!(
            "{} dsh-agents fleet: {}",
            $crate::support::clock::rfc3339($crate::support::clock::now_ms()),
            format_args!($($arg)*)
        )
    };
}

pub mod address;
pub mod ask;
pub mod daemon;
pub mod error;
pub mod hub;
pub mod local;
pub mod mail;
pub mod queue;
pub mod rows;
pub mod tree_view;

pub use error::FleetError;
