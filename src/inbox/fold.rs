//! The inbox fold (contract §6): pending = messages − claimed − canceled;
//! parked = an interrupt is newer than the newest message of either
//! target; what a step boundary claims. These rules live here only.
//!
//! A fold reads the inbox in two passes: a first learns which ids were
//! consumed (records read without their bodies), the second materializes
//! only the messages still pending, so memory follows pending work, not
//! history. A fold can resume from a `FoldPoint` after a prefix already
//! folded, so a large inbox costs only what it gained.

use super::id_list::{CANCELED, CLAIMED, IdList};
use super::record::{InboxLine, Message, Record, Target, for_each_line, for_each_line_at, parse};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Seek, SeekFrom};

/// Ids that left the pending lists: those consumed before a fold point as
/// one list of bytes (looked into only when asked, so resuming neither
/// parses nor rebuilds a set the size of the inbox's history unless it is
/// asked about many ids: `id_list`), those after it as sets.
#[derive(Debug, Default, Clone)]
pub struct Consumed {
    claimed: HashSet<String>,
    canceled: HashSet<String>,
    before: IdList,
}

impl Consumed {
    /// The pending rule: a message is pending until claimed or canceled.
    pub fn is_pending(&self, id: &str) -> bool {
        !self.is_claimed(id) && !self.is_canceled(id)
    }

    /// `is_pending` for an id known not to be in the list of ids consumed
    /// before the fold point.
    fn is_pending_since_point(&self, id: &str) -> bool {
        !self.claimed.contains(id) && !self.canceled.contains(id)
    }

    pub fn is_claimed(&self, id: &str) -> bool {
        self.claimed.contains(id) || self.before.contains(CLAIMED, id)
    }

    pub fn is_canceled(&self, id: &str) -> bool {
        self.canceled.contains(id) || self.before.contains(CANCELED, id)
    }

    fn claim(&mut self, ids: Vec<String>) {
        self.claimed.extend(ids);
    }

    fn cancel(&mut self, ids: Vec<String>) {
        self.canceled.extend(ids);
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
    /// Pending messages, read or not (`resume_as` may skip bodies).
    pending_total: usize,
}

/// Where a fold may resume: the folded state after a prefix of complete
/// lines. Message bodies are not kept: the pending ones are read again at
/// their offsets, so a resumed fold costs the new bytes plus what is pending.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FoldPoint {
    /// Bytes folded: the end of the last complete line.
    pub offset: u64,
    records: usize,
    last_interrupt: Option<usize>,
    last_message: Option<usize>,
    last_interrupt_id: Option<String>,
    stopped: bool,
    bad_lines: usize,
    /// Bytes of the consumed-id list this point stands on (`inbox.consumed`,
    /// kept beside the point: it grows by appending, never rewritten).
    consumed_len: u64,
    /// That list, loaded by the caller before resuming (`with_consumed`).
    #[serde(skip)]
    consumed: IdList,
    /// What the next point's list adds to this one's.
    #[serde(skip)]
    appended: Vec<u8>,
    /// Each call's reported ids that are still pending (no other can matter:
    /// a consumed id never becomes pending again).
    waits: Vec<(String, Vec<String>)>,
    /// Pending messages: id, line offset, record position.
    pending: Vec<(String, u64, usize, Target)>,
}

impl FoldPoint {
    /// The consumed-id list this point was loaded with.
    pub fn consumed_bytes(&self) -> &[u8] {
        self.consumed.as_bytes()
    }

    /// The consumed-id list's length this point needs.
    pub fn consumed_len(&self) -> u64 {
        self.consumed_len
    }

    /// This point with its consumed-id list; `None` when the list is not
    /// the one the point was made with (its length differs).
    pub fn with_consumed(mut self, list: IdList) -> Option<FoldPoint> {
        (list.len() == self.consumed_len).then(|| {
            self.consumed = list;
            self
        })
    }

    /// A fresh point's additions to its base list: written at byte
    /// `consumed_len() - appended().len()` of `inbox.consumed`.
    pub fn appended(&self) -> &[u8] {
        &self.appended
    }
}

impl Fold {
    /// Fold an inbox read from the start.
    pub fn read<R: BufRead + Seek>(reader: R) -> std::io::Result<Fold> {
        Fold::resume(reader, FoldPoint::default()).map(|(fold, _)| fold)
    }

    /// Fold the inbox from `point` on (`FoldPoint::default()`: from the
    /// start), and the point the next fold may resume from (none when a
    /// consumed id holds a newline). A first pass
    /// tallies records without their bodies; only the messages still
    /// pending are then read whole, so memory follows pending work, not
    /// history. A point that does not describe these bytes is an error.
    pub fn resume<R: BufRead + Seek>(
        reader: R,
        point: FoldPoint,
    ) -> std::io::Result<(Fold, Option<FoldPoint>)> {
        Fold::resume_as(reader, point, false)
    }

    /// `resume`; with `claimable_only`, only the bodies a claim can take are
    /// read (every next-step message, the oldest next-turn one), so a turn
    /// boundary costs what it claims, not what is queued: `messages` then
    /// holds those alone (`pending_count` still counts every pending one).
    pub fn resume_as<R: BufRead + Seek>(
        mut reader: R,
        point: FoldPoint,
        claimable_only: bool,
    ) -> std::io::Result<(Fold, Option<FoldPoint>)> {
        if point.consumed.len() != point.consumed_len {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "inbox fold point: its consumed-id list was not loaded",
            ));
        }
        let mut fold = Fold {
            messages: Vec::new(),
            consumed: Consumed {
                before: point.consumed,
                ..Consumed::default()
            },
            last_interrupt: point.last_interrupt,
            last_message: point.last_message,
            last_interrupt_id: point.last_interrupt_id,
            waits: point
                .waits
                .into_iter()
                .map(|(call, ids)| (call, ids.into_iter().collect()))
                .collect(),
            stopped: point.stopped,
            bad_lines: point.bad_lines,
            records: point.records,
            pending_total: 0,
        };
        let mut candidates = point.pending;
        // Those pending at the point were not consumed before it (its list
        // is what had been): only what came after can have consumed them,
        // and the list is not searched for them.
        let at_point = candidates.len();
        reader.seek(SeekFrom::Start(point.offset))?;
        let read = for_each_line_at(&mut reader, point.offset, |line, at| match line {
            InboxLine::Line(l) => match parse::<IgnoredAny>(l) {
                Some(r) => {
                    if let Record::Message { id, target, .. } = &r {
                        candidates.push((id.clone(), at, fold.records, *target));
                    }
                    fold.tally(r)
                }
                None => fold.bad_lines += 1,
            },
            InboxLine::TooLong => fold.bad_lines += 1,
        })?;
        let mut n = 0;
        candidates.retain(|(id, _, _, _)| {
            n += 1;
            if n <= at_point {
                fold.consumed.is_pending_since_point(id)
            } else {
                fold.consumed.is_pending(id)
            }
        });
        fold.pending_total = candidates.len();
        let mut turn_taken = false;
        for (id, at, position, target) in &candidates {
            if claimable_only && *target == Target::NextTurn {
                if turn_taken {
                    continue;
                }
                turn_taken = true;
            }
            reader.seek(SeekFrom::Start(*at))?;
            let mut lines = dsh_store::files::Lines::new(&mut reader, dsh_store::format::MAX_LINE);
            let line = match lines.next_line()? {
                dsh_store::files::Line::Complete(l) => l,
                _ => return Err(not_here(id)),
            };
            match parse::<Value>(line) {
                Some(Record::Message {
                    id: got,
                    time,
                    target,
                    source,
                    content,
                    ..
                }) if got == *id => fold.messages.push(Message {
                    id: got,
                    time,
                    target,
                    source,
                    content,
                    position: *position,
                }),
                _ => return Err(not_here(id)),
            }
        }
        let pending: HashSet<&str> = candidates.iter().map(|c| c.0.as_str()).collect();
        let consumed = &fold.consumed;
        let base = consumed.before.len();
        // An id with a newline cannot be listed: no point to resume from.
        let Some(appended) = IdList::entries(base, &consumed.claimed, &consumed.canceled) else {
            return Ok((fold, None));
        };
        let next = FoldPoint {
            offset: point.offset + read,
            records: fold.records,
            last_interrupt: fold.last_interrupt,
            last_message: fold.last_message,
            last_interrupt_id: fold.last_interrupt_id.clone(),
            stopped: fold.stopped,
            bad_lines: fold.bad_lines,
            consumed_len: base + appended.len() as u64,
            consumed: IdList::default(),
            appended,
            waits: fold
                .waits
                .iter()
                .map(|(call, ids)| {
                    let mut ids: Vec<String> = ids
                        .iter()
                        .filter(|i| pending.contains(i.as_str()))
                        .cloned()
                        .collect();
                    ids.sort();
                    (call.clone(), ids)
                })
                .collect(),
            pending: candidates,
        };
        Ok((fold, Some(next)))
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
            Record::Claim { ids, .. } => self.consumed.claim(ids),
            Record::Cancel { ids, .. } => self.consumed.cancel(ids),
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
        self.pending_total.max(self.messages.len())
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
        self.claimable_besides(|_| false)
    }

    /// `claimable`, with the messages `gone` names taken as claimed already
    /// (a bridge has handed them to DSH, which queues them itself).
    pub fn claimable_besides(&self, gone: impl Fn(&str) -> bool) -> Vec<&Message> {
        if self.parked() {
            return Vec::new();
        }
        let mut out: Vec<&Message> = self
            .pending(Target::NextStep)
            .into_iter()
            .filter(|m| !gone(&m.id))
            .collect();
        out.extend(
            self.pending(Target::NextTurn)
                .into_iter()
                .filter(|m| !gone(&m.id))
                .take(1),
        );
        out
    }
}

fn not_here(id: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("inbox fold point: message \"{id}\" is not at its offset"),
    )
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
            Some(Record::Claim { ids, .. }) => consumed.claim(ids),
            Some(Record::Cancel { ids, .. }) => consumed.cancel(ids),
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

    fn point_list(point: &FoldPoint) -> Vec<u8> {
        point.consumed.as_bytes().to_vec()
    }

    /// Resuming at any line boundary folds as a read from the start does
    /// (waits compared on pending ids, the only ones a wait looks at).
    #[test]
    fn a_resumed_fold_equals_a_full_one() {
        let turn = |id| message(id, "next-turn");
        let step = |id| message(id, "next-step");
        let wait = |ids: &[&str]| format!(r#"{{"type":"wait","time":5,"call":"c","ids":{ids:?}}}"#);
        let lines = vec![
            turn("a"),
            step("s"),
            wait(&["s"]),
            "not a record".to_string(),
            claim(&["a"]),
            interrupt(),
            turn("b"),
            step("t"),
            wait(&["t", "s"]),
            format!(r#"{{"type":"cancel","time":6,"ids":["b"]}}"#),
            claim(&["s"]),
            turn("c"),
            r#"{"type":"interrupt","id":"j","time":7,"source":{"kind":"user"},"permanent":true}"#
                .to_string(),
            turn("d"),
            step("u"),
        ];
        let text = lines.join("\n") + "\n" + &turn("torn")[..15];
        let bytes = text.as_bytes();
        let full = Fold::fold_bytes(bytes);
        let key = |f: &Fold| {
            let pending: Vec<&str> = f.messages.iter().map(|m| m.id.as_str()).collect();
            let waits: Vec<(String, Vec<String>)> = {
                let mut w: Vec<(String, Vec<String>)> = f
                    .waits
                    .iter()
                    .map(|(c, ids)| {
                        let mut ids: Vec<String> = ids
                            .iter()
                            .filter(|i| pending.contains(&i.as_str()))
                            .cloned()
                            .collect();
                        ids.sort();
                        (c.clone(), ids)
                    })
                    .collect();
                w.sort();
                w
            };
            let consumed: Vec<(bool, bool)> = ["a", "s", "t", "b", "c", "u", "torn", "z"]
                .iter()
                .map(|id| (f.consumed.is_claimed(id), f.consumed.is_canceled(id)))
                .collect();
            format!(
                "{:?} {consumed:?} {:?} {:?} {:?} {} {} {} {waits:?}",
                f.messages,
                f.last_interrupt,
                f.last_message,
                f.last_interrupt_id,
                f.stopped,
                f.bad_lines,
                f.records
            )
        };
        let mut boundaries = vec![0];
        let mut at = 0;
        for l in &lines {
            at += l.len() + 1;
            boundaries.push(at);
        }
        for cut in boundaries {
            let (_, point) =
                Fold::resume(std::io::Cursor::new(&bytes[..cut]), FoldPoint::default()).unwrap();
            let point = point.unwrap();
            assert_eq!(point.offset, cut as u64);
            // Without its consumed-id list a point is refused.
            if point.consumed_len() > 0 {
                assert!(Fold::resume(std::io::Cursor::new(bytes), point.clone()).is_err());
            }
            let list = IdList::from_bytes(point.appended().to_vec()).unwrap();
            let point = point.with_consumed(list).unwrap();
            let (resumed, next) = Fold::resume(std::io::Cursor::new(bytes), point.clone()).unwrap();
            assert_eq!(key(&resumed), key(&full), "resumed at byte {cut}");
            // Reading only what a claim can take claims the same, counts the same.
            let (lean, _) =
                Fold::resume_as(std::io::Cursor::new(bytes), point.clone(), true).unwrap();
            assert_eq!(
                lean.claimable(),
                full.claimable(),
                "claimable at byte {cut}"
            );
            assert_eq!(lean.pending_count(), full.pending_count());
            assert!(
                lean.messages.len() < full.messages.len(),
                "a queued body was skipped"
            );
            assert_eq!(lean.parked(), full.parked());
            let next = next.unwrap();
            assert_eq!(next.offset as usize, at, "the torn tail is left for later");
            // The next point's list is this one's plus what it appends.
            let mut grown = point_list(&point);
            grown.extend_from_slice(next.appended());
            let next = next
                .with_consumed(IdList::from_bytes(grown).unwrap())
                .unwrap();
            let (again, _) = Fold::resume(std::io::Cursor::new(bytes), next).unwrap();
            assert_eq!(
                key(&again),
                key(&full),
                "resumed at byte {cut}, then at the end"
            );
        }
        // A point that does not describe the bytes is refused.
        let (_, point) = Fold::resume(std::io::Cursor::new(bytes), FoldPoint::default()).unwrap();
        let point = point.unwrap();
        let list = IdList::from_bytes(point.appended().to_vec()).unwrap();
        let point = point.with_consumed(list).unwrap();
        // (a pending message no longer at its offset)
        let other = text.replace("\"u\"", "\"v\"");
        assert!(Fold::resume(std::io::Cursor::new(other.as_bytes()), point).is_err());
        // An id with a newline folds, and leaves no point to resume from.
        let odd = format!("{}\n{}\n", message("x\\ny", "next-turn"), claim(&["x\ny"]));
        let (f, point) =
            Fold::resume(std::io::Cursor::new(odd.as_bytes()), FoldPoint::default()).unwrap();
        assert!(point.is_none());
        assert_eq!(f.pending_count(), 0);
        assert!(f.consumed.is_claimed("x\ny"));
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
