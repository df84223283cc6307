//! Inbox records (contract §6): one JSON object per line. One definition
//! reads them all; it is generic over the payload so admission can check a
//! record's shape without materializing message bodies.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Which pending list a message joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Target {
    /// Queue as the next turn
    #[serde(rename = "next-turn")]
    NextTurn,
    /// Inject at the next step
    #[serde(rename = "next-step")]
    NextStep,
}

impl Target {
    pub fn as_str(self) -> &'static str {
        match self {
            Target::NextTurn => "next-turn",
            Target::NextStep => "next-step",
        }
    }
}

/// The longest caller-chosen message id, in bytes: ids travel in receipts,
/// file names of tools that key by them, and DSH transcripts.
pub const MAX_MESSAGE_ID_BYTES: usize = 128;

/// Why a caller-chosen message id is refused, if it is.
pub fn message_id_problem(id: &str) -> Option<String> {
    if id.is_empty() {
        return Some("a message id cannot be empty".into());
    }
    if id.len() > MAX_MESSAGE_ID_BYTES {
        return Some(format!(
            "a message id is at most {MAX_MESSAGE_ID_BYTES} bytes (this one has {})",
            id.len()
        ));
    }
    if id.chars().any(char::is_control) {
        return Some("a message id cannot hold control characters".into());
    }
    None
}

/// One inbox record; `P` is how source and content payloads are held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[serde(bound(serialize = "P: Serialize", deserialize = "P: Deserialize<'de>"))]
pub enum Record<P = Value> {
    Message {
        id: String,
        time: i64,
        target: Target,
        source: P,
        content: Vec<P>,
        /// The id was chosen by the sender (`--id`): compaction keeps the
        /// record after it is consumed, so a retried send stays a duplicate.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        keyed: bool,
    },
    Claim {
        time: i64,
        ids: Vec<String>,
    },
    Cancel {
        time: i64,
        ids: Vec<String>,
    },
    Interrupt {
        id: String,
        time: i64,
        source: P,
        /// An external execution's interrupt stops it for good.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        permanent: bool,
    },
    Wait {
        time: i64,
        call: String,
        ids: Vec<String>,
    },
}

/// The record a complete line holds, or `None` when it is not one.
pub fn parse<P: for<'de> Deserialize<'de>>(line: &[u8]) -> Option<Record<P>> {
    serde_json::from_slice(line).ok()
}

/// One complete line of an inbox, capped at `MAX_LINE`.
pub enum InboxLine<'a> {
    Line(&'a [u8]),
    /// A line over the cap (malformed, never held).
    TooLong,
}

/// Call `f` on every complete line (a torn last line is not read; empty
/// lines are skipped).
pub fn for_each_line(
    reader: impl std::io::BufRead,
    mut f: impl FnMut(InboxLine),
) -> std::io::Result<u64> {
    for_each_line_at(reader, 0, |line, _| f(line))
}

/// As `for_each_line`, with each line's byte offset (the reader starts at
/// `start`); returns the bytes of complete lines read.
pub fn for_each_line_at(
    reader: impl std::io::BufRead,
    start: u64,
    mut f: impl FnMut(InboxLine, u64),
) -> std::io::Result<u64> {
    use dsh_store::files::{Line, Lines};
    use dsh_store::format::MAX_LINE;
    let mut lines = Lines::new(reader, MAX_LINE);
    let mut complete = 0u64;
    loop {
        let at = start + complete;
        match lines.next_line()? {
            Line::Complete(l) => {
                complete += l.len() as u64 + 1;
                if !l.is_empty() {
                    f(InboxLine::Line(l), at);
                }
            }
            Line::TooLong(n) => {
                complete += n;
                f(InboxLine::TooLong, at);
            }
            Line::End { .. } => return Ok(complete),
        }
    }
}

/// A message as the fold sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub id: String,
    pub time: i64,
    pub target: Target,
    pub source: Value,
    pub content: Vec<Value>,
    /// Position of the record in the inbox (record index).
    pub position: usize,
}

impl Message {
    /// The text blocks joined, for display.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect()
    }

    /// The JSON a claim prints and a served turn's handler reads.
    pub fn to_json(&self) -> Value {
        json!({"id": self.id, "time": self.time, "target": self.target, "source": self.source, "content": self.content})
    }
}

/// Messages as a JSON array, in order.
pub fn messages_json(messages: &[Message]) -> Value {
    Value::Array(messages.iter().map(Message::to_json).collect())
}
