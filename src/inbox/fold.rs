//! The inbox fold (DESIGN §6): pending = messages − claimed − canceled;
//! parked = an interrupt is newer than the newest message of either
//! target; what a step boundary claims. These rules live here only.
//!
//! A fold reads the inbox twice: a first pass learns which ids were
//! consumed (records read without their bodies), the second materializes
//! only the messages still pending, so memory follows pending work, not
//! history.

use super::record::{InboxLine, Message, Record, Target, for_each_line, parse};
use serde::de::IgnoredAny;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Seek, SeekFrom};

/// Ids that left the pending lists.
#[derive(Debug, Default, Clone)]
pub struct Consumed {
    pub claimed: HashSet<String>,
    pub canceled: HashSet<String>,
}

impl Consumed {
    /// The pending rule: a message is pending until claimed or canceled.
    pub fn is_pending(&self, id: &str) -> bool {
        !self.claimed.contains(id) && !self.canceled.contains(id)
    }
}

/// The folded state of an inbox.
#[derive(Debug, Default, Clone)]
pub struct Fold {
    /// Pending messages, in arrival order.
    pub messages: Vec<Message>,
    pub consumed: Consumed,
    /// Record index of the newest interrupt, and of the newest message.
    pub last_interrupt: Option<usize>,
    pub last_message: Option<usize>,
    /// The newest interrupt's id (stable across compaction).
    pub last_interrupt_id: Option<String>,
    /// Ids each root call's waits have reported.
    pub waits: HashMap<String, HashSet<String>>,
    /// A permanent interrupt was recorded.
    pub stopped: bool,
    /// Complete lines that are not records (never written by us).
    pub bad_lines: usize,
    pub records: usize,
}

impl Fold {
    /// Fold an inbox read from the start (the reader is rewound for the
    /// second pass).
    pub fn read<R: BufRead + Seek>(mut reader: R) -> std::io::Result<Fold> {
        let mut fold = Fold::default();
        for_each_line(&mut reader, |line| match line {
            InboxLine::Line(l) => match parse::<IgnoredAny>(l) {
                Some(r) => fold.tally(r),
                None => fold.bad_lines += 1,
            },
            InboxLine::TooLong => fold.bad_lines += 1,
        })?;
        reader.seek(SeekFrom::Start(0))?;
        let mut position = 0usize;
        let consumed = &fold.consumed;
        let messages = &mut fold.messages;
        for_each_line(reader, |line| {
            let InboxLine::Line(l) = line else { return };
            let Some(head) = parse::<IgnoredAny>(l) else {
                return;
            };
            let at = position;
            position += 1;
            let Record::Message { id, .. } = head else {
                return;
            };
            if !consumed.is_pending(&id) {
                return;
            }
            if let Some(Record::Message {
                id,
                time,
                target,
                source,
                content,
                ..
            }) = parse::<Value>(l)
            {
                messages.push(Message {
                    id,
                    time,
                    target,
                    source,
                    content,
                    position: at,
                });
            }
        })?;
        Ok(fold)
    }

    /// Fold bytes (fuzzing, tests).
    pub fn fold_bytes(bytes: &[u8]) -> Fold {
        Fold::read(std::io::Cursor::new(bytes)).unwrap_or_default()
    }

    fn tally(&mut self, record: Record<IgnoredAny>) {
        let position = self.records;
        self.records += 1;
        match record {
            Record::Message { .. } => self.last_message = Some(position),
            Record::Claim { ids, .. } => self.consumed.claimed.extend(ids),
            Record::Cancel { ids, .. } => self.consumed.canceled.extend(ids),
            Record::Interrupt { id, permanent, .. } => {
                self.last_interrupt = Some(position);
                self.last_interrupt_id = Some(id);
                self.stopped |= permanent;
            }
            Record::Wait { call, ids, .. } => self.waits.entry(call).or_default().extend(ids),
        }
    }

    /// Pending messages of one list, in arrival order.
    pub fn pending(&self, target: Target) -> Vec<&Message> {
        self.messages
            .iter()
            .filter(|m| m.target == target)
            .collect()
    }

    pub fn pending_count(&self) -> usize {
        self.messages.len()
    }

    /// Parked: an interrupt is newer than the newest message of either
    /// target. DSH keeps the inbox on an interrupt and does not resume on
    /// its own; the next message (of either target) unparks.
    pub fn parked(&self) -> bool {
        match (self.last_interrupt, self.last_message) {
            (Some(i), Some(m)) => i > m,
            (Some(_), None) => true,
            _ => false,
        }
    }

    /// What a step boundary claims: nothing while parked, else all pending
    /// next-step input plus the oldest pending next-turn message (FIFO: what
    /// an interrupt parked runs first).
    pub fn claimable(&self) -> Vec<&Message> {
        if self.parked() {
            return Vec::new();
        }
        let mut out = self.pending(Target::NextStep);
        out.extend(self.pending(Target::NextTurn).into_iter().take(1));
        out
    }
}

/// The pending count of an inbox. It reads records with the same definition
/// the fold uses, but without materializing message bodies.
pub fn count_pending(reader: impl BufRead) -> std::io::Result<usize> {
    let mut messages = Vec::new();
    let mut consumed = Consumed::default();
    for_each_line(reader, |line| {
        let InboxLine::Line(l) = line else { return };
        match parse::<IgnoredAny>(l) {
            Some(Record::Message { id, .. }) => messages.push(id),
            Some(Record::Claim { ids, .. }) => consumed.claimed.extend(ids),
            Some(Record::Cancel { ids, .. }) => consumed.canceled.extend(ids),
            _ => {}
        }
    })?;
    Ok(messages.iter().filter(|id| consumed.is_pending(id)).count())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: &str, target: &str) -> String {
        format!(
            r#"{{"type":"message","id":"{id}","time":1,"target":"{target}","source":{{"kind":"user"}},"content":[]}}"#
        )
    }

    fn interrupt() -> String {
        r#"{"type":"interrupt","id":"i","time":3,"source":{"kind":"user"}}"#.to_string()
    }

    fn claim(ids: &[&str]) -> String {
        format!(r#"{{"type":"claim","time":4,"ids":{ids:?}}}"#)
    }

    fn fold(lines: &[String]) -> Fold {
        let mut text = lines.join("\n");
        text.push('\n');
        Fold::fold_bytes(text.as_bytes())
    }

    /// (records, parked, what a step boundary claims)
    #[test]
    fn parking_and_claim_order() {
        let turn = |id| message(id, "next-turn");
        let step = |id| message(id, "next-step");
        let cases: Vec<(Vec<String>, bool, Vec<&str>)> = vec![
            (vec![], false, vec![]),
            (vec![turn("a"), turn("b")], false, vec!["a"]),
            (vec![turn("a"), step("s")], false, vec!["s", "a"]),
            (vec![interrupt()], true, vec![]),
            (vec![turn("a"), interrupt()], true, vec![]),
            // An interrupt parks next-step input too.
            (vec![step("s"), interrupt()], true, vec![]),
            (vec![step("s"), turn("a"), interrupt()], true, vec![]),
            // The next message of either target unparks; parked input runs first.
            (
                vec![step("s"), turn("a"), interrupt(), turn("b")],
                false,
                vec!["s", "a"],
            ),
            (
                vec![turn("a"), interrupt(), step("t")],
                false,
                vec!["t", "a"],
            ),
            (
                vec![step("s"), interrupt(), claim(&["s"]), step("t")],
                false,
                vec!["t"],
            ),
            // A claim is not a message: it does not unpark.
            (
                vec![turn("a"), turn("b"), interrupt(), claim(&["a"])],
                true,
                vec![],
            ),
        ];
        for (lines, parked, claims) in cases {
            let f = fold(&lines);
            assert_eq!(f.parked(), parked, "{lines:?}");
            let got: Vec<&str> = f.claimable().iter().map(|m| m.id.as_str()).collect();
            assert_eq!(got, claims, "{lines:?}");
            let text = lines.join("\n") + "\n";
            assert_eq!(
                count_pending(text.as_bytes()).unwrap(),
                f.pending_count(),
                "{lines:?}"
            );
        }
    }

    #[test]
    fn torn_and_foreign_lines() {
        let text = format!(
            "{}\n{}\n{}",
            message("a", "next-turn"),
            r#"{"type":"message","id":"x","time":1,"target":"elsewhere","source":{},"content":[]}"#,
            &message("b", "next-turn")[..20]
        );
        let f = Fold::fold_bytes(text.as_bytes());
        assert_eq!(f.pending_count(), 1, "the torn last line is not read");
        assert_eq!(f.bad_lines, 1, "an unknown target is not a record");
        assert_eq!(
            count_pending(text.as_bytes()).unwrap(),
            1,
            "nor is it counted"
        );
    }
}
