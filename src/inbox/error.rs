//! Delivery failures: what can go wrong writing to an inbox.

use crate::store::StoreError;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug)]
pub enum DeliveryError {
    /// The admission bound is reached.
    InboxFull {
        pending: usize,
        limit: usize,
    },
    /// An interrupt stopped this (external) agent for good.
    Stopped,
    /// A caller-chosen id names an earlier message with another body.
    IdReused {
        id: String,
        /// The inbox record; `None`: the archive of compacted keyed
        /// messages holds it.
        record: Option<usize>,
    },
    /// A caller-chosen id is already used by a record that is not a message.
    IdTaken {
        id: String,
        record: usize,
    },
    /// The record would exceed the line cap.
    TooLarge {
        bytes: usize,
        limit: usize,
    },
    /// The writer lock was not had within the bound.
    LockTimeout {
        path: PathBuf,
        timeout: Duration,
    },
    /// `cancel`: no message with this id is in the inbox.
    UnknownMessage {
        id: String,
    },
    /// `cancel`: the message already left the pending lists.
    NotPending {
        id: String,
        claimed: bool,
    },
    /// `cancel`: the message was handed to DSH (a bridge has it in flight,
    /// or the agent's log holds it): withdrawing it now could not stop it.
    BeingDelivered {
        id: String,
    },
    Store(StoreError),
}

impl From<StoreError> for DeliveryError {
    fn from(e: StoreError) -> Self {
        DeliveryError::Store(e)
    }
}

impl fmt::Display for DeliveryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeliveryError::InboxFull { pending, limit } => write!(
                f,
                "the inbox is full ({pending} pending messages, limit {limit})"
            ),
            DeliveryError::Stopped => f.write_str(
                "the agent was stopped permanently by an interrupt; the message was not delivered",
            ),
            DeliveryError::IdReused { id, record } => {
                let at = match record {
                    Some(n) => format!("inbox record {n}"),
                    None => format!("kept in {}", crate::store::paths::KEYED_ARCHIVE),
                };
                write!(
                    f,
                    "message id \"{id}\" was already sent with a different message ({at}); nothing was written"
                )
            }
            DeliveryError::UnknownMessage { id } => {
                write!(f, "no message \"{id}\" in the inbox; nothing was written")
            }
            DeliveryError::NotPending { id, claimed } => write!(
                f,
                "message \"{id}\" is no longer pending: it was {}; nothing was written",
                if *claimed {
                    "claimed (delivered to a turn)"
                } else {
                    "canceled already"
                }
            ),
            DeliveryError::BeingDelivered { id } => write!(
                f,
                "message \"{id}\" is already being delivered: it was handed to the DSH process that holds the agent; nothing was written"
            ),
            DeliveryError::IdTaken { id, record } => write!(
                f,
                "message id \"{id}\" is already used by inbox record {record}; nothing was written"
            ),
            DeliveryError::TooLarge { bytes, limit } => write!(
                f,
                "the message is too large: its record would be {bytes} bytes, over the {} MiB record cap",
                limit >> 20
            ),
            DeliveryError::LockTimeout { path, timeout } => write!(
                f,
                "timed out after {:.1}s waiting for the lock on {}",
                timeout.as_secs_f64(),
                path.display()
            ),
            DeliveryError::Store(e) => e.fmt(f),
        }
    }
}

/// A store failure is shown as its own text (the wrapper adds nothing), so
/// its cause is the store error's cause: the I/O error underneath is kept.
impl std::error::Error for DeliveryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DeliveryError::Store(e) => std::error::Error::source(e),
            _ => None,
        }
    }
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
