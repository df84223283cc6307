//! `list_agents`: both contracts' semantics and their byte-exact rendered
//! text (DESIGN §5).

use super::Context;
use crate::error::Result;
use crate::store::descriptor::Mode;
use crate::tree::v1::V1Row;
use crate::tree::v2::{Member, MemberKind, V2Status};
use serde_json::{Value, json};

/// The v1 `scope` argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Children,
    Descendants,
}

impl Scope {
    pub const NAMES: &[&str] = &["children", "descendants"];

    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "children" => Some(Scope::Children),
            "descendants" => Some(Scope::Descendants),
            _ => None,
        }
    }
}

/// One v1 entry as the tool returns it.
#[derive(Debug, Clone)]
pub struct V1Entry {
    pub row: V1Row,
    pub at: Option<(std::sync::Arc<str>, u64)>,
}

/// rc.8 `list_agents` for the context's caller.
pub fn list_v1(cx: &Context, scope: Scope) -> Vec<V1Entry> {
    let corpus = &cx.corpus;
    let caller = cx.caller.id.as_str();
    let positions = match scope {
        Scope::Children => corpus.v1_children(caller),
        Scope::Descendants => corpus.v1_descendants(caller),
    };
    let entries = crate::support::parallel::par_map(&positions, |p| {
        let row = corpus.resolve_v1(p.index)?;
        // One-shot children cannot be continued; the tool drops them.
        if let V1Row::Child { mode, .. } = &row
            && *mode != Mode::Continuable
        {
            return None;
        }
        let at = (scope == Scope::Descendants).then(|| (p.parent.clone(), p.depth));
        Some(V1Entry { row, at })
    });
    corpus.store.release_glances();
    // Collected in place, so the kept entries reuse the buffer: std does
    // that through `filter_map`, not through `flatten`.
    #[allow(clippy::filter_map_identity)]
    entries.into_iter().filter_map(|e| e).collect()
}

pub fn render_v1(entries: &[V1Entry]) -> String {
    use std::fmt::Write;
    if entries.is_empty() {
        return "(no subagents)".to_string();
    }
    // Sized first: a text grown by doubling holds two buffers at once.
    let size: usize = entries
        .iter()
        .map(|e| {
            let label = match &e.row {
                V1Row::Child { id, label, .. } => {
                    id.len() + label.as_deref().map_or(0, str::len) + " [] — ".len() + 11
                }
                V1Row::Diagnostic { id, .. } => id.len() + " [diagnostic: ]".len() + 11,
            };
            label
                + e.at
                    .as_ref()
                    .map_or(0, |(p, _)| p.len() + " parent= depth=".len() + 20)
        })
        .sum();
    let mut out = String::with_capacity(size);
    for (n, e) in entries.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let _ = match &e.row {
            V1Row::Child { id, status, .. } => write!(out, "{id} [{}]", status.as_str()),
            V1Row::Diagnostic { id, reason } => {
                write!(out, "{id} [diagnostic: {}]", reason.as_str())
            }
        };
        if let Some((p, d)) = &e.at {
            let _ = write!(out, " parent={p} depth={d}");
        }
        if let V1Row::Child { label, .. } = &e.row {
            let _ = write!(out, " — {}", label.as_deref().unwrap_or(""));
        }
    }
    out
}

pub fn json_v1(entries: &[V1Entry]) -> Value {
    Value::Array(
        entries
            .iter()
            .map(|e| {
                let mut v = match &e.row {
                    V1Row::Child { id, label, status, .. } => {
                        json!({"kind":"child","id":id,"label":label.as_deref().unwrap_or(""),"status":status.as_str()})
                    }
                    V1Row::Diagnostic { id, reason } => {
                        json!({"kind":"diagnostic","id":id,"reason":reason.as_str()})
                    }
                };
                if let Some((p, d)) = &e.at {
                    v["parent"] = json!(&**p);
                    v["depth"] = json!(d);
                }
                v
            })
            .collect(),
    )
}

/// A listed v2 row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V2Row {
    pub name: String,
    pub status: V2Status,
    pub description: Option<String>,
}

/// The listed rows of a v2 tree (the members' strings move into them).
pub fn v2_rows(members: Vec<Member>) -> Vec<V2Row> {
    members
        .into_iter()
        .filter(|m| m.kind.is_listed())
        .map(|m| {
            let status = m.status();
            V2Row {
                name: m.name,
                status,
                description: match m.kind {
                    MemberKind::Root => Some("root agent".to_string()),
                    MemberKind::Continuable { label } if !label.is_empty() => Some(label),
                    _ => None,
                },
            }
        })
        .collect()
}

/// Seed-001 `list_agents`: the whole tree holding the caller.
pub fn list_v2(cx: &Context) -> Result<Vec<V2Row>> {
    Ok(v2_rows(cx.corpus.v2_tree(cx.root()?)))
}

pub fn render_v2(rows: &[V2Row]) -> String {
    use std::fmt::Write;
    // Sized first: a text grown by doubling holds two buffers at once.
    let size: usize = rows
        .iter()
        .map(|r| {
            r.name.len()
                + r.status.as_str().len()
                + r.description.as_ref().map_or(0, |d| d.len() + " — ".len())
                + 4
        })
        .sum();
    let mut out = String::with_capacity(size);
    for (n, r) in rows.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let _ = write!(out, "{} [{}]", r.name, r.status.as_str());
        if let Some(d) = &r.description {
            let _ = write!(out, " — {d}");
        }
    }
    out
}

pub fn json_v2(rows: &[V2Row]) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                let mut v = json!({"name": r.name, "status": r.status.as_str()});
                if let Some(d) = &r.description {
                    v["description"] = json!(d);
                }
                v
            })
            .collect(),
    )
}
