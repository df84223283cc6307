//! Another host's trees, drawn from the rows its daemon wrote to the hub
//! (`tree --fleet`): one block per tree under a line that says the host
//! and whether it is heard from, each agent indented under its parent
//! with its state, mode, last turn, pending messages and tokens, as
//! `tree` draws them on that host (the columns `tree` fits to the width).

use crate::operator::table::columns;
use crate::support::clock::{parse_rfc3339, since, when};
use serde_json::Value;

/// The last turn as `tree` says it: `turn 3 open 5 s`, `completed 2 min ago`.
fn last_turn(row: &Value, now: i64) -> String {
    let last = &row["lastTurn"];
    if last.is_null() {
        return "-".into();
    }
    let at = last["time"].as_str().and_then(parse_rfc3339);
    if last["open"] == true {
        let turn = last["turn"].as_u64().unwrap_or(0);
        return match at {
            Some(t) => format!("turn {turn} open {}", since(now, t)),
            None => format!("turn {turn} open"),
        };
    }
    match (last["endingDetail"].as_str(), at) {
        (Some(e), Some(t)) => format!("{e} {}", when(now, t)),
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
    for (host, rows) in local.rows()? {
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

/// Whether no later sibling follows row `k` (rows in pre-order).
fn is_last(rows: &[&Value], k: usize) -> bool {
    let depth = rows[k]["depth"].as_u64().unwrap_or(0);
    rows[k + 1..]
        .iter()
        .map(|r| r["depth"].as_u64().unwrap_or(0))
        .find(|d| *d <= depth)
        .is_none_or(|d| d < depth)
}

/// The trees of `rows` (one host's, in the order its daemon wrote them:
/// by key), each block under its root, fitted to `width`.
pub fn render(rows: &[Value], now: i64, width: Option<usize>) -> String {
    // Each tree in pre-order: a tree's members keep the order its root's
    // `tree --json` gave them, which the row's `root` and walk recover.
    let mut trees: Vec<(String, Vec<&Value>)> = Vec::new();
    for row in rows {
        let root = row["root"].as_str().unwrap_or("").to_string();
        match trees.iter_mut().find(|(r, _)| *r == root) {
            Some((_, members)) => members.push(row),
            None => trees.push((root, vec![row])),
        }
    }
    let mut out = Vec::new();
    for (root, members) in &mut trees {
        let ordered = preorder(root, members);
        let mut lines = Vec::new();
        let mut continues: Vec<bool> = Vec::new();
        for (k, row) in ordered.iter().enumerate() {
            let depth = usize::try_from(row["depth"].as_u64().unwrap_or(0)).unwrap_or(0);
            let last = is_last(&ordered, k);
            continues.resize(depth + 1, false);
            continues[depth] = !last;
            let mut name = String::new();
            if depth > 0 {
                for more in &continues[1..depth] {
                    name.push_str(if *more { "│  " } else { "   " });
                }
                name.push_str(if last { "└─ " } else { "├─ " });
            }
            let full = row["name"].as_str().unwrap_or("");
            name.push_str(full.rsplit('/').next().unwrap_or(full));
            lines.push(vec![
                name,
                row["state"].as_str().unwrap_or("").to_string(),
                row["mode"].as_str().unwrap_or("").to_string(),
                last_turn(row, now),
                row["pending"]
                    .as_u64()
                    .map_or("?".into(), |n| n.to_string()),
                row["subtreeTokens"].as_u64().unwrap_or(0).to_string(),
                row["label"].as_str().unwrap_or("").replace('\n', " "),
            ]);
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
        out.push(format!("tree {root}\n{}", columns(&head, &lines, width)));
    }
    out.join("\n\n")
}

/// `members` of the tree rooted at `root` in pre-order, each parent before
/// its children, siblings in the order given (rows that reach no parent
/// among them come last, as they came).
fn preorder<'v>(root: &str, members: &[&'v Value]) -> Vec<&'v Value> {
    let mut out = Vec::with_capacity(members.len());
    let mut used = vec![false; members.len()];
    let mut stack: Vec<usize> = members
        .iter()
        .enumerate()
        .filter(|(_, m)| m["id"] == root)
        .map(|(k, _)| k)
        .collect();
    while let Some(k) = stack.pop() {
        if std::mem::replace(&mut used[k], true) {
            continue;
        }
        out.push(members[k]);
        let id = &members[k]["id"];
        let children: Vec<usize> = (0..members.len())
            .filter(|c| !used[*c] && members[*c]["parent"] == *id)
            .collect();
        stack.extend(children.into_iter().rev());
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
        let rows = vec![
            row("c2", "rev/chk", Some("c1"), 2),
            row("c1", "rev", Some("r"), 1),
            row("c3", "scout", Some("r"), 1),
            row("r", "lead", None, 0),
        ];
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
