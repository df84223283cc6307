//! The `subagent:identity` runtime-context text of seed 001.

use super::Context;
use crate::error::Result;
use dsh_store::format::ROOT_NAME;

const GUIDANCE: &str = "To message other agents, use send_message({ agent: \"<agent-name>\", message: \"...\" }).\n\
Use list_agents({}) to find your collaborator agents and their names.";

/// Who the caller is in its tree.
pub struct Identity {
    pub id: String,
    pub name: String,
    /// The delegating agent's name; `None` for the root.
    pub parent: Option<String>,
    pub root_id: String,
}

pub fn identity(cx: &Context) -> Result<Identity> {
    let caller = cx.caller_index()?;
    let root = cx.root()?;
    let parent = (caller != root).then(|| {
        cx.corpus
            .v2_name(root, cx.corpus.parent_of(caller).unwrap_or(root))
    });
    Ok(Identity {
        id: cx.corpus.id(caller).to_string(),
        name: cx.corpus.v2_name(root, caller),
        parent,
        root_id: cx.corpus.id(root).to_string(),
    })
}

impl Identity {
    /// The runtime-context text the model sees.
    pub fn text(&self) -> String {
        match &self.parent {
            None => format!(
                "Subagent identity\nYou are the root agent. Your name is \"{ROOT_NAME}\".\n{GUIDANCE}"
            ),
            Some(parent) => format!(
                "Subagent identity\nYou are a subagent delegated by agent \"{parent}\".\nYour name is \"{}\".\nThe root agent of your collaboration tree is \"{ROOT_NAME}\".\n{GUIDANCE}",
                self.name
            ),
        }
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "id": self.id,
            "name": self.name,
            "parent": self.parent,
            "root": {"id": self.root_id, "name": ROOT_NAME},
            "text": self.text(),
        })
    }
}
