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
