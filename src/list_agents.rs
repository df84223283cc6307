//! `list_agents`: argument validation, semantics and the byte-exact rendered
//! text of both contracts (DESIGN §5).

use crate::descriptor::Mode;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::tree::{Corpus, Member, MemberKind, V1Row, resolve_v1};
use serde_json::{Value, json};

/// The v1 `scope` argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Children,
    Descendants,
}

impl Scope {
    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "children" => Some(Scope::Children),
            "descendants" => Some(Scope::Descendants),
            _ => None,
        }
    }
}

/// Validate raw `list_agents` arguments the way rc.8's tool runtime does;
/// unknown keys are ignored.
pub fn scope_from_args(args: &Value) -> Result<Scope> {
    let Value::Object(map) = args else {
        return Err(Error::tool(
            "invalid arguments: \"arguments\" must be an object",
        ));
    };
    match map.get("scope") {
        None => Ok(Scope::Children),
        Some(Value::String(s)) => Scope::parse(s).ok_or_else(|| {
            Error::tool(
                "invalid arguments: \"scope\" must be one of [\"children\",\"descendants\"]",
            )
        }),
        Some(_) => Err(Error::tool("invalid arguments: \"scope\" must be a string")),
    }
}

/// One v1 entry as the tool returns it.
#[derive(Debug, Clone)]
pub struct V1Entry {
    pub row: V1Row,
    pub at: Option<(String, u64)>,
}

/// rc.8 `list_agents` for `caller`.
pub fn list_v1(store: &Store, caller: &str, scope: Scope) -> Vec<V1Entry> {
    let corpus = Corpus::new(store);
    let positions = match scope {
        Scope::Children => corpus.v1_children(caller),
        Scope::Descendants => corpus.v1_descendants(caller),
    };
    let rows = crate::parallel::par_map(&positions, |p| resolve_v1(store, p.index));
    positions
        .into_iter()
        .zip(rows)
        .filter_map(|(p, row)| {
            let row = row?;
            // One-shot children cannot be continued; the tool drops them.
            if let V1Row::Child { mode, .. } = &row
                && *mode != Mode::Continuable
            {
                return None;
            }
            let at = (scope == Scope::Descendants).then_some((p.parent, p.depth));
            Some(V1Entry { row, at })
        })
        .collect()
}

pub fn render_v1(entries: &[V1Entry]) -> String {
    if entries.is_empty() {
        return "(no subagents)".to_string();
    }
    entries
        .iter()
        .map(|e| {
            let at =
                e.at.as_ref()
                    .map(|(p, d)| format!(" parent={p} depth={d}"))
                    .unwrap_or_default();
            match &e.row {
                V1Row::Child {
                    id, label, status, ..
                } => {
                    format!("{id} [{status}]{at} — {}", label.as_deref().unwrap_or(""))
                }
                V1Row::Diagnostic { id, reason } => format!("{id} [diagnostic: {reason}]{at}"),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn json_v1(entries: &[V1Entry]) -> Value {
    Value::Array(
        entries
            .iter()
            .map(|e| {
                let mut v = match &e.row {
                    V1Row::Child { id, label, status, .. } => {
                        json!({"kind":"child","id":id,"label":label.as_deref().unwrap_or(""),"status":status})
                    }
                    V1Row::Diagnostic { id, reason } => json!({"kind":"diagnostic","id":id,"reason":reason}),
                };
                if let Some((p, d)) = &e.at {
                    v["parent"] = json!(p);
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
    pub status: &'static str,
    pub description: Option<String>,
}

pub fn v2_rows(members: &[Member]) -> Vec<V2Row> {
    members
        .iter()
        .filter(|m| m.kind.is_listed())
        .map(|m| V2Row {
            name: m.name.clone(),
            status: m.status(),
            description: match &m.kind {
                MemberKind::Root => Some("root agent".to_string()),
                MemberKind::Continuable { label } if !label.is_empty() => Some(label.clone()),
                _ => None,
            },
        })
        .collect()
}

/// Seed-001 `list_agents` for the tree holding `caller`.
pub fn list_v2(store: &Store, caller: usize) -> Result<Vec<V2Row>> {
    let corpus = Corpus::new(store);
    let root = corpus.root_of(caller)?;
    Ok(v2_rows(&corpus.v2_tree(root)))
}

pub fn render_v2(rows: &[V2Row]) -> String {
    rows.iter()
        .map(|r| match &r.description {
            Some(d) => format!("{} [{}] — {d}", r.name, r.status),
            None => format!("{} [{}]", r.name, r.status),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn json_v2(rows: &[V2Row]) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                let mut v = json!({"name": r.name, "status": r.status});
                if let Some(d) = &r.description {
                    v["description"] = json!(d);
                }
                v
            })
            .collect(),
    )
}
