//! Appending a served agent's turns to its own session log, the way DSH
//! appends: events continue the decoded seq, a torn tail is cut first (raw)
//! and every batch is durable before the call returns. Only `serve`, which
//! holds the agent live, writes here (contract §3).

use crate::inbox::record::Message;
use crate::support::clock::now_ms;
use dsh_store::LogError;
use dsh_store::files::{Dir, tail_hash};
use dsh_store::log::writer::{self, SURFACE_APPEND};
use dsh_store::log::{Encoding, for_each_event, inspect};
use dsh_store::log::{Frame, FrameReader};
use dsh_store::{SessionRecord, StoreError};
use serde_json::{Value, json};
use std::path::PathBuf;

/// How a turn ended, as `turn/end` records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEnding {
    Completed,
    /// The handler failed (`COMMAND_FAILED`) or could not run (`COMMAND_NOT_RUN`).
    Error {
        message: String,
        code: &'static str,
    },
    /// An interrupt stopped the turn.
    Interrupted,
    /// The server itself was stopped (Ctrl-C, SIGTERM): the user aborted.
    AbortedByUser,
}

impl TurnEnding {
    /// The ending in a word, for the per-turn log line.
    pub fn word(&self) -> &'static str {
        match self {
            TurnEnding::Completed => "completed",
            TurnEnding::Error { .. } => "failed",
            TurnEnding::Interrupted => "interrupted",
            TurnEnding::AbortedByUser => "aborted",
        }
    }

    pub fn reason(&self) -> Value {
        match self {
            TurnEnding::Completed => json!({"kind": "completed"}),
            TurnEnding::Error { message, code } => {
                json!({"kind": "error", "error": {"message": message, "code": code}})
            }
            TurnEnding::Interrupted => json!({"kind": "interrupted"}),
            TurnEnding::AbortedByUser => json!({"kind": "aborted", "reason": {"kind": "user"}}),
        }
    }
}

pub struct Transcript {
    /// The session directory and the log's name in it: every append opens
    /// the log through the directory, never through a link.
    dir: Dir,
    name: String,
    path: PathBuf,
    encoding: Encoding,
    next_seq: u64,
    /// The log's length after our last append: any other length means
    /// another writer touched it.
    expected_len: u64,
    expected_tail: Option<u64>,
    pub last_turn: u64,
    open: bool,
    /// The claimed input of a turn a crash left open: on open that turn is
    /// closed as interrupted and, in the same durable batch, a new turn
    /// starts with this input, which `serve` then runs.
    pub recovered: Vec<Message>,
}

impl Transcript {
    /// Open the log for appending: refuse an unreadable log, cut a torn raw
    /// tail, and close a turn a crashed server left open, as DSH's crash
    /// repair would.
    pub fn open(
        rec: &SessionRecord,
        claimed: impl Fn(&str) -> bool,
    ) -> Result<Transcript, StoreError> {
        let log_error = |reason| StoreError::Log {
            path: rec.log(),
            reason,
        };
        if rec.generation != 0 {
            return Err(StoreError::WriteGeneration {
                path: rec.log(),
                generation: rec.generation,
            });
        }
        let dir = Dir::session(&rec.dir())?;
        let name = rec.log_name().file_name().to_string();
        // Refuse a log that is a link, a special file or hard-linked
        // elsewhere before reading it: we are about to write it.
        let file = dir.open_existing_rw(&name)?;
        let inspection = inspect(&rec.log()).map_err(log_error)?;
        let len = file
            .metadata()
            .map_err(|e| StoreError::io(rec.log(), e))?
            .len();
        if inspection.encoding == Encoding::Raw && inspection.committed_bytes < len {
            writer::truncate(&file, &rec.log(), inspection.committed_bytes)?;
        }
        if inspection.encoding == Encoding::Zstd {
            let file = std::fs::File::open(rec.log()).map_err(|e| StoreError::io(rec.log(), e))?;
            let mut check = FrameReader::new(file);
            while let Ok(Some(frame)) = check.next_frame() {
                if matches!(frame, Frame::Torn(_)) {
                    return Err(log_error(LogError::TornZstdTail));
                }
            }
        }
        let expected_len = match inspection.encoding {
            Encoding::Raw => inspection.committed_bytes.min(len),
            Encoding::Zstd => len,
        };
        let mut t = Transcript {
            dir,
            name,
            path: rec.log(),
            encoding: inspection.encoding,
            next_seq: inspection.events,
            expected_len,
            expected_tail: tail_hash(&file, expected_len),
            last_turn: inspection.last_turn,
            open: false,
            recovered: Vec::new(),
        };
        if inspection.open_turn {
            // Closing the crashed turn and starting its rerun is one batch:
            // a crash in between cannot drop the rerun.
            let rerun: Vec<Message> = open_turn_input(&rec.log())
                .into_iter()
                .filter(|m| claimed(&m.id))
                .collect();
            let turn = t.last_turn;
            let mut events = vec![(
                "turn/end",
                json!({"turn": turn, "reason": TurnEnding::Interrupted.reason()}),
                None,
            )];
            if !rerun.is_empty() {
                events.extend(turn_events(turn + 1, &rerun));
            }
            t.append(&events)?;
            if !rerun.is_empty() {
                t.last_turn = turn + 1;
                t.open = true;
                t.recovered = rerun;
            }
        }
        Ok(t)
    }

    /// Append events `(type, data, surfaceOp)` as one durable batch.
    fn append(&mut self, events: &[(&str, Value, Option<&str>)]) -> Result<(), StoreError> {
        let time = now_ms();
        let mut lines = Vec::with_capacity(events.len());
        for (k, (ty, data, surface)) in events.iter().enumerate() {
            let seq = self.next_seq + k as u64;
            lines.push(writer::event(ty, seq, time, data.clone(), *surface).to_string());
        }
        let file = self.dir.open_existing_rw(&self.name)?;
        self.check_sole_writer(&file)?;
        let bytes = writer::encode_batch(self.encoding, &lines)?;
        writer::append(&file, &self.path, &bytes)?;
        self.next_seq += events.len() as u64;
        self.expected_len += bytes.len() as u64;
        self.expected_tail = tail_hash(&file, self.expected_len);
        Ok(())
    }

    /// A log has one writer (contract §3): before each append, the log must be
    /// exactly as our last append left it — same length, same last 4 KiB
    /// (so the same last event and seq). Anything else is another writer's,
    /// and appending after it would corrupt the log for good.
    fn check_sole_writer(&self, file: &std::fs::File) -> Result<(), StoreError> {
        let foreign = |expected: String, found: String| StoreError::ForeignWrite {
            path: self.path.clone(),
            expected,
            found,
        };
        let len = file
            .metadata()
            .map_err(|e| StoreError::io(&self.path, e))?
            .len();
        if len != self.expected_len {
            return Err(foreign(
                format!("{} bytes", self.expected_len),
                format!("{len} bytes"),
            ));
        }
        // Same length is not enough: the last bytes (holding the last event
        // and so its seq) must be the ones we left.
        if tail_hash(file, len) != self.expected_tail {
            return Err(foreign(
                format!(
                    "the last event seq {} we wrote",
                    self.next_seq.saturating_sub(1)
                ),
                "other bytes at the end of the log".into(),
            ));
        }
        Ok(())
    }

    /// Cancel, in DSH's own inbox, every queued item that carries one of
    /// `ids` (as its id or its `dshAgentsMessageId`): one durable batch of
    /// `agent/inbox/spliced` deletions with `outcome: "canceled"`, the
    /// record rc.8's own cancellations leave. Returns how many were canceled.
    pub fn cancel_native(&mut self, ids: &[String]) -> Result<usize, StoreError> {
        let header = inspect(&self.path)
            .map_err(|reason| StoreError::Log {
                path: self.path.clone(),
                reason,
            })?
            .header;
        let native = dsh_store::log::read_native_inbox(&self.path, &header).map_err(|reason| {
            StoreError::Log {
                path: self.path.clone(),
                reason,
            }
        })?;
        let ours = |item: &dsh_store::log::NativeItem| {
            ids.contains(&item.id)
                || item.message.as_ref().is_some_and(|m| {
                    m["source"]["dshAgentsMessageId"]
                        .as_str()
                        .is_some_and(|o| ids.iter().any(|i| i == o))
                })
        };
        let mut events = Vec::new();
        for (target, list) in [
            ("next-turn", &native.next_turn),
            ("next-step", &native.next_step),
        ] {
            // Each deletion shifts the items after it one place down.
            let mut removed = 0usize;
            for (i, item) in list.iter().enumerate() {
                if ours(item) {
                    let start = i - removed;
                    events.push((
                        "agent/inbox/spliced",
                        json!({"target": target, "start": start, "removedCount": 1, "inserted": [], "outcome": "canceled"}),
                        None,
                    ));
                    removed += 1;
                }
            }
        }
        if !events.is_empty() {
            self.append(&events)?;
        }
        Ok(events.len())
    }

    /// `turn/start` and the claimed messages as `user/message` events.
    pub fn start_turn(&mut self, messages: &[Message]) -> Result<u64, StoreError> {
        let turn = self.last_turn + 1;
        self.append(&turn_events(turn, messages))?;
        self.last_turn = turn;
        self.open = true;
        Ok(turn)
    }

    /// Whether the log ends inside a turn this transcript started.
    pub fn open_turn(&self) -> bool {
        self.open
    }

    pub fn end_turn(&mut self, ending: &TurnEnding) -> Result<(), StoreError> {
        let turn = self.last_turn;
        self.append(&[(
            "turn/end",
            json!({"turn": turn, "reason": ending.reason()}),
            None,
        )])?;
        self.open = false;
        Ok(())
    }
}

/// `turn/start` and the input as `user/message` events.
fn turn_events(
    turn: u64,
    messages: &[Message],
) -> Vec<(&'static str, Value, Option<&'static str>)> {
    let mut events = vec![("turn/start", json!({"turn": turn}), None)];
    for m in messages {
        let data = json!({"content": m.content, "source": m.source, "role": "user", "id": m.id});
        events.push(("user/message", data, Some(SURFACE_APPEND)));
    }
    events
}

/// The `user/message` events after the log's last `turn/start`.
fn open_turn_input(log: &std::path::Path) -> Vec<Message> {
    let mut messages = Vec::new();
    let _ = for_each_event(log, |ev| match ev["type"].as_str() {
        Some("turn/start") => messages.clear(),
        Some("user/message") => {
            let data = &ev["data"];
            if let Some(id) = data["id"].as_str() {
                messages.push(Message {
                    id: id.to_string(),
                    time: ev["time"].as_i64().unwrap_or(0),
                    target: crate::inbox::Target::NextTurn,
                    source: data["source"].clone(),
                    content: data["content"].as_array().cloned().unwrap_or_default(),
                    position: 0,
                });
            }
        }
        _ => {}
    });
    messages
}
