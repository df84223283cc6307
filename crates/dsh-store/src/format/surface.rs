//! The surface fold rc.8 runs on restore: which message events are current,
//! how replaces shadow them, and what a tool-result rewrite may change.

use crate::format::events::safe_int;
use crate::format::jv::Jv;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};

/// rc.8's surface fold on restore (`SurfaceManager.validateNext`): every
/// message-producing event carries `surfaceOp` — `"append"`, or a replace of
/// a range of current surface nodes that cites them in `sourceEventSeqs` —
/// and a tool result may be rewritten only in its content.
#[derive(Debug, Default, Clone)]
pub struct Surface {
    /// The log's format generation (the replace range's keys and the
    /// surface types differ).
    generation: u32,
    /// Set when resumed from a scan cache without the earlier nodes: a
    /// replace then needs a full read (the caller falls back to one).
    partial: bool,
    nodes: Vec<u64>,
    /// Each current tool result's data minus its result content, as a hash
    /// of its canonical text: a log of many results keeps 8 bytes for
    /// each, not the text. The hash is keyed per process, so no log can be
    /// written to collide.
    tool_results: HashMap<u64, u64>,
    keys: RandomState,
}

/// A tool result's data with the result content blanked, for the rewrite
/// rule: equal exactly when the data is deep-equal outside that content.
fn tool_result_rest(data: &Jv, keys: &RandomState) -> u64 {
    let mut rest = data.clone();
    if let Some(Jv::Arr(content)) = rest
        .as_object_mut()
        .and_then(|d| d.get_mut("message"))
        .and_then(|m| m.as_object_mut())
        .and_then(|m| m.get_mut("content"))
        && let Some(Jv::Obj(block)) = content.first_mut()
    {
        block.insert("content", Jv::Null);
    }
    let mut text = String::new();
    rest.write_canonical(&mut text);
    keys.hash_one(text)
}

fn event_seq(v: &Jv) -> Option<u64> {
    safe_int(Some(v))
        .filter(|s| *s >= 0)
        .map(|s| s as u64)
        .filter(|_| v.is_number())
}

impl Surface {
    /// The state after resuming mid-log, where only appends can be checked.
    pub fn resumed(generation: u32) -> Surface {
        Surface {
            partial: true,
            generation,
            ..Surface::default()
        }
    }

    /// The state at the start of a log of `generation`.
    pub fn new(generation: u32) -> Surface {
        Surface {
            generation,
            ..Surface::default()
        }
    }

    pub fn apply(&mut self, ev: &Jv, seq: u64) -> Result<(), SurfaceError> {
        let ty = ev.get("type").and_then(Jv::as_str).unwrap_or("");
        if !crate::format::generation::is_surface(self.generation, ty) {
            return Ok(());
        }
        let op = match ev.get("surfaceOp") {
            None => {
                return Err(SurfaceError::MissingOp { ty: ty.into() });
            }
            Some(Jv::Str(s)) if s == "append" => None,
            Some(Jv::Obj(m)) => {
                let ok = m.len() == 3 && m.get("op").and_then(Jv::as_str) == Some("replace");
                let (start, end) = crate::format::generation::replace_keys(self.generation);
                match (
                    ok,
                    m.get(start).and_then(event_seq),
                    m.get(end).and_then(event_seq),
                ) {
                    (true, Some(start), Some(end)) => Some((start, end)),
                    _ => {
                        return Err(SurfaceError::InvalidReplace { ty: ty.into() });
                    }
                }
            }
            Some(_) => {
                return Err(SurfaceError::InvalidOp { ty: ty.into() });
            }
        };
        let shadowed: Vec<u64> = match op {
            None => Vec::new(),
            Some(_) if self.partial => {
                return Err(SurfaceError::NotCached);
            }
            Some((start, end)) => {
                let s = self
                    .nodes
                    .iter()
                    .position(|n| *n == start)
                    .ok_or(SurfaceError::StartNotFound { start })?;
                let e = self
                    .nodes
                    .iter()
                    .position(|n| *n == end)
                    .ok_or(SurfaceError::EndNotFound { end })?;
                if s > e {
                    return Err(SurfaceError::StartAfterEnd { start, end });
                }
                self.nodes[s..=e].to_vec()
            }
        };
        // sourceEventSeqs: dense, unique, earlier, covering every shadowed node.
        let mut sources = std::collections::HashSet::new();
        if let Some(raw) = ev.get("sourceEventSeqs") {
            let Jv::Arr(items) = raw else {
                return Err(SurfaceError::SourcesNotArray { seq });
            };
            if items.is_empty() && ty != "assistant/message" {
                return Err(SurfaceError::SourcesEmpty);
            }
            let mut later = false;
            for item in items {
                let Some(s) = event_seq(item) else {
                    return Err(SurfaceError::SourcesNotDense { ty: ty.into() });
                };
                later |= s >= seq;
                sources.insert(s);
            }
            if sources.len() != items.len() {
                return Err(SurfaceError::SourcesDuplicated);
            }
            if later {
                return Err(SurfaceError::SourcesNotEarlier { seq });
            }
        }
        if shadowed.iter().any(|s| !sources.contains(s)) {
            return Err(SurfaceError::SourcesMissShadowed);
        }
        if ty == "tool/result" {
            let rest = tool_result_rest(&ev["data"], &self.keys);
            if op.is_some() {
                let [original] = shadowed.as_slice() else {
                    return Err(SurfaceError::ToolResultNotOne);
                };
                match self.tool_results.get(original) {
                    None => {
                        return Err(SurfaceError::ToolResultNotTarget);
                    }
                    Some(r) if *r != rest => {
                        return Err(SurfaceError::ToolResultChanged);
                    }
                    Some(_) => {}
                }
            }
            self.tool_results.insert(seq, rest);
        }
        match op {
            None => self.nodes.push(seq),
            Some((start, end)) => {
                let s = self.nodes.iter().position(|n| *n == start).unwrap_or(0);
                let e = self.nodes.iter().position(|n| *n == end).unwrap_or(s);
                self.nodes.splice(s..=e, [seq]);
            }
        }
        for gone in &shadowed {
            if *gone != seq {
                self.tool_results.remove(gone);
            }
        }
        Ok(())
    }
}

/// A surface event DSH refuses (generation 1 on); its text is rc.8's own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SurfaceError {
    #[error("session event \"{ty}\" is surface-eligible and requires a surfaceOp marker")]
    MissingOp { ty: String },
    #[error("session event \"{ty}\" carries an invalid replace surfaceOp")]
    InvalidReplace { ty: String },
    #[error("session event \"{ty}\" carries an invalid surfaceOp")]
    InvalidOp { ty: String },
    #[error("surface history not cached; read the whole log")]
    NotCached,
    #[error("surface replace: start seq {start} not found in surface")]
    StartNotFound { start: u64 },
    #[error("surface replace: end seq {end} not found in surface")]
    EndNotFound { end: u64 },
    #[error("surface replace: start seq {start} is after end seq {end}")]
    StartAfterEnd { start: u64, end: u64 },
    #[error("sourceEventSeqs on event at seq {seq} must be an array when present")]
    SourcesNotArray { seq: u64 },
    #[error("sourceEventSeqs must not be empty except on assistant/message")]
    SourcesEmpty,
    #[error(
        "session event \"{ty}\" sourceEventSeqs must densely contain non-negative safe integers"
    )]
    SourcesNotDense { ty: String },
    #[error("sourceEventSeqs must not contain duplicates")]
    SourcesDuplicated,
    #[error("sourceEventSeqs must reference earlier events (seq {seq})")]
    SourcesNotEarlier { seq: u64 },
    #[error("surface replace: sourceEventSeqs must include every shadowed surface node")]
    SourcesMissShadowed,
    #[error("tool/result surface replacement must rewrite exactly one current node")]
    ToolResultNotOne,
    #[error("tool/result surface replacement must target a current tool/result")]
    ToolResultNotTarget,
    #[error("tool/result surface replacement may change only content")]
    ToolResultChanged,
}
