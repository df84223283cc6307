//! `send_message` in both contracts and seed 002's `subagent_send_message`:
//! who may message whom, which list the message joins, and the exact result
//! and error texts. Only the caller's and the target's ancestries are read.

use super::{Context, Outcome};
use crate::error::{Error, Result};
use crate::inbox::deliver::NewMessage;
use crate::inbox::framing::Framing;
use crate::inbox::{DeliveryError, Inbox, Target};
use crate::tree::v2::{MemberKind, Resolution};
use dsh_store::format::Mode;

const NOT_DELIVERED: &str = "; the message was not delivered";

fn v2_error(message: String) -> Error {
    Error::tool(format!("{message}{NOT_DELIVERED}"))
}

/// Seed-001 `send_message` from the caller to the `agent` argument.
pub fn send_v2(cx: &Context, agent: &str, message: &str) -> Result<Outcome> {
    let corpus = &cx.corpus;
    let caller = cx.caller_index()?;
    let root = cx.root()?;
    let caller_id = &cx.caller.id;
    let Some(me) = corpus.v2_member(&cx.cache, root, caller) else {
        return Err(v2_error(format!(
            "agent \"{caller_id}\" is not a member of a subagent tree (an ancestor's history is unreadable)"
        )));
    };
    if !me.kind.is_continuable() {
        return Err(v2_error(format!(
            "agent \"{}\" is not the root or a continuable member of its subagent tree and cannot send messages",
            me.name
        )));
    }
    let member = match corpus.resolve_v2(&cx.cache, root, agent) {
        Resolution::Member(m) => m,
        Resolution::Outside {
            same_root: true, ..
        } => {
            return Err(v2_error(format!(
                "agent \"{agent}\" cannot be reached in the caller's subagent tree: an ancestor's history is unreadable"
            )));
        }
        Resolution::Outside { .. } => {
            return Err(v2_error(format!(
                "agent \"{agent}\" is not in the caller's subagent tree"
            )));
        }
        Resolution::NotFound => {
            return Err(v2_error(format!(
                "no agent named \"{agent}\" in the caller's subagent tree, and no session with that id"
            )));
        }
        Resolution::Ambiguous(ids) => {
            return Err(v2_error(format!(
                "agent name \"{agent}\" is ambiguous: it names sessions {}; use a Session id",
                ids.join(", ")
            )));
        }
    };
    if member.index == caller {
        return Err(v2_error(format!(
            "agent \"{agent}\" is the caller; an agent cannot message itself"
        )));
    }
    let why = match &member.kind {
        MemberKind::Root | MemberKind::Continuable { .. } => None,
        MemberKind::OneShot => Some("is a one-shot subagent and cannot receive messages"),
        MemberKind::External => Some("is an external execution and cannot receive messages"),
        MemberKind::Unsupported => Some("has an unsupported mode"),
        MemberKind::Corrupt => Some("has unavailable history: no valid subagent descriptor"),
        MemberKind::Unavailable => Some("has unavailable history: its session log cannot be read"),
        MemberKind::Creating => Some("is still being created"),
    };
    if let Some(why) = why {
        return Err(v2_error(format!("agent \"{agent}\" {why}")));
    }
    // A target working on a turn is steered at its next step; an idle or
    // absent one gets the message as its next turn.
    let target = if member.live.is_working() {
        Target::NextStep
    } else {
        Target::NextTurn
    };
    let new = NewMessage {
        target,
        framing: Framing::AgentMessage {
            sender_id: caller_id.clone(),
            sender_name: me.name.clone(),
        },
        text: message,
        id: cx.message_id.clone(),
    };
    let receipt = Inbox::new(&corpus.record(member.index).dir())
        .deliver(new, cx.limits)
        .map_err(|e| match e {
            DeliveryError::InboxFull { pending, limit } => v2_error(format!(
                "the inbox of agent \"{agent}\" is full ({pending} pending messages, limit {limit})"
            )),
            other => other.into(),
        })?;
    Ok(Outcome::Sent {
        text: format!("message delivered to agent {agent}"),
        receipt,
    })
}

/// rc.8 `send_message` (and seed 002's `subagent_send_message`): only the
/// direct parent may message a continuable child; always its next turn.
pub fn send_v1(cx: &Context, subagent_id: &str, message: &str) -> Result<Outcome> {
    let caller_id = cx.caller.id.as_str();
    let unavailable = || Error::tool(format!("subagent \"{subagent_id}\" is unavailable"));
    let foreign = || {
        Error::tool(format!(
            "subagent \"{subagent_id}\" belongs to another parent session"
        ))
    };
    let Some(index) = cx.store.index_of(subagent_id) else {
        return Err(unavailable());
    };
    let rec = cx.corpus.record(index);
    if !cx.corpus.live(index).is_live() {
        // Cold resume: inspect, authorize, then the resume authority.
        let inspection = cx
            .cache
            .inspect(&rec.log(), &rec.dir())
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
        framing: Framing::Coordinator {
            sender_id: caller_id.to_string(),
        },
        text: message,
        id: cx.message_id.clone(),
    };
    let receipt = Inbox::new(&rec.dir())
        .deliver(new, cx.limits)
        .map_err(|e| match e {
            DeliveryError::InboxFull { pending, limit } => Error::tool(format!(
                "subagent \"{subagent_id}\" inbox is full ({pending} pending messages, limit {limit}); the message was not accepted"
            )),
            other => other.into(),
        })?;
    Ok(Outcome::Sent {
        text: format!("message queued as the next turn for subagent {subagent_id}"),
        receipt,
    })
}
