//! `send_message` in both contracts, `subagent_send_message`, and the
//! operator's `followup` / `steer`: who may message whom, which list the
//! message joins, how it is framed, and the exact result and error texts.

use crate::descriptor::Mode;
use crate::error::{Error, ErrorKind, Result};
use crate::inbox::{INBOX_FULL, Inbox, Limits, NewMessage, Receipt, Target, text_block};
use crate::liveness;
use crate::store::Store;
use crate::tree::{Corpus, Member, MemberKind};
use serde_json::json;

/// A delivered message: the rendered text and the receipt.
#[derive(Debug, Clone)]
pub struct Sent {
    pub text: String,
    pub receipt: Receipt,
}

const NOT_DELIVERED: &str = "; the message was not delivered";

fn v2_error(message: String) -> Error {
    Error::tool(format!("{message}{NOT_DELIVERED}"))
}

/// Seed-001 `send_message` from `caller` to the `agent` argument. Only the
/// caller's and the target's ancestries are read, never the whole tree.
pub fn send_v2(
    store: &Store,
    caller: usize,
    agent: &str,
    message: &str,
    id: Option<String>,
    limits: Limits,
) -> Result<Sent> {
    let corpus = Corpus::new(store);
    let cache = crate::log::ScanCache::default();
    let root = corpus.root_of(caller).map_err(|e| v2_error(e.message))?;
    let caller_id = &store.sessions[caller].header.id;
    let Some(me) = corpus.v2_member_by_path(&cache, root, caller) else {
        return Err(v2_error(format!(
            "agent \"{caller_id}\" is not a member of a subagent tree (an ancestor's history is unreadable)"
        )));
    };
    if !matches!(me.kind, MemberKind::Root | MemberKind::Continuable { .. }) {
        return Err(v2_error(format!(
            "agent \"{}\" is not the root or a continuable member of its subagent tree and cannot send messages",
            me.name
        )));
    }
    let named: Vec<Member> = corpus
        .v2_named(root, agent)
        .into_iter()
        .filter_map(|i| corpus.v2_member_by_path(&cache, root, i))
        .collect();
    let member = match named.len() {
        1 => named.into_iter().next().expect("one candidate"),
        0 => match store.index_of(agent) {
            Some(i) => match corpus.v2_member_by_path(&cache, root, i) {
                Some(m) => m,
                None => {
                    let same_root = corpus.root_of(i).map(|r| r == root).unwrap_or(false);
                    return Err(v2_error(if same_root {
                        format!(
                            "agent \"{agent}\" cannot be reached in the caller's subagent tree: an ancestor's history is unreadable"
                        )
                    } else {
                        format!("agent \"{agent}\" is not in the caller's subagent tree")
                    }));
                }
            },
            None => {
                return Err(v2_error(format!(
                    "no agent named \"{agent}\" in the caller's subagent tree, and no session with that id"
                )));
            }
        },
        _ => {
            let ids: Vec<&str> = named
                .iter()
                .map(|m| store.sessions[m.index].header.id.as_str())
                .collect();
            return Err(v2_error(format!(
                "agent name \"{agent}\" is ambiguous: it names sessions {}; use a Session id",
                ids.join(", ")
            )));
        }
    };
    let target = member.index;
    if target == caller {
        return Err(v2_error(format!(
            "agent \"{agent}\" is the caller; an agent cannot message itself"
        )));
    }
    match &member.kind {
        MemberKind::Root | MemberKind::Continuable { .. } => {}
        MemberKind::OneShot => {
            return Err(v2_error(format!(
                "agent \"{agent}\" is a one-shot subagent and cannot receive messages"
            )));
        }
        MemberKind::External => {
            return Err(v2_error(format!(
                "agent \"{agent}\" is an external execution and cannot receive messages"
            )));
        }
        MemberKind::Unsupported => {
            return Err(v2_error(format!(
                "agent \"{agent}\" has an unsupported mode"
            )));
        }
        MemberKind::Corrupt => {
            return Err(v2_error(format!(
                "agent \"{agent}\" has unavailable history: no valid subagent descriptor"
            )));
        }
        MemberKind::Unavailable => {
            return Err(v2_error(format!(
                "agent \"{agent}\" has unavailable history: its session log cannot be read"
            )));
        }
        MemberKind::Creating => {
            return Err(v2_error(format!(
                "agent \"{agent}\" is still being created"
            )));
        }
    }
    // A target working on a turn is steered at its next step; an idle or
    // absent one gets the message as its next turn (which also unparks a
    // queue an interrupt parked, keeping FIFO order).
    let working = member.live
        == crate::liveness::Liveness::Live {
            state: crate::liveness::LiveState::Running,
        };
    let target_list = if working {
        Target::NextStep
    } else {
        Target::NextTurn
    };
    let new = NewMessage {
        target: target_list,
        source: json!({"kind": "agent-message", "form": "relay", "senderSessionId": caller_id}),
        content: vec![
            text_block(&format!("Agent {} sent a message: ", me.name)),
            text_block(message),
        ],
        id,
    };
    let delivered = Inbox::new(&store.sessions[target].dir).deliver(new, limits);
    if delivered.is_ok() {
        cache.commit();
    }
    let receipt = delivered.map_err(|e| match e.kind {
        ErrorKind::Tool if e.message.starts_with(INBOX_FULL) => v2_error(format!(
            "the inbox of agent \"{agent}\"{}",
            e.message.trim_start_matches("the inbox")
        )),
        _ => e,
    })?;
    Ok(Sent {
        text: format!("message delivered to agent {agent}"),
        receipt,
    })
}

/// rc.8 `send_message` (and seed 002's `subagent_send_message`): only the
/// direct parent may message a continuable child; always its next turn.
pub fn send_v1(
    store: &Store,
    caller_id: &str,
    subagent_id: &str,
    message: &str,
    id: Option<String>,
    limits: Limits,
) -> Result<Sent> {
    let unavailable = || Error::tool(format!("subagent \"{subagent_id}\" is unavailable"));
    let cache = crate::log::ScanCache::default();
    let Some(rec) = store.get(subagent_id) else {
        return Err(unavailable());
    };
    let foreign = || {
        Error::tool(format!(
            "subagent \"{subagent_id}\" belongs to another parent session"
        ))
    };
    if !liveness::probe(&rec.dir).is_live() {
        // Cold resume: inspect, authorize, then the resume authority.
        let inspection = cache
            .inspect(&rec.log, &rec.dir)
            .map_err(|_| unavailable())?;
        if rec.header.parent() != Some(caller_id) {
            return Err(foreign());
        }
        match inspection.own_descriptor {
            Some(Ok(Some(identity))) if identity.mode == Mode::Continuable => {}
            Some(Err(_)) => return Err(unavailable()),
            _ => {
                return Err(Error::tool(format!(
                    "subagent \"{subagent_id}\" has no supported continuation state and cannot be resumed; do not retry send_message with this id"
                )));
            }
        }
    } else if rec.header.parent() != Some(caller_id) {
        return Err(foreign());
    }
    let new = NewMessage {
        target: Target::NextTurn,
        source: json!({"kind": "coordinator", "form": "relay", "senderSessionId": caller_id}),
        content: vec![text_block(message)],
        id,
    };
    let delivered = Inbox::new(&rec.dir).deliver(new, limits);
    if delivered.is_ok() {
        cache.commit();
    }
    let receipt = delivered.map_err(|e| match e.kind {
        ErrorKind::Tool if e.message.starts_with(INBOX_FULL) => Error::tool(format!(
            "subagent \"{subagent_id}\" inbox is full{}; the message was not accepted",
            e.message.trim_start_matches(INBOX_FULL)
        )),
        _ => e,
    })?;
    Ok(Sent {
        text: format!("message queued as the next turn for subagent {subagent_id}"),
        receipt,
    })
}

/// Operator delivery as the user: `followup` (next turn) or `steer` (next step).
pub fn send_as_user(
    store: &Store,
    target: usize,
    message: &str,
    list: Target,
    id: Option<String>,
    limits: Limits,
) -> Result<Sent> {
    let rec = &store.sessions[target];
    let new = NewMessage {
        target: list,
        source: json!({"kind": "user"}),
        content: vec![text_block(message)],
        id,
    };
    let receipt = Inbox::new(&rec.dir).deliver(new, limits)?;
    let text = match list {
        Target::NextTurn => format!(
            "message queued as the next turn for agent {}",
            rec.header.id
        ),
        Target::NextStep => format!(
            "message queued as next-step input for agent {}",
            rec.header.id
        ),
    };
    Ok(Sent { text, receipt })
}
