//! DSH's own inbox, held in the session log: the `agent/inbox/spliced`
//! events replayed from `header.seedLength` exactly as rc.8's `Inbox`
//! constructor replays them (bounds, ids unique across both lists), with the
//! first splice rc.8 would refuse kept as an error (the session cannot be
//! resumed past it), and the parked state an aborted turn leaves.

use crate::error::LogError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One pending item of DSH's inbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NativeItem {
    pub id: String,
    /// The seq of the splice that inserted it.
    pub seq: u64,
    /// The `UserMessage` itself; kept only by full reads (`keep_bodies`).
    #[serde(skip)]
    pub message: Option<Value>,
}

/// The replayed lists; `error` is the first splice rc.8 refuses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NativeInbox {
    pub next_turn: Vec<NativeItem>,
    pub next_step: Vec<NativeItem>,
    pub error: Option<SpliceError>,
    #[serde(skip)]
    pub keep_bodies: bool,
}

/// The first splice rc.8 refuses, at session seq `seq`: past it DSH cannot
/// resume the session. Kept in the scan cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpliceError {
    pub seq: u64,
    pub problem: SpliceProblem,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SpliceProblem {
    /// A bad target list, count or item (rc.8's "invalid inbox splice").
    Invalid,
    /// An id already pending in either list.
    AlreadyPending { id: String },
}

impl std::fmt::Display for SpliceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid persisted inbox splice at session seq {}: ",
            self.seq
        )?;
        match &self.problem {
            SpliceProblem::Invalid => f.write_str("invalid inbox splice"),
            SpliceProblem::AlreadyPending { id } => {
                write!(f, "message \"{id}\" is already pending")
            }
        }
    }
}

impl std::error::Error for SpliceError {}

impl NativeInbox {
    pub fn with_bodies() -> NativeInbox {
        NativeInbox {
            keep_bodies: true,
            ..NativeInbox::default()
        }
    }

    pub fn pending(&self) -> usize {
        self.next_turn.len() + self.next_step.len()
    }

    /// Replay one `agent/inbox/spliced` event's data at `seq` (a session
    /// event at or after `seedLength`).
    pub fn apply(&mut self, data: &Value, seq: u64) {
        if self.error.is_some() {
            return;
        }
        if let Err(problem) = self.splice(data, seq) {
            self.error = Some(SpliceError { seq, problem });
        }
    }

    fn splice(&mut self, data: &Value, seq: u64) -> Result<(), SpliceProblem> {
        let keep = self.keep_bodies;
        let list = match data["target"].as_str() {
            Some("next-turn") => &mut self.next_turn,
            Some("next-step") => &mut self.next_step,
            _ => return Err(SpliceProblem::Invalid),
        };
        let count = |v: Option<&Value>| -> Result<usize, SpliceProblem> {
            match v {
                None => Ok(0),
                Some(n) => n.as_u64().map(|n| n as usize).ok_or(SpliceProblem::Invalid),
            }
        };
        let start = count(Some(&data["start"]))?;
        let removed = count(data.get("removedCount"))?;
        // A crafted count must not overflow: it is data, not a length we made.
        if start > list.len()
            || start
                .checked_add(removed)
                .is_none_or(|end| end > list.len())
        {
            return Err(SpliceProblem::Invalid);
        }
        let inserted = data["inserted"].as_array().ok_or(SpliceProblem::Invalid)?;
        let mut items = Vec::with_capacity(inserted.len());
        for m in inserted {
            let id = m["id"]
                .as_str()
                .filter(|s| !s.is_empty())
                .ok_or(SpliceProblem::Invalid)?;
            items.push(NativeItem {
                id: id.to_string(),
                seq,
                message: keep.then(|| m.clone()),
            });
        }
        list.splice(start..start + removed, items);
        let mut seen = std::collections::HashSet::new();
        for item in self.next_turn.iter().chain(self.next_step.iter()) {
            if !seen.insert(item.id.as_str()) {
                return Err(SpliceProblem::AlreadyPending {
                    id: item.id.clone(),
                });
            }
        }
        Ok(())
    }
}

/// DSH's inbox of the log at `path`, with message bodies (for views).
/// Only the session's own splices count (after its inherited cut).
pub fn read(
    path: &std::path::Path,
    header: &crate::format::header::Header,
) -> Result<NativeInbox, LogError> {
    let mut inbox = NativeInbox::with_bodies();
    crate::log::log_events::for_each_own_event(path, header, |ev| {
        if ev["type"] == "agent/inbox/spliced" {
            inbox.apply(&ev["data"], ev["seq"].as_u64().unwrap_or(0));
        }
    })?;
    Ok(inbox)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn m(id: &str) -> Value {
        json!({"content":[{"type":"text","text":id}],"source":{"kind":"user"},"role":"user","id":id})
    }

    #[test]
    fn crafted_counts_are_refused_not_panicked_on() {
        for data in [
            json!({"target":"next-turn","start":0,"removedCount":u64::MAX,"inserted":[]}),
            json!({"target":"next-turn","start":u64::MAX,"removedCount":u64::MAX,"inserted":[]}),
            json!({"target":"next-step","start":1,"removedCount":usize::MAX,"inserted":[]}),
        ] {
            let mut inbox = NativeInbox::default();
            inbox.apply(
                &json!({"target":"next-step","start":0,"inserted":[m("a")]}),
                0,
            );
            inbox.apply(&data, 1);
            assert!(inbox.error.is_some(), "{data}");
        }
    }

    #[test]
    fn replay_rules() {
        type Case = (
            &'static str,
            Vec<Value>,
            (usize, usize),
            Option<SpliceProblem>,
        );
        let cases: Vec<Case> = vec![
            (
                "append then claim",
                vec![
                    json!({"target":"next-turn","start":0,"inserted":[m("a")]}),
                    json!({"target":"next-turn","start":1,"inserted":[m("b")]}),
                    json!({"target":"next-turn","start":0,"removedCount":1,"inserted":[]}),
                ],
                (1, 0),
                None,
            ),
            (
                "cancellation",
                vec![
                    json!({"target":"next-step","start":0,"inserted":[m("a"), m("b")]}),
                    json!({"target":"next-step","start":1,"removedCount":1,"inserted":[],"outcome":"canceled"}),
                ],
                (0, 1),
                None,
            ),
            (
                "start beyond the list",
                vec![json!({"target":"next-turn","start":1,"inserted":[m("a")]})],
                (0, 0),
                Some(SpliceProblem::Invalid),
            ),
            (
                "removal beyond the list",
                vec![
                    json!({"target":"next-turn","start":0,"inserted":[m("a")]}),
                    json!({"target":"next-turn","start":0,"removedCount":2,"inserted":[]}),
                ],
                (1, 0),
                Some(SpliceProblem::Invalid),
            ),
            (
                "an id pending in the other list",
                vec![
                    json!({"target":"next-turn","start":0,"inserted":[m("a")]}),
                    json!({"target":"next-step","start":0,"inserted":[m("a")]}),
                ],
                (1, 1),
                Some(SpliceProblem::AlreadyPending { id: "a".into() }),
            ),
            (
                "a bad target",
                vec![json!({"target":"later","start":0,"inserted":[]})],
                (0, 0),
                Some(SpliceProblem::Invalid),
            ),
        ];
        for (what, splices, (turn, step), error) in cases {
            let mut inbox = NativeInbox::default();
            for (seq, s) in splices.iter().enumerate() {
                inbox.apply(s, seq as u64 + 10);
            }
            assert_eq!(
                (inbox.next_turn.len(), inbox.next_step.len()),
                (turn, step),
                "{what}"
            );
            match (error, &inbox.error) {
                (None, None) => {}
                (Some(want), Some(got)) => {
                    assert_eq!(want, got.problem, "{what}");
                    let text = got.to_string();
                    assert!(
                        text.starts_with(&format!(
                            "invalid persisted inbox splice at session seq {}: ",
                            got.seq
                        )),
                        "{what}: {text}"
                    );
                }
                (want, got) => panic!("{what}: want {want:?}, got {got:?}"),
            }
        }
    }
}
