//! `tree`: an operator's table of every tree in the store (or one). The
//! table never depends on the terminal: fixed layout, no colour.

use crate::collate::sibling_order;
use crate::error::Result;
use crate::store::Store;
use crate::tree::Corpus;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};
use serde_json::{Value, json};

/// One row of the view.
#[derive(Debug, Clone)]
pub struct TreeRow {
    pub name: String,
    pub status: String,
    pub mode: &'static str,
    pub session: String,
    /// Pending inbox messages; `None` when the inbox cannot be read.
    pub pending: Option<usize>,
    pub created: i64,
    pub label: String,
}

/// Rows of every tree (roots in sibling order), or of the tree holding `only`.
pub fn rows(store: &Store, only: Option<usize>) -> Result<Vec<Vec<TreeRow>>> {
    let corpus = Corpus::new(store);
    let mut roots: Vec<usize> = match only {
        Some(i) => vec![corpus.root_of(i)?],
        None => (0..store.sessions.len())
            .filter(|i| !store.sessions[*i].header.origin_subagent)
            .collect(),
    };
    roots.sort_by(|a, b| {
        let (a, b) = (&store.sessions[*a].header, &store.sessions[*b].header);
        sibling_order(a.created_at, &a.id, b.created_at, &b.id)
    });
    Ok(roots
        .into_iter()
        .map(|root| {
            corpus
                .v2_tree(root)
                .into_iter()
                .map(|m| {
                    let h = &store.sessions[m.index].header;
                    let label = match &m.kind {
                        crate::tree::MemberKind::Continuable { label } => label.clone(),
                        _ => String::new(),
                    };
                    TreeRow {
                        name: m.name.clone(),
                        status: m.status().to_string(),
                        mode: m.kind.mode(),
                        session: h.id.clone(),
                        pending: crate::inbox::Inbox::new(&store.sessions[m.index].dir)
                            .pending_now()
                            .ok(),
                        created: h.created_at,
                        label,
                    }
                })
                .collect()
        })
        .collect())
}

pub fn render(trees: &[Vec<TreeRow>]) -> String {
    if trees.is_empty() {
        return "(no sessions)".to_string();
    }
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .force_no_tty();
    table.set_header(vec![
        "NAME", "STATUS", "MODE", "SESSION", "PENDING", "CREATED", "LABEL",
    ]);
    for rows in trees {
        for r in rows {
            // Labels may hold newlines; a table cell shows them escaped.
            let label = r.label.replace('\n', "\\n");
            table.add_row(vec![
                r.name.clone(),
                r.status.clone(),
                r.mode.to_string(),
                r.session.clone(),
                r.pending.map_or("?".to_string(), |n| n.to_string()),
                r.created.to_string(),
                label,
            ]);
        }
    }
    table.to_string()
}

pub fn json(trees: &[Vec<TreeRow>]) -> Value {
    Value::Array(
        trees
            .iter()
            .map(|rows| {
                Value::Array(
                    rows.iter()
                        .map(|r| json!({"name":r.name,"status":r.status,"mode":r.mode,"session":r.session,"pending":r.pending,"createdAt":r.created,"label":r.label}))
                        .collect(),
                )
            })
            .collect(),
    )
}
