//! Seed 002's `subagent_parent_message`: a child (one-shot included) sends
//! to its direct parent, found from its own header, framed as a peer update.

use super::{Context, Outcome};
use crate::error::{Error, Result};
use crate::inbox::deliver::NewMessage;
use crate::inbox::framing::Framing;
use crate::inbox::{Inbox, Target};

/// `followup` (default) joins the parent's next turn; `steer` its next step.
pub fn send_to_parent(cx: &Context, message: &str, steer: bool) -> Result<Outcome> {
    let header = &cx.corpus.record(cx.caller_index()?).header;
    let not_delivered = |why: String| Error::tool(format!("{why}; the message was not delivered"));
    let Some(parent_id) = header.parent() else {
        return Err(not_delivered(format!(
            "session \"{}\" has no parent session",
            header.id()
        )));
    };
    if parent_id == header.id() {
        return Err(not_delivered(format!(
            "session \"{}\" names itself as its parent; an agent cannot message itself",
            header.id()
        )));
    }
    if message.trim().is_empty() {
        return Err(not_delivered("message is empty".to_string()));
    }
    let Some(parent) = cx.store.get(parent_id) else {
        return Err(not_delivered(format!(
            "parent session \"{parent_id}\" is not in the store"
        )));
    };
    let new = NewMessage {
        target: if steer {
            Target::NextStep
        } else {
            Target::NextTurn
        },
        framing: Framing::SubagentReport {
            child_id: header.id().to_string(),
        },
        text: message,
        id: cx.message_id.clone(),
    };
    let receipt = Inbox::new(&parent.dir()).deliver(new, cx.limits)?;
    Ok(Outcome::Sent {
        text: format!("message delivered to parent agent {parent_id}"),
        receipt,
    })
}
