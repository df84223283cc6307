//! Another host's trees, drawn from the rows its daemon wrote to the hub
//! (`tree --fleet`): one block per tree under a line that says the host
//! and whether it is heard from, each agent indented under its parent
//! with its state, mode, last turn, pending messages and tokens, as
//! `tree` draws them on that host (the columns `tree` fits to the width).

use crate::operator::table::columns_into;
use crate::support::clock::{parse_rfc3339, since, when};
use serde_json::Value;
use std::sync::Arc;

/// What the view shows of one row, read leniently (a field of another
/// type reads as missing, as `tree` on that host would not have written
/// it): a host of 10,000 rows costs these fields, not their JSON values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drawn {
    id: Box<str>,
    name: Box<str>,
    parent: Option<Box<str>>,
    depth: usize,
    /// The few texts most rows share (a state, a mode, the tree's root)
    /// are held once a host (`Shared`).
    state: Arc<str>,
    mode: Arc<str>,
    /// `lastTurn`, when there is one.
    last: Option<LastTurn>,
    pending: Option<u64>,
    subtree_tokens: u64,
    label: Box<str>,
    root: Arc<str>,
}

/// `(turn, open, endingDetail, time)` of a row's `lastTurn`.
type LastTurn = (u64, bool, Option<Arc<str>>, Option<i64>);

/// Texts many rows of a host repeat, each held once.
#[derive(Default)]
struct Shared(std::collections::HashSet<Arc<str>>);

impl Shared {
    fn of(&mut self, text: &str) -> Arc<str> {
        if let Some(held) = self.0.get(text) {
            return held.clone();
        }
        let held: Arc<str> = Arc::from(text);
        self.0.insert(held.clone());
        held
    }
}

impl Drawn {
    fn sharing(row: &Value, shared: &mut Shared) -> Drawn {
        let text = |v: &Value| Box::<str>::from(v.as_str().unwrap_or(""));
        let last = &row["lastTurn"];
        Drawn {
            id: text(&row["id"]),
            name: text(&row["name"]),
            parent: row["parent"].as_str().map(Box::from),
            depth: usize::try_from(row["depth"].as_u64().unwrap_or(0)).unwrap_or(0),
            state: shared.of(row["state"].as_str().unwrap_or("")),
            mode: shared.of(row["mode"].as_str().unwrap_or("")),
            last: (!last.is_null()).then(|| {
                (
                    last["turn"].as_u64().unwrap_or(0),
                    last["open"] == true,
                    last["endingDetail"].as_str().map(|e| shared.of(e)),
                    last["time"].as_str().and_then(parse_rfc3339),
                )
            }),
            pending: row["pending"].as_u64(),
            subtree_tokens: row["subtreeTokens"].as_u64().unwrap_or(0),
            label: text(&row["label"]),
            root: shared.of(row["root"].as_str().unwrap_or("")),
        }
    }
}

/// A host's mirrored rows as the view reads them: each row parsed and
/// made a `Drawn` before the next, so no row's JSON value outlives it.
pub struct DrawnRows(pub Vec<Drawn>);

impl<'de> serde::Deserialize<'de> for DrawnRows {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Rows;
        impl<'de> serde::de::Visitor<'de> for Rows {
            type Value = DrawnRows;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array of session rows")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<DrawnRows, A::Error> {
                let mut rows = Vec::new();
                let mut shared = Shared::default();
                while let Some(row) = seq.next_element::<Value>()? {
                    rows.push(Drawn::sharing(&row, &mut shared));
                }
                Ok(DrawnRows(rows))
            }
        }
        d.deserialize_seq(Rows)
    }
}

/// The last turn as `tree` says it: `turn 3 open 5 s`, `completed 2 min ago`.
fn last_turn(row: &Drawn, now: i64) -> String {
    let Some((turn, open, ending, at)) = &row.last else {
        return "-".into();
    };
    if *open {
        return match at {
            Some(t) => format!("turn {turn} open {}", since(now, *t)),
            None => format!("turn {turn} open"),
        };
    }
    match (ending, at) {
        (Some(e), Some(t)) => format!("{e} {}", when(now, *t)),
        (Some(e), None) => e.to_string(),
        (None, _) => "no turns".into(),
    }
}

/// Each host but `me` as this host's daemon last mirrored it: a line that
/// names the host and whether it is heard from (the real clock `now`:
/// `live · last seen 3 s ago`, `unreachable · …`, `never heard from`), then
/// its trees (`display_now` for their times) fitted to `width`.
pub fn others(
    local: &super::local::Local,
    me: &str,
    now: i64,
    display_now: i64,
    width: usize,
) -> Result<Vec<String>, super::FleetError> {
    let beats = local.beats()?;
    let mut out = Vec::new();
    for (host, DrawnRows(rows)) in local.rows_of::<DrawnRows>()? {
        if host == me {
            continue;
        }
        let state = match beats.iter().find(|b| b.host == host).map(|b| b.time) {
            Some(seen) if super::local::live(seen, now) => {
                format!("live · last seen {}", when(now, seen))
            }
            Some(seen) => format!("unreachable · last seen {}", when(now, seen)),
            None => "never heard from".to_string(),
        };
        let trees = if rows.is_empty() {
            "(no sessions)".to_string()
        } else {
            render(&rows, display_now, Some(width))
        };
        out.push(format!("host {host} · {state}\n{trees}"));
    }
    Ok(out)
}

/// For each row (in pre-order), whether no later sibling follows it: one
/// pass from the end, keeping at each depth whether a later row there is
/// still a sibling (a shallower row in between ends that).
fn last_siblings(depths: impl DoubleEndedIterator<Item = usize> + ExactSizeIterator) -> Vec<bool> {
    let mut later_at: Vec<bool> = Vec::new();
    let mut last = vec![false; depths.len()];
    for (k, depth) in depths.enumerate().rev() {
        if later_at.len() <= depth {
            later_at.resize(depth + 1, false);
        }
        last[k] = !later_at[depth];
        later_at[depth] = true;
        later_at.truncate(depth + 1);
    }
    last
}

/// The trees of `rows` (one host's, in the order its daemon wrote them:
/// by key), each block under its root, fitted to `width`.
pub fn render(rows: &[Drawn], now: i64, width: Option<usize>) -> String {
    // Each tree in pre-order: a tree's members keep the order its root's
    // `tree --json` gave them, which the row's `root` and walk recover.
    let mut trees: Vec<(String, Vec<&Drawn>)> = Vec::new();
    let mut tree_of: std::collections::HashMap<&str, usize> = Default::default();
    for row in rows {
        let root = &*row.root;
        let k = *tree_of.entry(root).or_insert_with(|| {
            trees.push((root.to_string(), Vec::new()));
            trees.len() - 1
        });
        trees[k].1.push(row);
    }
    let head = [
        "NAME",
        "STATE",
        "MODE",
        "LAST TURN",
        "PENDING",
        "TOKENS",
        "LABEL",
    ];
    let mut out = String::new();
    for (root, members) in &mut trees {
        let ordered = preorder(root, members);
        let lasts = last_siblings(ordered.iter().map(|r| r.depth));
        // Each row's cells, made once for the widths and once for the
        // lines: a host of 100,000 rows holds one row's cells at a time.
        let rows = || {
            let mut continues: Vec<bool> = Vec::new();
            ordered.iter().zip(&lasts).map(move |(row, &last)| {
                let depth = row.depth;
                continues.resize(depth + 1, false);
                continues[depth] = !last;
                let mut name = String::new();
                if depth > 0 {
                    for more in &continues[1..depth] {
                        name.push_str(if *more { "│  " } else { "   " });
                    }
                    name.push_str(if last { "└─ " } else { "├─ " });
                }
                let full = &*row.name;
                name.push_str(crate::tree::name_path::last_step(full, &row.id));
                [
                    name,
                    row.state.to_string(),
                    row.mode.to_string(),
                    last_turn(row, now),
                    row.pending.map_or("?".into(), |n| n.to_string()),
                    row.subtree_tokens.to_string(),
                    row.label.replace('\n', " "),
                ]
            })
        };
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str("tree ");
        out.push_str(root);
        out.push('\n');
        columns_into(&mut out, &head, rows, width);
    }
    out
}

/// `members` of the tree rooted at `root` in pre-order, each parent before
/// its children, siblings in the order given (rows that reach no parent
/// among them come last, as they came).
fn preorder<'v>(root: &str, members: &[&'v Drawn]) -> Vec<&'v Drawn> {
    // Each parent's children, in the order given: one pass, not a scan of
    // every member for each one.
    let mut children: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (k, m) in members.iter().enumerate() {
        if let Some(parent) = m.parent.as_deref() {
            children.entry(parent).or_default().push(k);
        }
    }
    let mut out = Vec::with_capacity(members.len());
    let mut used = vec![false; members.len()];
    let mut stack: Vec<usize> = members
        .iter()
        .enumerate()
        .filter(|(_, m)| &*m.id == root)
        .map(|(k, _)| k)
        .collect();
    while let Some(k) = stack.pop() {
        if std::mem::replace(&mut used[k], true) {
            continue;
        }
        out.push(members[k]);
        if let Some(below) = children.get(&*members[k].id) {
            stack.extend(below.iter().rev().filter(|c| !used[**c]));
        }
    }
    out.extend(
        members
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(m, _)| *m),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The one-pass answer against the definition: the first later row no
    /// deeper than a row is shallower, or there is none.
    #[test]
    fn last_siblings_match_their_definition() {
        let shapes: &[&[u64]] = &[
            &[],
            &[0],
            &[0, 1, 1, 1],
            &[0, 1, 2, 2, 1, 2, 3, 1],
            &[0, 1, 2, 3, 4, 1],
            &[0, 1, 2, 1, 2, 2, 3, 3, 1, 0, 1],
        ];
        for depths in shapes {
            let rows = depths.iter().map(|d| usize::try_from(*d).unwrap());
            let want: Vec<bool> = (0..depths.len())
                .map(|k| {
                    depths[k + 1..]
                        .iter()
                        .find(|d| **d <= depths[k])
                        .is_none_or(|d| *d < depths[k])
                })
                .collect();
            assert_eq!(last_siblings(rows), want, "{depths:?}");
        }
    }

    #[test]
    fn a_hosts_rows_draw_as_its_tree() {
        let now = 1_800_000_000_000;
        let at = crate::support::clock::rfc3339(now - 120_000);
        let row = |id: &str, name: &str, parent: Option<&str>, depth: u64| {
            json!({
                "id": id, "name": name, "parent": parent, "depth": depth, "root": "r",
                "state": "idle", "mode": if depth == 0 { "root" } else { "continuable" },
                "lastTurn": {"turn": 1, "open": false, "ending": "completed",
                             "endingDetail": "completed", "time": at},
                "pending": 0, "subtreeTokens": 7, "label": "",
            })
        };
        // In key order, not tree order: the view puts parents first.
        let rows = [
            row("c2", "rev/chk", Some("c1"), 2),
            row("c1", "rev", Some("r"), 1),
            row("c3", "scout", Some("r"), 1),
            row("r", "lead", None, 0),
        ];
        let mut shared = Shared::default();
        let rows: Vec<Drawn> = rows
            .iter()
            .map(|r| Drawn::sharing(r, &mut shared))
            .collect();
        let text = render(&rows, now, None);
        let names: Vec<&str> = text
            .lines()
            .skip(2)
            .map(|l| l.split("  idle").next().unwrap().trim_end())
            .collect();
        assert_eq!(names, ["lead", "├─ rev", "│  └─ chk", "└─ scout"], "{text}");
        assert!(text.starts_with("tree r\nNAME"), "{text}");
        assert!(text.contains("completed 2 min ago"), "{text}");
    }
}
