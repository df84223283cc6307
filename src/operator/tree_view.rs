//! `tree`: every tree in the store drawn for people — one block per root
//! with the hierarchy indented, each agent's state, mode, last turn and
//! pending inbox — or as JSON with parent ids and depths. Roots with no
//! subagents fold into one summary line unless `--all`. Rows never wrap:
//! the view fits the width it is given, cutting names and labels.

use super::table::{cut_to, pad_to};
use crate::error::Result;
use crate::inbox::Inbox;
use crate::inbox::liveness::{LiveState, Liveness};
use crate::store::reader;
use crate::support::clock::{human_duration, rfc3339};
use crate::tree::Corpus;
use crate::tree::collate::sibling_order;
use crate::tree::v2::{Activity, MemberKind};
use serde_json::{Value, json};
use std::collections::HashMap;

/// The width rows are fitted to when the output is not a terminal.
pub const PIPE_WIDTH: usize = 100;

/// An agent's state for the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// A resident process is mid-turn.
    Running,
    /// A resident process waits for input.
    Idle,
    Inactive,
    /// Live without a descriptor yet.
    Creating,
    /// A diagnostic: the log cannot be used.
    Corrupt,
    Unsupported,
    Unavailable,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Running => "running",
            State::Idle => "idle",
            State::Inactive => "inactive",
            State::Creating => "creating",
            State::Corrupt => "corrupt",
            State::Unsupported => "unsupported",
            State::Unavailable => "unavailable",
        }
    }

    pub fn is_problem(self) -> bool {
        matches!(
            self,
            State::Corrupt | State::Unsupported | State::Unavailable
        )
    }

    fn of(kind: &MemberKind, live: Liveness) -> State {
        match (kind, live) {
            (MemberKind::Corrupt, _) => State::Corrupt,
            (MemberKind::Unsupported, _) => State::Unsupported,
            (MemberKind::Unavailable, _) => State::Unavailable,
            (MemberKind::Creating, _) => State::Creating,
            (
                _,
                Liveness::Live {
                    state: LiveState::Running,
                },
            ) => State::Running,
            (_, Liveness::Live { .. }) => State::Idle,
            _ => State::Inactive,
        }
    }
}

/// One agent of a tree. Ids are borrowed from the store; the strings the
/// traversal made move in.
#[derive(Debug, Clone)]
pub struct TreeRow<'a> {
    pub id: &'a str,
    pub name: String,
    pub parent: Option<&'a str>,
    pub depth: u32,
    /// No later sibling follows (for drawing).
    pub last_sibling: bool,
    pub state: State,
    pub mode: &'static str,
    pub activity: Option<Box<Activity>>,
    /// Pending inbox messages; `None` when the inbox cannot be read.
    pub pending: Option<u32>,
    pub label: String,
}

/// One root and its agents, in pre-order.
#[derive(Debug, Clone)]
pub struct TreeBlock<'a> {
    pub root_id: &'a str,
    pub title: Option<String>,
    pub rows: Vec<TreeRow<'a>>,
}

/// Which rows to keep.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter {
    pub live: bool,
    pub problems: bool,
}

impl Filter {
    fn keeps(self, r: &TreeRow) -> bool {
        let live = matches!(r.state, State::Running | State::Idle);
        let problem = r.state.is_problem() || r.pending.is_none();
        (!self.live || live) && (!self.problems || problem)
    }

    fn any(self) -> bool {
        self.live || self.problems
    }
}

/// The trees of the store (roots in sibling order), or the one holding `only`.
pub fn blocks<'a>(
    corpus: &Corpus<'a>,
    only: Option<usize>,
    filter: Filter,
) -> Result<Vec<TreeBlock<'a>>> {
    let store = corpus.store;
    let mut roots: Vec<usize> = match only {
        Some(i) => vec![corpus.root_of(i)?],
        None => corpus.roots().collect(),
    };
    roots.sort_by(|a, b| {
        let (a, b) = (&store.sessions[*a].header, &store.sessions[*b].header);
        sibling_order(a.created_at, &a.id, b.created_at, &b.id)
    });
    let mut out = Vec::new();
    for root in roots {
        let members = corpus.v2_tree_with(root, true);
        let root_inspection = reader::inspect(&corpus.record(root).log()).ok();
        // The inbox counts are independent file reads: in parallel.
        let pending = crate::support::parallel::par_map(&members, |m| {
            Inbox::new(&corpus.record(m.index).dir())
                .pending_now()
                .ok()
                .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
        });
        // Members come in pre-order, so a parent's depth is known first.
        let mut depths: HashMap<usize, u32> = HashMap::with_capacity(members.len());
        depths.insert(root, 0);
        let mut rows: Vec<TreeRow> = Vec::with_capacity(members.len());
        for (m, pending) in members.into_iter().zip(pending) {
            let rec = corpus.record(m.index);
            let parent = (m.index != root)
                .then(|| corpus.parent_of(m.index))
                .flatten();
            let depth = if m.index == root {
                0
            } else {
                match parent.and_then(|p| depths.get(&p)) {
                    Some(d) => d.saturating_add(1),
                    None => {
                        let up = corpus
                            .ancestors(m.index)
                            .take_while(|a| a.as_ref().is_ok_and(|a| *a != root))
                            .count();
                        u32::try_from(up).map_or(u32::MAX, |up| up.saturating_add(1))
                    }
                }
            };
            depths.insert(m.index, depth);
            let activity = if m.index == root {
                root_inspection
                    .as_ref()
                    .map(|i| Box::new(Activity::of(i, corpus.live(root))))
            } else {
                m.activity
            };
            rows.push(TreeRow {
                id: &rec.header.id,
                parent: parent.map(|p| corpus.id(p)),
                depth,
                last_sibling: true,
                state: State::of(&m.kind, m.live),
                mode: m.kind.mode(),
                activity,
                pending,
                label: match m.kind {
                    MemberKind::Continuable { label } => label,
                    _ => String::new(),
                },
                name: m.name,
            });
        }
        if filter.any() {
            rows = keep_with_ancestors(rows, filter);
            if rows.is_empty() {
                continue;
            }
        }
        mark_last_siblings(&mut rows);
        out.push(TreeBlock {
            root_id: corpus.id(root),
            title: root_inspection.and_then(|i| i.title),
            rows,
        });
    }
    Ok(out)
}

/// Keep the rows the filter wants and the ancestors that lead to them.
fn keep_with_ancestors(rows: Vec<TreeRow>, filter: Filter) -> Vec<TreeRow> {
    let mut keep = vec![false; rows.len()];
    for i in 0..rows.len() {
        if filter.keeps(&rows[i]) {
            keep[i] = true;
            let mut depth = rows[i].depth;
            for j in (0..i).rev() {
                if rows[j].depth < depth {
                    keep[j] = true;
                    depth = rows[j].depth;
                }
            }
        }
    }
    rows.into_iter()
        .zip(keep)
        .filter_map(|(r, k)| k.then_some(r))
        .collect()
}

/// A row is its parent's last child when no later row of its depth comes
/// before a shallower one. One backward pass: `seen[d]` says a row of
/// depth `d` follows within the current parent.
fn mark_last_siblings(rows: &mut [TreeRow]) {
    let mut seen: Vec<bool> = Vec::new();
    for r in rows.iter_mut().rev() {
        let d = r.depth as usize;
        seen.resize(d + 1, false);
        r.last_sibling = !seen[d];
        seen[d] = true;
    }
}

/// The drawing before each row's name (`│  ├─ `), one row at a time in
/// order: in pre-order the nearest earlier row at a depth is the ancestor
/// there.
#[derive(Default)]
struct Branches {
    /// `continues[level]`: the ancestor at `level` has later siblings.
    continues: Vec<bool>,
}

impl Branches {
    fn next(&mut self, r: &TreeRow, out: &mut String) {
        let d = r.depth as usize;
        self.continues.resize(d + 1, false);
        self.continues[d] = !r.last_sibling;
        if d == 0 {
            return;
        }
        for more in &self.continues[1..d] {
            out.push_str(if *more { "│  " } else { "   " });
        }
        out.push_str(if r.last_sibling { "└─ " } else { "├─ " });
    }
}

fn last_text(a: Option<&Activity>, now: i64) -> String {
    match a {
        None => "-".into(),
        Some(a) if a.open_turn => format!(
            "turn {} open {}",
            a.last_turn,
            human_duration(now - a.turn_time)
        ),
        Some(Activity {
            last_ending: Some(e),
            turn_time,
            ..
        }) => format!("{} {} ago", e.describe(), human_duration(now - turn_time)),
        Some(_) => "no turns".into(),
    }
}

const LAST_WIDTH: usize = 24;

/// The sidecar count, then DSH's own (`2+1d`, `0+3d parked`).
fn pending_text(r: &TreeRow) -> String {
    let sidecar = r.pending.map_or("?".to_string(), |n| n.to_string());
    match &r.activity {
        Some(a) if a.native_pending > 0 => format!(
            "{sidecar}+{}d{}",
            a.native_pending,
            if a.native_parked { " parked" } else { "" }
        ),
        _ => sidecar,
    }
}

const HEAD: [&str; 6] = ["NAME", "STATE", "MODE", "LAST TURN", "PENDING", "LABEL"];

/// The view for people, fitted to `width` columns.
pub fn render(blocks: &[TreeBlock], all: bool, width: usize, now: i64) -> String {
    let (full, bare): (Vec<&TreeBlock>, Vec<&TreeBlock>) =
        blocks.iter().partition(|b| all || b.rows.len() > 1);
    if full.is_empty() && bare.is_empty() {
        return "(no sessions)".to_string();
    }
    let mut out = String::new();
    for (n, b) in full.iter().enumerate() {
        if n > 0 {
            out.push_str("\n\n");
        }
        let title = match &b.title {
            Some(t) => format!("tree {} · {}", b.root_id, t.replace('\n', " ")),
            None => format!("tree {}", b.root_id),
        };
        out.push_str(&cut_to(&title, width));
        fit(b, width, now, &mut out);
    }
    if !bare.is_empty() {
        let ids: Vec<&str> = bare.iter().map(|b| b.root_id).collect();
        let line = format!(
            "{} session(s) without subagents (--all lists them): {}",
            ids.len(),
            ids.join(", ")
        );
        if !full.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&cut_to(&line, width));
    }
    out
}

/// A row's six cells, made when needed and never all held at once.
fn cells(r: &TreeRow, branches: &mut Branches, now: i64) -> [String; 6] {
    // The drawing shows the path; a row names its last step.
    let mut name = String::new();
    branches.next(r, &mut name);
    name.push_str(r.name.rsplit('/').next().unwrap_or(&r.name));
    [
        name,
        r.state.as_str().to_string(),
        r.mode.to_string(),
        last_text(r.activity.as_deref(), now),
        pending_text(r),
        r.label.replace('\n', " "),
    ]
}

/// A block's header and rows, each line after a newline: columns padded
/// to their widest cell (found in a first pass), the name column capped
/// so the rest fits, the label taking what is left; no row exceeds `width`.
fn fit(block: &TreeBlock, width: usize, now: i64, out: &mut String) {
    let mut w: Vec<usize> = HEAD.iter().map(|h| h.len()).collect();
    let mut branches = Branches::default();
    for r in &block.rows {
        for (k, cell) in cells(r, &mut branches, now).iter().enumerate() {
            w[k] = w[k].max(cell.chars().count());
        }
    }
    // The last-turn column has a fixed width: relative times change as the
    // clock moves, and the layout (a watched view, a golden file) must not.
    w[3] = LAST_WIDTH;
    let fixed: usize = w[1] + w[2] + w[3] + w[4] + 2 * 5;
    let room = width.saturating_sub(fixed);
    // The name keeps at least 12 columns and leaves the label at least 16
    // where it can; the label takes what is left, down to nothing.
    w[0] = w[0].min(room.saturating_sub(16).max(12));
    w[5] = width.saturating_sub(fixed + w[0]);
    let line = |c: &[String; 6], buf: &mut String| {
        buf.clear();
        for k in 0..6 {
            if k > 0 {
                buf.push_str("  ");
            }
            if k == 5 {
                buf.push_str(&cut_to(&c[k], w[5]));
            } else {
                buf.push_str(&pad_to(&cut_to(&c[k], w[k]), w[k]));
            }
        }
        buf.truncate(buf.trim_end().len());
    };
    // The lines are made twice, to size the text first: a text grown by
    // doubling holds its old and new buffers at once.
    let mut buf = String::new();
    let mut lines = |mut each: Box<dyn FnMut(&str) + '_>| {
        line(&HEAD.map(str::to_string), &mut buf);
        each(&buf);
        let mut branches = Branches::default();
        for r in &block.rows {
            line(&cells(r, &mut branches, now), &mut buf);
            each(&buf);
        }
    };
    let mut total = 0;
    lines(Box::new(|l| total += l.len() + 1));
    out.reserve_exact(total);
    lines(Box::new(|l| {
        out.push('\n');
        out.push_str(l);
    }));
}

pub fn json(blocks: &[TreeBlock]) -> Value {
    Value::Array(
        blocks
            .iter()
            .map(|b| {
                json!({
                    "root": b.root_id,
                    "title": b.title,
                    "members": b.rows.iter().map(|r| json!({
                        "id": r.id,
                        "name": r.name,
                        "parent": r.parent,
                        "depth": r.depth,
                        "state": r.state.as_str(),
                        "mode": r.mode,
                        "lastTurn": r.activity.as_ref().map(|a| json!({
                            "turn": a.last_turn,
                            "open": a.open_turn,
                            "ending": a.last_ending.as_ref().map(|e| e.word()),
                            "endingDetail": a.last_ending.as_ref().map(|e| e.describe()),
                            "time": rfc3339(a.turn_time),
                        })),
                        "pending": r.pending,
                        "pendingDsh": r.activity.as_ref().map(|a| a.native_pending),
                        "parkedDsh": r.activity.as_ref().map(|a| a.native_parked),
                        "label": r.label,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}
