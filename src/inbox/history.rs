//! One message's history in an inbox: the record that queued it, the
//! records that consumed it, and what came after it (interrupts that park
//! it, messages that unpark). `trace` explains it; `cancel` acts on it.

use super::fold::Fold;
use super::record::{InboxLine, Message, Record, for_each_line, parse};
use serde_json::Value;
use std::io::BufRead;

/// What an inbox records about one message id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// The message record (`None`: not in this inbox, or compacted away).
    pub message: Option<Message>,
    /// When a claim record consumed it.
    pub claimed: Option<i64>,
    /// When a cancel record withdrew it.
    pub canceled: Option<i64>,
}

/// Where a message stands in its inbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Waiting; `ahead`: pending messages of its list queued before it.
    Pending {
        ahead: usize,
    },
    /// Waiting behind an interrupt: nothing is claimed until the next message.
    Parked,
    Claimed,
    Canceled,
    Unknown,
}

/// The ids of the message records of an inbox that start with `prefix`,
/// each once, in inbox order.
pub fn ids_with_prefix(reader: impl BufRead, prefix: &str) -> std::io::Result<Vec<String>> {
    let mut ids: Vec<String> = Vec::new();
    for_each_line(reader, |line| {
        let InboxLine::Line(l) = line else { return };
        if let Some(Record::Message { id, .. }) = parse::<Value>(l)
            && id.starts_with(prefix)
            && !ids.contains(&id)
        {
            ids.push(id);
        }
    })?;
    Ok(ids)
}

impl History {
    /// Read the history of `id` from an inbox.
    pub fn read(reader: impl BufRead, id: &str) -> std::io::Result<History> {
        let mut h = History::default();
        let mut position = 0usize;
        for_each_line(reader, |line| {
            let InboxLine::Line(l) = line else { return };
            let Some(record) = parse::<Value>(l) else {
                return;
            };
            let at = position;
            position += 1;
            match record {
                Record::Message {
                    id: mid,
                    time,
                    target,
                    source,
                    content,
                    ..
                } if mid == id && h.message.is_none() => {
                    h.message = Some(Message {
                        id: mid,
                        time,
                        target,
                        source,
                        content,
                        position: at,
                    })
                }
                Record::Claim { time, ids } if ids.iter().any(|i| i == id) => {
                    h.claimed.get_or_insert(time);
                }
                Record::Cancel { time, ids } if ids.iter().any(|i| i == id) => {
                    h.canceled.get_or_insert(time);
                }
                _ => {}
            }
        })?;
        Ok(h)
    }

    /// Its standing, given the inbox's fold (the pending and parked rules).
    pub fn standing(&self, fold: &Fold) -> Standing {
        let Some(m) = &self.message else {
            return if self.claimed.is_some() {
                Standing::Claimed
            } else if self.canceled.is_some() {
                Standing::Canceled
            } else {
                Standing::Unknown
            };
        };
        if fold.consumed.is_claimed(&m.id) {
            return Standing::Claimed;
        }
        if fold.consumed.is_canceled(&m.id) {
            return Standing::Canceled;
        }
        if fold.parked() {
            return Standing::Parked;
        }
        let ahead = fold
            .pending(m.target)
            .iter()
            .take_while(|p| p.id != m.id)
            .count();
        Standing::Pending { ahead }
    }
}
