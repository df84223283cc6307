//! Appending a served agent's turns to its own session log, the way DSH
//! appends: events continue the decoded seq, a torn tail is cut first (raw)
//! and every batch is durable before the call returns. Only `serve`, which
//! holds the agent live, writes here (DESIGN §3).

use crate::error::{Error, Result};
use crate::inbox::{Message, now_ms};
use crate::log::{self, Encoding};
use crate::store::SessionRecord;
use crate::zstd_frames::encode_frame;
use serde_json::{Value, json};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;

pub struct Transcript {
    path: PathBuf,
    encoding: Encoding,
    next_seq: u64,
    pub last_turn: u64,
}

impl Transcript {
    /// Open the log for appending: refuse an unreadable log, cut a torn raw
    /// tail, and close a turn a crashed server left open, as DSH's crash
    /// repair would.
    pub fn open(rec: &SessionRecord) -> Result<Transcript> {
        let inspection = log::inspect(&rec.log)
            .map_err(|e| Error::store(format!("cannot append to {}: {e}", rec.log.display())))?;
        let len = std::fs::metadata(&rec.log)
            .map_err(|e| Error::io(&rec.log, &e))?
            .len();
        if inspection.encoding == Encoding::Raw && inspection.committed_bytes < len {
            let f = OpenOptions::new()
                .write(true)
                .open(&rec.log)
                .map_err(|e| Error::io(&rec.log, &e))?;
            f.set_len(inspection.committed_bytes)
                .and_then(|()| f.sync_data())
                .map_err(|e| Error::io(&rec.log, &e))?;
        }
        let mut t = Transcript {
            path: rec.log.clone(),
            encoding: inspection.encoding,
            next_seq: inspection.events,
            last_turn: inspection.last_turn,
        };
        if inspection.encoding == Encoding::Zstd {
            let mut check = crate::zstd_frames::FrameReader::new(
                std::fs::File::open(&rec.log).map_err(|e| Error::io(&rec.log, &e))?,
            );
            while let Ok(Some(frame)) = check.next_frame() {
                if matches!(frame, crate::zstd_frames::Frame::Torn(_)) {
                    return Err(Error::store(format!(
                        "{}: the log ends in a torn Zstandard frame; let DSH repair it first",
                        rec.log.display()
                    )));
                }
            }
        }
        if inspection.open_turn {
            let turn = t.last_turn;
            t.append(&[(
                "turn/end",
                json!({"turn": turn, "reason": {"kind": "interrupted"}}),
                None,
            )])?;
        }
        Ok(t)
    }

    /// Append events `(type, data, surfaceOp)` as one durable batch.
    pub fn append(&mut self, events: &[(&str, Value, Option<&str>)]) -> Result<()> {
        let time = now_ms();
        let mut batch = String::new();
        for (ty, data, surface) in events {
            let mut ev = json!({"type": ty, "seq": self.next_seq, "time": time, "data": data});
            if let Some(op) = surface {
                ev["surfaceOp"] = json!(op);
            }
            batch.push_str(&ev.to_string());
            batch.push('\n');
            self.next_seq += 1;
        }
        let bytes = match self.encoding {
            Encoding::Raw => batch.into_bytes(),
            Encoding::Zstd => {
                encode_frame(batch.as_bytes()).map_err(|e| Error::store(format!("zstd: {e}")))?
            }
        };
        let mut f = OpenOptions::new()
            .append(true)
            .open(&self.path)
            .map_err(|e| Error::io(&self.path, &e))?;
        let before = f.metadata().map_err(|e| Error::io(&self.path, &e))?.len();
        if let Err(e) = f.write_all(&bytes).and_then(|()| f.sync_data()) {
            // Never leave half a batch behind.
            let _ = f.set_len(before);
            return Err(Error::io(&self.path, &e));
        }
        Ok(())
    }

    /// `turn/start` and the claimed messages as `user/message` events.
    pub fn start_turn(&mut self, messages: &[Message]) -> Result<u64> {
        self.last_turn += 1;
        let turn = self.last_turn;
        let mut events = vec![("turn/start", json!({"turn": turn}), None)];
        for m in messages {
            let data =
                json!({"content": m.content, "source": m.source, "role": "user", "id": m.id});
            events.push(("user/message", data, Some("append")));
        }
        self.append(&events)?;
        Ok(turn)
    }

    pub fn end_turn(&mut self, reason: Value) -> Result<()> {
        let turn = self.last_turn;
        self.append(&[("turn/end", json!({"turn": turn, "reason": reason}), None)])
    }
}
