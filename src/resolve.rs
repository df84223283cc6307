//! Who the caller is (`--as`): a Session id, or a unique prefix of one of at
//! least four characters; without `--as`, the store's only tree root.

use crate::error::{Error, Result};
use crate::store::Store;

pub const MIN_PREFIX: usize = 4;

/// Resolve `--as` to a session index.
pub fn resolve_caller(store: &Store, agent: Option<&str>) -> Result<usize> {
    let Some(agent) = agent else {
        let roots: Vec<usize> = (0..store.sessions.len())
            .filter(|i| !store.sessions[*i].header.origin_subagent)
            .collect();
        return match roots.as_slice() {
            [one] => Ok(*one),
            [] => Err(Error::usage(format!(
                "no tree root in store {}; pass --as AGENT",
                store.root.display()
            ))),
            many => Err(Error::usage(format!(
                "the store holds {} tree roots; pass --as AGENT (one of: {})",
                many.len(),
                many.iter()
                    .map(|i| store.sessions[*i].header.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        };
    };
    resolve_session(store, agent).map_err(|e| Error::usage(format!("--as: {}", e.message)))
}

/// Resolve a Session id or unique id prefix (≥ 4 characters).
pub fn resolve_session(store: &Store, text: &str) -> Result<usize> {
    if let Some(i) = store.index_of(text) {
        return Ok(i);
    }
    if text.chars().count() >= MIN_PREFIX {
        let matches: Vec<usize> = (0..store.sessions.len())
            .filter(|i| store.sessions[*i].header.id.starts_with(text))
            .collect();
        match matches.as_slice() {
            [one] => return Ok(*one),
            [] => {}
            many => {
                return Err(Error::usage(format!(
                    "session id prefix \"{text}\" is ambiguous: {}",
                    many.iter()
                        .map(|i| store.sessions[*i].header.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
    }
    Err(Error::usage(format!(
        "no session \"{text}\" in store {}",
        store.root.display()
    )))
}

/// How a v2 `agent` argument resolved in the caller's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentRef {
    /// A member of the tree, by name (or by the id it is listed under).
    Member(usize),
    /// Several members share the name: their Session ids, in tree order.
    Ambiguous(Vec<String>),
    /// Not a name in the tree, but a Session id in the store.
    Session(usize),
    Unknown,
}

/// Seed-001 resolution: `lead`, a full name, else a Session id. Resolution
/// grants no authority; the tool checks the result.
pub fn resolve_agent(store: &Store, members: &[crate::tree::Member], text: &str) -> AgentRef {
    let named: Vec<&crate::tree::Member> = members.iter().filter(|m| m.name == text).collect();
    match named.as_slice() {
        [one] => return AgentRef::Member(one.index),
        [] => {}
        many => {
            return AgentRef::Ambiguous(
                many.iter()
                    .map(|m| store.sessions[m.index].header.id.clone())
                    .collect(),
            );
        }
    }
    match store.index_of(text) {
        Some(i) => match members.iter().find(|m| m.index == i) {
            Some(m) => AgentRef::Member(m.index),
            None => AgentRef::Session(i),
        },
        None => AgentRef::Unknown,
    }
}
