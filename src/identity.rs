//! The `subagent:identity` runtime-context text of seed 001.

use crate::error::Result;
use crate::store::Store;
use crate::tree::Corpus;

const GUIDANCE: &str = "To message other agents, use send_message({ agent: \"<agent-name>\", message: \"...\" }).\n\
Use list_agents({}) to find your collaborator agents and their names.";

/// The identity text for the session at `caller`.
pub fn identity_text(store: &Store, caller: usize) -> Result<String> {
    let corpus = Corpus::new(store);
    let root = corpus.root_of(caller)?;
    if caller == root {
        return Ok(format!(
            "Subagent identity\nYou are the root agent. Your name is \"lead\".\n{GUIDANCE}"
        ));
    }
    let header = &store.sessions[caller].header;
    let parent = header
        .parent()
        .and_then(|p| store.index_of(p))
        .unwrap_or(root);
    Ok(format!(
        "Subagent identity\nYou are a subagent delegated by agent \"{}\".\nYour name is \"{}\".\nThe root agent of your collaboration tree is \"lead\".\n{GUIDANCE}",
        corpus.v2_name(root, parent),
        corpus.v2_name(root, caller)
    ))
}
