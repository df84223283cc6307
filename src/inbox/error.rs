//! Delivery failures: what can go wrong writing to an inbox.

use dsh_store::StoreError;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    /// The admission bound is reached.
    #[error("the inbox is full ({pending} pending messages, limit {limit})")]
    InboxFull { pending: usize, limit: usize },
    /// An interrupt stopped this (external) agent for good.
    #[error("the agent was stopped permanently by an interrupt; the message was not delivered")]
    Stopped,
    /// A caller-chosen id names an earlier message with another body.
    #[error("message id \"{id}\" was already sent with a different message ({}); nothing was written", .record.map_or_else(|| format!("kept in {}", dsh_store::files::KEYED_ARCHIVE), |n| format!("inbox record {n}")))]
    IdReused {
        id: String,
        /// The inbox record; `None`: the archive of compacted keyed
        /// messages holds it.
        record: Option<usize>,
    },
    /// A caller-chosen id is already used by a record that is not a message.
    #[error("message id \"{id}\" is already used by inbox record {record}; nothing was written")]
    IdTaken { id: String, record: usize },
    /// The record would exceed the line cap.
    #[error("the message is too large: its record would be {bytes} bytes, over the {} MiB record cap", .limit >> 20)]
    TooLarge { bytes: usize, limit: usize },
    /// The writer lock was not had within the bound.
    #[error("timed out after {:.1}s waiting for the lock on {}", .timeout.as_secs_f64(), .path.display())]
    LockTimeout { path: PathBuf, timeout: Duration },
    /// `cancel`: no message with this id is in the inbox.
    #[error("no message \"{id}\" in the inbox; nothing was written")]
    UnknownMessage { id: String },
    /// `cancel`: the message already left the pending lists.
    #[error("message \"{id}\" is no longer pending: it was {}; nothing was written", if *.claimed { "claimed (delivered to a turn)" } else { "canceled already" })]
    NotPending { id: String, claimed: bool },
    /// `cancel`: the message was handed to DSH (a bridge has it in flight,
    /// or the agent's log holds it): withdrawing it now could not stop it.
    #[error(
        "message \"{id}\" is already being delivered: it was handed to the DSH process that holds the agent; nothing was written"
    )]
    BeingDelivered { id: String },
    /// A store failure is shown as its own text (the wrapper adds
    /// nothing), so its cause is the store error's cause: the I/O error
    /// underneath is kept.
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_failure_keeps_its_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let e = DeliveryError::Store(StoreError::io("/x/inbox.jsonl", io));
        let cause = std::error::Error::source(&e).expect("the I/O error underneath");
        assert_eq!(cause.to_string(), "denied");
    }
}
