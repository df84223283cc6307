//! Seed 002's `subagent_parent_message`: a child (one-shot included) sends
//! to its direct parent, found from its own header, framed as a peer update.

use crate::error::{Error, Result};
use crate::inbox::{Inbox, Limits, NewMessage, Target, text_block};
use crate::send_message::Sent;
use crate::store::Store;
use serde_json::json;

/// `followup` (default) joins the parent's next turn; `steer` its next step.
pub fn send_to_parent(
    store: &Store,
    child: usize,
    message: &str,
    steer: bool,
    id: Option<String>,
    limits: Limits,
) -> Result<Sent> {
    let header = &store.sessions[child].header;
    let not_delivered = |why: String| Error::tool(format!("{why}; the message was not delivered"));
    let Some(parent_id) = header.parent() else {
        return Err(not_delivered(format!(
            "session \"{}\" has no parent session",
            header.id
        )));
    };
    if parent_id == header.id {
        return Err(not_delivered(format!(
            "session \"{}\" names itself as its parent; an agent cannot message itself",
            header.id
        )));
    }
    if message.trim().is_empty() {
        return Err(not_delivered("message is empty".to_string()));
    }
    let Some(parent) = store.get(parent_id) else {
        return Err(not_delivered(format!(
            "parent session \"{parent_id}\" is not in the store"
        )));
    };
    let framed = format!(
        "[Subagent message from {}]\nThis is a peer message from a delegated child, not the human user. Treat it as a task update.\n---\n{message}",
        header.id
    );
    let new = NewMessage {
        target: if steer {
            Target::NextStep
        } else {
            Target::NextTurn
        },
        source: json!({"kind": "subagent-message", "form": "relay", "senderSessionId": header.id}),
        content: vec![text_block(&framed)],
        id,
    };
    let receipt = Inbox::new(&parent.dir).deliver(new, limits)?;
    Ok(Sent {
        text: format!("message delivered to parent agent {parent_id}"),
        receipt,
    })
}
