//! What a session log shows of messages handed to DSH, per message id,
//! following rc.8's own order of writes: a hand-off is inserted into DSH's
//! inbox (`agent/inbox/spliced`), taken by a step's claim (a removal without
//! an outcome), then written as a `user/message` right after that step's
//! `step/start` — or dropped unrun when the turn ends, a new turn starts or
//! the step starts without it (rc.8 never requeues claimed work), or when a
//! splice cancels it.
//!
//! Invariant: only what the log proves is said. `Transcript` (the model saw
//! it) and `DshPending` (DSH replays it) mean never hand it again; `Dropped`
//! means the log proves it never reached the model; `Taken` means a DSH
//! process took it into a step that has not written it yet — only the
//! process that took it knows whether it is still coming, so the bridge
//! never re-hands a `Taken` message to that process as if it were lost.

use crate::error::LogError;
use crate::log::reader::{for_each_own_event, inspect};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Where a handed message stands in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InLog {
    /// In a `user/message`: delivered.
    Transcript,
    /// Pending in DSH's own inbox: DSH has it and will run it.
    DshPending,
    /// Claimed into a step at the splice of this seq, not written yet: on
    /// its way to the model while the process that took it lives.
    Taken { seq: u64 },
    /// Taken or canceled at the splice of this seq and proven never to have
    /// reached the model: it must be handed again (once for this seq).
    Dropped { seq: u64 },
    /// Never in this log.
    Absent,
}

/// The message ids a log holds, read once.
#[derive(Debug, Clone, Default)]
pub struct LogMessages {
    /// How many `user/message` events carry each id.
    transcript: HashMap<String, u32>,
    /// How many turns that completed held each id: the promise is one.
    completed: HashMap<String, u32>,
    dsh_pending: HashSet<String>,
    /// Taken (`false`) or dropped (`true`), at the splice's seq.
    removed: HashMap<String, (u64, bool)>,
}

/// The ids a message carries in the log: its own, and the one a cold
/// child's delivery put in its source (rc.8 gives such a message a new id).
fn ids_of(m: &Value) -> impl Iterator<Item = &str> {
    let own = m["id"].as_str();
    let ours = m["source"]["dshAgentsMessageId"]
        .as_str()
        .filter(|o| Some(*o) != own);
    own.into_iter().chain(ours)
}

/// Where the walk stands relative to the last claim.
#[derive(Default)]
struct Walk {
    /// DSH's inbox lists, as the ids each item carries.
    lists: [Vec<Vec<String>>; 2],
    /// Taken, not yet written: the ids and the seq of their claim.
    claimed: Vec<(String, u64)>,
    /// Inside the run of `user/message`s right after a `step/start`.
    writing: bool,
    /// The ids given to the model in the turn open now.
    turn: Vec<String>,
}

impl Walk {
    fn list(&mut self, target: &str) -> Option<&mut Vec<Vec<String>>> {
        match target {
            "next-turn" => Some(&mut self.lists[0]),
            "next-step" => Some(&mut self.lists[1]),
            _ => None,
        }
    }
}

impl LogMessages {
    /// Read the log at `path`; an absent log holds nothing.
    pub fn read(path: &Path) -> Result<LogMessages, LogError> {
        if !path.exists() {
            return Ok(LogMessages::default());
        }
        let inspection = inspect(path)?;
        let mut out = LogMessages::default();
        let mut walk = Walk::default();
        for_each_own_event(path, &inspection.header, |ev| out.apply(&mut walk, ev))?;
        // DSH's inbox as the walk replayed it: each item under every id it
        // carries (`inspect` keeps an item's own id only).
        for ids in walk.lists.iter().flatten() {
            out.dsh_pending.extend(ids.iter().cloned());
        }
        // The claims still waiting for their step (or whose step's messages
        // may be in DSH's next write) stay `Taken`.
        for (id, seq) in walk.claimed {
            out.removed.insert(id, (seq, false));
        }
        Ok(out)
    }

    fn apply(&mut self, walk: &mut Walk, ev: &Value) {
        let ty = ev["type"].as_str().unwrap_or("");
        if ty == "user/message" && walk.writing {
            let ids: Vec<&str> = ids_of(&ev["data"]).collect();
            walk.claimed.retain(|(id, _)| !ids.contains(&id.as_str()));
        } else if walk.writing {
            // The step's messages are written together: the run is over.
            walk.writing = false;
            self.drop_claimed(walk);
        }
        match ty {
            "user/message" => {
                for id in ids_of(&ev["data"]) {
                    *self.transcript.entry(id.to_string()).or_default() += 1;
                    self.removed.remove(id);
                    walk.turn.push(id.to_string());
                }
            }
            "step/start" => {
                walk.writing = true;
            }
            "turn/start" => {
                self.drop_claimed(walk);
                walk.turn.clear();
            }
            "turn/end" => {
                self.drop_claimed(walk);
                let mut ids = std::mem::take(&mut walk.turn);
                if ev["data"]["reason"]["kind"] == "completed" {
                    ids.sort_unstable();
                    ids.dedup();
                    for id in ids {
                        *self.completed.entry(id).or_default() += 1;
                    }
                }
            }
            "agent/inbox/spliced" => self.splice(walk, &ev["data"], ev["seq"].as_u64()),
            _ => {}
        }
    }

    /// Every claim still waiting is dropped: its step came and went (or its
    /// turn ended) without writing it.
    fn drop_claimed(&mut self, walk: &mut Walk) {
        for (id, seq) in walk.claimed.drain(..) {
            self.removed.insert(id, (seq, true));
        }
    }

    fn splice(&mut self, walk: &mut Walk, data: &Value, seq: Option<u64>) {
        let seq = seq.unwrap_or(0);
        let canceled = data["outcome"] == "canceled";
        let Some(list) = walk.list(data["target"].as_str().unwrap_or("")) else {
            return;
        };
        let start = data["start"].as_u64().unwrap_or(0) as usize;
        let count = data["removedCount"].as_u64().unwrap_or(0) as usize;
        // A splice rc.8 refuses makes the session unresumable (`check`
        // says so); here it only ends what can be followed.
        let Some(end) = start.checked_add(count).filter(|e| *e <= list.len()) else {
            return;
        };
        let inserted: Vec<Vec<String>> = data["inserted"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|m| ids_of(m).map(str::to_string).collect())
                    .collect()
            })
            .unwrap_or_default();
        for ids in &inserted {
            for id in ids {
                self.removed.remove(id);
            }
        }
        let gone: Vec<Vec<String>> = list.splice(start..end, inserted).collect();
        for id in gone.into_iter().flatten() {
            if canceled {
                self.removed.insert(id, (seq, true));
            } else {
                walk.claimed.push((id, seq));
            }
        }
    }

    pub fn state(&self, id: &str) -> InLog {
        if self.transcript.contains_key(id) {
            InLog::Transcript
        } else if self.dsh_pending.contains(id) {
            InLog::DshPending
        } else {
            match self.removed.get(id) {
                Some((seq, false)) => InLog::Taken { seq: *seq },
                Some((seq, true)) => InLog::Dropped { seq: *seq },
                None => InLog::Absent,
            }
        }
    }

    /// The ids that ran in more than one completed turn, sorted. (A turn a
    /// crash cut short and its rerun are one run: only one completed.)
    pub fn twice(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = self
            .completed
            .iter()
            .filter(|(_, n)| **n > 1)
            .map(|(id, _)| id.as_str())
            .collect();
        ids.sort_unstable();
        ids
    }
}

/// The log of the session in `dir`: the raw one, else the Zstandard one.
pub fn log_in(dir: &Path) -> Option<PathBuf> {
    crate::files::log_name::current_log(dir).filter(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn log(dir: &Path, events: &[Value]) -> PathBuf {
        let path = dir.join("session.jsonl");
        let mut text = json!({"type":"session","version":0,"id":"s","createdAt":1,"cwd":"/w","delegationDepth":0})
            .to_string()
            + "\n";
        for (i, e) in events.iter().enumerate() {
            let mut e = e.clone();
            e["seq"] = json!(i);
            e["time"] = json!(1);
            text += &(e.to_string() + "\n");
        }
        std::fs::write(&path, text).unwrap();
        path
    }

    fn msg(id: &str) -> Value {
        json!({"role":"user","id":id,"content":[{"type":"text","text":id}],"source":{"kind":"user"}})
    }

    fn splice(target: &str, start: u64, removed: u64, ins: Vec<Value>) -> Value {
        json!({"type":"agent/inbox/spliced","data":{"target":target,"start":start,"removedCount":removed,"inserted":ins}})
    }

    fn user(id: &str) -> Value {
        json!({"type":"user/message","data":msg(id),"surfaceOp":"append"})
    }

    #[test]
    fn where_each_id_stands() {
        let tmp = std::env::temp_dir().join(format!("delivered-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let cold = json!({"role":"user","id":"rc8-new","content":[],"source":{"kind":"coordinator","dshAgentsMessageId":"m-cold"}});
        let cancel = |start: u64| json!({"type":"agent/inbox/spliced","data":{"target":"next-turn","start":start,"removedCount":1,"inserted":[],"outcome":"canceled"}});
        // The comment before each event names its seq.
        let path = log(
            &tmp,
            &[
                /* 0 */ json!({"type":"turn/start","data":{"turn":1}}),
                /* 1 */
                splice(
                    "next-turn",
                    0,
                    0,
                    vec![msg("m-run"), msg("m-ended"), msg("m-queued")],
                ),
                // m-run is claimed and written in its step.
                /* 2 */
                splice("next-turn", 0, 1, vec![]),
                /* 3 */ json!({"type":"step/start","data":{"turn":1,"step":1}}),
                /* 4 */ user("m-run"),
                /* 5 */ json!({"type":"step/end","data":{"turn":1,"step":1}}),
                // m-ended is claimed, then the turn ends without it.
                /* 6 */
                splice("next-turn", 0, 1, vec![]),
                /* 7 */
                json!({"type":"turn/end","data":{"turn":1,"reason":{"kind":"aborted"}}}),
                /* 8 */ json!({"type":"turn/start","data":{"turn":2}}),
                // A cold child's delivery, written under rc.8's own id.
                /* 9 */
                json!({"type":"user/message","data":cold,"surfaceOp":"append"}),
                // A steer claimed, then its step starts without it.
                /* 10 */
                splice("next-step", 0, 0, vec![msg("m-skipped")]),
                /* 11 */ splice("next-step", 0, 1, vec![]),
                /* 12 */ json!({"type":"step/start","data":{"turn":2,"step":1}}),
                /* 13 */ user("m-other"),
                /* 14 */ json!({"type":"step/end","data":{"turn":2,"step":1}}),
                // One canceled; the dropped steer handed again.
                /* 15 */
                splice("next-turn", 1, 0, vec![msg("m-canceled")]),
                /* 16 */ cancel(1),
                /* 17 */ splice("next-turn", 1, 0, vec![msg("m-skipped")]),
                /* 18 */ splice("next-turn", 2, 0, vec![msg("m-twice"), msg("m-taken")]),
                // Claims still waiting for their step: taken.
                /* 19 */
                splice("next-turn", 0, 1, vec![]),
                /* 20 */ user("m-twice"),
                /* 21 */ user("m-twice"),
                /* 22 */ splice("next-turn", 2, 1, vec![]),
            ],
        );
        let got = LogMessages::read(&path).unwrap();
        let table = [
            ("m-run", InLog::Transcript),
            ("m-cold", InLog::Transcript),
            ("rc8-new", InLog::Transcript),
            ("m-ended", InLog::Dropped { seq: 6 }),
            ("m-skipped", InLog::DshPending),
            ("m-canceled", InLog::Dropped { seq: 16 }),
            ("m-queued", InLog::Taken { seq: 19 }),
            ("m-taken", InLog::Taken { seq: 22 }),
            ("m-twice", InLog::Transcript),
            ("m-never", InLog::Absent),
        ];
        for (id, want) in table {
            assert_eq!(got.state(id), want, "{id}");
        }
        assert!(got.twice().is_empty(), "no turn completed twice");
        assert_eq!(
            LogMessages::read(&tmp.join("none.jsonl"))
                .unwrap()
                .state("m-run"),
            InLog::Absent
        );
        assert_eq!(log_in(&tmp), Some(path));
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn a_message_in_two_completed_turns_ran_twice_and_a_rerun_after_a_crash_did_not() {
        let tmp = std::env::temp_dir().join(format!("delivered-twice-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let end = |turn: u64, kind: &str| json!({"type":"turn/end","data":{"turn":turn,"reason":{"kind":kind}}});
        let start = |turn: u64| json!({"type":"turn/start","data":{"turn":turn}});
        let path = log(
            &tmp,
            &[
                start(1),
                user("m-rerun"),
                end(1, "interrupted"),
                start(2),
                user("m-rerun"),
                user("m-twice"),
                end(2, "completed"),
                start(3),
                user("m-twice"),
                user("m-twice"),
                end(3, "completed"),
                start(4),
                user("m-open"),
                end(4, "completed"),
                start(5),
                user("m-open"),
            ],
        );
        let got = LogMessages::read(&path).unwrap();
        assert_eq!(got.twice(), vec!["m-twice"]);
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
