//! What a session log shows of messages handed to DSH: whether each id is
//! in a `user/message` of the transcript (the model sees it: delivered for
//! good), still pending in DSH's own inbox (DSH replays it on resume, so it
//! must not be handed again), or nowhere (a DSH process took it and died
//! before writing it down: it must be handed again). An id that only ever
//! appeared in a splice DSH later took into a turn, with no `user/message`
//! after it, counts as nowhere: rc.8 ends such a turn `interrupted` on
//! restart and the item is gone.

use super::log_error::LogError;
use super::reader::{for_each_event, inspect};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Where a handed message stands in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InLog {
    /// In a `user/message`: delivered.
    Transcript,
    /// Pending in DSH's own inbox: DSH has it and will run it.
    DshPending,
    /// Not there.
    Absent,
}

/// The message ids a log holds, read once.
#[derive(Debug, Clone, Default)]
pub struct LogMessages {
    transcript: HashSet<String>,
    dsh_pending: HashSet<String>,
}

/// The id a message carries in the log: its own, or the one a cold child's
/// delivery put in its source (rc.8 gives such a message a new id).
fn ids_of(m: &Value) -> impl Iterator<Item = &str> {
    [&m["id"], &m["source"]["dshAgentsMessageId"]]
        .into_iter()
        .filter_map(Value::as_str)
}

impl LogMessages {
    /// Read the log at `path`; an absent log holds nothing.
    pub fn read(path: &Path) -> Result<LogMessages, LogError> {
        if !path.exists() {
            return Ok(LogMessages::default());
        }
        let mut out = LogMessages::default();
        for_each_event(path, |ev| {
            if ev["type"] == "user/message" {
                out.transcript
                    .extend(ids_of(&ev["data"]).map(str::to_string));
            }
        })?;
        let native = inspect(path)?.native;
        for item in native.next_turn.iter().chain(native.next_step.iter()) {
            out.dsh_pending.insert(item.id.clone());
            if let Some(m) = &item.message {
                out.dsh_pending.extend(ids_of(m).map(str::to_string));
            }
        }
        Ok(out)
    }

    pub fn state(&self, id: &str) -> InLog {
        if self.transcript.contains(id) {
            InLog::Transcript
        } else if self.dsh_pending.contains(id) {
            InLog::DshPending
        } else {
            InLog::Absent
        }
    }
}

/// The log of the session in `dir`: the raw one, else the Zstandard one.
pub fn log_in(dir: &Path) -> Option<PathBuf> {
    super::generation::current_log(dir).filter(|p| p.is_file())
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

    #[test]
    fn where_each_id_stands() {
        let tmp = std::env::temp_dir().join(format!("delivered-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let splice = |start: u64, removed: u64, ins: Vec<Value>| json!({"type":"agent/inbox/spliced","data":{"target":"next-turn","start":start,"removedCount":removed,"inserted":ins}});
        let cold = json!({"role":"user","id":"rc8-new","content":[],"source":{"kind":"coordinator","dshAgentsMessageId":"m-cold"}});
        let path = log(
            &tmp,
            &[
                json!({"type":"turn/start","data":{"turn":1}}),
                splice(0, 0, vec![msg("m-run"), msg("m-lost"), msg("m-queued")]),
                // m-run and m-lost are taken into a turn; only m-run is written.
                splice(0, 2, vec![]),
                json!({"type":"user/message","data":msg("m-run"),"surfaceOp":"append"}),
                json!({"type":"user/message","data":cold,"surfaceOp":"append"}),
            ],
        );
        let got = LogMessages::read(&path).unwrap();
        let table = [
            ("m-run", InLog::Transcript),
            ("m-cold", InLog::Transcript),
            ("rc8-new", InLog::Transcript),
            ("m-queued", InLog::DshPending),
            ("m-lost", InLog::Absent),
            ("m-never", InLog::Absent),
        ];
        for (id, want) in table {
            assert_eq!(got.state(id), want, "{id}");
        }
        assert_eq!(
            LogMessages::read(&tmp.join("none.jsonl"))
                .unwrap()
                .state("m-run"),
            InLog::Absent
        );
        assert_eq!(log_in(&tmp), Some(path));
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
