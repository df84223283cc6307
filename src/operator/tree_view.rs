//! `tree`: every tree in the store drawn for people — one block per root
//! with the hierarchy indented, each agent's state, mode, last turn and
//! pending inbox — or as JSON with parent ids and depths. Roots with no
//! subagents fold into one summary line unless `--all`. Rows never wrap:
//! the view fits the width it is given, cutting names and labels.

use super::table::{cut_to, pad_to};
use crate::error::Result;
use crate::inbox::Inbox;
use crate::inbox::liveness::{LiveState, Liveness};
use crate::store::Store;
use crate::store::reader;
use crate::support::clock::{rfc3339, since, when};
use crate::support::json_out;
use crate::tree::Corpus;
use crate::tree::collate::sibling_order;
use crate::tree::names::{NameRef, Names};
use crate::tree::v2::{Activity, MemberKind, RowMode};
use serde_json::json;

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
    /// Its lock cannot be probed: maybe live.
    Unknown,
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
            State::Unknown => "unknown",
        }
    }

    pub fn is_problem(self) -> bool {
        matches!(
            self,
            State::Corrupt | State::Unsupported | State::Unavailable | State::Unknown
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
            (_, Liveness::Unknown) => State::Unknown,
            _ => State::Inactive,
        }
    }
}

/// One agent of a tree: its session by position in the store, its name
/// and label in its block's text (a row is 64 bytes, no allocation).
#[derive(Debug, Clone)]
pub struct TreeRow {
    /// The session's position in the store.
    pub index: u32,
    pub name: NameRef,
    /// The parent session's position.
    pub parent: Option<u32>,
    pub depth: u32,
    /// No later sibling follows (for drawing).
    pub last_sibling: bool,
    pub state: State,
    pub mode: RowMode,
    pub activity: Option<Box<Activity>>,
    /// Pending inbox messages; `None` when the inbox cannot be read.
    pub pending: Option<u32>,
    /// The tokens of the agent and every agent below it whose log could be
    /// read, and whether some log among them could not be.
    pub tokens: (u64, bool),
    pub label: Span,
}

/// Where a string is in a block's text.
#[derive(Debug, Clone, Copy, Default)]
pub struct Span {
    start: u32,
    len: u32,
}

impl Span {
    /// Append `s` to `text`; a text past 4 GiB keeps empty spans.
    fn push(text: &mut String, s: &str) -> Span {
        match (u32::try_from(text.len()), u32::try_from(s.len())) {
            (Ok(start), Ok(len)) if start.checked_add(len).is_some() => {
                text.push_str(s);
                Span { start, len }
            }
            _ => Span::default(),
        }
    }
}

/// One root and its agents, in pre-order.
#[derive(Debug, Clone)]
pub struct TreeBlock<'a> {
    pub root_id: &'a str,
    pub title: Option<String>,
    pub rows: Vec<TreeRow>,
    /// The rows' names and labels.
    text: String,
    /// The rows' names, held as steps.
    names: Names,
    store: &'a Store,
}

impl TreeBlock<'_> {
    pub fn text(&self, s: Span) -> &str {
        let start = s.start as usize;
        self.text
            .get(start..start + s.len as usize)
            .unwrap_or_default()
    }

    /// The session id at a row's position (its own or its parent's).
    pub fn id(&self, index: u32) -> &str {
        let sessions = &self.store.sessions;
        if (index as usize) < sessions.len() {
            sessions.id(index as usize)
        } else {
            ""
        }
    }
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
        let s = &store.sessions;
        sibling_order(s.created_at(*a), s.id(*a), s.created_at(*b), s.id(*b))
    });
    let mut out = Vec::new();
    for root in roots {
        let root_inspection = reader::inspect(&corpus.record(root).log()).ok();
        let walk = corpus.v2_walk(root, true);
        let mut rows: Vec<TreeRow> = Vec::with_capacity(walk.size_hint().1.unwrap_or(0));
        // Names and labels go to one text per block, not one allocation a
        // row: at 100,000 rows that is most of the view's memory.
        let mut text = String::new();
        let mut names = Names::default();
        // Members come in pre-order: a member's parent is on the path from
        // the root to the member before it.
        let mut path: Vec<(usize, u32)> = Vec::new();
        // Each member becomes its row as the walk hands it over: the
        // members are never all held beside the rows.
        for m in walk {
            let parent = (m.index != root)
                .then(|| corpus.parent_of(m.index))
                .flatten();
            let on_path = parent.and_then(|p| path.iter().rposition(|(i, _)| *i == p));
            let depth = if m.index == root {
                0
            } else if let Some(at) = on_path {
                path.truncate(at + 1);
                path[at].1.saturating_add(1)
            } else {
                let up = corpus
                    .ancestors(m.index)
                    .take_while(|a| a.as_ref().is_ok_and(|a| *a != root))
                    .count();
                u32::try_from(up).map_or(u32::MAX, |up| up.saturating_add(1))
            };
            path.push((m.index, depth));
            let activity = if m.index == root {
                root_inspection
                    .as_ref()
                    .map(|i| Box::new(Activity::of(i, corpus.live(root))))
            } else {
                m.activity
            };
            let name = names.take(&m.name);
            let label = match &m.kind {
                MemberKind::Continuable { label } => Span::push(&mut text, label),
                _ => Span::default(),
            };
            rows.push(TreeRow {
                index: position(m.index),
                parent: parent.map(position),
                depth,
                last_sibling: true,
                // A root log DSH itself could not reopen is a problem, not
                // an inactive root.
                state: if m.index == root && root_inspection.is_none() {
                    State::Unavailable
                } else {
                    State::of(&m.kind, m.live)
                },
                mode: m.kind.mode(),
                activity,
                pending: None,
                tokens: (0, false),
                label,
                name,
            });
        }
        drop(path);
        roll_up_tokens(&mut rows);
        // The inbox counts are independent file reads: in parallel.
        let pending = crate::support::parallel::par_map(&rows, |r| {
            Inbox::new(&corpus.store.sessions.dir(r.index as usize))
                .waiting_now()
                .ok()
                .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
        });
        for (r, p) in rows.iter_mut().zip(pending) {
            r.pending = p;
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
            text,
            names,
            store,
        });
    }
    Ok(out)
}

/// A session's position as a row holds it (a store of 4 billion sessions
/// does not fit in memory anyway).
fn position(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
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
        Some(a) if a.open_turn => format!("turn {} open {}", a.last_turn, since(now, a.turn_time)),
        Some(Activity {
            last_ending: Some(e),
            turn_time,
            ..
        }) => format!("{} {}", e.describe(), when(now, *turn_time)),
        Some(_) => "no turns".into(),
    }
}

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

/// Each row's subtree total: rows are in pre-order, so a row's subtree is
/// the rows after it that are deeper, and each adds itself to the rows
/// still open above it. Before any filter drops rows: a total counts them.
fn roll_up_tokens(rows: &mut [TreeRow]) {
    let own: Vec<(u64, bool)> = rows
        .iter()
        .map(|r| {
            r.activity
                .as_ref()
                .map_or((0, true), |a| (a.tokens().total(), false))
        })
        .collect();
    for (r, t) in rows.iter_mut().zip(&own) {
        r.tokens = *t;
    }
    let mut open: Vec<usize> = Vec::new();
    for k in 0..rows.len() {
        let depth = rows[k].depth;
        while open.last().is_some_and(|a| rows[*a].depth >= depth) {
            open.pop();
        }
        for a in &open {
            let (sum, partial) = rows[*a].tokens;
            rows[*a].tokens = (sum + own[k].0, partial || own[k].1);
        }
        open.push(k);
    }
}

/// A TOKENS cell: the known total, `+` when some log at or below the row
/// could not be read, `?` when nothing was read.
fn tokens_text(r: &TreeRow) -> String {
    match r.tokens {
        (0, true) if r.activity.is_none() => "?".to_string(),
        (n, partial) => format!(
            "{}{}",
            crate::store::usage::short(n),
            if partial { "+" } else { "" }
        ),
    }
}

/// The columns; TOKENS is left out with `--no-usage`, and for a tree none
/// of whose agents used a token.
const HEAD: [&str; 7] = [
    "NAME",
    "STATE",
    "MODE",
    "LAST TURN",
    "PENDING",
    "TOKENS",
    "LABEL",
];

/// The view for people, fitted to `width` columns, handed to `out` piece
/// by piece: a store's whole view is never held as one text (at 100,000
/// sessions it is 10 MB).
pub fn render_to(
    blocks: &[TreeBlock],
    all: bool,
    usage: bool,
    width: usize,
    now: i64,
    out: &mut dyn FnMut(&str),
) {
    let (full, bare): (Vec<&TreeBlock>, Vec<&TreeBlock>) =
        blocks.iter().partition(|b| all || b.rows.len() > 1);
    if full.is_empty() && bare.is_empty() {
        return out("(no sessions)");
    }
    for (n, b) in full.iter().enumerate() {
        if n > 0 {
            out("\n\n");
        }
        let title = match &b.title {
            Some(t) => format!("tree {} · {}", b.root_id, t.replace('\n', " ")),
            None => format!("tree {}", b.root_id),
        };
        out(&cut_to(&title, width));
        fit(b, width, usage, now, out);
    }
    if !bare.is_empty() {
        let ids: Vec<&str> = bare.iter().map(|b| b.root_id).collect();
        let line = format!(
            "{} session(s) without subagents (--all lists them): {}",
            ids.len(),
            ids.join(", ")
        );
        if !full.is_empty() {
            out("\n\n");
        }
        out(&cut_to(&line, width));
    }
}

/// A row's cells, made when needed and never all held at once.
fn cells(
    b: &TreeBlock,
    r: &TreeRow,
    branches: &mut Branches,
    short: &ShortIds,
    usage: bool,
    now: i64,
) -> Vec<String> {
    // The drawing shows the path; a row names its last step, and an
    // unnamed member its id's shortest unique prefix (which every command
    // that takes an agent accepts), not a cut id.
    let mut name = String::new();
    branches.next(r, &mut name);
    let step = b.names.step(r.name);
    if step == b.id(r.index) {
        name.push_str(short.prefix(step));
    } else {
        name.push_str(step);
    }
    let mut c = vec![
        name,
        r.state.as_str().to_string(),
        r.mode.as_str().to_string(),
        last_text(r.activity.as_deref(), now),
        pending_text(r),
    ];
    if usage {
        c.push(tokens_text(r));
    }
    c.push(b.text(r.label).replace('\n', " "));
    c
}

/// The shortest unique prefixes of the store's long ids, for the rows of
/// unnamed members: at least 8 characters, and ids of 12 or fewer shown
/// whole. Empty when every member has a name.
struct ShortIds<'a> {
    /// The store's sessions by position, in id order (4 bytes a session).
    sorted: Vec<u32>,
    store: &'a Store,
}

impl<'a> ShortIds<'a> {
    fn new(block: &TreeBlock<'a>) -> ShortIds<'a> {
        let unnamed = block
            .rows
            .iter()
            .any(|r| block.names.step(r.name) == block.id(r.index));
        let s = &block.store.sessions;
        let mut sorted: Vec<u32> = if unnamed {
            (0..s.len()).map(position).collect()
        } else {
            Vec::new()
        };
        sorted.sort_unstable_by(|a, b| s.id(*a as usize).cmp(s.id(*b as usize)));
        ShortIds {
            sorted,
            store: block.store,
        }
    }

    fn id(&self, k: usize) -> &'a str {
        self.store.sessions.id(self.sorted[k] as usize)
    }

    fn prefix<'s>(&self, id: &'s str) -> &'s str {
        if id.chars().count() <= 12 {
            return id;
        }
        let common = |other: &str| {
            id.bytes()
                .zip(other.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        };
        let at = self
            .sorted
            .partition_point(|&p| self.store.sessions.id(p as usize) < id);
        let before = at.checked_sub(1).map_or(0, |k| common(self.id(k)));
        let same = at < self.sorted.len() && self.id(at) == id;
        let next = at + usize::from(same);
        let after = if next < self.sorted.len() {
            common(self.id(next))
        } else {
            0
        };
        let mut n = before.max(after).saturating_add(1).max(8);
        while n < id.len() && !id.is_char_boundary(n) {
            n += 1;
        }
        &id[..n.min(id.len())]
    }
}

/// A column of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Name,
    State,
    Mode,
    Last,
    Pending,
    Tokens,
    Label,
}

/// The widths the columns get in `width` terminal columns, from the widest
/// cell of each (`natural`, in `cols` order; two spaces between columns).
/// When they do not all fit, in this order: a long last-turn text is cut
/// to 24, the name to 32, the label to 16; then the label, the mode and
/// the tokens are left out; then the last turn is cut to 20 and the name
/// to 12; what is still too wide is cut at the line's end. `None` is a column left out.
fn layout(cols: &[Col], natural: &[usize], width: usize) -> Vec<Option<usize>> {
    let mut w: Vec<Option<usize>> = natural.iter().map(|n| Some(*n)).collect();
    let total = |w: &[Option<usize>]| {
        let kept: Vec<usize> = w.iter().flatten().copied().collect();
        kept.iter().sum::<usize>() + 2 * kept.len().saturating_sub(1)
    };
    let at = |c: Col| cols.iter().position(|k| *k == c);
    let shrink = |w: &mut Vec<Option<usize>>, c: Col, min: usize| {
        let over = total(w).saturating_sub(width);
        if let Some(k) = at(c)
            && let Some(cur) = w[k]
            && over > 0
        {
            w[k] = Some(cur.saturating_sub(over).max(min.min(cur)));
        }
    };
    let drop = |w: &mut Vec<Option<usize>>, c: Col| {
        if total(w) > width
            && let Some(k) = at(c)
        {
            w[k] = None;
        }
    };
    shrink(&mut w, Col::Last, 24);
    shrink(&mut w, Col::Name, 32);
    shrink(&mut w, Col::Label, 16);
    drop(&mut w, Col::Label);
    drop(&mut w, Col::Mode);
    drop(&mut w, Col::Tokens);
    shrink(&mut w, Col::Last, 20);
    shrink(&mut w, Col::Name, 12);
    w
}

/// How wide a last-turn cell can grow as the clock moves (its time at its
/// widest: `on 2026-12-01`, `since 2026-12-01`), so a watched view or a
/// golden file keeps its layout.
fn last_bound(a: Option<&Activity>) -> usize {
    match a {
        None => 1,
        Some(a) if a.open_turn => format!("turn {} open ", a.last_turn).chars().count() + 16,
        Some(Activity {
            last_ending: Some(e),
            ..
        }) => e.describe().chars().count() + " on 2026-12-01".len(),
        Some(_) => "no turns".len(),
    }
}

/// A block's header and rows, each line after a newline: columns padded
/// to their widest cell (found in a first pass) and fitted to `width` by
/// `layout`; no row exceeds `width`. A legend follows when a row shows
/// messages held in DSH's own inbox.
fn fit(block: &TreeBlock, width: usize, usage: bool, now: i64, out: &mut dyn FnMut(&str)) {
    // A tree whose agents reported no tokens (a store written without a
    // model, or before DSH recorded usage) keeps the name room it had.
    let usage = usage && block.rows.iter().any(|r| r.tokens.0 > 0);
    let cols: Vec<Col> = [
        Col::Name,
        Col::State,
        Col::Mode,
        Col::Last,
        Col::Pending,
        Col::Tokens,
        Col::Label,
    ]
    .into_iter()
    .filter(|c| usage || *c != Col::Tokens)
    .collect();
    let head: Vec<String> = HEAD
        .iter()
        .filter(|h| usage || **h != "TOKENS")
        .map(|h| h.to_string())
        .collect();
    let short = ShortIds::new(block);
    let mut natural: Vec<usize> = head.iter().map(|h| h.len()).collect();
    let mut branches = Branches::default();
    let mut native = false;
    for r in &block.rows {
        for (k, cell) in cells(block, r, &mut branches, &short, usage, now)
            .iter()
            .enumerate()
        {
            let n = if cols[k] == Col::Last {
                last_bound(r.activity.as_deref())
            } else {
                cell.chars().count()
            };
            natural[k] = natural[k].max(n);
        }
        native |= r.activity.as_ref().is_some_and(|a| a.native_pending > 0);
    }
    let w = layout(&cols, &natural, width);
    let shown: Vec<(usize, usize)> = w
        .iter()
        .enumerate()
        .filter_map(|(k, w)| w.map(|w| (k, w)))
        .collect();
    // Each line is written after its newline.
    let line = |c: &[String], buf: &mut String| {
        buf.truncate(1);
        for (n, (k, w)) in shown.iter().enumerate() {
            if n > 0 {
                buf.push_str("  ");
            }
            buf.push_str(&pad_to(&cut_to(&c[*k], *w), *w));
        }
        let kept = 1 + buf[1..].trim_end().len();
        buf.truncate(kept);
        if buf[1..].chars().count() > width {
            let cut = cut_to(&buf[1..], width);
            buf.truncate(1);
            buf.push_str(&cut);
        }
    };
    let mut buf = String::from("\n");
    line(&head, &mut buf);
    out(&buf);
    let mut branches = Branches::default();
    for r in &block.rows {
        line(
            &cells(block, r, &mut branches, &short, usage, now),
            &mut buf,
        );
        out(&buf);
    }
    if native {
        out("\n");
        out(&cut_to(
            "PENDING n+md: n queued here, m in DSH's own inbox (parked: after an abort)",
            width,
        ));
    }
}

/// The trees as JSON, handed to `out` a member at a time: at 100,000
/// members one `Value` of the whole view was most of a command's memory.
pub fn json_to(blocks: &[TreeBlock], out: &mut dyn FnMut(&str)) {
    json_out::array_with(blocks, out, |b, out| {
        out(&format!(
            "{{\"root\":{},\"title\":{},\"members\":",
            json_out::text(&b.root_id),
            json_out::text(&b.title)
        ));
        let members = b.rows.iter().map(|r| {
            json!({
                "id": b.id(r.index),
                "name": b.names.name(r.name),
                "parent": r.parent.map(|p| b.id(p)),
                "depth": r.depth,
                "state": r.state.as_str(),
                "mode": r.mode.as_str(),
                // An open turn has no ending yet (the last ending is an
                // earlier turn's): null, not that turn's word.
                "lastTurn": r.activity.as_ref().map(|a| {
                    let ended = a.last_ending.as_ref().filter(|_| !a.open_turn);
                    json!({
                        "turn": a.last_turn,
                        "open": a.open_turn,
                        "ending": ended.map(|e| e.word()),
                        "endingDetail": ended.map(|e| e.describe()),
                        "time": rfc3339(a.turn_time),
                    })
                }),
                "pending": r.pending,
                "tokens": r.activity.as_ref().map(|a| a.tokens()),
                "subtreeTokens": r.tokens.0,
                "subtreeTokensPartial": r.tokens.1,
                "pendingDsh": r.activity.as_ref().map(|a| a.native_pending),
                "parkedDsh": r.activity.as_ref().map(|a| a.native_parked),
                "label": b.text(r.label),
            })
        });
        json_out::array_to(members, out);
        out("}");
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_gives_way_in_order() {
        use Col::*;
        let cols = [Name, State, Mode, Last, Pending, Tokens, Label];
        // NAME 14, STATE 11, MODE 11, LAST 31, PENDING 7, TOKENS 6, LABEL 30.
        let natural = [14, 11, 11, 31, 7, 6, 30];
        // 110 columns of cells and 12 of separators.
        let table: &[(usize, [Option<usize>; 7])] = &[
            (
                200,
                [
                    Some(14),
                    Some(11),
                    Some(11),
                    Some(31),
                    Some(7),
                    Some(6),
                    Some(30),
                ],
            ),
            // The last turn gives way first, down to 24, then the label.
            (
                118,
                [
                    Some(14),
                    Some(11),
                    Some(11),
                    Some(27),
                    Some(7),
                    Some(6),
                    Some(30),
                ],
            ),
            (
                102,
                [
                    Some(14),
                    Some(11),
                    Some(11),
                    Some(24),
                    Some(7),
                    Some(6),
                    Some(17),
                ],
            ),
            // A label that would get under 16 is left out, then the mode,
            // then the tokens.
            (
                100,
                [
                    Some(14),
                    Some(11),
                    Some(11),
                    Some(24),
                    Some(7),
                    Some(6),
                    None,
                ],
            ),
            (
                80,
                [Some(14), Some(11), None, Some(24), Some(7), Some(6), None],
            ),
            (
                65,
                [Some(14), Some(11), None, Some(24), Some(7), None, None],
            ),
            // Then the last turn down to 20, the name down to 12.
            (
                60,
                [Some(14), Some(11), None, Some(22), Some(7), None, None],
            ),
            (
                50,
                [Some(12), Some(11), None, Some(20), Some(7), None, None],
            ),
        ];
        for (width, want) in table {
            assert_eq!(layout(&cols, &natural, *width), want.to_vec(), "{width}");
        }
    }

    #[test]
    fn last_turn_room_does_not_move_with_the_clock() {
        use crate::store::conversation::Ending;
        let a = |ending: Ending, open: bool| Activity {
            last_turn: 3,
            open_turn: open,
            last_ending: Some(ending),
            turn_time: 0,
            native_pending: 0,
            native_parked: false,
            usage: Default::default(),
        };
        let day = 86_400_000;
        for (act, t) in [
            (a(Ending::Completed, false), 0),
            (a(Ending::Aborted("parent".into()), false), 0),
            (a(Ending::Completed, true), 0),
        ] {
            let bound = last_bound(Some(&act));
            for now in [t, t + 999, t + 59_000, t + 3 * day, t + 30 * day, t - day] {
                let text = last_text(Some(&act), now);
                assert!(text.chars().count() <= bound, "{text:?} > {bound}");
            }
        }
    }
}
