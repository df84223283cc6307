//! A session's transcript as the model saw it: rc.8's restore fold
//! (packed rows expanded, surface replaces and tool-result rewrites
//! applied, compaction summaries in place of what they shadow) projected
//! into turns of user messages, assistant output and tool calls.

use crate::error::LogError;
pub use crate::format::ending::Ending;
use crate::format::events::safe_int_value as safe_int;
use crate::log::log_events::for_each_event;
use serde_json::Value;
use std::path::Path;

/// Who a user-role message is from, by its recorded `source`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum From {
    User,
    /// A v2 `send_message` from a tree member (`senderSessionId`).
    Agent(String),
    /// A parent coordinator's relay (v1 `send_message`, subagent followups).
    Parent(String),
    /// A delegated child's `subagent_parent_message`.
    SubagentReport(String),
    /// A child's settlement notice (`subagent-settled`).
    SubagentSettled,
    /// The runtime-context snapshot DSH injects each step.
    RuntimeContext,
    /// A compaction summary standing for earlier messages.
    Compaction,
    Other(String),
}

impl From {
    pub fn of(source: &Value) -> From {
        let sender = || {
            source["senderSessionId"]
                .as_str()
                .unwrap_or("?")
                .to_string()
        };
        match source["kind"].as_str().unwrap_or("") {
            "user" => From::User,
            "agent-message" => From::Agent(sender()),
            "coordinator" => From::Parent(sender()),
            "subagent-message" => From::SubagentReport(sender()),
            "subagent-settled" => From::SubagentSettled,
            // rc.8's compaction checkpoint (`COMPACT_CHECKPOINT_MARKER`).
            "plugin" if source["plugin"] == "compact" => From::Compaction,
            "plugin" => From::RuntimeContext,
            k => From::Other(k.to_string()),
        }
    }

    /// A word for the kind of sender (the JSON `from` field).
    pub fn kind(&self) -> &str {
        match self {
            From::User => "user",
            From::Agent(_) => "agent",
            From::Parent(_) => "parent",
            From::SubagentReport(_) => "subagent-report",
            From::SubagentSettled => "subagent-settled",
            From::RuntimeContext => "runtime-context",
            From::Compaction => "compaction",
            From::Other(k) => k,
        }
    }

    pub fn sender(&self) -> Option<&str> {
        match self {
            From::Agent(s) | From::Parent(s) | From::SubagentReport(s) => Some(s),
            _ => None,
        }
    }
}

/// One model-visible item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    User {
        from: From,
        text: String,
        id: Option<String>,
        /// The sidecar message id a bridge delivery to a cold child carried
        /// (`source.dshAgentsMessageId`: rc.8 gives such a message a new id).
        relayed: Option<String>,
    },
    Assistant {
        text: String,
        reasoning: String,
        calls: Vec<Call>,
    },
    ToolResult {
        call_id: String,
        text: String,
        is_error: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// An item on the current surface, with the event that put it there.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub seq: u64,
    pub time: i64,
    /// The turn the event was written in (0: before any turn).
    pub turn: u64,
    /// It replaced earlier surface items (a compaction or a rewrite).
    pub replaced: usize,
    /// A later replace took it off the surface: the model saw it until then.
    pub shadowed: bool,
    pub item: Item,
}

/// A turn's bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub number: u64,
    pub start_seq: u64,
    pub started: i64,
    /// `(seq, time, ending)` of its `turn/end`; `None` while open.
    pub end: Option<(u64, i64, Ending)>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversation {
    pub turns: Vec<Turn>,
    /// Every surface item ever appended, in log order; `shadowed` marks
    /// the ones no longer on the surface.
    pub entries: Vec<Entry>,
    /// The current surface: indices into `entries`, in surface order.
    surface: Vec<usize>,
    /// Events read (the next seq).
    pub events: u64,
    /// The time of the newest event.
    pub last_time: i64,
}

/// The text blocks of a content list, one per line; a block that ends in
/// a space leads into the next on the same line (DSH's `Agent x sent a
/// message: ` framing).
fn text_of(blocks: &Value) -> String {
    let mut out = String::new();
    for b in blocks.as_array().into_iter().flatten() {
        if let Some(t) = b["text"].as_str() {
            if !out.is_empty() && !out.ends_with(' ') && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(t);
        }
    }
    out
}

impl Conversation {
    /// Fold the committed events of the log at `path`.
    pub fn read(path: &Path) -> Result<Conversation, LogError> {
        Conversation::read_from(path, 0).map(|(c, _)| c)
    }

    /// The conversation of the last `turns` turns (all of it for `None`),
    /// read from where they start when the log is raw: what the rest
    /// holds is not read. A tail whose surface edits reach back before it
    /// (a compaction replacing earlier items) is read whole, so what is
    /// shown is what a whole read shows. Also returns where it was read
    /// from, for a follower to read from again.
    pub fn read_last(path: &Path, turns: Option<usize>) -> Result<(Conversation, u64), LogError> {
        let Some(n) = turns else {
            return Ok((Conversation::read(path)?, 0));
        };
        if let Some(offset) = crate::log::log_tail::start_of_last_turns(path, n) {
            return match Conversation::read_from(path, offset)? {
                (c, false) => Ok((c, offset)),
                (_, true) => Ok((Conversation::read(path)?, 0)),
            };
        }
        // A Zstandard log is entered from its last frames when every frame
        // ends a line.
        if let Some((frame, within)) = crate::log::log_tail::zstd_start_of_last_turns(path, n) {
            return match Conversation::fold(|f| {
                crate::log::log_tail::for_each_event_from_frame(path, frame, within, f)
            })? {
                (c, false) => Ok((c, 0)),
                (_, true) => Ok((Conversation::read(path)?, 0)),
            };
        }
        // Else a first pass counts its turns without parsing a line, the
        // second folds the last ones, so memory follows what is shown.
        let total = crate::log::log_tail::count_turn_starts(path)?;
        if total <= n {
            return Ok((Conversation::read(path)?, 0));
        }
        let skip = total - n;
        match Conversation::fold(|f| {
            crate::log::log_tail::for_each_event_after_turns(path, skip, f)
        })? {
            (c, false) => Ok((c, 0)),
            (_, true) => Ok((Conversation::read(path)?, 0)),
        }
    }

    /// Fold the events from byte `offset` on (0: the whole log); also
    /// whether a surface edit reached back before the first event read.
    pub fn read_from(path: &Path, offset: u64) -> Result<(Conversation, bool), LogError> {
        Conversation::fold(|f| {
            if offset == 0 {
                for_each_event(path, f)
            } else {
                crate::log::log_tail::for_each_event_from(path, offset, f)
            }
        })
    }

    /// Fold the events `feed` hands over; also whether a surface edit
    /// reached back before the first of them.
    fn fold(
        feed: impl FnOnce(&mut dyn FnMut(&Value)) -> Result<(), LogError>,
    ) -> Result<(Conversation, bool), LogError> {
        let mut c = Conversation::default();
        let mut turn = 0u64;
        let mut first_seq: Option<u64> = None;
        let mut reaches_back = false;
        let mut fold = |ev: &Value| {
            let (seq, time) = event_seq_time(ev);
            let first = *first_seq.get_or_insert(seq);
            if replace_range(ev).is_some_and(|(start, _)| start < first) {
                reaches_back = true;
            }
            c.events = c.events.max(seq + 1);
            c.last_time = c.last_time.max(time);
            let data = &ev["data"];
            match ev["type"].as_str().unwrap_or("") {
                "turn/start" => {
                    turn = safe_int(data.get("turn")).unwrap_or(0).max(0) as u64;
                    c.turns.push(Turn {
                        number: turn,
                        start_seq: seq,
                        started: time,
                        end: None,
                    });
                }
                "turn/end" => {
                    let n = safe_int(data.get("turn")).unwrap_or(0).max(0) as u64;
                    if let Some(t) = c.turns.iter_mut().rev().find(|t| t.number == n) {
                        t.end = Some((seq, time, Ending::of(&data["reason"])));
                    }
                }
                ty @ ("user/message" | "assistant/message" | "tool/result") => {
                    let Some(item) = entry_item(ty, data) else {
                        return;
                    };
                    let entry_turn = safe_int(data.get("turn")).map_or(turn, |t| t.max(0) as u64);
                    let mut entry = Entry {
                        seq,
                        time,
                        turn: entry_turn,
                        replaced: 0,
                        shadowed: false,
                        item,
                    };
                    let at = c.entries.len();
                    let range = replace_range(ev).and_then(|(start, end)| {
                        let find = |q| c.surface.iter().position(|i| c.entries[*i].seq == q);
                        Some((find(start)?, find(end)?)).filter(|(s, e)| s <= e)
                    });
                    match range {
                        None => c.surface.push(at),
                        Some((s, e)) => {
                            entry.replaced = e - s + 1;
                            for i in c.surface.splice(s..=e, [at]).collect::<Vec<_>>() {
                                c.entries[i].shadowed = true;
                            }
                        }
                    }
                    c.entries.push(entry);
                }
                _ => {}
            }
        };
        feed(&mut fold)?;
        Ok((c, reaches_back))
    }

    /// Whether the log ends inside a turn.
    pub fn open_turn(&self) -> bool {
        self.turns.last().is_some_and(|t| t.end.is_none())
    }
}

/// An event's seq and time, as the fold reads them (missing: 0).
pub fn event_seq_time(ev: &Value) -> (u64, i64) {
    (
        safe_int(ev.get("seq")).unwrap_or(0).max(0) as u64,
        safe_int(ev.get("time")).unwrap_or(0),
    )
}

/// A replace's range: `{start, end}`, or `{startSeq, endSeq}` from format
/// generation 3 on (`store::format::generation::replace_keys`).
pub fn replace_range(ev: &Value) -> Option<(u64, u64)> {
    let op = ev.get("surfaceOp")?.as_object()?;
    let n = |k: &str| op.get(k).and_then(Value::as_u64);
    let (s, e) = crate::format::generation::replace_keys(3);
    Some((n("start").or(n(s))?, n("end").or(n(e))?))
}

pub fn entry_item(ty: &str, data: &Value) -> Option<Item> {
    Some(match ty {
        "user/message" => Item::User {
            from: From::of(&data["source"]),
            text: text_of(&data["content"]),
            id: data["id"].as_str().map(str::to_string),
            relayed: data["source"]["dshAgentsMessageId"]
                .as_str()
                .map(str::to_string),
        },
        "assistant/message" => {
            let message = &data["message"];
            let mut text = String::new();
            let mut reasoning = String::new();
            let mut calls = Vec::new();
            for b in message["content"].as_array().into_iter().flatten() {
                match b["type"].as_str().unwrap_or("") {
                    "text" => text.push_str(b["text"].as_str().unwrap_or("")),
                    "reasoning" | "thinking" => reasoning
                        .push_str(b["text"].as_str().or(b["reasoning"].as_str()).unwrap_or("")),
                    "tool-call" => calls.push(Call {
                        id: b["id"].as_str().unwrap_or("").to_string(),
                        name: b["name"].as_str().unwrap_or("").to_string(),
                        arguments: match &b["arguments"] {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        },
                    }),
                    _ => {}
                }
            }
            Item::Assistant {
                text,
                reasoning,
                calls,
            }
        }
        "tool/result" => {
            let block = &data["message"]["content"][0];
            Item::ToolResult {
                call_id: block["toolCallId"].as_str().unwrap_or("").to_string(),
                text: text_of(&block["content"]),
                is_error: block["isError"].as_bool().unwrap_or(false),
            }
        }
        _ => return None,
    })
}
