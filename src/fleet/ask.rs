//! Reads of an agent on another host (`log HOST:AGENT`, `inbox
//! HOST:AGENT`, `trace ID --to HOST:AGENT`): the command writes the ask
//! into its store's fleet files and waits for the answer file; its daemon
//! asks the target host's daemon over the hub (NATS request and reply,
//! answered only while that host is live) and writes what came back. The
//! target host reads its own store with the same code its commands print
//! with (`operator::reads`), so a remote read prints what a local one
//! does. Invariant: an ask writes nothing on the target host, and one
//! that no host answers in time is an error that says so.

use crate::error::Error;
use crate::operator::{log_view, reads};
use dsh_store::{self as store, Plan};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The subject a host's reads are asked on.
pub fn ask_subject(host: &str) -> String {
    format!("ask.{host}")
}

/// What a read asks of an agent on another host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "read", rename_all = "camelCase")]
pub enum Ask {
    Inbox {
        agent: String,
        json: bool,
        width: Option<usize>,
    },
    Log {
        agent: String,
        last: Option<usize>,
        reasoning: bool,
        full: bool,
        json: bool,
    },
    Trace {
        message: String,
        agent: String,
        json: bool,
    },
}

impl Ask {
    /// The same read of `agent` (the agent as its own host names it).
    pub fn of(self, agent: &str) -> Ask {
        let agent = agent.to_string();
        match self {
            Ask::Inbox { json, width, .. } => Ask::Inbox { agent, json, width },
            Ask::Log {
                last,
                reasoning,
                full,
                json,
                ..
            } => Ask::Log {
                agent,
                last,
                reasoning,
                full,
                json,
            },
            Ask::Trace { message, json, .. } => Ask::Trace {
                message,
                agent,
                json,
            },
        }
    }
}

/// An ask as the fleet files and the hub carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AskMail {
    pub id: String,
    /// The host asked.
    pub to: String,
    pub ask: Ask,
}

/// What came back: the text the command prints, or the target host's
/// error and its exit status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub text: String,
    pub error: Option<String>,
    /// The exit status the read had on its host (0: it succeeded).
    pub code: u8,
}

impl Answer {
    fn failed(e: &Error) -> Answer {
        Answer {
            text: String::new(),
            error: Some(e.to_string()),
            code: match e.kind() {
                crate::error::ErrorKind::Tool => 1,
                crate::error::ErrorKind::Usage => 2,
                crate::error::ErrorKind::Store => 3,
            },
        }
    }

    /// No host answered: the asking daemon's own words.
    pub fn unanswered(why: impl std::fmt::Display) -> Answer {
        Answer {
            text: String::new(),
            error: Some(why.to_string()),
            code: 3,
        }
    }
}

/// Answer `ask` from the store at `root` (this host's), as its command
/// would print it here.
pub fn answer(root: &Path, ask: &Ask) -> Answer {
    read(root, ask).unwrap_or_else(|e| Answer::failed(&e))
}

fn read(root: &Path, ask: &Ask) -> crate::error::Result<Answer> {
    let store = store::open(
        root,
        Plan::Whole {
            why: "a read another host asked",
        },
    )?;
    let text = match ask {
        Ask::Inbox { agent, json, width } => {
            format!("{}\n", reads::inbox(&store, agent, *json, *width)?)
        }
        Ask::Log {
            agent,
            last,
            reasoning,
            full,
            json,
        } => {
            let opts = log_view::LogOptions {
                last: *last,
                reasoning: *reasoning,
                full: *full,
                json: *json,
                follow: false,
                poll: false,
            };
            let mut out = Vec::new();
            reads::log(&mut out, &store, agent, opts)?;
            String::from_utf8_lossy(&out).into_owned()
        }
        Ask::Trace {
            message,
            agent,
            json,
        } => format!("{}\n", reads::trace(&store, message, Some(agent), *json)?),
    };
    Ok(Answer {
        text,
        error: None,
        code: 0,
    })
}
