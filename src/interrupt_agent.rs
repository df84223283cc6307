//! `interrupt_agent` (v2 by name, v1 by id with rc.8 texts) and the
//! operator's `interrupt`: only a strict ancestor may interrupt; a live
//! target gets an interrupt record that stops its current turn; an absent
//! or idle target is an accepted no-op; an external one stops for good.

use crate::descriptor::Mode;
use crate::error::{Error, Result};
use crate::inbox::{Inbox, Limits};
use crate::liveness;
use crate::store::Store;
use crate::tree::Corpus;
use serde_json::{Value, json};
use std::collections::HashSet;

/// Whether `ancestor` is a strict ancestor of `index` through `parentSession`.
fn is_ancestor(store: &Store, ancestor: usize, index: usize) -> bool {
    let mut seen = HashSet::from([index]);
    let mut current = index;
    while let Some(parent) = store.sessions[current]
        .header
        .parent()
        .and_then(|p| store.index_of(p))
    {
        if parent == ancestor {
            return true;
        }
        if !seen.insert(parent) {
            return false;
        }
        current = parent;
    }
    false
}

fn is_external(store: &Store, index: usize) -> bool {
    let rec = &store.sessions[index];
    crate::log::inspect(&rec.log)
        .ok()
        .and_then(|i| i.seed001)
        .is_some_and(|id| id.mode == Mode::External)
}

/// Request the interrupt: live targets get a record; externals stop for good.
fn request(store: &Store, target: usize, source: Value, limits: Limits) -> Result<()> {
    let rec = &store.sessions[target];
    let external = is_external(store, target);
    if external || liveness::probe(&rec.dir).is_live() {
        Inbox::new(&rec.dir).interrupt(source, external, limits)?;
    }
    Ok(())
}

/// An ancestor's request, in the source DSH gives its cause (`parent`).
fn request_as_ancestor(
    store: &Store,
    target: usize,
    caller_id: &str,
    limits: Limits,
) -> Result<()> {
    request(
        store,
        target,
        json!({"kind": "parent", "senderSessionId": caller_id}),
        limits,
    )
}

/// Seed-001 `interrupt_agent`.
pub fn interrupt_v2(store: &Store, caller: usize, agent: &str, limits: Limits) -> Result<String> {
    let corpus = Corpus::new(store);
    let root = corpus.root_of(caller)?;
    let cache = crate::log::ScanCache::default();
    let named: Vec<usize> = corpus
        .v2_named(root, agent)
        .into_iter()
        .filter(|i| corpus.v2_member_by_path(&cache, root, *i).is_some())
        .collect();
    let target = match named.as_slice() {
        [one] => Some(*one),
        [] => store.index_of(agent),
        many => {
            let ids: Vec<&str> = many
                .iter()
                .map(|i| store.sessions[*i].header.id.as_str())
                .collect();
            return Err(Error::tool(format!(
                "agent name \"{agent}\" is ambiguous: it names sessions {}; use a Session id",
                ids.join(", ")
            )));
        }
    };
    let text = format!("interrupt requested for agent {agent}");
    // An absent target is an accepted no-op.
    let Some(target) = target else {
        return Ok(text);
    };
    let caller_name = corpus.v2_name(root, caller);
    if target == caller {
        return Err(Error::tool(format!(
            "agent \"{caller_name}\" cannot interrupt itself"
        )));
    }
    if !is_ancestor(store, caller, target) {
        return Err(Error::tool(format!(
            "agent \"{agent}\" is not a descendant of agent \"{caller_name}\""
        )));
    }
    request_as_ancestor(store, target, &store.sessions[caller].header.id, limits)?;
    Ok(text)
}

/// rc.8 `interrupt_agent`, in rc.8's order: self, then a target that is not
/// live is an accepted no-op, then the ancestry check.
pub fn interrupt_v1(
    store: &Store,
    caller_id: &str,
    agent_id: &str,
    limits: Limits,
) -> Result<String> {
    if agent_id == caller_id {
        return Err(Error::tool(format!(
            "agent \"{caller_id}\" cannot interrupt itself"
        )));
    }
    let text = format!("interrupt requested for agent {agent_id}");
    let Some(target) = store.index_of(agent_id) else {
        return Ok(text);
    };
    let rec = &store.sessions[target];
    if !liveness::probe(&rec.dir).is_live() && !is_external(store, target) {
        return Ok(text);
    }
    let ancestor = store
        .index_of(caller_id)
        .is_some_and(|c| is_ancestor(store, c, target));
    if !ancestor {
        return Err(Error::tool(format!(
            "subagent \"{agent_id}\" is not a live descendant of agent \"{caller_id}\""
        )));
    }
    request_as_ancestor(store, target, caller_id, limits)?;
    Ok(text)
}

/// The operator's interrupt, with the user's authority.
pub fn interrupt_as_user(store: &Store, target: usize, limits: Limits) -> Result<String> {
    request(store, target, json!({"kind": "user"}), limits)?;
    Ok(format!(
        "interrupt requested for agent {}",
        store.sessions[target].header.id
    ))
}
