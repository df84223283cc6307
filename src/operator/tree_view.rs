//! `tree`: an operator's table of every tree in the store (or one). The
//! table never depends on the terminal: fixed layout, no colour.

use super::table::table;
use crate::error::Result;
use crate::inbox::Inbox;
use crate::tree::Corpus;
use crate::tree::collate::sibling_order;
use crate::tree::v2::MemberKind;
use serde_json::{Value, json};

/// One row of the view.
#[derive(Debug, Clone)]
pub struct TreeRow {
    pub name: String,
    pub status: &'static str,
    pub mode: &'static str,
    pub session: String,
    /// Pending inbox messages; `None` when the inbox cannot be read.
    pub pending: Option<usize>,
    pub created: i64,
    pub label: String,
}

/// Rows of every tree (roots in sibling order), or of the tree holding `only`.
pub fn rows(corpus: &Corpus, only: Option<usize>) -> Result<Vec<Vec<TreeRow>>> {
    let store = corpus.store;
    let mut roots: Vec<usize> = match only {
        Some(i) => vec![corpus.root_of(i)?],
        None => corpus.roots().collect(),
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
                    let rec = corpus.record(m.index);
                    let label = match &m.kind {
                        MemberKind::Continuable { label } => label.clone(),
                        _ => String::new(),
                    };
                    TreeRow {
                        name: m.name.clone(),
                        status: m.status().as_str(),
                        mode: m.kind.mode(),
                        session: rec.header.id.clone(),
                        pending: Inbox::new(&rec.dir).pending_now().ok(),
                        created: rec.header.created_at,
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
    let mut t = table(&[
        "NAME", "STATUS", "MODE", "SESSION", "PENDING", "CREATED", "LABEL",
    ]);
    for r in trees.iter().flatten() {
        // Labels may hold newlines; a table cell shows them escaped.
        t.add_row(vec![
            r.name.clone(),
            r.status.to_string(),
            r.mode.to_string(),
            r.session.clone(),
            r.pending.map_or("?".to_string(), |n| n.to_string()),
            r.created.to_string(),
            r.label.replace('\n', "\\n"),
        ]);
    }
    t.to_string()
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
