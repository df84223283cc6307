//! `interrupt_agent` (v2 by name, v1 by id with rc.8 texts), and the one
//! interrupt request the operator's `interrupt` shares: only a strict
//! ancestor may interrupt; a live target gets an interrupt record that
//! stops its current turn; an idle or not-resident member is an accepted
//! no-op for the model tools (a v2 name that is no member is an error),
//! and the operator is told when the interrupt reached nobody; an external
//! one stops for good.

use super::{Context, Outcome};
use crate::error::{Error, Result};
use crate::inbox::framing::InterruptCause;
use crate::inbox::{Inbox, Limits};
use crate::tree::Corpus;
use crate::tree::v2::Resolution;
use dsh_store::accel::ScanCache;
use dsh_store::format::Mode;

fn is_external(corpus: &Corpus, cache: &ScanCache, index: usize) -> bool {
    let rec = corpus.record(index);
    cache
        .inspect(&rec.log(), &rec.dir())
        .ok()
        .and_then(|i| i.seed001)
        .is_some_and(|id| id.mode == Mode::External)
}

/// Request the interrupt: live targets get a record; externals stop for
/// good. Whether a record was written: `false` means it reached nobody.
pub fn request(
    corpus: &Corpus,
    cache: &ScanCache,
    target: usize,
    cause: InterruptCause,
    limits: Limits,
) -> Result<bool> {
    request_once(corpus, cache, target, cause, limits, None)
}

/// As `request`; with an `id`, an interrupt the inbox already holds under
/// it is not written again (and counts as reached).
pub fn request_once(
    corpus: &Corpus,
    cache: &ScanCache,
    target: usize,
    cause: InterruptCause,
    limits: Limits,
    id: Option<&str>,
) -> Result<bool> {
    let inbox = Inbox::new(&corpus.record(target).dir());
    if let Some(id) = id
        && inbox.interrupt_source(id)?.is_some()
    {
        return Ok(true);
    }
    let external = is_external(corpus, cache, target);
    if external || corpus.live(target).is_live() {
        match id {
            Some(id) => drop(inbox.interrupt_once(id, &cause, external, limits)?),
            None => drop(inbox.interrupt(&cause, external, limits)?),
        }
        return Ok(true);
    }
    Ok(false)
}

fn accepted(agent: &str) -> Outcome {
    Outcome::Interrupted {
        text: format!("interrupt requested for agent {agent}"),
    }
}

fn as_ancestor(cx: &Context, target: usize) -> Result<()> {
    let cause = InterruptCause::Parent {
        sender_id: cx.caller.id.clone(),
    };
    // An idle or absent member is an accepted no-op (the contract's rule).
    request(&cx.corpus, &cx.cache, target, cause, cx.limits).map(drop)
}

/// Seed-001 `interrupt_agent`.
pub fn interrupt_v2(cx: &Context, agent: &str) -> Result<Outcome> {
    let corpus = &cx.corpus;
    let caller = cx.caller_index()?;
    let root = cx.root()?;
    let target = match corpus.resolve_v2(&cx.cache, root, agent) {
        Resolution::Member(m) => m.index,
        Resolution::Outside { index, .. } => index,
        // A name that is no member is not an absent member: a typo must
        // not read as an interrupt made.
        Resolution::NotFound => {
            return Err(Error::tool(format!(
                "no agent named \"{agent}\" in the caller's subagent tree, and no session with that id; nothing was interrupted"
            )));
        }
        Resolution::Ambiguous(ids) => {
            return Err(Error::tool(format!(
                "agent name \"{agent}\" is ambiguous: it names sessions {}; use a Session id",
                ids.join(", ")
            )));
        }
    };
    let caller_name = corpus.v2_name(root, caller);
    if target == caller {
        return Err(Error::tool(format!(
            "agent \"{caller_name}\" cannot interrupt itself"
        )));
    }
    if !corpus.is_ancestor(caller, target) {
        return Err(Error::tool(format!(
            "agent \"{agent}\" is not a descendant of agent \"{caller_name}\""
        )));
    }
    as_ancestor(cx, target)?;
    Ok(accepted(agent))
}

/// rc.8 `interrupt_agent`, in rc.8's order: self, then a target that is not
/// live is an accepted no-op, then the ancestry check.
pub fn interrupt_v1(cx: &Context, agent_id: &str) -> Result<Outcome> {
    let caller_id = cx.caller.id.as_str();
    if agent_id == caller_id {
        return Err(Error::tool(format!(
            "agent \"{caller_id}\" cannot interrupt itself"
        )));
    }
    let Some(target) = cx.store.index_of(agent_id) else {
        return Ok(accepted(agent_id));
    };
    if !cx.corpus.live(target).is_live() && !is_external(&cx.corpus, &cx.cache, target) {
        return Ok(accepted(agent_id));
    }
    let ancestor = cx
        .caller
        .index
        .is_some_and(|c| cx.corpus.is_ancestor(c, target));
    if !ancestor {
        return Err(Error::tool(format!(
            "subagent \"{agent_id}\" is not a live descendant of agent \"{caller_id}\""
        )));
    }
    as_ancestor(cx, target)?;
    Ok(accepted(agent_id))
}
