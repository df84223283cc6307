//! The `subagent:identity` runtime-context text of seed 001.

use super::Context;
use crate::error::Result;
use crate::store::header::ROOT_NAME;

const GUIDANCE: &str = "To message other agents, use send_message({ agent: \"<agent-name>\", message: \"...\" }).\n\
Use list_agents({}) to find your collaborator agents and their names.";

/// The identity text for the context's caller.
pub fn identity_text(cx: &Context) -> Result<String> {
    let caller = cx.caller_index()?;
    let root = cx.root()?;
    if caller == root {
        return Ok(format!(
            "Subagent identity\nYou are the root agent. Your name is \"{ROOT_NAME}\".\n{GUIDANCE}"
        ));
    }
    let parent = cx.corpus.parent_of(caller).unwrap_or(root);
    Ok(format!(
        "Subagent identity\nYou are a subagent delegated by agent \"{}\".\nYour name is \"{}\".\nThe root agent of your collaboration tree is \"{ROOT_NAME}\".\n{GUIDANCE}",
        cx.corpus.v2_name(root, parent),
        cx.corpus.v2_name(root, caller)
    ))
}
