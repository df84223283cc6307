//! The bridge's wire protocol: one JSON object per line. Requests (from the
//! plugin, on stdin) are read by a thread of their own, each line capped at
//! `MAX_REQUEST` bytes; replies carry the request's `req`.
//!
//! | op | from | meaning |
//! |---|---|---|
//! | `hold` | the resume wrapper | DSH is about to read this stored session: lock it first |
//! | `created` | `agent/created` | DSH registered this agent: hold it, deliver to it |
//! | `status` | `agent/status` | running / idle |
//! | `release` | `agent/disposed` | DSH let the agent go |
//! | `delivered` | after `steer`/`followup` | DSH accepted message `message` |
//! | `failed` | a delivery threw | the message stays pending; retried later |
//!
//! Events (bridge to plugin): `ready`, `deliver`, `interrupt`, `conflict`.

use crate::inbox::liveness::LiveState;
use serde::Deserialize;
use serde_json::{Value, json};
use std::io::BufRead;
use std::sync::mpsc::Sender;

/// The longest request line: a request names an agent and a message id.
pub const MAX_REQUEST: usize = 64 * 1024;

/// One request from the plugin.
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
pub enum Request {
    Hold {
        #[serde(default)]
        req: Option<u64>,
        agent: String,
    },
    Created {
        #[serde(default)]
        req: Option<u64>,
        agent: String,
        #[serde(default)]
        status: Option<LiveState>,
    },
    Status {
        agent: String,
        status: LiveState,
        #[serde(default)]
        turn: Option<u64>,
    },
    Release {
        #[serde(default)]
        req: Option<u64>,
        agent: String,
    },
    Delivered {
        #[serde(default)]
        req: Option<u64>,
        agent: String,
        message: String,
    },
    Failed {
        #[serde(default)]
        req: Option<u64>,
        agent: String,
        message: String,
        #[serde(default)]
        error: String,
    },
}

/// What the bridge's loop is woken by.
pub enum Input {
    Line(String),
    /// A request line over `MAX_REQUEST` (discarded).
    TooLong,
    /// A watched directory changed.
    Wake,
    /// Standard input closed: the DSH process is gone.
    End,
}

pub fn reply(req: Option<u64>, result: Result<(), Refusal>) -> Value {
    match result {
        Ok(()) => json!({"reply": req, "ok": true}),
        Err(e) => json!({"reply": req, "ok": false, "error": e.to_string()}),
    }
}

/// Why the bridge refused a request; its text is the reply's `error`.
#[derive(Debug)]
pub enum Refusal {
    /// Not JSON, or not a request the protocol has.
    BadRequest(serde_json::Error),
    NotSessionId {
        agent: String,
    },
    /// The agent's live lock could not be taken (another holder) or published.
    Lock(dsh_store::StoreError),
    /// A delivery report for a message this bridge did not hand over.
    NotHanded {
        id: String,
        agent: String,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::BadRequest(e) => write!(f, "bad request: {e}"),
            Refusal::NotSessionId { agent } => write!(f, "\"{agent}\" is not a session id"),
            Refusal::Lock(e) => write!(f, "{e}"),
            Refusal::NotHanded { id, agent } => write!(
                f,
                "message \"{id}\" was not handed to agent {agent} by this bridge"
            ),
        }
    }
}

/// Read request lines on a thread of its own and hand them to `tx`.
pub fn read_requests(mut input: impl BufRead + Send + 'static, tx: Sender<Input>) {
    std::thread::spawn(move || {
        let mut line = Vec::new();
        let mut too_long = false;
        loop {
            let buf = match input.fill_buf() {
                Ok([]) | Err(_) => break,
                Ok(b) => b,
            };
            let (chunk, end) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..i], Some(i + 1)),
                None => (buf, None),
            };
            if !too_long {
                if line.len() + chunk.len() > MAX_REQUEST {
                    too_long = true;
                    line.clear();
                } else {
                    line.extend_from_slice(chunk);
                }
            }
            let used = end.unwrap_or(buf.len());
            input.consume(used);
            if end.is_some() {
                let msg = if too_long {
                    Input::TooLong
                } else {
                    Input::Line(String::from_utf8_lossy(&line).into_owned())
                };
                line.clear();
                too_long = false;
                if tx.send(msg).is_err() {
                    return;
                }
            }
        }
        let _ = tx.send(Input::End);
    });
}
